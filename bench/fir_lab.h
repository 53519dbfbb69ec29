/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_BENCH_FIR_LAB_H
#define INCLUDED_GPUINTERP_BENCH_FIR_LAB_H

// The polyphase interpolation lab of bench_kernels and the kernel tests (CUDA builds): the
// library's kernel templates and launch plan (lib/cuda/fir_kernels.cuh) compiled with other
// build constants than fir_build's (lib/cuda/fir_tuning.h: R outputs of one arm per work item,
// threads per block), for the complex float samples and float taps of the benchmark's rows, on
// device-resident data. The library's own pair runs through plan_fir() / launch_fir() unchanged.
// Plain C++, so the tests include it without the CUDA headers.

#include <complex>
#include <cstddef>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! One pair of the kernel's build constants.
struct fir_lab_shape {
    int R;       //!< outputs of one arm per work item
    int threads; //!< per block
};

//! The pairs the lab compiles, the library's (fir_build: R = 7, 256 threads) first: R = 5, 9, 11
//! and (even, to show what the odd R buys in bank conflicts) 8 on 256 threads; 128 and 512
//! threads at R = 7; R = 9 on 128 threads (the best block of the former R = 9).
std::vector<fir_lab_shape> fir_lab_shapes();

//! Whether `s` is the library's pair (fir_build).
bool fir_lab_is_library(fir_lab_shape s);

//! "R7_nt256".
std::string to_string(fir_lab_shape s);

//! What one lab row filters: the pair `shape`, the factor L and the prototype taps (tap p + k*L
//! is tap k of arm p; M = taps per arm, ceil(taps.size() / L)).
struct fir_lab_problem {
    fir_lab_shape shape;
    unsigned L;
    std::vector<float> taps;
};

//! One launch of the kernel of p.shape, synchronously, staged through device buffers: x (host
//! memory) holds M - 1 history inputs, then the n new ones; y receives the n * L outputs.
//! Throws std::invalid_argument ("shape: ...") for a pair the lab does not compile.
void run_fir_lab(int device,
                 const fir_lab_problem& p,
                 const std::complex<float>* x,
                 std::complex<float>* y,
                 size_t n);

//! The kernel of p.shape alone on n_in device-resident inputs: milliseconds per launch (CUDA events,
//! median of `iters` after one warm-up), and what the plan made of the shape: inputs per tile,
//! outputs staged in shared memory, taps in shared memory.
struct fir_lab_timing {
    double ms = 0;
    int TI = 0;
    bool stage = false;
    bool taps_smem = false;
};
fir_lab_timing
time_fir_lab_kernel(int device, const fir_lab_problem& p, size_t n_in, int iters);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
