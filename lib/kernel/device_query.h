/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_DEVICE_QUERY_H
#define INCLUDED_GPUINTERP_KERNEL_DEVICE_QUERY_H

// What the kernel layer asks of the CUDA backend about devices (backend selection, backend.cc):
// an interface in plain C++, implemented by the CUDA layer (lib/cuda/device_query.cu) in CUDA
// builds and by its stand-in lib/cuda/device_query_stub.cc without CUDA. The kernel layer includes
// no backend header; the link supplies one of the two.

#include <string>

namespace gr {
namespace gpuinterp {
namespace gpu {

bool built_with_cuda();
int device_count();                  // 0 on any error; never throws
std::string device_name(int device); // "" on any error
std::string
last_error(); // why the last device_count() returned 0, e.g. "no NVIDIA driver found"
int multiprocessor_count(int device);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
