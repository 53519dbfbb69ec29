/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The row walk of the CUDA rowcache/staged resize variants (lib/cuda/resize_walk.h), run
// on the CPU: the header compiles as plain C++ with host stand-ins for its few
// intrinsics, so every thread of a launch plan is executed here with the kernels' own
// code (positions, x-tap loading, source-row reuse, shared-memory rectangle addressing,
// stores) and the result must equal, bit for bit, a direct per-output evaluation with the
// same arithmetic helpers in the original "tile" kernel's order; that direct evaluation
// is in turn held to the CPU backend within float rounding. The staged variants'
// shared-memory rectangle (a block reduction on the GPU) is restated here as the bounding
// box of the block's table entries. Without a GPU this checks the reuse logic;
// Resize.EveryKernelVariant checks the compiled kernels on the GPU.
#include "cuda/resize_walk.h"
#include "kernel/resize_engine.h"
#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <cstring>

using namespace gpuinterp_test;
namespace gpu = gr::gpuinterp::gpu;
namespace rz = gr::gpuinterp::gpu::rz;
namespace kern = gr::gpuinterp::kernel;

namespace {

struct walk_case {
    int ih, iw, oh, ow, C;
    std::string method, coord, border;
    bool clip;
};

// The CUDA engine's device tables and transform (cuda_resize_engine::set_tables /
// set_transform), rebuilt here from the shared axis tables.
struct walk_setup {
    kern::resize_axis_table yt;
    std::vector<int> xi;
    std::vector<float> xw;
    rz::launch_shape s{};
    rz::dev_transform tf{};
    std::vector<float> mean{ 0.25f, -0.5f, 0.125f, 1.f }, stdv{ 0.5f, 2.f, 0.25f, 1.5f };
    float scale = 1.25f, lo = 0.1f, hi = 0.9f, bv = 0.375f;

