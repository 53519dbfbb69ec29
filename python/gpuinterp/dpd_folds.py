# SPDX-License-Identifier: GPL-3.0-or-later
"""The default choice of the ridge parameter, K-fold cross-validation over contiguous blocks of the
capture, in numpy: the reference (dpd_reference.fit) that the estimation engine's own
(``dpd_gram.fit_kfold``, used by every fit whose lambda is not given: ``dpd.estimate``, the loop's
estimator, ``fit_forward`` without a validation pair) is tested against. Its constants are the
engine's. The rule, from Gram sums only:

- the capture is cut into :data:`FOLDS` contiguous blocks; fold f fits every row except block f and
  the rows whose memory (or look-ahead) reads a sample of it, so the block is data the fit never saw;
- the block is scored *cold*: its basis run from a zero state, as the start of a new capture or a
  signal onset is. A held-out block that continued the capture's state could not see how the model
  answers inputs the capture never held, and on a band-limited capture the barely regularised fit
  (huge coefficients that cancel along the capture's correlated memory taps) scores best there and
  explodes on the first samples of the next signal: on OpenDPD's APA_200MHz it read -33 dB on the
  rows that continued the capture and +35 dB on the test split;
- lambda is the smallest grid value whose cold score is within :data:`TIE_DB` of the best. The
  cold score of a memory model carries the start-up error of its first rows whatever lambda is (the
  samples before the block are unknown to it), which a noiseless capture's exact model cannot
  reduce but regularisation can trade for bias; among values the held-out data cannot tell apart,
  the least regularised is the least biased (an exact post-inverse comes back to rounding).

The score reported (``validation_nmse_db``) is the NMSE of the same blocks continuing the capture's
state (rows whose true history is known), at the chosen lambda: the model's error on unseen data of
the capture's kind, without the start-up rows."""

import numpy as np

from . import gpuinterp_python as _gi
from .dpd_ph import DPDError
from .dpd_solve import Solution

# The engine's (kernel::dpd_gram says why each is what it is).
FOLDS = _gi.dpd_gram.kfold_blocks
TIE_DB = _gi.dpd_gram.kfold_tie_db
MAX_COLUMNS = _gi.dpd_gram.kfold_max_columns


def block_edges(n, folds=FOLDS):
    """Sample index bounds of the contiguous blocks of a length-n capture."""
    return np.linspace(0, n, folds + 1).astype(np.int64)


def excluded_rows(n, a, b, back, ahead):
    """Rows of the capture a fold leaves out of its fit for block [a, b): the block and every row
    whose basis window (back samples behind, ahead in front) reads one of its samples."""
    r = np.zeros(n, dtype=bool)
    r[max(0, a - ahead):min(n, b + back)] = True
    return r


def cold_rows(bad, a, b, back, ahead):
    """Rows 0 .. b-a-1 of block [a, b) run from a zero state: every row whose look-ahead lies inside
    the block and whose window in the block touches no bad (outlier) sample."""
    m = b - a
    ok = np.zeros(m, dtype=bool)
    ok[:max(0, m - ahead)] = True
    if bad is not None and bad[a:b].any():
        hit = np.convolve(bad[a:b].astype(float), np.ones(back + ahead + 1), mode="full")
        ok &= hit[ahead:ahead + m] == 0
    return ok


def _residuals(G, b, tt, W):
    """||t - Phi w||^2 for each column w of W from a set's sums: tt - 2 Re(w^H b) + w^H G w."""
    wb = np.real(W.conj().T @ b)
    wgw = np.real(np.einsum("ij,ij->j", W.conj(), G @ W))
    return tt - 2 * wb + wgw


