/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_DPD_GRAM_TUNING_H
#define INCLUDED_GPUINTERP_CUDA_DPD_GRAM_TUNING_H

// Tuning of the CUDA estimation engine (dpd_gram.cu). arch_tuning.h says how build constants and
// run-time rows differ; docs/performance.md ("Tuning tables") gives what is behind each value.

#include "arch_tuning.h"
#include <cstddef>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! Chosen per device when the engine is built. A chunk of R rows of a model of at most
//! small_columns columns is cut into S = min(R / slice_rows, max_slices) slices whose Grams one
//! strided batched Zgemm computes and one Zgemv adds up, instead of one Zherk over all R rows,
//! which gives a small K's few output tiles one thread block each.
struct gram_tuning {
    int sm_min;           //!< first compute capability (major * 10 + minor) of the row
    size_t small_columns; //!< models up to this many columns take the sliced Gram
    size_t slice_rows; //!< rows a slice takes at least (a chunk needs two slices' worth)
    size_t max_slices; //!< slices at most
};
constexpr gram_tuning gram_tuning_table[] = {
    { 90, 64, 4096, 256 }, // sm_90 (H200); the default of every other architecture
};

GPUINTERP_TUNING_ROW_FOR(gram_tuning)

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
