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
//
// Both families run a layer's units side by side: the weights are kept transposed (unit j of
// every row contiguous, padded to a multiple of 8 units), and each product is added to all the
// units' sums at once. A unit's sum still adds the same products in the same order with fmaf, so
// the result is gru_cell()'s and dense_tanh()'s float for float, and the loops vectorise. They are
// built twice, for AVX2/FMA (taken where the processor has it: fmaf becomes one instruction) and
// portable; the activations (expf, tanhf) stay the C library's, one unit at a time.
#include "../common/neural_net.h"
#include "../common/parallel.h"
#include "avx2_switch.h"
#include "cpu_engines.h"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <algorithm>
#include <cstdint>
#include <cstring>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {

using cf = std::complex<float>;

constexpr unsigned unit_pad = 8; // one AVX2 register of floats

unsigned padded(unsigned n) { return (n + unit_pad - 1) / unit_pad * unit_pad; }

//! s[j] = fmaf(W[j], v, s[j]) for the Hp units side by side.
GPUINTERP_SIMD_INLINE void
add_products(float* __restrict s, const float* __restrict W, float v, unsigned Hp)
{
    for (unsigned j = 0; j < Hp; j++)
        s[j] = fmaf(W[j], v, s[j]);
}

//! A gru's weights laid out for the units side by side (Hp floats a row, zero past H).
struct gru_plan {
    unsigned H = 0, Hp = 0;
    std::vector<float> wi; //!< [gate r, z, n][input c < 6][unit]
    std::vector<float> wh; //!< [gate r, z, n][state k < H][unit]
    std::vector<float> b;  //!< [b_ir + b_hr, b_iz + b_hz, b_in, b_hn][unit]

    void build(const nn::gru_layout& L, const float* w)
    {
        H = L.H;
        Hp = padded(H);
        wi.assign(size_t(3) * 6 * Hp, 0.f);
        wh.assign(size_t(3) * H * Hp, 0.f);
        b.assign(size_t(4) * Hp, 0.f);
        for (unsigned g = 0; g < 3; g++)
            for (unsigned j = 0; j < H; j++) {
                const size_t row = size_t(g) * H + j;
                for (unsigned c = 0; c < 6; c++)
                    wi[(size_t(g) * 6 + c) * Hp + j] = w[L.w_ih + row * 6 + c];
                for (unsigned k = 0; k < H; k++)
                    wh[(size_t(g) * H + k) * Hp + j] = w[L.w_hh + row * H + k];
            }
        // Gates r and z take both biases as one sum, as gru_unit() adds them.
        for (unsigned j = 0; j < H; j++) {
            for (unsigned g = 0; g < 2; g++)
                b[size_t(g) * Hp + j] = w[L.b_ih + g * H + j] + w[L.b_hh + g * H + j];
            b[size_t(2) * Hp + j] = w[L.b_ih + 2 * H + j];
            b[size_t(3) * Hp + j] = w[L.b_hh + 2 * H + j];
        }
    }
};

//! One call of the gru: outputs [first, n) from window positions first + base .. (base = the
//! carried history minus the look-ahead), the state h (H) updated in place.
struct gru_args {
    const gru_plan* P;
    const nn::gru_layout* L;
    const float* w;  //!< the file's weights (head and skip path)
    const float* xs; //!< the window, I and Q interleaved
    cf* out;
    float* h;   //!< H floats: the state, in and out
    float* tmp; //!< Hp floats for the next state, then 4 Hp for the sums
    size_t first, n, base;
};

