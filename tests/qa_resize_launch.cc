/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU checks of the CUDA resize_2d launch plans (lib/cuda/resize_launch.h): every block
// and thread of a plan is enumerated with the position functions the kernels use and the
// kernels' edge guards, and each output element of every frame must be written exactly
// once. Runs without a GPU; the kernels' arithmetic is checked on the GPU host by
// qa_resize_2d (Resize.EveryKernelVariant).
#include "cuda/resize_launch.h"
#ifdef GPUINTERP_RESIZE_LAB
#include "../bench/resize_lab.h" // resize_lab_builds: the benchmarks' other build constants
#endif
#include "test_util.h"
#include <utility>
#include <vector>

using namespace gr::gpuinterp::gpu;

namespace {

// Writes of each (frame, row, element) by the plan for (req, RW, out_h, frames); returns
// the plan of the first slice. The block shapes (TX, V, BX, BY, PX, PY) are those of the kernel
// instances (default: the library's, resize_build); t: the tuning row (default: sm_90's).
template <int TX = resize_tile_tx,
          int V = resize_tile_v,
          int BX = resize_vec_bx,
          int BY = resize_vec_by,
          int PX = resize_point_bx,
          int PY = resize_point_by>
resize_plan enumerate(resize_variant req,
                      int RW,
                      int out_h,
                      size_t frames,
                      bool vec_ok,
                      std::vector<int>& hits,
                      int taps = 2,
                      const resize_tuning& t = resize_tuning_for(90))
{
    resize_build_tuning b = resize_build;
    b.tile_threads = TX;
    b.tile_elements = V;
    b.vec_bx = BX;
    b.vec_by = BY;
    b.point_bx = PX;
    b.point_by = PY;
    const resize_plan p =
        resize_plan_launch(req, RW, out_h, frames, 132, vec_ok, taps, false, t, b);
    hits.assign(frames * size_t(out_h) * RW, 0);
    auto mark = [&](long long f, int oy, int e) {
        if (f < 0 || size_t(f) >= frames || oy < 0 || oy >= out_h || e < 0 || e >= RW)
            ADD_FAILURE() << "write outside the output: f=" << f << " oy=" << oy
                          << " e=" << e;
        else
            hits[(size_t(f) * out_h + oy) * RW + e]++;
    };
    for (size_t f0 = 0; f0 < frames; f0 += p.frames_per_launch) {
        const size_t nf = std::min(p.frames_per_launch, frames - f0);
        const resize_grid g = resize_grid_for(p, nf);
        EXPECT_LE(g.y, resize_grid_yz_max);
        EXPECT_LE(g.z, resize_grid_yz_max);
        for (unsigned bz = 0; bz < g.z; bz++)
            for (unsigned by = 0; by < g.y; by++)
                for (unsigned bx = 0; bx < g.x; bx++)
                    for (unsigned ty = 0; ty < p.by; ty++)
                        for (unsigned tx = 0; tx < p.bx; tx++) {
                            if (p.variant == resize_variant::tile) {
                                const auto q = resize_tile_pos<TX, V>(
                                    bx, tx, p.tiles_x, p.row_groups, p.rows);
                                for (int oy = q.oy0; oy < std::min(out_h, q.oy0 + p.rows);
                                     oy++)
                                    for (int v = 0; v < V; v++) {
                                        const int e = q.e0 + v * TX;
                                        if (e < RW)
                                            mark(f0 + q.f, oy, e);
                                    }
                            } else if (resize_is_vec4(p.variant) ||
                                       resize_is_strided(p.variant)) {
                                // One kernel: four elements of each row, adjacent (vec4,
                                // one 16-byte store: the plan requires RW % 4 == 0) or
                                // BX apart (strided, each guarded by e < RW).
                                const bool strided = resize_is_strided(p.variant);
                                const auto q = strided ? resize_strided_pos<BX, BY>(
                                                             bx, by, bz, tx, ty, p.rows)
                                                       : resize_vec4_pos<BX, BY>(
                                                             bx, by, bz, tx, ty, p.rows);
                                const int step = strided ? BX : 1;
                                if (q.e0 >= RW || q.oy0 >= out_h)
                                    continue;
                                for (int r = 0; r < p.rows; r++)
                                    if (q.oy0 + r < out_h)
                                        for (int v = 0; v < 4; v++) {
                                            const int e = q.e0 + v * step;
                                            if (!strided || e < RW)
                                                mark(f0 + q.f, q.oy0 + r, e);
                                        }
                            } else if (resize_is_rowcache(p.variant)) {
                                const auto q = resize_rowcache_pos<BX, BY>(
                                    bx, by, bz, tx, ty, p.rows, p.chunks);
                                // The kernel's guard; its chunk guard is e < RW per
                                // chunk, and a chunk is whole (RW % 4 == 0).
                                if (q.e0 >= RW || q.oy0 >= out_h)
                                    continue;
                                for (int r = 0; r < p.rows; r++)
                                    if (q.oy0 + r < out_h)
                                        for (int j = 0; j < p.chunks; j++) {
                                            const int e = q.e0 + j * 4 * BX;
                                            if (e < RW)
                                                for (int v = 0; v < 4; v++)
                                                    mark(f0 + q.f, q.oy0 + r, e + v);
                                        }
                            } else {
                                const auto q = resize_point_pos<PX, PY>(
                                    bx, by, bz, tx, ty, p.frames_per_thread);
                                if (q.e0 >= RW || q.oy0 >= out_h)
                                    continue;
                                for (int j = 0; j < p.frames_per_thread; j++)
                                    if (q.f + j < (long long)nf)
                                        mark(f0 + q.f + j, q.oy0, q.e0);
                            }
                        }
    }
    return p;
}

size_t count_not_once(const std::vector<int>& hits)
{
    size_t bad = 0;
    for (int h : hits)
        bad += h != 1;
    return bad;
}

struct shape {
    int RW, out_h;
    size_t frames;
    bool vec_ok;
};

const shape every_shape[] = {
    { 1, 1, 1, true },     { 4, 1, 1, true },     { 20, 37, 9, true },
    { 21, 37, 9, false },  { 256, 9, 3, true },   { 260, 17, 5, true },
    { 1028, 3, 2, true },  { 300, 64, 1, false }, { 12, 5, 7, false },
    { 672, 33, 4, true },  // 224 px x 3 channels
    { 516, 70, 2, true },  // rowcache: partial 256/512-element and 32/64-row blocks
    { 1024, 64, 2, true }, // whole blocks
    { 264, 65, 3, true },
};

TEST(ResizeLaunchPlan, EveryVariantWritesEachOutputOnce)
{
    for (int taps : { 1, 2, 4 })
        for (int v = -1; v < resize_variant_count; v++)
            for (const auto& s : every_shape) {
                std::vector<int> hits;
                const auto p = enumerate(
                    resize_variant(v), s.RW, s.out_h, s.frames, s.vec_ok, hits, taps);
                EXPECT_EQ(count_not_once(hits), 0u)
                    << "requested " << resize_variant_name(resize_variant(v)) << " ran "
                    << resize_variant_name(p.variant) << " RW=" << s.RW
                    << " out_h=" << s.out_h << " frames=" << s.frames << " taps=" << taps;
                if (resize_is_vec4(p.variant) || resize_is_rowcache(p.variant))
                    EXPECT_TRUE(s.vec_ok && s.RW % 4 == 0);
                if (p.variant == resize_variant::rowcache_w8)
                    EXPECT_LE(taps, 2);
            }
}


#ifdef GPUINTERP_RESIZE_LAB
// The plans and thread positions of the benchmarks' other build constants (resize_lab_builds:
// the kernel instances of bench/resize_lab.cu) write each output once too, with the build's
// blocks; and so do the tile plans of other tuning rows (tile_waves, 0: always 4 rows).
template <size_t I>
void check_lab_build()
{
    constexpr resize_build_tuning B = resize_lab_builds[I].build;
    for (int taps : { 1, 2, 4 })
        for (int v = -1; v < resize_variant_count; v++)
            for (const auto& s : every_shape) {
                std::vector<int> hits;
                const auto p = enumerate<B.tile_threads,
                                         B.tile_elements,
                                         B.vec_bx,
                                         B.vec_by,
                                         B.point_bx,
                                         B.point_by>(
                    resize_variant(v), s.RW, s.out_h, s.frames, s.vec_ok, hits, taps);
                EXPECT_EQ(count_not_once(hits), 0u)
                    << resize_lab_builds[I].name << " requested "
                    << resize_variant_name(resize_variant(v)) << " ran "
                    << resize_variant_name(p.variant) << " RW=" << s.RW
                    << " out_h=" << s.out_h << " frames=" << s.frames << " taps=" << taps;
                const bool point = p.variant == resize_variant::point ||
                                   p.variant == resize_variant::point_f4;
                const unsigned bx = p.variant == resize_variant::tile
                                        ? unsigned(B.tile_threads)
                                        : unsigned(point ? B.point_bx : B.vec_bx);
                const unsigned by = p.variant == resize_variant::tile
                                        ? 1u
                                        : unsigned(point ? B.point_by : B.vec_by);
                EXPECT_EQ(p.bx, bx) << resize_lab_builds[I].name;
                EXPECT_EQ(p.by, by) << resize_lab_builds[I].name;
            }
}

template <size_t... I>
void check_lab_builds(std::index_sequence<I...>)
{
    (check_lab_build<I>(), ...);
}

TEST(ResizeLaunchPlan, LabBuildsWriteEachOutputOnce)
{
    check_lab_builds(std::make_index_sequence<size_t(resize_lab_build_count)>());
}
#endif

TEST(ResizeLaunchPlan, TileWavesOfTheRowWriteEachOutputOnce)
{
    for (double waves : { 0.0, 1.0, 2.0, 4.0, 8.0 }) {
        resize_tuning t = resize_tuning_for(90);
        t.tile_waves = waves;
        for (const auto& s : every_shape) {
            std::vector<int> hits;
            const auto p = enumerate(
                resize_variant::tile, s.RW, s.out_h, s.frames, s.vec_ok, hits, 2, t);
            EXPECT_EQ(count_not_once(hits), 0u)
                << "tile_waves " << waves << " RW=" << s.RW;
            if (waves == 0)
                EXPECT_EQ(p.rows, 4);
        }
    }
    // The benchmarks' tile shapes (4K -> 1080p, 132 SMs, 8 tiles of 256 elements per row):
    // 4 frames take 4 rows per thread at tile_waves 1 and 2, 2 at 4, 1 at 8; 1 frame 2 at 1.
    resize_tuning t = resize_tuning_for(90);
    const int rows4[] = { 4, 4, 2, 1 }, rows1[] = { 2, 1, 1, 1 };
    const double waves[] = { 1, 2, 4, 8 };
    for (int i = 0; i < 4; i++) {
        t.tile_waves = waves[i];
        EXPECT_EQ(resize_plan_launch(
                      resize_variant::tile, 1920, 1080, 4, 132, true, 4, false, t)
                      .rows,
                  rows4[i]);
        EXPECT_EQ(resize_plan_launch(
                      resize_variant::tile, 1920, 1080, 1, 132, true, 4, false, t)
                      .rows,
                  rows1[i]);
    }
}

TEST(ResizeLaunchPlan, FramesBeyondOneGridAreSliced)
{
    // gridDim.z holds at most 65535 frames (x4 for point_f4): more frames take several
    // launches, and the slices must still tile the frames exactly.
    for (auto v : { resize_variant::vec4_r2,
                    resize_variant::point,
                    resize_variant::strided_r2,
                    resize_variant::rowcache_r8,
                    resize_variant::rowcache_w8,
                    resize_variant::staged_r16 }) {
        std::vector<int> hits;
        const auto p = enumerate(v, 4, 1, 65537, true, hits);
        EXPECT_EQ(p.variant, v);
        EXPECT_EQ(p.frames_per_launch, 65535u);
        EXPECT_EQ(count_not_once(hits), 0u) << resize_variant_name(v);
    }
}

// The variant resize_plan_launch() runs for the request on a device of 132 SMs (an H200).
resize_variant plan_variant(resize_variant req,
                            int RW,
                            int out_h,
                            size_t frames,
                            bool vec_ok,
                            int taps = 2,
                            bool upscale_y = false)
{
    return resize_plan_launch(req, RW, out_h, frames, 132, vec_ok, taps, upscale_y)
        .variant;
}

TEST(ResizeLaunchPlan, AutomaticChoiceAndFallbacks)
{
    using V = resize_variant;
    // 4 x 1080p -> 4K (output rows reuse source rows): bilinear and bicubic walk 32 rows per
    // thread reusing source rows, nearest keeps vec4_r4 (the sm_90 tuning row).
    EXPECT_EQ(plan_variant(V::automatic, 3840, 2160, 4, true, 2, true), V::rowcache_r32);
    EXPECT_EQ(plan_variant(V::automatic, 3840, 2160, 4, true, 4, true), V::rowcache_r32);
    EXPECT_EQ(plan_variant(V::automatic, 3840, 2160, 4, true, 1, true), V::vec4_r4);
    // Large outputs without row reuse (vertical shrink): 16-byte stores, 4 rows per thread;
    // bicubic on tile (vec4 would need ~160 registers per thread).
    EXPECT_EQ(plan_variant(V::automatic, 3840, 2160, 4, true), V::vec4_r4);
    EXPECT_EQ(plan_variant(V::automatic, 3840, 2160, 4, true, 4), V::tile);
    EXPECT_EQ(plan_variant(V::automatic, 3840, 2160, 4, true, 1), V::vec4_r4);
    // rowcache needs the aligned 16-byte stores too.
    EXPECT_EQ(plan_variant(V::automatic, 3842, 2160, 4, false, 2, true), V::tile);
    // Same without alignment: the original kernel.
    EXPECT_EQ(plan_variant(V::automatic, 3842, 2160, 4, false), V::tile);
    // 16 x 4K -> 224x224: small, latency-bound: one element of 4 frames per thread.
    const auto p = resize_plan_launch(V::automatic, 224, 224, 16, 132, true);
    EXPECT_EQ(p.variant, V::point_f4);
    EXPECT_EQ(p.gx * p.gy * p.gz, 7u * 28u * 4u);
    EXPECT_EQ(plan_variant(V::automatic, 224, 224, 1, true), V::point);
    // strided takes any row width.
    EXPECT_EQ(plan_variant(V::strided_r4, 10, 8, 1, false), V::strided_r4);
    // Requested vec4 on a shape it cannot take falls back to tile.
    EXPECT_EQ(plan_variant(V::vec4_r4, 10, 8, 1, true), V::tile);
    EXPECT_EQ(plan_variant(V::vec4_r1, 12, 8, 1, false), V::tile);
    // Rows beyond gridDim.y: vec4 and point fall back to tile.
    EXPECT_EQ(plan_variant(V::vec4_r1, 4, 4 * 65535 + 1, 1, true), V::tile);
    EXPECT_EQ(plan_variant(V::point, 4, 8 * 65535 + 1, 1, true), V::tile);
    EXPECT_EQ(plan_variant(V::vec4_r1, 4, 4 * 65535, 1, true), V::vec4_r1);
    // rowcache: 16-byte stores like vec4, so the same alignment rule; two chunks only for
    // nearest/bilinear (bicubic runs one chunk); rows beyond gridDim.y fall back to tile.
    EXPECT_EQ(plan_variant(V::rowcache_r8, 3840, 2160, 4, true), V::rowcache_r8);
    EXPECT_EQ(plan_variant(V::rowcache_r16, 3842, 2160, 4, false), V::tile);
    EXPECT_EQ(plan_variant(V::rowcache_w8, 3840, 2160, 4, true, 4), V::rowcache_r8);
    EXPECT_EQ(plan_variant(V::rowcache_w8, 3840, 2160, 4, true, 1), V::rowcache_w8);
    EXPECT_EQ(plan_variant(V::rowcache_w8, 10, 8, 1, true, 4), V::tile);
    {
        const auto p = resize_plan_launch(V::rowcache_r16, 3840, 2160, 4, 132, true);
        EXPECT_EQ(p.gx, 15u); // 3840 / 256
        EXPECT_EQ(p.gy, 34u); // ceil(2160 / 64)
        EXPECT_EQ(p.gz, 4u);
        const auto w = resize_plan_launch(V::rowcache_w8, 3840, 2160, 4, 132, true);
        EXPECT_EQ(w.gx, 8u);  // ceil(3840 / 512)
        EXPECT_EQ(w.gy, 68u); // ceil(2160 / 32)
    }
    EXPECT_EQ(plan_variant(V::rowcache_r8, 4, 32 * 65535 + 1, 1, true), V::tile);
    // staged: rowcache's geometry, one chunk, every method.
    EXPECT_EQ(plan_variant(V::staged_r8, 3840, 2160, 4, true, 4), V::staged_r8);
    EXPECT_EQ(resize_plan_launch(V::staged_r16, 3840, 2160, 4, 132, true).gy, 34u);
    EXPECT_EQ(plan_variant(V::staged_r16, 3842, 2160, 4, false), V::tile);
    EXPECT_EQ(plan_variant(V::rowcache_r8, 4, 32 * 65535, 1, true), V::rowcache_r8);
}

} // namespace

// The automatic choice follows the tuning row of the compute capability (the table itself:
// qa_tuning_tables.cc).
TEST(ResizeLaunchPlan, TuningTable)
{
    using V = resize_variant;
    for (int sm : { 0, 50, 75, 80, 89, 90, 100, 120 }) {
        const resize_tuning& t = resize_tuning_for(sm);
        EXPECT_EQ(resize_plan_launch(V::automatic, 3840, 2160, 4, 132, true, 2, true, t)
                      .variant,
                  t.upscale)
            << sm;
        EXPECT_EQ(resize_plan_launch(V::automatic, 3840, 2160, 4, 132, true, 2, false, t)
                      .variant,
                  t.wide)
            << sm;
        EXPECT_EQ(
            resize_plan_launch(V::automatic, 224, 224, 1, 132, true, 2, false, t).variant,
            V::point)
            << sm;
    }
}
