/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU backend of the polyphase interpolator: the arms are stored reversed so each output is one
// dot product over a contiguous input window (VOLK, as GNU Radio's fir_filter; see dot.h), and large
// calls are split into input blocks handled by OpenMP threads.
#include "../common/parallel.h"
#include "cpu_engines.h"
#include "dot.h"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <complex>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {

template <typename T, typename TAP>
class cpu_fir_engine final : public fir_engine<T, TAP>
{
public:
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
        d_hist.resize(M - 1);
    }

    void filter(T* out, const T* in, size_t n_in) override
    {
        const size_t H = d_M - 1;
        const size_t n_blocks = (n_in + block - 1) / block;
        const int nt = cpu::max_threads();
        if (d_work.size() < static_cast<size_t>(nt))
            d_work.resize(nt);
        cpu::parallel_blocks(n_blocks, double(n_in) * d_L * d_M, [&](size_t b) {
            const size_t start = b * block;
            const size_t count = std::min(block, n_in - start);
            std::vector<T>& w = d_work[cpu::thread_index()];
            if (w.size() < H + block)
                w.resize(H + block);
            d_hist.window(w.data(), in, start, count);
            T* o = out + start * d_L;
            for (size_t n = 0; n < count; n++)
                for (unsigned p = 0; p < d_L; p++)
                    cpu::dot(o++, w.data() + n, d_arms.data() + p * d_stride, d_M);
        });
        d_hist.advance(in, n_in);
    }

    void reset() override { d_hist.clear(); }

private:
    static constexpr size_t block = 4096;
    unsigned d_L = 1;
    size_t d_M = 1;
    size_t d_stride = 1;
    cpu::tap_vector<TAP> d_arms;
    stream_history<T> d_hist;
    std::vector<std::vector<T>> d_work; // one window buffer per thread, grown once
};

} // namespace

template <typename T, typename TAP>
std::unique_ptr<fir_engine<T, TAP>> make_cpu_fir_engine()
{
    return std::make_unique<cpu_fir_engine<T, TAP>>();
}

template std::unique_ptr<fir_engine<std::complex<float>, float>> make_cpu_fir_engine();
template std::unique_ptr<fir_engine<float, float>> make_cpu_fir_engine();
template std::unique_ptr<fir_engine<std::complex<float>, std::complex<float>>>
make_cpu_fir_engine();

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
