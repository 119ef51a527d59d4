"""The NumPy/SciPy penalised-logistic computation that the compiled kernels replaced
(``_loss_grad``, ``_kkt_residual`` and ``_fista`` of ``penalized_logistic`` before issue 36),
kept as the tests' reference."""

from __future__ import annotations

import numpy as np
from scipy.special import expit, softmax


def reference_gradient(Z, Y, s, W, b, binary):
    """The NumPy/SciPy gradient (``_loss_grad`` before the kernels)."""
    eta = Z @ W + b
    P = expit(eta) if binary else softmax(eta, axis=1)
    R = (P - Y) * s[:, None]
    return Z.T @ R, R.sum(axis=0)


def reference_kkt(Z, Y, s, binary, l1, l2, W, b):
    gW, gb = reference_gradient(Z, Y, s, W, b, binary)
    gW = gW + l2 * W
    r = np.where(W != 0, np.abs(gW + l1 * np.sign(W)), np.maximum(np.abs(gW) - l1, 0.0))
    return float(max(np.max(r, initial=0.0), np.max(np.abs(gb))))


def reference_fista(Z, Y, s, binary, l1, l2, lam, W, b, tol, max_iter, step):
    """The NumPy FISTA loop (``_fista`` before the kernels), with the given step."""
    W_prev, b_prev = W.copy(), b.copy()
    t = 1.0
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        t_next = (1 + np.sqrt(1 + 4 * t * t)) / 2
        mom = (t - 1) / t_next
        V = W + mom * (W - W_prev)
        c = b + mom * (b - b_prev)
        gW, gb = reference_gradient(Z, Y, s, V, c, binary)
        U = V - step * (gW + l2 * V)
        W_new = np.sign(U) * np.maximum(np.abs(U) - step * l1, 0.0)
        b_new = c - step * gb
        if np.sum((V - W_new) * (W_new - W)) + np.sum((c - b_new) * (b_new - b)) > 0:
            t_next = 1.0
        W_prev, b_prev, W, b, t = W, b, W_new, b_new, t_next
        if n_iter % 10 == 0 and reference_kkt(Z, Y, s, binary, l1, l2, W, b) <= tol * lam:
            break
    return W, b, n_iter


def reference_step(Z, s, binary, l2=0.0):
    """FISTA's step, 1 / the smooth part's Lipschitz constant (the weighted design with its
    intercept column; 1/4 for two classes, 1/2 for more, plus the ridge term)."""
    norm = np.linalg.norm(np.column_stack([Z * np.sqrt(s)[:, None], np.sqrt(s)]), 2) ** 2
    return 1.0 / ((0.25 if binary else 0.5) * norm + l2)


def reference_selected(X, y, index, Cs, tol, max_iter):
    """The features the NumPy FISTA selects (nonzero coefficients) at every C of ``Cs`` on the
    rows ``index`` (standardised there, equal weights, lasso, every feature, each penalty from
    zero): stability selection's fits before issue 36, as a bool array (len(Cs), p)."""
    classes = np.unique(y)
    binary = classes.size == 2
    m = index.size
    s = np.full(m, 1.0 / m)
    part = X[index]
    sd = part.std(0)
    Z = (part - part.mean(0)) / np.where(sd > 0, sd, np.inf)
    Y = (y[index][:, None] == (classes[1:] if binary else classes)[None, :]).astype(float)
    step = reference_step(Z, s, binary)
    chosen = []
    for C in Cs:
        lam = 1.0 / (C * m)
        W, _, _ = reference_fista(Z, Y, s, binary, lam, 0.0, lam,
                                  np.zeros((X.shape[1], Y.shape[1])), np.zeros(Y.shape[1]),
                                  tol, max_iter, step)
        chosen.append(np.any(W != 0, axis=1))
    return np.array(chosen)
