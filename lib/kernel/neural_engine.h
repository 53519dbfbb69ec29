/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_NEURAL_ENGINE_H
#define INCLUDED_GPUINTERP_KERNEL_NEURAL_ENGINE_H

// Internal: what a backend implements for the neural families (gru, tdnn) of dpd_predistorter.
// The front end validates the weights against the model (count, finite); the engine owns the
// stream state: the input history (model().history() samples), a gru's hidden state and the
// stream position (the first lookahead() outputs of a stream are zero: the recursion starts at
// model time 0 with h[-1] = 0, docs/neural_models.md).

#include "dpd_engine.h"
#include <gnuradio/gpuinterp/kernel/dpd_model.h>
#include <cstddef>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

class neural_engine : public dpd_stream_engine
{
public:
    //! The model never changes after the first call; only the weights do (the state stays).
    virtual void set_weights(const dpd_model& model,
                             const std::vector<float>& weights) = 0;
    /*!
     * gru, CUDA: samples of warm-up each chunk after the first runs from a zero state before its
     * own outputs (0: the whole call runs as one sequential chunk, exact). CPU engines run the
     * recursion sequentially and ignore it.
     */
    virtual void set_warmup(size_t) {}
    virtual size_t warmup() const { return 0; }
};

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
