"""LDA on more features than samples: one wrapper step by rank-one updates.

A backward search (SBS, SBG+, RSA) on microarray data starts from thousands of features
with tens of samples, where the pooled covariance ``S = D^T D / dof`` of the samples
centred on their class means ``D`` (n, k) is singular and LDA uses its pseudo-inverse
(Xiao, Hua and Dougherty 2007, sec. 3: ``a = S^+ (m_1 - m_0)``). Through the samples'
Gram matrix ``G = D D^T`` (n x n), ``S^+ = dof D^T (G^+)^2 D`` (see
:func:`~stablefs.selectors.wrappers._error_estimators.wide_pinv_times`), so the
discriminant of a point ``x`` is

    ``a^T (x - m) = dof (D (x - m))^T (G^+)^2 (D delta)``,
    ``||a||^2 = dof^2 (D delta)^T (G^+)^3 (D delta)``

with ``m = (m_0 + m_1) / 2`` and ``delta = m_1 - m_0``. Removing feature ``j`` of the subset
(``sign = -1``) or adding a candidate ``j`` (``sign = +1``) changes ``G`` by ``sign d_j
d_j^T`` (``d_j`` its centred column), ``D delta`` by ``sign d_j delta_j`` and ``D (x - m)``
by ``sign d_j (x_j - m_j)``. While the rank stays ``dof = n - g`` (the centred rows of a
class sum to zero, so ``G`` has the class indicators as null space and ``d_j`` lies in its
range), the Sherman-Morrison formula on that range gives

    ``G_j^+ = G^+ + rho_j h_j h_j^T``,  ``h_j = G^+ d_j``,
    ``rho_j = -sign / (1 + sign d_j^T h_j)``,

and every quantity above becomes a few scalars per candidate over products computed once
per step: ``O(n^2 (k + m))`` for all ``m`` candidates, against ``O(m n^2 k)`` for refitting
LDA on each. The values equal the refits' to round-off (tested); a candidate whose update
cannot be shown to keep the rank with a margin is left to the refit. With more classes
(:func:`wide_class_step`) ``delta`` is replaced by each class mean ``m_c``: the scores
``x^T S^+ m_c - m_c^T S^+ m_c / 2 + log p_c`` are updated the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: a candidate's update is used only when the eigenvalue bound of the updated Gram matrix
#: clears the pseudo-inverse's cut-off (``PINV_RTOL`` times the largest) by this factor, so
#: that the refit would keep the same eigenvalues; otherwise the caller refits
RANK_MARGIN = 10.0


@dataclass
class WideGram:
    """``G^+`` of a wide subset's Gram matrix ``G = D D^T`` and the products that every
    candidate's update reads (built once per step by :func:`wide_gram`; the candidates are
    then updated a chunk at a time, so memory stays ``O(n m)`` for ``m`` of them).

    ``e = D V`` for the directions ``V`` (``delta`` for two classes, the class means for
    more), ``f = G^+ e``, ``f2 = G^+ f``; ``P`` the evaluation points' products with ``D``
    (two classes: ``(x - m) D^T``, one row per point)."""

    D: np.ndarray
    Gp: np.ndarray
    low: float
    top: float
    rtol: float
    e: np.ndarray
    f: np.ndarray
    f2: np.ndarray
    P: np.ndarray | None = None

    def update(self, Dj: np.ndarray, sign: int):
        """``H1 = G^+ D_j``, ``H2 = G^+ H1``, ``s = d_j^T G^+ d_j``, ``eta = |h_j|^2``, ``theta
        = h_j^T G^+ h_j``, Sherman-Morrison's ``rho`` and ``ok`` (the rank bound; ``rho = 0``
        where it fails) for the candidate columns ``Dj``."""
        H1 = self.Gp @ Dj                                     # h_j          (n, m)
        H2 = self.Gp @ H1                                     # G^+ h_j      (n, m)
        s = np.einsum("im,im->m", Dj, H1)                     # d_j^T G^+ d_j
        eta = np.einsum("im,im->m", H1, H1)                   # d_j^T G^+2 d_j
        theta = np.einsum("im,im->m", H1, H2)                 # d_j^T G^+3 d_j
        if sign < 0:  # lambda_min(G - d d^T) >= lambda_min(G) (1 - s); lambda_max only falls
            ok = self.low * (1.0 - s) > RANK_MARGIN * self.rtol * self.top
        else:         # lambda_min(G + d d^T) >= lambda_min(G); lambda_max <= top + |d|^2
            ok = self.low > RANK_MARGIN * self.rtol * (self.top
                                                       + np.einsum("im,im->m", Dj, Dj))
        rho = np.where(ok, -sign / np.where(ok, 1.0 + sign * s, 1.0), 0.0)
        return H1, H2, s, eta, theta, rho, ok


def wide_gram(D: np.ndarray, V: np.ndarray, rank: int, rtol: float,
              E: np.ndarray | None = None) -> WideGram | None:
    """:class:`WideGram` of the subset's centred training points ``D`` (n, k) and directions
    ``V`` (k,) or (k, g); ``E`` (n_eval, k) the evaluation points minus the midpoint of the
    class means (two classes). None when ``G`` does not have rank ``rank`` (``n - g``) under
    the pseudo-inverse's cut-off ``rtol`` (``PINV_RTOL``): every candidate is then refitted."""
    vals, U = np.linalg.eigh(D @ D.T)
    top = vals[-1]
    if not top > 0:
        return None
    keep = vals > rtol * top
    if int(np.count_nonzero(keep)) != rank:
        return None
    Uk = U[:, keep]
    Gp = (Uk / vals[keep]) @ Uk.T                             # G^+ (n, n)
    e = D @ V
    f = Gp @ e
    return WideGram(D, Gp, float(vals[keep][0]), float(top), rtol, e, f, Gp @ f,
                    None if E is None else E @ D.T)


