/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_STREAM_HISTORY_H
#define INCLUDED_GPUINTERP_KERNEL_STREAM_HISTORY_H

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

/*!
 * \brief The last `size()` input samples of a stream, carried from one call to the next.
 * \details Every streaming kernel (FIR interpolator, predistorter, ...) needs a window
 * x[start - size()] .. x[start + count - 1] of the stream, where indices below zero of the current
 * call come from earlier calls. Initially (and after clear()) the history is all zeros, as if
 * x[n] = 0 for n < 0. resize() keeps the newest samples and zero-fills older ones.
 */
template <typename T>
class stream_history
{
public:
    size_t size() const { return d_h.size(); }

    void resize(size_t len)
    {
        if (len != d_h.size())
            refit(len, T(0));
    }

    /*!
     * Grow to `len` (never shrink), filling the new, older places with the oldest sample held
     * instead of zeros. For a kernel whose reach grows mid-stream (a resampler whose rate drops
     * stretches its filter): the samples before the retained history are gone, and continuing the
     * stream's edge is a far better guess than silence (exact on a constant input). Before any
     * input the oldest sample is a zero, so a fresh stream still starts from zeros.
     */
    void grow_extending(size_t len)
    {
        if (len > d_h.size())
            refit(len, d_h.empty() ? T(0) : d_h.front());
    }

    void clear() { std::fill(d_h.begin(), d_h.end(), T(0)); }

    //! Write x[start - size()] .. x[start + count - 1] (size() + count values) to dst.
    void window(T* dst, const T* in, size_t start, size_t count) const
    {
        const size_t H = d_h.size();
        if (start >= H) {
            std::copy(in + (start - H), in + start + count, dst);
            return;
        }
        const size_t from_hist =
            H - start; // the first `from_hist` values come from the history
        std::copy(d_h.begin() + start, d_h.end(), dst);
        std::copy(in, in + start + count, dst + from_hist);
    }

    //! After a call that consumed `n` samples `in`: remember the newest size() samples.
    void advance(const T* in, size_t n)
    {
        const size_t H = d_h.size();
        if (H == 0)
            return;
        if (n >= H) {
            std::copy(in + (n - H), in + n, d_h.begin());
        } else {
            std::copy(d_h.begin() + n, d_h.end(), d_h.begin());
            std::copy(in, in + n, d_h.end() - n);
        }
    }

    const std::vector<T>& values() const { return d_h; }

private:
    //! len places: the newest min(len, size()) samples kept, older places set to `fill`.
    void refit(size_t len, T fill)
    {
        std::vector<T> h(len, fill);
        const size_t keep = std::min(len, d_h.size());
        std::copy(d_h.end() - keep, d_h.end(), h.end() - keep);
        d_h.swap(h);
    }

    std::vector<T> d_h;
};

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
