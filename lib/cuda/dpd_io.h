/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_DPD_IO_H
#define INCLUDED_GPUINTERP_GPU_DPD_IO_H

// The data of one predistorter kernel launch, the same for every kernel of both families
// (parallel-Hammerstein: dpd_ph_launch.h, mp/gmp: gmp_launch.h); each launch adds its plan and
// model. Only .cu files include it.

#include <cuda_runtime.h>
#include <cstddef>

namespace gr {
namespace gpuinterp {
namespace gpu {

struct dpd_io {
    const float2* x; //!< the H history samples, then the n inputs (device memory)
    float2* y;       //!< the n outputs (device memory)
    size_t n;
    cudaStream_t st;
};

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
