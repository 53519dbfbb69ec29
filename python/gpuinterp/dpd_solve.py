# SPDX-License-Identifier: GPL-3.0-or-later
"""Regularised least squares on a column-normalised basis (the solver every fit uses)."""

from dataclasses import dataclass

import numpy as np

from .dpd_ph import DPDError
from .metrics import nmse_db


# Relative ridge values (lambda / s_max^2) tried when the regularisation is chosen on held-out data:
# from "none" (1e-14, below which a float64 SVD cannot tell the difference) to heavy smoothing.
REGULARIZATION_GRID = tuple(10.0 ** e for e in np.arange(-14.0, -0.9, 0.5))


@dataclass
class Solution:
    """A regularised least-squares solution of ``target ~ phi @ w``.

    regularization: lambda relative to the largest squared singular value of the column-normalised
    basis; condition: s_max/s_min of that basis; rank: singular values above the regularisation
    (s^2 > lambda), i.e. the directions the solution actually uses; dof: effective degrees of
    freedom sum s^2/(s^2 + lambda); selected_by: "fixed", "validation" or "gcv";
    validation_nmse_db: NMSE on the held-out rows at the chosen value (nan without them)."""
    w: np.ndarray
    regularization: float
    condition: float
    rank: int
    dof: float
    fit_nmse_db: float
    selected_by: str
    validation_nmse_db: float = float("nan")


def solve_regularized(phi, target, regularization=None, phi_val=None, target_val=None, grid=None):
    """Tikhonov-regularised least squares in float64 on the column-normalised basis, by SVD.

    Columns of different orders differ by orders of magnitude, so each is scaled to unit norm first:
    the regularisation and the condition number then do not depend on the signal level. The thin SVD
    phi_s = U S V^H (LAPACK gesdd, float64) gives w = V diag(s / (s^2 + lambda)) U^H target without
    ever forming the normal equations, whose condition number would be the square (tall bases go
    through a Householder QR first).

    ``regularization``: a number fixes lambda / s_max^2 (0: minimum-norm least squares, singular
    values below 1e-13 s_max dropped as LAPACK's gelsd does); None chooses it from
    :data:`REGULARIZATION_GRID` by the NMSE on held-out rows (``phi_val``, ``target_val``) when given,
    else by generalised cross-validation; "gcv" forces GCV."""
    norms = np.linalg.norm(phi, axis=0)
    if np.any(norms == 0) or not np.all(np.isfinite(norms)):
        raise DPDError("y: basis matrix is singular (a basis column is all zeros)")
    A = phi / norms
    if A.shape[0] > 2 * A.shape[1]:
        # Tall basis: Householder QR without forming Q (LAPACK geqrf + ormqr for Q^H target), then the
        # SVD of the K x K factor, A = Q R = (Q U_R) S V^H. Same singular values and U^H target as the
        # SVD of A, about three times faster, and never the normal equations.
        from scipy.linalg import qr_multiply

        cq, R = qr_multiply(A, target.conj()[None, :], mode="right")
        U_r, s, Vh = np.linalg.svd(R)
        b = U_r.conj().T @ cq.conj().ravel()
    else:
        U, s, Vh = np.linalg.svd(A, full_matrices=False)
        b = U.conj().T @ target
    s0 = s[0]
    cond = float(s0 / s[-1]) if s[-1] > 0 else float("inf")
    grid = np.asarray(grid if grid is not None else REGULARIZATION_GRID, dtype=np.float64)
    s2 = (s / s0) ** 2
    val_nmse = float("nan")
    if regularization is None and phi_val is not None and len(target_val):
        Bv = (phi_val / norms) @ Vh.conj().T
        scores = [nmse_db(target_val, Bv @ ((s / (s ** 2 + lam * s0 ** 2)) * b)) for lam in grid]
        i = int(np.nanargmin(scores))
        lam, how, val_nmse = float(grid[i]), "validation", float(scores[i])
    elif regularization is None or regularization == "gcv":
        # GCV(lambda) = N ||r||^2 / (N - dof)^2 with ||r||^2 = ||t||^2 - ||b||^2 + sum((1 - f)^2 |b|^2).
        n = A.shape[0]
        tt = np.vdot(target, target).real
        bb = np.abs(b) ** 2
        out = tt - bb.sum()
        scores = []
        for lam in grid:
            f = s2 / (s2 + lam)
            r2 = max(out + np.sum((1 - f) ** 2 * bb), 0.0)
            scores.append(n * r2 / max(n - f.sum(), 1e-9) ** 2)
        lam, how = float(grid[int(np.argmin(scores))]), "gcv"
    else:
        lam, how = float(regularization), "fixed"
    if lam > 0:
        g = s / (s ** 2 + lam * s0 ** 2)
        keep = s2 > lam
    else:
        keep = s > 1e-13 * s0
        g = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
    w = (Vh.conj().T @ (g * b)) / norms
    if not np.all(np.isfinite(w)):
        raise DPDError("y: estimation produced non-finite coefficients (ill-conditioned basis)")
    dof = float(np.sum(s2 / (s2 + lam))) if lam > 0 else float(np.sum(keep))
    fit = nmse_db(target, phi @ w)
    return Solution(w, lam, cond, int(np.sum(keep)), dof, fit, how, val_nmse)
