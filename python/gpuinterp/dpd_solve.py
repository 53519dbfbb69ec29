# SPDX-License-Identifier: GPL-3.0-or-later
"""The regularised least-squares solution every fit returns (the estimation engine, dpd_gram,
solves; dpd_reference.solve_regularized is its numpy reference), and the lambda grid, the engine's."""

from dataclasses import dataclass

import numpy as np

from . import gpuinterp_python as _gi


# Relative ridge values (lambda / s_max^2) tried when the regularisation is chosen on held-out data:
# from "none" (1e-14, below which a float64 SVD cannot tell the difference) to heavy smoothing.
REGULARIZATION_GRID = tuple(_gi.dpd_gram.default_grid)


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
