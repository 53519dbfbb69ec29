# SPDX-License-Identifier: GPL-3.0-or-later
"""Digital-predistortion adaptation, one import for users: ``from gnuradio.gpuinterp import dpd``.

The work is done by one module per concern, each importable on its own; this module only gathers
their public names (it holds no code, so nothing imports it back):

* :mod:`.dpd_model`: the model spec of every family (ph, mp, gmp), its basis and files of fitted models;
* :mod:`.dpd_ph`: the parallel-Hammerstein convenience (P, Q, Lp, Lq) and the C++ engines;
* :mod:`.dpd_capture`: what a real receiver does to a capture (clipping, DC, IQ imbalance, frequency
  and phase), measured and removed before the fit;
* :mod:`.dpd_solve`: the least-squares solution type and the lambda grid;
* :mod:`.dpd_estimate`: indirect learning from one capture, and forward (PA) model fits;
* :mod:`.dpd_adapt`: the closed loop (damping, rollback, gain and phase tracking);
* :mod:`.dpd_files`: coefficient files;
* :mod:`.metrics`: NMSE, ACLR, EVM and plots.

The numpy estimator the tests compare the product's with (alignment, conditioning, the SVD solve) is
:mod:`.dpd_reference`; nothing here imports it.
"""

from .dpd_adapt import Adaptation, StepResult  # noqa: F401
from .dpd_estimate import DEFAULT_PERTURBATION, EstimateResult, estimate, fit_forward, ls_gain  # noqa: F401
from .dpd_files import load_coefficients, save_coefficients  # noqa: F401
from .dpd_ph import (DPDError, apply_model, basis_matrix, branch_layout, identity_coefficients,  # noqa: F401
                     make_engine, make_model_engine, make_neural_engine, num_coefficients, validate_structure)
from .dpd_solve import REGULARIZATION_GRID, Solution  # noqa: F401
from .metrics import nmse_db  # noqa: F401

__all__ = [
    "DPDError", "validate_structure", "num_coefficients", "branch_layout", "identity_coefficients",
    "basis_matrix", "apply_model", "make_engine", "make_model_engine", "make_neural_engine", "estimate",
    "fit_forward", "Solution", "EstimateResult",
    "Adaptation", "StepResult", "nmse_db", "ls_gain", "save_coefficients", "load_coefficients",
]
