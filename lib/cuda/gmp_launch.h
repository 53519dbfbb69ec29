/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_GPU_GMP_LAUNCH_H
#define INCLUDED_GPUINTERP_GPU_GMP_LAUNCH_H

// Launch plan of the memory-polynomial (mp/gmp) kernel (gmp_kernels.cu), used by its engine
// (gmp_engine.cu) and benchmark hook. Only .cu files include it.

#include "../kernel/gmp_engine.h"
#include <cuda_runtime.h>
#include <cstddef>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! A program flattened for the device: one blob of int4 words, copied to shared memory whole by
//! each block: [lags: int2 {s, end of its entries} x nl, padded to 16 bytes]
//! [entries: int4 {e, k0, cnt, off} x ne] [coefficients: float2 x nc, padded].
struct gmp_blob {
    std::vector<int> words; //!< multiple of 4 ints
    int nl = 0, ne = 0, H = 0;
    int lag_words4 = 0; //!< int4 words of the lag table
    float cr = 0, ci = 0;
};
gmp_blob flatten(const kernel::gmp_program& p);

//! Outputs per thread: 4 keeps the tile small and occupancy high where memory binds; 8 halves the
//! coefficient loads per FMA where the coefficients dominate.
struct gmp_plan {
    int R = 4;            //!< outputs per thread
    int threads = 256;    //!< per block
    size_t smem = 0;      //!< dynamic shared memory per block
    int max_blocks = 1;   //!< resident blocks on the device (grid cap; blocks loop over tiles)
};

/*!
 * Plan for a blob on a device: R from the policy (R = 0: policy's choice), shared memory from the
 * blob and the tile. Throws std::invalid_argument when the model does not fit in shared memory.
 */
gmp_plan plan_gmp(const gmp_blob& b, int device, int R = 0);

/*!
 * y[i] = program applied at output i for i < n, reading x[i - H] .. x[i] (x points at the H
 * history samples in front of output 0). `blob` is the device copy of b.words.
 */
void launch_gmp(const gmp_plan& plan,
                const gmp_blob& b,
                const int4* blob,
                const float2* x,
                float2* y,
                size_t n,
                cudaStream_t st);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
