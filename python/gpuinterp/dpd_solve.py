# SPDX-License-Identifier: GPL-3.0-or-later
"""The regularised least-squares solution every fit returns (the estimation engine, dpd_gram,
solves; dpd_reference.solve_regularized is its numpy reference), and the lambda grid, the engine's."""

from . import gpuinterp_python as _gi


# Relative ridge values (lambda / s_max^2) tried when the regularisation is chosen on held-out data:
# from "none" (1e-14, below which a float64 SVD cannot tell the difference) to heavy smoothing.
REGULARIZATION_GRID = tuple(_gi.dpd_gram.default_grid)


# What every fit returns: the C++ engine's solution (kernel::dpd_gram_solution), bound; the numpy
# references (dpd_reference, dpd_folds) fill the same class.
Solution = _gi.Solution
