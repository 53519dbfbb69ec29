/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_DEVICE_QUERY_H
#define INCLUDED_GPUINTERP_GPU_DEVICE_QUERY_H

// Host-side view of the CUDA runtime for code compiled by the C++ compiler. Implemented in
// device_query.cu with CUDA, and in device_query_stub.cc without it.

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
