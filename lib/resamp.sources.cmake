# SPDX-License-Identifier: GPL-3.0-or-later
# Arbitrary-rate resampler and interpolated table lookup (issue 5).
list(APPEND kernel_sources
  kernel/table_lookup.cc
  kernel/resampler.cc
  cpu/resampler_cpu.cc
)
list(APPEND kernel_cuda_sources cuda/table_lookup.cu cuda/resampler.cu)