    explicit walk_setup(const walk_case& c)
    {
        const auto m = kern::resize_method_from_string(c.method);
        const auto co = kern::resize_coord_from_string(c.coord);
        const auto b = kern::resize_border_from_string(c.border);
        yt = kern::resize_make_axis_table(c.ih, c.oh, m, co, b);
        const auto xt = kern::resize_make_axis_table(c.iw, c.ow, m, co, b);
        const int KX = xt.taps, RW = c.ow * c.C;
        xi.resize(size_t(RW) * KX);
        xw.resize(xi.size());
        for (int ox = 0; ox < c.ow; ox++)
            for (int k = 0; k < KX; k++) {
                const int ix = xt.idx[size_t(ox) * KX + k];
                for (int ch = 0; ch < c.C; ch++) {
                    xi[size_t(k) * RW + ox * c.C + ch] = ix < 0 ? -1 : ix * c.C + ch;
                    xw[size_t(k) * RW + ox * c.C + ch] = xt.w[size_t(ox) * KX + k];
                }
            }
        s.in_row = c.iw * c.C;
        s.RW = RW;
        s.out_h = c.oh;
        s.C = c.C;
        s.in_h = c.ih;
        s.in_frame = (long long)c.ih * s.in_row;
        s.out_frame = (long long)c.oh * RW;
        s.border_value = bv;
        for (int ch = 0; ch < 4; ch++) {
            const float inv = 1.f / stdv[ch];
            tf.mul[ch] = c.clip ? inv : scale * inv;
            tf.add[ch] = -mean[ch] * inv;
        }
        tf.scale = scale;
        tf.lo = lo;
        tf.hi = hi;
        tf.clip = c.clip;
        tf.identity = 0;
    }
};

// Direct evaluation of every output with the shared helpers, in tile's order.
template <int K>
std::vector<float> direct(const walk_setup& w, const std::vector<float>& in, int frames)
{
    const auto& s = w.s;
    std::vector<float> y(size_t(frames) * s.out_frame);
    for (int f = 0; f < frames; f++)
        for (int oy = 0; oy < s.out_h; oy++)
            for (int e = 0; e < s.RW; e++) {
                float acc = 0.f;
                for (int ky = 0; ky < K; ky++) {
                    const int sy = w.yt.idx[size_t(oy) * K + ky];
                    int x[K];
                    float wx[K], p[K];
                    for (int k = 0; k < K; k++) {
                        x[k] = w.xi[size_t(k) * s.RW + e];
                        wx[k] = w.xw[size_t(k) * s.RW + e];
                        p[k] = in[f * s.in_frame + (long long)std::max(sy, 0) * s.in_row +
                                  std::max(x[k], 0)];
                    }
                    const float h = rz::horiz_combine<K>(sy, x, wx, p, s.border_value);
                    acc = K == 1 ? h : rz::vacc(acc, w.yt.w[size_t(oy) * K + ky], h);
                }
                y[f * s.out_frame + (long long)oy * s.RW + e] =
                    rz::finish(acc,
                               w.tf,
                               rz::pick4(w.tf.mul, e % s.C),
                               rz::pick4(w.tf.add, e % s.C));
            }
    return y;
}

// Runs every block and thread of variant v's plan with the kernels' walk. Returns the
// number of blocks that used the shared-memory rectangle.
template <int K, int R, int NCH, bool STAGED>
int emulate(gpu::resize_variant v,
            const walk_setup& w,
            const std::vector<float>& in,
            int frames,
            std::vector<float>& out)
{
    const auto& s = w.s;
    const gpu::resize_plan p =
        gpu::resize_plan_launch(v, s.RW, s.out_h, size_t(frames), 132, true, K);
    EXPECT_EQ(p.variant, v);
    EXPECT_EQ(p.rows, R);
    EXPECT_EQ(p.chunks, NCH);
    int staged_blocks = 0;
    for (unsigned bz = 0; bz < p.gz; bz++)
        for (unsigned by = 0; by < p.gy; by++)
            for (unsigned bx = 0; bx < p.gx; bx++) {
                std::vector<float> tile;
                int y0 = INT_MAX, y1 = INT_MIN, x0 = INT_MAX, x1 = INT_MIN;
                bool staged = false;
                if (STAGED) {
                    for (unsigned ty = 0; ty < p.by; ty++)
                        for (unsigned tx = 0; tx < p.bx; tx++) {
                            const auto q =
                                gpu::resize_rowcache_pos(bx, by, bz, tx, ty, R, 1);
                            if (q.e0 < s.RW)
                                for (int e = q.e0; e < q.e0 + 4; e++)
                                    for (int k = 0; k < K; k++) {
                                        const int x = w.xi[size_t(k) * s.RW + e];
                                        if (x >= 0) {
                                            x0 = std::min(x0, x);
                                            x1 = std::max(x1, x);
                                        }
                                    }
                        }
                    for (int t = 0; t < gpu::resize_vec_by * R * K; t++) {
                        const int oy = int(by) * gpu::resize_vec_by * R + t / K;
                        if (oy < s.out_h) {
                            const int sy = w.yt.idx[size_t(oy) * K + t % K];
                            if (sy >= 0) {
                                y0 = std::min(y0, sy);
                                y1 = std::max(y1, sy);
                            }
                        }
                    }
                    const bool any = y1 >= y0 && x1 >= x0;
                    staged = any && (long long)(x1 - x0 + 1) * (y1 - y0 + 1) <=
                                        rz::resize_stage_floats;
                    if (staged) {
                        staged_blocks++;
                        const int pitch = x1 - x0 + 1;
                        tile.resize(size_t(pitch) * (y1 - y0 + 1));
                        for (int r = 0; r <= y1 - y0; r++)
                            for (int c = 0; c < pitch; c++)
                                tile[size_t(r) * pitch + c] =
                                    in[bz * s.in_frame + (long long)(y0 + r) * s.in_row +
                                       x0 + c];
                    }
                }
                // The rowcache kernel's shared-memory slice of the vertical tables: the
                // block's rows and the one after, clamped to the last output row.
                const int block_rows = int(p.by) * R + 1;
                const int boy0 = int(by) * int(p.by) * R;
                std::vector<int> ys_idx(size_t(block_rows) * K);
                std::vector<float> ys_w(ys_idx.size());
                for (int i = 0; i < block_rows * K; i++) {
                    const int oy = std::min(boy0 + i / K, s.out_h - 1);
                    ys_idx[i] = w.yt.idx[size_t(oy) * K + i % K];
                    ys_w[i] = w.yt.w[size_t(oy) * K + i % K];
                }
                for (unsigned ty = 0; ty < p.by; ty++)
                    for (unsigned tx = 0; tx < p.bx; tx++) {
                        const auto q =
                            gpu::resize_rowcache_pos(bx, by, bz, tx, ty, R, NCH);
                        if (q.e0 >= s.RW || q.oy0 >= s.out_h)
                            continue;
                        rz::chunk_taps<K, NCH> t;
                        t.load(w.xi.data(), w.xw.data(), q.e0, s.RW, s.C, w.tf);
                        float* fout = out.data() + q.f * s.out_frame;
                        if (staged)
                            rz::rowcache_walk<K, K, R, NCH>(
                                rz::shared_rows{ tile.data(), x1 - x0 + 1, y0, x0 },
                                t,
                                fout,
                                q.e0,
                                q.oy0,
                                rz::global_ytab<K>{ w.yt.idx.data(), w.yt.w.data() },
                                s,
                                w.tf);
                        else
                            rz::rowcache_walk<K, K, R, NCH>(
                                rz::global_rows<float>{
                                    in.data() + q.f * s.in_frame, s.in_row, s.in_h },
                                t,
                                fout,
                                q.e0,
                                q.oy0,
                                rz::shared_ytab<K>{ ys_idx.data(), ys_w.data(), boy0 },
                                s,
                                w.tf);
                    }
            }
    return staged_blocks;
}

size_t bit_differences(const std::vector<float>& a, const std::vector<float>& b)
{
    size_t n = 0;
    for (size_t i = 0; i < a.size(); i++)
        n += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
    return n;
}

template <int K>
void check_case(const walk_case& c)
{
    const int frames = 3;
    const walk_setup w(c);
    ASSERT_EQ(w.yt.taps, K);
    const auto in = random_vector<float>(size_t(frames) * w.s.in_frame);
    const auto want = direct<K>(w, in, frames);

    // The direct evaluation against the CPU backend (independent code, float rounding).
    kern::resize_2d<float> cpu(c.ih,
                               c.iw,
                               c.oh,
                               c.ow,
                               c.C,
                               c.method,
                               c.coord,
                               c.border,
                               w.bv,
                               gr::gpuinterp::backend::cpu);
    cpu.set_normalization(std::vector<float>(w.mean.begin(), w.mean.begin() + c.C),
                          std::vector<float>(w.stdv.begin(), w.stdv.begin() + c.C));
    cpu.set_scale(w.scale);
    cpu.set_clip(c.clip, w.lo, w.hi);
    std::vector<float> y_cpu(want.size());
    cpu.resize(y_cpu.data(), in.data(), frames);
    EXPECT_TRUE(all_close(want, y_cpu, 1e-5, 1e-5))
        << c.method << " " << c.ih << "x" << c.iw;

    using V = gpu::resize_variant;
    struct run {
        V v;
        int (*fn)(
            V, const walk_setup&, const std::vector<float>&, int, std::vector<float>&);
    };
    std::vector<run> runs = { { V::rowcache_r8, &emulate<K, 8, 1, false> },
                              { V::rowcache_r16, &emulate<K, 16, 1, false> },
                              { V::rowcache_r32, &emulate<K, 32, 1, false> },
                              { V::staged_r8, &emulate<K, 8, 1, true> },
                              { V::staged_r16, &emulate<K, 16, 1, true> } };
    if constexpr (K <= 2)
        runs.push_back({ V::rowcache_w8, &emulate<K, 8, 2, false> });
    for (const auto& r : runs) {
        std::vector<float> y(want.size());
        poison(y);
        const int staged = r.fn(r.v, w, in, frames, y);
        EXPECT_EQ(bit_differences(y, want), 0u)
            << gpu::resize_variant_name(r.v) << " " << c.method << " " << c.coord << " "
            << c.border << " " << c.ih << "x" << c.iw << "->" << c.oh << "x" << c.ow
            << " C=" << c.C;
        // Upscales stage every block; a shrink's rectangles do not fit and walk globally.
        if (r.v == V::staged_r8 || r.v == V::staged_r16) {
            if (c.oh >= c.ih && c.ow >= c.iw)
                EXPECT_GT(staged, 0) << gpu::resize_variant_name(r.v);
        }
    }
}

void check(const walk_case& c)
{
    if (c.method == "nearest")
        check_case<1>(c);
    else if (c.method == "bilinear")
        check_case<2>(c);
    else
        check_case<4>(c);
}

TEST(ResizeWalk, RowReuseEqualsDirectEvaluationBitForBit)
{
    const walk_case cases[] = {
        { 35, 132, 70, 264, 1, "bilinear", "half_pixel", "replicate", false }, // exact 2x
        { 35, 66, 70, 132, 2, "bicubic", "half_pixel", "reflect_101", true },
        { 35, 33, 105, 132, 4, "nearest", "half_pixel", "replicate", false }, // 3x
        { 18, 20, 37, 40, 1, "bilinear", "align_corners", "constant", false },
        { 20, 30, 41, 60, 2, "bilinear", "half_pixel", "reflect", true },
        { 23, 17, 37, 20, 3, "bicubic", "half_pixel", "reflect", false },
        { 40, 40, 81, 264, 4, "bicubic", "align_corners", "constant", false },
        { 9, 8, 16, 12, 2, "nearest", "asymmetric", "constant", false },
        { 50, 16, 50, 64, 1, "bilinear", "half_pixel", "replicate", false }, // 1:1 rows
        { 135, 240, 270, 480, 1, "bilinear", "half_pixel", "replicate", false }, // many
                                                                                 // blocks
        { 90, 96, 30, 32, 1, "bicubic", "asymmetric", "replicate", false }, // shrinks
        { 97, 131, 19, 20, 3, "bilinear", "half_pixel", "replicate", false },
        { 300, 400, 20, 24, 1, "bilinear", "half_pixel", "replicate", true },
    };
    for (const auto& c : cases)
        check(c);
}

} // namespace
