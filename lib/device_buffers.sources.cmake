# SPDX-License-Identifier: GPL-3.0-or-later
# Device operations behind the cuda_buffer custom buffer type: host-memory simulation (always) and
# CUDA (CUDA builds). GNU Radio-free, so qa_kernels tests them without a flowgraph.
list(APPEND kernel_sources device/device_ops.cc)
list(APPEND kernel_cuda_sources cuda/device_ops.cu)
if(NOT GPUINTERP_HAVE_CUDA)
  list(APPEND kernel_sources device/device_ops_nocuda.cc)
endif()
