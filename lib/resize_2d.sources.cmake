# SPDX-License-Identifier: GPL-3.0-or-later
# 2D frame resize (issue 6): kernel front end, CPU backend, CUDA backend.
list(APPEND kernel_sources kernel/resize_2d.cc cpu/resize_2d_cpu.cc)
list(APPEND kernel_cuda_sources cuda/resize_2d.cu)
