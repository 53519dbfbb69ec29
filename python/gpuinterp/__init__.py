# SPDX-License-Identifier: GPL-3.0-or-later
"""gr-gpuinterp: GPU (CUDA) and CPU blocks for FIR interpolation, digital predistortion,
arbitrary-rate resampling and 2D frame resizing."""

from .gpuinterp_python import *  # noqa: F401,F403
