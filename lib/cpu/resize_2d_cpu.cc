/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU backend of resize_2d: separable resampling with precomputed tables.
//
// Each output row is a weighted sum of Ky horizontally resampled source rows. A
// horizontally resampled row ("H row") is computed once and kept in a small per-thread
// cache of Ky slots, so an upscale by 2 resamples each source row once, not twice
// (OpenCV's resize does the same). The horizontal pass is a gather over element-level
// tables (one index and weight per output element and tap, channels already expanded),
// the vertical pass and the fused transform are straight element-wise loops; both are
// built twice by target_clones (AVX2/FMA where the CPU has it). Work is split into
// (frame, block of output rows) items over OpenMP threads; every thread owns its scratch
// (row cache, converted source row), so items never share writable memory.
#include "../common/float16.h"
#include "../common/parallel.h"
#include "cpu_engines.h"
#include "dot.h" // GPUINTERP_SIMD_CLONES
#include <type_traits>
#include <algorithm>
#include <climits>
#include <cstring>
#if defined(__SSE2__) || defined(__x86_64__)
#include <immintrin.h>
#endif

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {

GPUINTERP_SIMD_CLONES
void hpass(float* __restrict dst,
           const float* __restrict src,
           const int32_t* __restrict idx, // K arrays of n, tap-major
           const float* __restrict w,
           int K,
           size_t n)
{
    if (K == 1) {
        for (size_t e = 0; e < n; e++)
            dst[e] = src[idx[e]];
    } else if (K == 2) {
        const int32_t *i0 = idx, *i1 = idx + n;
        const float *w0 = w, *w1 = w + n;
        for (size_t e = 0; e < n; e++)
            dst[e] = w0[e] * src[i0[e]] + w1[e] * src[i1[e]];
    } else {
        const int32_t *i0 = idx, *i1 = idx + n, *i2 = idx + 2 * n, *i3 = idx + 3 * n;
        const float *w0 = w, *w1 = w + n, *w2 = w + 2 * n, *w3 = w + 3 * n;
        for (size_t e = 0; e < n; e++)
            dst[e] = (w0[e] * src[i0[e]] + w1[e] * src[i1[e]]) +
                     (w2[e] * src[i2[e]] + w3[e] * src[i3[e]]);
    }
}

struct vtransform {
    bool identity;
    bool clip;
    float scale, lo, hi;
    const float* mul; // per element of a row: scale/std (no clip) or 1/std (clip)
    const float* add; // per element of a row: -mean/std
};

GPUINTERP_SIMD_CLONES
void vpass(float* __restrict out,
           const float* const* rows,
           const float* wy,
           int K,
           size_t n,
           const vtransform& t)
{
    const float* __restrict r0 = rows[0];
    const float* __restrict r1 = rows[K > 1 ? 1 : 0];
    const float* __restrict r2 = rows[K > 2 ? 2 : 0];
    const float* __restrict r3 = rows[K > 3 ? 3 : 0];
    const float* __restrict m = t.mul;
    const float* __restrict a = t.add;
    const float w0 = wy[0], w1 = K > 1 ? wy[1] : 0.f, w2 = K > 2 ? wy[2] : 0.f,
                w3 = K > 3 ? wy[3] : 0.f;
    // One loop per (taps, transform) pair keeps every loop branch-free and vectorisable.
#define GPUINTERP_VLOOP(EXPR)                                                \
    do {                                                                     \
        if (t.identity) {                                                    \
            for (size_t e = 0; e < n; e++)                                   \
                out[e] = (EXPR);                                             \
        } else if (!t.clip) {                                                \
            for (size_t e = 0; e < n; e++)                                   \
                out[e] = (EXPR)*m[e] + a[e];                                 \
        } else {                                                             \
            const float s = t.scale, lo = t.lo, hi = t.hi;                   \
            for (size_t e = 0; e < n; e++)                                   \
                out[e] = std::min(std::max((EXPR)*s, lo), hi) * m[e] + a[e]; \
        }                                                                    \
    } while (0)
    if (K == 1)
        GPUINTERP_VLOOP(r0[e]); // nearest: weight 1, the copy is exact
    else if (K == 2)
        GPUINTERP_VLOOP(w0 * r0[e] + w1 * r1[e]);
    else
        GPUINTERP_VLOOP((w0 * r0[e] + w1 * r1[e]) + (w2 * r2[e] + w3 * r3[e]));
#undef GPUINTERP_VLOOP
}

// Copy a finished row to its destination with non-temporal stores: a large output (a 4K
// frame is 33 MB) is not read again by this thread, and streaming it skips the
// read-for-ownership a normal store costs, which is most of the memory traffic of an
// upscale.
void stream_row(float* dst, const float* src, size_t n)
{
#ifdef __SSE2__
    size_t e = 0;
    for (; e < n && (reinterpret_cast<uintptr_t>(dst + e) & 15) != 0; e++)
        dst[e] = src[e];
    for (; e + 4 <= n; e += 4)
        _mm_stream_ps(dst + e, _mm_loadu_ps(src + e));
    for (; e < n; e++)
        dst[e] = src[e];
#else
    std::memcpy(dst, src, n * sizeof(float));
#endif
}

void store_fence()
{
#ifdef __SSE2__
    _mm_sfence(); // streamed rows are visible before the item counts as done
#endif
}

#if defined(__x86_64__) && defined(__GNUC__)
// F16C converts 8 values per instruction with the same rounding (to nearest even) as float_to_half.
__attribute__((target("avx,f16c"))) void
to_half_f16c(uint16_t* out, const float* in, size_t n)
{
    size_t e = 0;
    for (; e + 8 <= n; e += 8)
        _mm_storeu_si128(
            reinterpret_cast<__m128i*>(out + e),
            _mm256_cvtps_ph(_mm256_loadu_ps(in + e), _MM_FROUND_TO_NEAREST_INT));
    for (; e < n; e++)
        out[e] = float_to_half(in[e]);
}
#endif

void to_half(uint16_t* out, const float* in, size_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    static const bool f16c =
        __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
    if (f16c) {
        to_half_f16c(out, in, n);
        return;
    }
#endif
    for (size_t e = 0; e < n; e++)
        out[e] = float_to_half(in[e]);
}

template <typename T>
class cpu_resize_engine final : public resize_engine<T>
{
public:
    void set_tables(const resize_geometry& g,
                    const resize_axis_table& ytab,
                    const resize_axis_table& xtab,
                    float border_value) override
    {
        d_g = g;
        d_ky = ytab.taps;
        d_kx = xtab.taps;
        d_yidx = ytab.idx;
        d_yw = ytab.w;
        d_bv = border_value;
        const size_t C = size_t(g.channels), RW = size_t(g.out_w) * C;
        d_xidx.assign(RW * d_kx, 0);
        d_xw.assign(RW * d_kx, 0.f);
        d_x_const = false;
        for (int ox = 0; ox < g.out_w; ox++)
            for (int k = 0; k < d_kx; k++) {
                int32_t ix = xtab.idx[size_t(ox) * d_kx + k];
                if (ix < 0) { // the extra pixel past the end of the source row holds
                              // border_value
                    ix = g.in_w;
                    d_x_const = true;
                }
                for (size_t c = 0; c < C; c++) {
                    d_xidx[k * RW + ox * C + c] = int32_t(size_t(ix) * C + c);
                    d_xw[k * RW + ox * C + c] = xtab.w[size_t(ox) * d_kx + k];
                }
            }
        update_transform_rows();
    }

    void set_transform(const resize_transform& tf) override
    {
        d_tf = tf;
        update_transform_rows();
    }

    void run(void* out, bool half, const T* in, size_t n_frames) override
    {
        const size_t C = size_t(d_g.channels);
        const size_t RW = size_t(d_g.out_w) * C;
        const size_t in_frame = size_t(d_g.in_h) * d_g.in_w * C;
        const size_t out_frame = size_t(d_g.out_h) * RW;
        const int T_ = cpu::max_threads();
        // Enough items to balance the threads (handed out dynamically: on a shared machine one
        // core is often slower than the other), yet rows per item large enough to reuse cached
        // H rows.
        const size_t want = (size_t(8 * T_) + n_frames - 1) / n_frames;
        const size_t max_blocks = std::max<size_t>(1, size_t(d_g.out_h) / 8);
        const size_t blocks_per_frame = std::max<size_t>(1, std::min(want, max_blocks));
        const size_t rows_per_block =
            (size_t(d_g.out_h) + blocks_per_frame - 1) / blocks_per_frame;
        const size_t n_items = n_frames * blocks_per_frame;
        if (d_scratch.size() < size_t(T_))
            d_scratch.resize(size_t(T_));
        for (auto& s : d_scratch)
            s.prepare(d_g, d_ky);
        const double work = double(n_frames) * out_frame * (d_kx + d_ky);

        vtransform vt{ d_tf.identity(), d_tf.clip,    d_tf.scale,  d_tf.clip_min,
                       d_tf.clip_max,   d_mul.data(), d_add.data() };
        // Stream the output past the caches only when it cannot stay in them anyway.
        const bool streaming =
            !half && double(n_frames) * out_frame * sizeof(float) > 16e6;
        auto body = [&](size_t item) {
            scratch& s = d_scratch[size_t(cpu::thread_index())];
            const size_t f = item / blocks_per_frame;
            const size_t y0 = (item % blocks_per_frame) * rows_per_block;
            const size_t y1 = std::min(size_t(d_g.out_h), y0 + rows_per_block);
            const T* frame = in + f * in_frame;
            std::fill(s.tag.begin(), s.tag.end(), INT_MIN);
            long tick = 0;
            for (size_t oy = y0; oy < y1; oy++) {
                const float* rows[4];
                unsigned locked = 0;
                tick++;
                for (int k = 0; k < d_ky; k++) {
                    const int sy = d_yidx[oy * d_ky + k];
                    int j = -1;
                    for (int q = 0; q < d_ky; q++)
                        if (s.tag[q] == sy) {
                            j = q;
                            break;
                        }
                    if (j < 0) { // miss: evict the least recently used slot this row does
                                 // not need
                        for (int q = 0; q < d_ky; q++)
                            if (!(locked & (1u << q)) && (j < 0 || s.used[q] < s.used[j]))
                                j = q;
                        fill_h_row(s, j, frame, sy);
                        s.tag[j] = sy;
                    }
                    locked |= 1u << j;
                    s.used[j] = tick;
                    rows[k] = s.cache.data() + size_t(j) * RW;
                }
                const float* wy = &d_yw[oy * d_ky];
                if (half) {
                    vpass(s.out_row.data(), rows, wy, d_ky, RW, vt);
                    to_half(static_cast<uint16_t*>(out) + f * out_frame + oy * RW,
                            s.out_row.data(),
                            RW);
                } else if (streaming) {
                    vpass(s.out_row.data(), rows, wy, d_ky, RW, vt);
                    stream_row(static_cast<float*>(out) + f * out_frame + oy * RW,
                               s.out_row.data(),
                               RW);
                } else {
                    vpass(static_cast<float*>(out) + f * out_frame + oy * RW,
                          rows,
                          wy,
                          d_ky,
                          RW,
                          vt);
                }
            }
            if (streaming)
                store_fence();
        };
        const bool par = n_items > 1 && work > 1e6 && T_ > 1;
        (void)par;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) if (par)
#endif
        for (long item = 0; item < static_cast<long>(n_items); item++)
            body(static_cast<size_t>(item));
    }

private:
    struct scratch {
        std::vector<float>
            src_row; // (in_w + 1) * C: the source row as float plus one border pixel
        std::vector<float> cache;   // Ky H rows
        std::vector<float> out_row; // staging for binary16 output and streamed rows
        std::vector<int> tag;
        std::vector<long> used;
        void prepare(const resize_geometry& g, int ky)
        {
            const size_t C = size_t(g.channels);
            src_row.resize((size_t(g.in_w) + 1) * C);
            cache.resize(size_t(ky) * g.out_w * C);
            out_row.resize(size_t(g.out_w) * C);
            tag.assign(size_t(ky), INT_MIN);
            used.assign(size_t(ky), 0);
        }
    };

    void fill_h_row(scratch& s, int slot, const T* frame, int sy)
    {
        const size_t C = size_t(d_g.channels);
        const size_t in_row = size_t(d_g.in_w) * C;
        const size_t RW = size_t(d_g.out_w) * C;
        float* dst = s.cache.data() + size_t(slot) * RW;
        const float* src;
        if (sy < 0) { // a row wholly outside the frame with a constant border
            std::fill(s.src_row.begin(), s.src_row.end(), d_bv);
            src = s.src_row.data();
        } else if constexpr (std::is_same_v<T, float>) {
            if (!d_x_const) {
                src = frame + size_t(sy) * in_row; // read in place: no tap leaves the row
            } else {
                std::memcpy(s.src_row.data(),
                            frame + size_t(sy) * in_row,
                            in_row * sizeof(float));
                std::fill(s.src_row.begin() + in_row, s.src_row.end(), d_bv);
                src = s.src_row.data();
            }
        } else {
            const T* r = frame + size_t(sy) * in_row;
            for (size_t e = 0; e < in_row; e++)
                s.src_row[e] = float(r[e]);
            std::fill(s.src_row.begin() + in_row, s.src_row.end(), d_bv);
            src = s.src_row.data();
        }
        hpass(dst, src, d_xidx.data(), d_xw.data(), d_kx, RW);
    }

    void update_transform_rows()
    {
        const size_t C = size_t(d_g.channels), RW = size_t(d_g.out_w) * C;
        d_mul.resize(RW);
        d_add.resize(RW);
        for (size_t e = 0; e < RW; e++) {
            const size_t c = e % C;
            d_mul[e] = d_tf.clip ? d_tf.inv_std[c] : d_tf.scale * d_tf.inv_std[c];
            d_add[e] = -d_tf.mean[c] * d_tf.inv_std[c];
        }
    }

    resize_geometry d_g;
    int d_ky = 1, d_kx = 1;
    std::vector<int32_t> d_yidx, d_xidx;
    std::vector<float> d_yw, d_xw;
    bool d_x_const = false;
    float d_bv = 0;
    resize_transform d_tf;
    std::vector<float> d_mul, d_add;
    std::vector<scratch> d_scratch;
};

} // namespace

template <typename T>
std::unique_ptr<resize_engine<T>> make_cpu_resize_engine()
{
    return std::make_unique<cpu_resize_engine<T>>();
}

template std::unique_ptr<resize_engine<float>> make_cpu_resize_engine<float>();
template std::unique_ptr<resize_engine<uint8_t>> make_cpu_resize_engine<uint8_t>();

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
