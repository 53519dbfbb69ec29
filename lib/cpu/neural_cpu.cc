/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU backend of the neural predistorters and PA models (gru, tdnn; docs/neural_models.md), in
// float32 with the arithmetic of common/neural_net.h. A gru's recursion is inherently sequential
// and runs in one thread, exactly; a tdnn's outputs are independent and split across OpenMP
// threads over sample ranges (parallel_ranges), each range reading its M - 1 samples of history
// from the window. Per call, the window holds the carried history() samples then the input.
#include "../common/neural_net.h"
#include "../common/parallel.h"
#include "cpu_engines.h"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {

using cf = std::complex<float>;

class cpu_neural_engine final : public neural_engine
{
public:
    void set_weights(const dpd_model& model, const std::vector<float>& w) override
    {
        if (!d_loaded) {
            d_model = model;
            d_L = model.lookahead();
            d_hist.resize(model.history());
            if (model.family == dpd_model::family_t::gru) {
                d_g = nn::make_gru_layout(model.H, model.C, model.D);
                d_h.assign(model.H, 0.f);
                d_hn.assign(model.H, 0.f);
            } else {
                d_t = nn::make_tdnn_layout(model.M, model.H, model.N);
            }
            d_loaded = true;
        }
        d_w = w;
    }

    void process(cf* out, const cf* in, size_t n) override
    {
        const size_t Hh = d_hist.size();
        d_buf.resize(Hh + n);
        d_hist.window(d_buf.data(), in, 0, n);
        if (d_model.family == dpd_model::family_t::gru)
            run_gru(out, n);
        else
            run_tdnn(out, n);
        d_hist.advance(in, n);
        d_pos += n;
    }

    void reset() override
    {
        d_hist.clear();
        std::fill(d_h.begin(), d_h.end(), 0.f);
        d_pos = 0;
    }

private:
    // Output i is the model at time t = d_pos + i - L, read from window position Hh + i - L.
    void run_gru(cf* out, size_t n)
    {
        const size_t Hh = d_hist.size();
        const nn::gru_layout& L = d_g;
        const float* w = d_w.data();
        const float* xs = reinterpret_cast<const float*>(d_buf.data());
        for (size_t i = 0; i < n; i++) {
            if (d_pos + i < d_L) { // model time < 0: the recursion has not started
                out[i] = 0.f;
                continue;
            }
            const size_t p = Hh + i - d_L;
            float u[6];
            nn::gru_features(u, xs[2 * p], xs[2 * p + 1], xs[2 * p + 2], xs[2 * p + 3]);
            for (unsigned j = 0; j < L.H; j++)
                d_hn[j] = nn::gru_unit(w + L.w_ih,
                                       6,
                                       1,
                                       w + L.w_hh,
                                       L.H,
                                       1,
                                       w + L.b_ih,
                                       w + L.b_hh,
                                       L.H,
                                       u,
                                       d_h.data(),
                                       j);
            d_h.swap(d_hn);
            float y[2];
            for (unsigned o = 0; o < 2; o++)
                y[o] = nn::gru_head(w + L.w_o, w + L.b_o, L.H, d_h.data(), o);
            if (L.C) {
                const float taps[6] = { xs[2 * (p - L.D)], xs[2 * (p - L.D) + 1],
                                        xs[2 * p],         xs[2 * p + 1],
                                        xs[2 * (p + L.D)], xs[2 * (p + L.D) + 1] };
                for (unsigned o = 0; o < 2; o++)
                    y[o] += nn::gru_skip(w + L.k, w + L.p, L.C, taps, o);
            }
            out[i] = cf(y[0], y[1]);
        }
    }

    void run_tdnn(cf* out, size_t n)
    {
        const size_t Hh = d_hist.size();
        const nn::tdnn_layout& L = d_t;
        const float* w = d_w.data();
        const float* xs = reinterpret_cast<const float*>(d_buf.data());
        const double macs = double(n) * double(d_model.num_weights());
        const size_t nt = size_t(cpu::max_threads());
        d_scratch.resize(nt);
        cpu::parallel_ranges(n, 64, macs, [&](int th, size_t s0, size_t s1) {
            std::vector<float>& s = d_scratch[size_t(th) % nt];
            s.resize(4 * size_t(L.M) + 2 * size_t(L.H));
            float* u = s.data();
            float* a = u + 4 * size_t(L.M);
            float* b = a + L.H;
            for (size_t i = s0; i < s1; i++) {
                const size_t p = Hh + i; // no look-ahead: time t is input i
                for (unsigned m = 0; m < L.M; m++)
                    nn::tdnn_features(u + 4 * m, xs[2 * (p - m)], xs[2 * (p - m) + 1]);
                const float* in = u;
                unsigned cols = 4 * L.M;
                for (unsigned l = 0; l < L.N; l++) {
                    float* o = (l % 2 == 0) ? a : b;
                    for (unsigned r = 0; r < L.H; r++)
                        o[r] = nn::dense_tanh(w + L.w[l], w + L.b[l], in, cols, r);
                    in = o;
                    cols = L.H;
                }
                float y[2];
                for (unsigned o = 0; o < 2; o++) {
                    float acc = w[L.b_out + o];
                    for (unsigned k = 0; k < L.H; k++)
                        acc = fmaf(w[L.w_out + size_t(o) * L.H + k], in[k], acc);
                    y[o] = acc + xs[2 * p + o];
                }
                out[i] = cf(y[0], y[1]);
            }
        });
    }

    bool d_loaded = false;
    dpd_model d_model;
    unsigned d_L = 0;
    std::vector<float> d_w;
    nn::gru_layout d_g;
    nn::tdnn_layout d_t;
    stream_history<cf> d_hist;
    std::vector<cf> d_buf;
    std::vector<float> d_h, d_hn; // gru hidden state h[t-1], and the next one
    std::vector<std::vector<float>>
        d_scratch;      // tdnn: features and two layers, per thread
    uint64_t d_pos = 0; // inputs consumed since the start
};

} // namespace

std::unique_ptr<neural_engine> make_cpu_neural_engine()
{
    return std::make_unique<cpu_neural_engine>();
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