@dataclass
class WideStep:
    """The updated discriminants of a step's candidates.

    For candidate ``j`` (column ``j``), with ``a_j`` the LDA direction on the subset after
    the step and ``m`` the midpoint of the class means there: ``projection[:, j] = a_j^T (x -
    m) / dof`` for every evaluation point ``x`` (rows), ``norm2[j] = ||a_j||^2 / dof^2``, and
    ``ok[j]`` False where the caller must refit (the other two columns are then meaningless)."""

    projection: np.ndarray
    norm2: np.ndarray
    ok: np.ndarray


def wide_step(gram: WideGram, Dj: np.ndarray, Ej: np.ndarray, delta_j: np.ndarray,
              sign: int) -> WideStep:
    """Candidates of one step of two-class LDA on a wide subset (module docstring).

    Parameters
    ----------
    gram : WideGram
        :func:`wide_gram` of the subset with ``V = delta = m_1 - m_0`` and ``E`` given.
    Dj, Ej, delta_j : ndarray of shapes (n, m), (n_eval, m), (m,)
        The candidates' columns of ``D``, of ``E`` and of ``delta`` (members of the subset for
        a removal).
    sign : {-1, +1}
        Remove (``-1``) or add (``+1``) each candidate.

    Returns
    -------
    WideStep
    """
    H1, H2, s, eta, theta, rho, ok = gram.update(Dj, sign)
    e, f, f2, P = gram.e, gram.f, gram.f2, gram.P
    beta, gamma, omega = H1.T @ e, H1.T @ f, H1.T @ f2    # d_j^T G^+{1,2,3} e
    phi = float(f @ f2)                                   # e^T G^+3 e
    c = rho * (beta - delta_j)            # G_j^+ e_j = f + c h
    w = rho * (gamma + c * eta)           # G_j^+2 e_j = f2 + c G^+ h + w h
    dt = gamma + c * eta + w * s          # d_j^T G_j^+2 e_j
    projection = (P @ H2) * c
    projection += (P @ H1) * w
    projection += sign * Ej * dt
    projection += (P @ f2)[:, None]
    norm2 = phi + c * omega + w * gamma + c * (omega + c * theta + w * eta)
    return WideStep(projection, norm2, ok)


@dataclass
class WideClassStep:
    """The pieces of every class's LDA score after each candidate's step (any number of
    classes): for a point ``z`` with ``P = z_S D^T`` over the subset ``S`` and ``z_j`` its
    candidate coordinate, ``z^T S_j^+ m_c / dof = (P F2)_c + C_cj (P H2)_j + W_cj (P H1)_j +
    sign z_j T_cj`` (:meth:`linear`) and ``m_c^T S_j^+ m_c / dof = Q_cj``
    (:meth:`constant`)."""

    F2: np.ndarray
    H1: np.ndarray
    H2: np.ndarray
    C: np.ndarray
    W: np.ndarray
    T: np.ndarray
    Q: np.ndarray
    sign: int
    ok: np.ndarray

    def linear(self, P, Zj) -> np.ndarray:
        """``z^T S_j^+ m_c / dof`` of the points with products ``P = Z_S D^T`` (rows) and
        candidate coordinates ``Zj`` (n_points, m); shape ``(n_points, g, m)``."""
        return ((P @ self.F2)[:, :, None] + self.C[None] * (P @ self.H2)[:, None]
                + self.W[None] * (P @ self.H1)[:, None] + self.sign * Zj[:, None, :] * self.T[None])

    def constant(self, dof, logp) -> np.ndarray:
        """``-m_c^T S_j^+ m_c / 2 + log p_c``, shape ``(g, m)``; a score is ``dof * linear +
        constant``."""
        return logp[:, None] - 0.5 * dof * self.Q


def wide_class_step(gram: WideGram, Dj: np.ndarray, Mj: np.ndarray,
                    sign: int) -> WideClassStep:
    """Candidates of one step of LDA with any number of classes on a wide subset (the module
    docstring with ``delta`` replaced by each class mean ``m_c``).

    Parameters
    ----------
    gram : WideGram
        :func:`wide_gram` of the subset with ``V`` its class means (k, g).
    Dj, Mj : ndarray of shapes (n, m), (m, g)
        The candidates' columns of ``D`` and their class means.
    sign : {-1, +1}
        Remove (``-1``) or add (``+1``) each candidate.

    Returns
    -------
    WideClassStep
    """
    H1, H2, s, eta, _, rho, ok = gram.update(Dj, sign)
    e, f = gram.e, gram.f                                  # (n, g)
    beta, gamma = (H1.T @ e).T, (H1.T @ f).T              # (g, m)
    C = rho * (beta - Mj.T)               # G_j^+ e_cj = f_c + C_cj h_j
    W = rho * (gamma + C * eta)           # G_j^+2 e_cj = F2_c + C_cj G^+ h_j + W_cj h_j
    T = gamma + C * eta + W * s           # d_j^T G_j^+2 e_cj
    Q = np.einsum("nc,nc->c", f, f)[:, None] + 2 * C * gamma + C * C * eta  # |G_j^+ e_cj|^2
    return WideClassStep(gram.f2, H1, H2, C, W, T, Q, sign, ok)
