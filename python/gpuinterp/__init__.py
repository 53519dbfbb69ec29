# SPDX-License-Identifier: GPL-3.0-or-later
"""gr-gpuinterp: GPU (CUDA) and CPU blocks for FIR interpolation, digital predistortion,
arbitrary-rate resampling and 2D frame resizing."""

from .gpuinterp_python import *  # noqa: F401,F403

# DPD loop (Python): PA models, the coefficient estimator and a Python predistorter block.
from .pa_models import pa_model_cc  # noqa: E402,F401
from .dpd_blocks import dpd_estimator_cc  # noqa: E402,F401
from .model_blocks import dpd_predistorter_from_file  # noqa: E402,F401
# A USRP sink/source pair with a PA in loopback, for rehearsing a hardware DPD flowgraph.
from .sdr_emulator import sdr_loopback_emulator_cc  # noqa: E402,F401