GPUINTERP_SIMD_INLINE void gru_body(const gru_args& a)
{
    const gru_plan& P = *a.P;
    const nn::gru_layout& L = *a.L;
    const unsigned H = P.H, Hp = P.Hp;
    const float* xs = a.xs;
    float* h = a.h;
    float* hn = a.tmp;
    float* __restrict sr = a.tmp + Hp;
    float* __restrict sz = sr + Hp;
    float* __restrict si = sz + Hp;
    float* __restrict sh = si + Hp;
    for (size_t i = a.first; i < a.n; i++) {
        const size_t p = a.base + i;
        float u[6];
        nn::gru_features(u, xs[2 * p], xs[2 * p + 1], xs[2 * p + 2], xs[2 * p + 3]);
        std::memcpy(sr, P.b.data(), 4 * size_t(Hp) * sizeof(float));
        for (unsigned c = 0; c < 6; c++) {
            add_products(sr, P.wi.data() + (0 * 6 + c) * size_t(Hp), u[c], Hp);
            add_products(sz, P.wi.data() + (1 * 6 + c) * size_t(Hp), u[c], Hp);
            add_products(si, P.wi.data() + (2 * 6 + c) * size_t(Hp), u[c], Hp);
        }
        for (unsigned k = 0; k < H; k++) {
            add_products(sr, P.wh.data() + (size_t(0) * H + k) * Hp, h[k], Hp);
            add_products(sz, P.wh.data() + (size_t(1) * H + k) * Hp, h[k], Hp);
            add_products(sh, P.wh.data() + (size_t(2) * H + k) * Hp, h[k], Hp);
        }
        for (unsigned j = 0; j < H; j++)
            hn[j] = nn::gru_finish(sr[j], sz[j], si[j], sh[j], h[j]);
        std::swap(h, hn);
        float y[2];
        for (unsigned o = 0; o < 2; o++)
            y[o] = nn::gru_head(a.w + L.w_o, a.w + L.b_o, H, h, o);
        if (L.C) {
            const float taps[6] = { xs[2 * (p - L.D)], xs[2 * (p - L.D) + 1],
                                    xs[2 * p],         xs[2 * p + 1],
                                    xs[2 * (p + L.D)], xs[2 * (p + L.D) + 1] };
            for (unsigned o = 0; o < 2; o++)
                y[o] += nn::gru_skip(a.w + L.k, a.w + L.p, L.C, taps, o);
        }
        a.out[i] = cf(y[0], y[1]);
    }
    if (h != a.h) // an odd number of steps: the state is in the scratch
        std::memcpy(a.h, h, H * sizeof(float));
}

//! A tdnn's hidden layers laid out for the units side by side: layer l's matrix as [input][unit].
struct tdnn_plan {
    unsigned Hp = 0;
    std::vector<float> w[nn::tdnn_layout::max_layers];

    void build(const nn::tdnn_layout& L, const float* file)
    {
        Hp = padded(L.H);
        for (unsigned l = 0; l < L.N; l++) {
            const unsigned cols = l == 0 ? 4 * L.M : L.H;
            w[l].assign(size_t(cols) * Hp, 0.f);
            for (unsigned r = 0; r < L.H; r++)
                for (unsigned c = 0; c < cols; c++)
                    w[l][size_t(c) * Hp + r] = file[L.w[l] + size_t(r) * cols + c];
        }
    }
};

//! Outputs [s0, s1) of a tdnn, window position Hh + i for output i.
struct tdnn_args {
    const tdnn_plan* P;
    const nn::tdnn_layout* L;
    const float* w;
    const float* xs;
    cf* out;
    float* tmp; //!< 4 M + 2 Hp floats
    size_t s0, s1, Hh;
};

