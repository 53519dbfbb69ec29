/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Built when the module is configured without a CUDA toolkit.
#include "../kernel/device_query.h"

namespace gr {
namespace gpuinterp {
namespace gpu {

bool built_with_cuda() { return false; }
int device_count() { return 0; }
std::string device_name(int) { return ""; }
std::string last_error() { return "gr-gpuinterp was built without CUDA"; }
int multiprocessor_count(int) { return 0; }

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
