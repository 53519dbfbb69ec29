/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_COMMON_NEURAL_NET_H
#define INCLUDED_GPUINTERP_COMMON_NEURAL_NET_H

// The arithmetic of the neural families (docs/neural_models.md), once, for the CPU engine and the
// CUDA kernels: where each weight block starts in the flat weight vector, and the per-sample and
// per-unit steps in float32. The weight matrices are read through (row, column) strides, so the
// CUDA engine can hand the same functions a transposed copy (consecutive threads, consecutive
// rows, coalesced loads) while the CPU reads the file's row-major layout.

#include "host_device.h"
#include <cmath>
#include <cstddef>

namespace gr {
namespace gpuinterp {
namespace nn {

//! Offsets (in floats) of a gru's weight blocks in docs/neural_models.md's order.
struct gru_layout {
    unsigned H = 0, C = 0, D = 1;
    size_t w_ih = 0, w_hh = 0, b_ih = 0, b_hh = 0, w_o = 0, b_o = 0, k = 0, p = 0,
           count = 0;
};

inline gru_layout make_gru_layout(unsigned H, unsigned C, unsigned D)
{
    gru_layout L;
    L.H = H;
    L.C = C;
    L.D = C ? D : 1;
    const size_t h = H;
    L.w_ih = 0;
    L.w_hh = L.w_ih + 3 * h * 6;
    L.b_ih = L.w_hh + 3 * h * h;
    L.b_hh = L.b_ih + 3 * h;
    L.w_o = L.b_hh + 3 * h;
    L.b_o = L.w_o + 2 * h;
    L.k = L.b_o + 2;
    L.p = L.k + 6 * size_t(C);
    L.count = L.p + 2 * size_t(C);
    return L;
}

//! Offsets of a tdnn's blocks: layer l (0-based; layer 0 reads the 4M features) has its weight
//! matrix at w[l] and bias at b[l]; then W_out, b_out.
struct tdnn_layout {
    static constexpr unsigned max_layers = 8;
    unsigned M = 0, H = 0, N = 0;
    size_t w[max_layers] = {}, b[max_layers] = {};
    size_t w_out = 0, b_out = 0, count = 0;
};

inline tdnn_layout make_tdnn_layout(unsigned M, unsigned H, unsigned N)
{
    tdnn_layout L;
    L.M = M;
    L.H = H;
    L.N = N;
    size_t o = 0;
    for (unsigned l = 0; l < N; l++) {
        L.w[l] = o;
        o += size_t(H) * (l == 0 ? 4 * size_t(M) : H);
        L.b[l] = o;
        o += H;
    }
    L.w_out = o;
    L.b_out = o + 2 * size_t(H);
    L.count = L.b_out + 2;
    return L;
}

GPUINTERP_HD inline float sigmoid(float t) { return 1.f / (1.f + expf(-t)); }

GPUINTERP_HD inline float hardswish(float t)
{
    return t * fminf(fmaxf(t + 3.f, 0.f), 6.f) * (1.f / 6.f);
}

//! The gru's six input features of time n from x[n] = (i0, q0) and x[n+1] = (i1, q1).
GPUINTERP_HD inline void gru_features(float* u, float i0, float q0, float i1, float q1)
{
    const float a = sqrtf(i0 * i0 + q0 * q0);
    u[0] = i0;
    u[1] = q0;
    u[2] = a;
    u[3] = a * a * a;
    u[4] = i1;
    u[5] = q1;
}

//! A hidden unit's new state from its four sums: ar, az (gates r and z, both biases in), ai (the
//! input's part of gate n, b_in in), ah (the state's part of gate n, b_hn in), and its previous
//! value hj.
GPUINTERP_HD inline float gru_finish(float ar, float az, float ai, float ah, float hj)
{
    const float r = sigmoid(ar), z = sigmoid(az);
    const float g = tanhf(fmaf(r, ah, ai));
    return fmaf(z, hj - g, g); // (1 - z) g + z h
}

//! One hidden unit's new state from u[n] and h[n-1] (nn.GRU, gates r, z, n): the unit's rows of
//! weight_ih (i_r, i_z, i_n: 6 elements each, `ic` apart) and of weight_hh (h_r, h_z, h_n: H
//! elements, `hc` apart), its biases (br = b_ir + b_hr, bz = b_iz + b_hz, b_in, b_hn), the
//! features u, the whole previous state h (H) and the unit's own previous value hj. The math of
//! gru_unit, with the rows handed over directly, so the CUDA kernel that keeps a unit's rows in
//! registers runs this very arithmetic. Each sum starts from its bias and adds the input's six
//! products in order, then the state's H (the CPU engine, which runs the units side by side, adds
//! them in the same order, and so computes what this function computes, float for float).
GPUINTERP_HD inline float gru_cell(const float* i_r,
                                   const float* i_z,
                                   const float* i_n,
                                   size_t ic,
                                   const float* h_r,
                                   const float* h_z,
                                   const float* h_n,
                                   size_t hc,
                                   float br,
                                   float bz,
                                   float b_in,
                                   float b_hn,
                                   unsigned H,
                                   const float* u,
                                   const float* h,
                                   float hj)
{
    float ar = br, az = bz, ai = b_in, ah = b_hn;
    for (unsigned c = 0; c < 6; c++) {
        ar = fmaf(i_r[c * ic], u[c], ar);
        az = fmaf(i_z[c * ic], u[c], az);
        ai = fmaf(i_n[c * ic], u[c], ai);
    }
    for (unsigned k = 0; k < H; k++) {
        const float hk = h[k];
        ar = fmaf(h_r[k * hc], hk, ar);
        az = fmaf(h_z[k * hc], hk, az);
        ah = fmaf(h_n[k * hc], hk, ah);
    }
    return gru_finish(ar, az, ai, ah, hj);
}

//! Hidden unit j of h[n] from u[n] and h[n-1] (nn.GRU, gates r, z, n). Element (row, col) of
//! weight_ih is at w_ih[row * ih_r + col * ih_c], of weight_hh at w_hh[row * hh_r + col * hh_c].
GPUINTERP_HD inline float gru_unit(const float* w_ih,
                                   size_t ih_r,
                                   size_t ih_c,
                                   const float* w_hh,
                                   size_t hh_r,
                                   size_t hh_c,
                                   const float* b_ih,
                                   const float* b_hh,
                                   unsigned H,
                                   const float* u,
                                   const float* h,
                                   unsigned j)
{
    const unsigned rr = j, rz = H + j, rn = 2 * H + j;
    return gru_cell(w_ih + rr * ih_r,
                    w_ih + rz * ih_r,
                    w_ih + rn * ih_r,
                    ih_c,
                    w_hh + rr * hh_r,
                    w_hh + rz * hh_r,
                    w_hh + rn * hh_r,
                    hh_c,
                    b_ih[rr] + b_hh[rr],
                    b_ih[rz] + b_hh[rz],
                    b_ih[rn],
                    b_hh[rn],
                    H,
                    u,
                    h,
                    h[j]);
}

//! Output component o (0: I, 1: Q) of the linear head, W_o h + b_o, with W_o row-major.
GPUINTERP_HD inline float
gru_head(const float* w_o, const float* b_o, unsigned H, const float* h, unsigned o)
{
    float y = b_o[o];
    for (unsigned k = 0; k < H; k++)
        y = fmaf(w_o[o * H + k], h[k], y);
    return y;
}

//! The skip path's contribution P v[n] to output component o, from x[n-D], x[n], x[n+D]
//! (xs: I and Q of the three taps, tap-major: xs[2*j + ch]); K and P in the file's layout.
GPUINTERP_HD inline float
gru_skip(const float* K, const float* P, unsigned C, const float* xs, unsigned o)
{
    float y = 0.f;
    for (unsigned c = 0; c < C; c++) {
        float t = 0.f;
        for (unsigned ch = 0; ch < 2; ch++)
            for (unsigned j = 0; j < 3; j++)
                t = fmaf(K[(c * 2 + ch) * 3 + j], xs[2 * j + ch], t);
        y = fmaf(P[o * C + c], hardswish(t), y);
    }
    return y;
}

//! The tdnn's features [I, Q, a, a^3] of one sample into u[0..3].
GPUINTERP_HD inline void tdnn_features(float* u, float i, float q)
{
    const float a = sqrtf(i * i + q * q);
    u[0] = i;
    u[1] = q;
    u[2] = a;
    u[3] = a * a * a;
}

//! One output row of a dense layer: tanh(W[row] . in + b[row]), W row-major with `cols` columns.
GPUINTERP_HD inline float
dense_tanh(const float* W, const float* b, const float* in, unsigned cols, unsigned row)
{
    float s = b[row];
    const float* wr = W + size_t(row) * cols;
    for (unsigned c = 0; c < cols; c++)
        s = fmaf(wr[c], in[c], s);
    return tanhf(s);
}

} // namespace nn
} // namespace gpuinterp
} // namespace gr

#endif
