/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_GMP_TUNING_H
#define INCLUDED_GPUINTERP_CUDA_GMP_TUNING_H

// Tuning of the memory-polynomial (mp/gmp) kernels: the interpreted one (gmp_kernels.cu) and the
// structure-compiled one (gmp_jit.cu), plan in gmp_launch.h. arch_tuning.h says how build
// constants and run-time rows differ; docs/performance.md ("Tuning tables") gives the measurement
// behind each value. The compiled kernel's block and tile are build constants too although its
// source is generated at run time: they are the defaults of its shape (gmp_jit_shape), which both
// the generated source and its launch read, and its history bound is derived from its tile.

#include "arch_tuning.h"

namespace gr {
namespace gpuinterp {
namespace gpu {

//! Compiled into the kernels.
struct gmp_build_tuning {
    int outputs_per_thread; //!< interpreted kernel: outputs side by side per thread
    int threads;            //!< interpreted kernel: threads per block
    int jit_threads;        //!< compiled kernel: threads per block
    int jit_outputs;        //!< compiled kernel: outputs per thread and tile (a loop)
};
constexpr gmp_build_tuning gmp_build{ 16, 128, 256, 8 };

//! Static shared memory one block may have, the compiled kernel's limit (it has no dynamic part).
constexpr int gmp_jit_static_smem = 48 * 1024;
//! The compiled kernel's deepest history H for a block of `threads` x `outputs` = T outputs: not a
//! choice but what the static tile leaves, T + H + 2 staged samples (float2) and their |x| (float)
//! within gmp_jit_static_smem. Negative: the tile alone does not fit.
constexpr int gmp_jit_max_history(int threads, int outputs)
{
    return gmp_jit_static_smem / 12 - threads * outputs - 2;
}
static_assert(gmp_jit_max_history(gmp_build.jit_threads, gmp_build.jit_outputs) > 0,
              "the compiled mp/gmp kernel's tile leaves no shared memory for a history");

//! Chosen per device when the engine is built.
struct gmp_tuning {
    //! First compute capability (major * 10 + minor) of the row.
    int sm_min;
    //! `automatic` compiles programs whose entries have at most this many coefficients.
    int longest_compiled_entry;
    //! V: adjacent outputs the compiled kernel computes together.
    int jit_vector;
    //! The compiled kernel reads its coefficients from shared memory, not the constant bank, when
    //! its parameter block passes this many bytes ...
    int jit_shared_above;
    //! ... but still the first this many from the constant bank (a set its cache holds).
    int jit_constant_first;
    //! The compiled kernel's grid: this many times the blocks the device holds at once (the tiles
    //! left over by the last wave are a smaller share), with the coefficients in the constant bank
    //! and in shared memory.
    int jit_waves, jit_shared_waves;
};
// sm_90 (H200); the default of every other architecture.
constexpr gmp_tuning gmp_tuning_table[] = {
    { 90, 9, 2, 2048, 128, 4, 16 },
};

GPUINTERP_TUNING_ROW_FOR(gmp_tuning)

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
