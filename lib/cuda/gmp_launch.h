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
#include "dpd_io.h"
#include "gmp_tuning.h"
#include <cuda_runtime.h>
#include <cstddef>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! A program flattened for the device: one blob of int4 words, copied to shared memory whole by
//! each block: [lags: int4 {s, end of its entries, constant as two float bits} x nl]
//! [entries: int4 {e, coefficients - 2, off, 0} x ne, lowest power 1] [coefficients: float2 x nc,
//! padded].
struct gmp_blob {
    std::vector<int> words; //!< multiple of 4 ints
    int nl = 0, ne = 0, nc = 0, H = 0;
    float cr = 0, ci = 0;
};
gmp_blob flatten(const kernel::gmp_program& p);

//! Launch configuration of the one kernel build (gmp_kernels.cu says why it is the one).
struct gmp_plan {
    int outputs_per_thread = 0;
    int threads = 0; //!< per block
    size_t smem = 0; //!< dynamic shared memory per block
    int max_blocks =
        1; //!< resident blocks on the device (grid cap; blocks loop over tiles)
};

//! Throws std::invalid_argument ("model: ...") if the program's shared memory does not fit.
gmp_plan plan_gmp(const gmp_blob& b, int device);

//! One launch over io (its x starts with b.H history samples); blob: b.words on the device.
void launch_gmp(const gmp_plan& plan,
                const gmp_blob& b,
                const int4* blob,
                const dpd_io& io);

//! The structure-compiled kernel (gmp_jit.cu). Empty (fn == nullptr) when it cannot be built.
struct gmp_jit_kernel {
    void* lib = nullptr;      //!< cudaLibrary_t
    const void* fn = nullptr; //!< cudaKernel_t, launched through cudaLaunchKernel
    int max_blocks = 1;
    size_t param_bytes = 0;
    int threads = 0; //!< per block, as compiled (its shape's)
    int tile = 0;    //!< outputs per tile: threads x the shape's outputs per thread
};

//! What a compiled kernel is built as (gmp_jit.cu says why each choice exists).
struct gmp_jit_shape {
    int V = 2; //!< adjacent outputs per thread, side by side: 1, 2 or 4
    bool shared =
        false; //!< coefficients read from a per-block copy in shared memory, not
               //!< from the constant bank
    int constant_count =
        0; //!< with shared: the first this many still from the constant bank
    //! The block and tile: threads per block (whole warps) and outputs per thread and tile (a
    //! loop), T = threads x outputs. Build constants (gmp_build) that the engine never changes;
    //! other values build kernels only the benchmark lab runs.
    int threads = gmp_build.jit_threads;
    int outputs = gmp_build.jit_outputs;
};
//! The CUDA source generated for a flattened program (its structure; coefficients are parameters).
std::string gmp_jit_source(const gmp_blob& b, const gmp_jit_shape& shape);
//! Static shared memory of that kernel's block (tile, and the coefficient copy when shared).
size_t gmp_jit_shared_bytes(const gmp_blob& b, const gmp_jit_shape& shape);
//! Whether NVRTC could be loaded in this process.
bool gmp_jit_available();
//! Whether `automatic` runs the compiled kernel for this program (its entries are short enough)
//! on a device of tuning row `t`.
bool gmp_jit_preferred(const gmp_blob& b, const gmp_tuning& t);
//! The shape the engine compiles this program as on a device of row `t`.
gmp_jit_shape gmp_jit_shape_for(const gmp_blob& b, const gmp_tuning& t);
//! The compiled kernel's grid in device-fulls of blocks, for its shape.
int gmp_jit_waves(const gmp_tuning& t, const gmp_jit_shape& shape);
//! The kernel compiled for compute capability cc (e.g. 90), cached per structure and cc; nullptr
//! and, in why_not, the reason when it cannot be built. Needs no device.
const std::vector<char>* gmp_jit_cubin(const gmp_blob& b,
                                       int cc,
                                       const gmp_jit_shape& shape,
                                       std::string* why_not = nullptr);
//! Compiles (once per structure and architecture) and loads the kernel on `device`; on failure an
//! empty kernel and, in why_not, the reason.
gmp_jit_kernel compile_gmp_jit(const gmp_blob& b,
                               int device,
                               const gmp_jit_shape& shape,
                               std::string* why_not = nullptr);
void release_gmp_jit(gmp_jit_kernel& k);
//! The kernel's parameter block for the blob's values (LO leakage, lag constants, coefficients).
void gmp_jit_params(const gmp_blob& b, std::vector<char>& out);
//! The compiled kernel on io (dpd_io.h).
void launch_gmp_jit(const gmp_jit_kernel& k,
                    const std::vector<char>& params,
                    const dpd_io& io);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