def choose(G_all, b_all, folds, grid):
    """lambda from the folds' sums (see the module comment), or None when a fold cannot fit.

    G_all, b_all: the Gram and Phi^H x of every fit row; folds: for each block a dict with the sums
    of the rows the fold leaves out (``Gx``, ``bx``), of the block continuing the capture (``Gs``,
    ``bs``, ``ts``: Gram, rhs, target energy) and of the block run cold (``Gc``, ``bc``, ``tc``).
    Returns (lambda, continuing NMSE dB, cold NMSE dB) at the chosen lambda."""
    grid = np.asarray(grid, dtype=np.float64)
    rs, rc = np.zeros(grid.size), np.zeros(grid.size)
    ts = tc = 0.0
    for f in folds:
        G = G_all - f["Gx"]
        b = b_all - f["bx"]
        d = np.sqrt(np.real(np.diag(G)))
        if not np.all(np.isfinite(d)) or np.any(d <= 0):
            return None
        e, V = np.linalg.eigh(G / np.outer(d, d))
        if not np.all(np.isfinite(e)):
            return None
        e = np.maximum(e, 0.0)
        e0 = e[-1]
        if not e0 > 0:
            return None
        c = V.conj().T @ (b / d)
        W = (V @ (c[:, None] / (e[:, None] + grid[None, :] * e0))) / d[:, None]
        rs += _residuals(f["Gs"], f["bs"], f["ts"], W)
        rc += _residuals(f["Gc"], f["bc"], f["tc"], W)
        ts += f["ts"]
        tc += f["tc"]
    if not (ts > 0 and tc > 0):
        return None
    steady = 10 * np.log10(np.maximum(rs / ts, 1e-30))
    cold = 10 * np.log10(np.maximum(rc / tc, 1e-30))
    if not np.any(np.isfinite(cold)):
        return None
    best = np.nanmin(cold)
    i = int(np.flatnonzero(cold <= best + TIE_DB)[0])
    return float(grid[i]), float(steady[i]), float(cold[i])


def solve_sums(G, b, tt, lam):
    """dpd_gram's solve at a fixed lambda, from sums already on the host: the blocks' Grams of the
    rows continuing the capture add up to the whole capture's, so the refit after the folds needs no
    second pass over it. Returns the Solution dpd_gram.solve returns (its equations, in numpy)."""
    K = G.shape[0]
    d = np.sqrt(np.real(np.diag(G)))
    if not np.all(np.isfinite(d)) or np.any(d <= 0):
        i = int(np.flatnonzero(~(np.isfinite(d) & (d > 0)))[0])
        raise DPDError(f"y: basis matrix is singular (basis column {i} of {K} is all zeros over the fit rows)")
    e, V = np.linalg.eigh(G / np.outer(d, d))
    e0 = e[-1]
    e = np.maximum(e, 0.0)
    cond = float(np.sqrt(e0 / e[0])) if e[0] > 0 else float("inf")
    c = V.conj().T @ (b / d)
    w = (V @ (c / (e + lam * e0))) / d
    if not np.all(np.isfinite(w)):
        raise DPDError(f"y: estimation produced non-finite coefficients (condition number {cond:.6g} of the "
                       "column-normalised basis; use a regularization > 0)")
    r = float(_residuals(G, b, tt, w[:, None])[0])
    fit = 10 * np.log10(max(r / tt, 1e-30)) if tt > 0 else float("nan")
    return Solution(w, float(lam), cond, int(np.sum(e / e0 > lam)), float(np.sum(e / (e + lam * e0))), float(fit),
                    "fixed")


def fold_rows(n, ok, back, ahead, K, folds=FOLDS):
    """Each fold's block [a, b), the usable rows it leaves out of its fit (the block and the rows whose
    memory reads it: :func:`excluded_rows`) and its held-out rows (the block's usable ones):
    [(a, b, x_rows, s_rows), ...]; None when the model has too many columns for the folds or a fold
    would fit fewer rows than unknowns."""
    if K > MAX_COLUMNS:
        return None
    edges = block_edges(n, folds)
    plan = []
    for a, b in zip(edges[:-1], edges[1:]):
        a, b = int(a), int(b)
        x_rows = ok & excluded_rows(n, a, b, back, ahead)
        s_rows = np.zeros(n, dtype=bool)
        s_rows[a:b] = ok[a:b]
        if int(ok.sum() - x_rows.sum()) < K or not s_rows.any():
            return None
        plan.append((a, b, x_rows, s_rows))
    return plan