GPUINTERP_SIMD_INLINE void tdnn_body(const tdnn_args& a)
{
    const nn::tdnn_layout& L = *a.L;
    const unsigned Hp = a.P->Hp;
    float* u = a.tmp;
    float* la = u + 4 * size_t(L.M);
    float* lb = la + Hp;
    for (size_t i = a.s0; i < a.s1; i++) {
        const size_t p = a.Hh + i; // no look-ahead: time t is input i
        for (unsigned m = 0; m < L.M; m++)
            nn::tdnn_features(u + 4 * m, a.xs[2 * (p - m)], a.xs[2 * (p - m) + 1]);
        const float* in = u;
        unsigned cols = 4 * L.M;
        for (unsigned l = 0; l < L.N; l++) {
            float* __restrict o = (l % 2 == 0) ? la : lb;
            std::memset(o, 0, Hp * sizeof(float));
            std::memcpy(o, a.w + L.b[l], L.H * sizeof(float));
            for (unsigned c = 0; c < cols; c++)
                add_products(o, a.P->w[l].data() + size_t(c) * Hp, in[c], Hp);
            for (unsigned r = 0; r < L.H; r++)
                o[r] = tanhf(o[r]);
            in = o;
            cols = L.H;
        }
        float y[2];
        for (unsigned o = 0; o < 2; o++) {
            float acc = a.w[L.b_out + o];
            for (unsigned k = 0; k < L.H; k++)
                acc = fmaf(a.w[L.w_out + size_t(o) * L.H + k], in[k], acc);
            y[o] = acc + a.xs[2 * p + o];
        }
        a.out[i] = cf(y[0], y[1]);
    }
}

GPUINTERP_AVX2_DISPATCH(run_gru_steps, gru_args, gru_body)
GPUINTERP_AVX2_DISPATCH(run_tdnn_range, tdnn_args, tdnn_body)

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
                d_tmp.assign(5 * size_t(padded(model.H)), 0.f);
            } else {
                d_t = nn::make_tdnn_layout(model.M, model.H, model.N);
            }
            d_loaded = true;
        }
        d_w = w;
        if (d_model.family == dpd_model::family_t::gru)
            d_gp.build(d_g, d_w.data());
        else
            d_tp.build(d_t, d_w.data());
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
    // Output i is the model at time t = d_pos + i - L, read from window position Hh + i - L;
    // before model time 0 the recursion has not started and the output is zero.
    void run_gru(cf* out, size_t n)
    {
        const size_t first = std::min<uint64_t>(n, d_pos < d_L ? d_L - d_pos : 0);
        std::fill(out, out + first, cf(0.f));
        run_gru_steps(gru_args{ &d_gp,
                                &d_g,
                                d_w.data(),
                                reinterpret_cast<const float*>(d_buf.data()),
                                out,
                                d_h.data(),
                                d_tmp.data(),
                                first,
                                n,
                                d_hist.size() - d_L });
    }

    void run_tdnn(cf* out, size_t n)
    {
        const nn::tdnn_layout& L = d_t;
        const double macs = double(n) * double(d_model.num_weights());
        const size_t nt = size_t(cpu::max_threads());
        d_scratch.resize(nt);
        cpu::parallel_ranges(n, 64, macs, [&](int th, size_t s0, size_t s1) {
            std::vector<float>& s = d_scratch[size_t(th) % nt];
            s.resize(4 * size_t(L.M) + 2 * size_t(d_tp.Hp));
            run_tdnn_range(tdnn_args{ &d_tp,
                                      &L,
                                      d_w.data(),
                                      reinterpret_cast<const float*>(d_buf.data()),
                                      out,
                                      s.data(),
                                      s0,
                                      s1,
                                      d_hist.size() });
        });
    }

    bool d_loaded = false;
    dpd_model d_model;
    unsigned d_L = 0;
    std::vector<float> d_w;
    nn::gru_layout d_g;
    nn::tdnn_layout d_t;
    gru_plan d_gp;
    tdnn_plan d_tp;
    stream_history<cf> d_hist;
    std::vector<cf> d_buf;
    std::vector<float> d_h;   // gru hidden state h[t-1]
    std::vector<float> d_tmp; // gru: the next state and the four sums
    std::vector<std::vector<float>>
        d_scratch;      // tdnn: features and two layers, per thread
    uint64_t d_pos = 0; // inputs consumed since the start
};

} // namespace

std::unique_ptr<neural_engine> make_cpu_neural_engine()
{
    return std::make_unique<cpu_neural_engine>();
}

void set_cpu_simd(bool allow) { cpu::simd_switch().allow(allow); }

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
