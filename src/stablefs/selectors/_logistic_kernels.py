"""Compiled (Numba) kernels of penalised logistic regression: the loss gradient and FISTA.

:func:`stablefs.selectors.penalized_logistic.penalized_logistic` minimises, on standardised
features ``Z``, ``sum_i s_i l(y_i, W^T z_i + b) + lam (alpha ||W||_1 + (1 - alpha)/2 ||W||^2)``
by accelerated proximal gradient (FISTA, Beck and Teboulle 2009) with the gradient restart of
O'Donoghue and Candès (2015). Stability selection fits it hundreds of times on half-samples
of tens of samples and a few hundred working features, where each iteration is a few
microseconds of arithmetic: in NumPy and SciPy the calls around it (``logsumexp``,
``softmax``, the array API's dispatch) cost about a millisecond per iteration. Here the whole
iteration is one compiled loop:

- :func:`loss_gradient` -- ``R = (P - Y) * s`` with ``P`` the fitted probabilities (the
  logistic function for two classes, the softmax ``exp(eta - max) / sum exp(eta - max)`` for
  more, as :func:`scipy.special.expit` and :func:`scipy.special.softmax` compute them), then
  ``Z^T R`` and ``sum_i R_i`` (the products by BLAS);
- :func:`fista` -- the FISTA loop with the restart test and the optimality (KKT) check every
  ten iterations, the same operations in the same order as the NumPy loop it replaces; the
  sums of the restart test and of the intercept gradient run left to right (NumPy sums in
  pairs), so iterates agree with the NumPy loop to round-off, not bit for bit.

One thread (BLAS too: the caller limits it). Imported lazily by
:mod:`stablefs.selectors.penalized_logistic`; compiled code is cached on disk (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _residuals(Z, Y, s, W, b, binary):  # pragma: no cover - compiled
    # R = (P - Y) * s at eta = Z W + b (n x K), computed in place of eta
    R = np.dot(Z, W)
    n, K = R.shape
    for i in range(n):
        if binary:
            e = R[i, 0] + b[0]
            R[i, 0] = (1.0 / (1.0 + np.exp(-e)) - Y[i, 0]) * s[i]
        else:
            top = -np.inf
            for k in range(K):
                R[i, k] += b[k]
                if R[i, k] > top:
                    top = R[i, k]
            total = 0.0
            for k in range(K):
                R[i, k] = np.exp(R[i, k] - top)
                total += R[i, k]
            for k in range(K):
                R[i, k] = (R[i, k] / total - Y[i, k]) * s[i]
    return R


@njit(cache=True, nogil=True)
def loss_gradient(Z, Y, s, W, b, binary):  # pragma: no cover - compiled
    """Gradient of the weighted loss ``sum_i s_i l(y_i, W^T z_i + b)`` in ``W`` and in ``b``.

    Parameters
    ----------
    Z : ndarray (n, m), C order
    Y : ndarray (n, K)
        Indicators of the classes (two classes: one column, of the second class).
    s : ndarray (n,)
        Weights summing to 1.
    W : ndarray (m, K), C order
    b : ndarray (K,)
    binary : bool

    Returns
    -------
    gW : ndarray (m, K)
    gb : ndarray (K,)
    """
    R = _residuals(Z, Y, s, W, b, binary)
    gb = np.zeros(R.shape[1])
    for i in range(R.shape[0]):
        for k in range(R.shape[1]):
            gb[k] += R[i, k]
    return np.dot(Z.T, R), gb


@njit(cache=True, nogil=True)
def kkt_residual(Z, Y, s, binary, l1, l2, W, b):  # pragma: no cover - compiled
    """Largest violation of the optimality conditions of ``(W, b)``: ``|g_b|``; for a nonzero
    ``w``, ``|g + l2 w + l1 sign(w)|``; for a zero one, ``max(|g| - l1, 0)``."""
    gW, gb = loss_gradient(Z, Y, s, W, b, binary)
    worst = 0.0
    m, K = W.shape
    for j in range(m):
        for k in range(K):
            g = gW[j, k] + l2 * W[j, k]
            w = W[j, k]
            r = abs(g + l1 * np.sign(w)) if w != 0.0 else max(abs(g) - l1, 0.0)
            worst = max(worst, r)
    for k in range(K):
        worst = max(worst, abs(gb[k]))
    return worst


@njit(cache=True, nogil=True)
def fista(Z, Y, s, binary, l1, l2, stop, W, b, max_iter, step):  # pragma: no cover - compiled
    """FISTA with gradient restart from ``(W, b)``; returns ``(W, b, n_iter)``.

    Stops when the KKT residual (:func:`kkt_residual`, checked every 10 iterations) is at
    most ``stop``, or after ``max_iter`` iterations. ``step`` is ``1 / L`` for ``L`` the
    Lipschitz constant of the smooth part's gradient.
    """
    W = W.copy()
    b = b.copy()
    W_prev = W.copy()
    b_prev = b.copy()
    m, K = W.shape
    V = np.empty((m, K))
    c = np.empty(K)
    t = 1.0
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        t_next = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
        mom = (t - 1.0) / t_next
        for j in range(m):
            for k in range(K):
                V[j, k] = W[j, k] + mom * (W[j, k] - W_prev[j, k])
        for k in range(K):
            c[k] = b[k] + mom * (b[k] - b_prev[k])
        gW, gb = loss_gradient(Z, Y, s, V, c, binary)
        push = 0.0  # the restart test: momentum against the descent
        W_prev = W
        W = np.empty((m, K))
        for j in range(m):
            for k in range(K):
                u = V[j, k] - step * (gW[j, k] + l2 * V[j, k])
                w = np.sign(u) * max(abs(u) - step * l1, 0.0)
                W[j, k] = w
                push += (V[j, k] - w) * (w - W_prev[j, k])
        b_prev = b
        b = np.empty(K)
        for k in range(K):
            b[k] = c[k] - step * gb[k]
            push += (c[k] - b[k]) * (b[k] - b_prev[k])
        if push > 0.0:
            t_next = 1.0
        t = t_next
        if n_iter % 10 == 0 and kkt_residual(Z, Y, s, binary, l1, l2, W, b) <= stop:
            break
    return W, b, n_iter
