/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU backend of the polyphase interpolator: the arms are stored reversed so each output is one
// dot product over a contiguous input window (VOLK, as GNU Radio's fir_filter; see dot.h), and large
// calls are split into input blocks handled by OpenMP threads. The channels share the arms and
// run one after the other, each with its own history. sc16 runs a chunk of about 4096 outputs at
// a time: its inputs expanded (sc16 in) and its outputs converted (sc16 out) while they are in
// cache, the complex float filter in between.
#include "../common/parallel.h"
#include "../common/sc16.h"
#include "cpu_engines.h"
#include "dot.h"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <type_traits>
#include <complex>
#include <stdexcept>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {

template <typename T, typename TAP>
class cpu_fir_engine final : public fir_engine<T, TAP>
{
public:
    explicit cpu_fir_engine(unsigned channels) : d_hist(channels) {}

    void set_taps(const std::vector<TAP>& padded, unsigned L, size_t M) override
    {
        d_L = L;
        d_M = M;
        // Each arm occupies `stride` TAPs in the layout of cpu::dot (see dot.h).
        d_stride = cpu::arm_stride<T, TAP>(M);
        d_arms.assign(L * d_stride, TAP(0));
        std::vector<TAP> rev(M);
        for (unsigned p = 0; p < L; p++) {
            for (size_t j = 0; j < M; j++) // reversed: window index j is x[n - (M-1-j)]
                rev[j] = padded[(M - 1 - j) * L + p];
            cpu::store_arm(
                d_arms.data() + p * d_stride, rev.data(), M, !std::is_same_v<T, float>);
        }
        for (auto& h : d_hist)
            h.resize(M - 1);
    }

    void filter(T* const* out, const T* const* in, size_t n_in, bool) override
    {
        for (size_t c = 0; c < d_hist.size(); c++)
            run(c, out[c], in[c], n_in);
    }

    void filter_sc16(int16_t* const* out,
                     const T* const* in,
                     size_t n_in,
                     float scale,
                     sc16_counts* counts,
                     bool) override
    {
        for (size_t c = 0; c < d_hist.size(); c++)
            chunked(c, out[c], in[c], n_in, nullptr, &scale, counts[c]);
    }

    void filter_from_sc16(void* const* out,
                          const int16_t* const* in,
                          size_t n_in,
                          float in_scale,
                          float scale,
                          sc16_counts* counts,
                          bool) override
    {
        sc16_counts none;
        for (size_t c = 0; c < d_hist.size(); c++)
            chunked(c,
                    out[c],
                    in[c],
                    n_in,
                    &in_scale,
                    counts ? &scale : nullptr,
                    counts ? counts[c] : none);
    }

    void reset() override
    {
        for (auto& h : d_hist)
            h.clear();
    }

private:
    void run(size_t c, T* out, const T* in, size_t n_in)
    {
        const size_t H = d_M - 1;
        const size_t n_blocks = (n_in + block - 1) / block;
        const int nt = cpu::max_threads();
        if (d_work.size() < static_cast<size_t>(nt))
            d_work.resize(nt);
        stream_history<T>& hist = d_hist[c];
        cpu::parallel_blocks(n_blocks, double(n_in) * d_L * d_M, [&](size_t b) {
            const size_t start = b * block;
            const size_t count = std::min(block, n_in - start);
            std::vector<T>& w = d_work[cpu::thread_index()];
            if (w.size() < H + block)
                w.resize(H + block);
            hist.window(w.data(), in, start, count);
            T* o = out + start * d_L;
            for (size_t n = 0; n < count; n++)
                for (unsigned p = 0; p < d_L; p++)
                    cpu::dot(o++, w.data() + n, d_arms.data() + p * d_stride, d_M);
        });
        hist.advance(in, n_in);
    }

    // Channel c in chunks: in_scale set, sc16 input; scale set, sc16 output (counts added).
    void chunked(size_t c,
                 void* out,
                 const void* in,
                 size_t n_in,
                 const float* in_scale,
                 const float* scale,
                 sc16_counts& counts)
    {
        if constexpr (!std::is_same_v<T, std::complex<float>>) {
            throw std::logic_error("fir engine: sc16 needs complex samples");
        } else {
            d_sc16.run(out,
                       in,
                       n_in,
                       d_L,
                       std::max<size_t>(1, 4096 / d_L),
                       in_scale,
                       scale,
                       counts.saturated,
                       counts.invalid,
                       [&](T* y, const T* x, size_t m) { run(c, y, x, m); });
        }
    }

    static constexpr size_t block = 4096;
    unsigned d_L = 1;
    size_t d_M = 1;
    size_t d_stride = 1;
    cpu::tap_vector<TAP> d_arms;
    std::vector<stream_history<T>> d_hist; // one per channel
    std::vector<std::vector<T>> d_work;    // one window buffer per thread, grown once
    sc16_chunks d_sc16;                    // sc16 either side: one chunk at a time
};

} // namespace

template <typename T, typename TAP>
std::unique_ptr<fir_engine<T, TAP>> make_cpu_fir_engine(unsigned channels)
{
    return std::make_unique<cpu_fir_engine<T, TAP>>(channels);
}

template std::unique_ptr<fir_engine<std::complex<float>, float>>
make_cpu_fir_engine(unsigned);
template std::unique_ptr<fir_engine<float, float>> make_cpu_fir_engine(unsigned);
template std::unique_ptr<fir_engine<std::complex<float>, std::complex<float>>>
make_cpu_fir_engine(unsigned);

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
