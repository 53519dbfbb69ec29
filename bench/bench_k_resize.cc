/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Kernel benchmarks of resize_2d (float32 frames, one channel, bilinear, half_pixel,
// replicate):
//  - cpu:         host buffers, the CPU backend (separable tables + OpenMP), one frame
//  per call
//                 (cv2.resize on the same sizes: bench/bench_resize_cv2.py);
//  - cuda_kernel: the CUDA kernel alone on device-resident frames (CUDA-event timing,
//  median of 20):
//                 1080x1920 -> 2160x3840, batch 4, and 2160x3840 -> 224x224, batch 16, in
//                 three modes: fused normalise, resize only, resize then a separate
//                 normalise kernel; plus binary16 output. floor_ms = frames * 4 B * (in +
//                 out pixels) / 4169 GB/s (the measured device-to-device copy rate of the
//                 H200), the same floor as bench/resize_torch_peer.py uses for torch;
//  - cuda_kernel_variant: the same sizes once per CUDA kernel variant (median of 50);
//  - cuda_host:   the whole host-to-host pipeline (pinned staging, two streams, copies +
//  kernel).
// items_per_second counts OUTPUT pixels.
#include "../lib/cuda/resize_launch.h"
#include "bench_util.h"
#include "resize_lab.h"
#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <benchmark/benchmark.h>
#include <initializer_list>
#include <string>

using namespace gr::gpuinterp;

namespace {

//! Memory floor (ms) of frames float32 frames of in_px elements read once and out_px
//! elements of out_bytes written once, at the H200's measured copy rate (4169 GB/s).
double floor_ms(double frames, double in_px, double out_px, double out_bytes = 4.0)
{
    return frames * (4.0 * in_px + out_bytes * out_px) / 4169e9 * 1e3;
}

//! A benchmark row's frames: its arguments 0 .. 4 are ih, iw, oh, ow, frames.
struct row_shape {
    int ih, iw, oh, ow;
    size_t frames;
    explicit row_shape(const benchmark::State& st)
        : ih(int(st.range(0))),
          iw(int(st.range(1))),
          oh(int(st.range(2))),
          ow(int(st.range(3))),
          frames(size_t(st.range(4)))
    {
    }
};

//! The CPU rows (one frame each), timed on the wall clock for at least 0.5 s.
void cpu_rows(benchmark::internal::Benchmark* b)
{
    b->ArgNames({ "ih", "iw", "oh", "ow", "frames" });
    b->Args({ 1080, 1920, 2160, 3840, 1 });
    b->Args({ 2160, 3840, 224, 224, 1 });
    b->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
}

//! The host-to-host bilinear resize (half_pixel, replicate) of a row's frames on backend `b`
//! (`batch` frames per launch on CUDA; 0: the default), with the fused normalisation when
//! `normalise`.
void resize_host_f32(benchmark::State& st, backend b, size_t batch, bool normalise)
{
    const row_shape r(st);
    kernel::resize_2d<float> k(r.ih,
                               r.iw,
                               r.oh,
                               r.ow,
                               1,
                               "bilinear",
                               "half_pixel",
                               "replicate",
                               0.f,
                               b,
                               0,
                               batch);
    if (normalise)
        k.set_normalization({ 0.5f }, { 0.25f });
    auto x = gpuinterp_bench::data<float>(r.frames * k.in_frame_size());
    std::vector<float> y(r.frames * k.out_frame_size());
    k.resize(y.data(), x.data(), r.frames); // warm-up: page faults (CUDA: pinned staging)
    for (auto _ : st) {
        k.resize(y.data(), x.data(), r.frames);
        benchmark::DoNotOptimize(y.data());
    }
    st.SetItemsProcessed(int64_t(st.iterations()) * r.frames * r.oh * r.ow);
}

void BM_resize_cpu_f32(benchmark::State& st)
{
    resize_host_f32(st, backend::cpu, 0, false);
}
BENCHMARK(BM_resize_cpu_f32)->Apply(cpu_rows);

void BM_resize_cpu_f32_fused_normalise(benchmark::State& st)
{
    resize_host_f32(st, backend::cpu, 0, true);
}
BENCHMARK(BM_resize_cpu_f32_fused_normalise)->Apply(cpu_rows);

#ifdef GPUINTERP_HAVE_CUDA
//! What one kernel timing resizes: n_frames frames of in_h x in_w to out_h x out_w.
struct resize_shape {
    int in_h, in_w, out_h, out_w, channels;
    kernel::resize_method method;
    size_t n_frames;
};

//! The benchmark timed by gpu::time_resize_kernel_ms() on device 0 (the arguments after the
//! shape are its own); counts the output pixels and sets the counter kernel_ms.
void time_kernel(benchmark::State& st,
                 const resize_shape& s,
                 gpu::resize_bench_mode mode,
                 bool half_output,
                 int iters,
                 int variant = -1,
                 int l2_fetch_bytes = 0,
                 int* ran = nullptr,
                 const gpu::resize_build_tuning* build = nullptr,
                 const gpu::resize_tuning* tuning = nullptr)
{
    st.counters["kernel_ms"] = gpuinterp_bench::run_device_timed(st, [&] {
        return gpu::time_resize_kernel_ms(0,
                                          { s.in_h,
                                            s.in_w,
                                            s.out_h,
                                            s.out_w,
                                            s.channels,
                                            s.method,
                                            s.n_frames,
                                            mode,
                                            half_output,
                                            iters,
                                            variant,
                                            l2_fetch_bytes,
                                            build,
                                            tuning },
                                          ran);
    });
    st.SetItemsProcessed(int64_t(st.iterations()) * s.n_frames * s.out_h * s.out_w);
}

void gpu_sizes(benchmark::internal::Benchmark* b)
{
    // mode: 0 fused normalise, 1 resize only, 2 resize then separate normalise; half:
    // binary16 out
    b->ArgNames({ "ih", "iw", "oh", "ow", "frames", "mode", "half" });
    for (int mode = 0; mode < 3; mode++) {
        b->Args({ 1080, 1920, 2160, 3840, 4, mode, 0 });
        b->Args({ 2160, 3840, 224, 224, 16, mode, 0 });
    }
    b->Args({ 1080, 1920, 2160, 3840, 4, 0, 1 });
    b->Args({ 2160, 3840, 224, 224, 16, 0, 1 });
}

void BM_resize_cuda_kernel_f32(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const row_shape r(st);
    const auto mode = gpu::resize_bench_mode(st.range(5));
    const bool half = st.range(6) != 0;
    time_kernel(st,
                { r.ih, r.iw, r.oh, r.ow, 1, kernel::resize_method::bilinear, r.frames },
                mode,
                half,
                20);
    st.counters["floor_ms"] = floor_ms(
        double(r.frames), double(r.ih) * r.iw, double(r.oh) * r.ow, half ? 2.0 : 4.0);
}
BENCHMARK(BM_resize_cuda_kernel_f32)
    ->Apply(gpu_sizes)
    ->Apply(gpuinterp_bench::device_timed);

// Kernel variants side by side (lib/cuda/resize_launch.h): variant -1 = automatic (the
// default), 0 tile (the original kernel), 1 vec4_r2, 2 vec4_r2_plain, 3 vec4_r4,
// 4 vec4_r1, 5 point, 6 point_f4, 7 strided_r2, 8 strided_r4, 9 rowcache_r8,
// 10 rowcache_r16, 11 rowcache_w8, 12 staged_r8, 13 staged_r16. A vec4, rowcache or
// staged variant on a row width that is not a multiple of 4 runs tile instead
// (rowcache_w8 with bicubic: rowcache_r8; the counter ran_variant says what ran). float32 output; mode 0 fused normalise, 1 resize only,
// 10 RGB fused, 11 bicubic fused, 12 nearest fused.
void variant_sizes(benchmark::internal::Benchmark* b)
{
    b->ArgNames({ "ih", "iw", "oh", "ow", "frames", "mode", "variant" });
    const int n = gpu::resize_variant_count;
    for (int mode = 0; mode < 2; mode++)
        for (int v = -1; v < n; v++) {
            b->Args({ 1080, 1920, 2160, 3840, 4, mode, v });
            b->Args({ 2160, 3840, 224, 224, 16, mode, v });
        }
    // binary16 output is not a variant axis; RGB 1080p -> 4K (RW = 11520) is.
    for (int v = -1; v < n; v++)
        b->Args({ 1080, 1920, 2160, 3840, 1, 10, v });
    // mode 11: bicubic, one channel, fused normalise.
    for (int v = -1; v < n; v++)
        b->Args({ 1080, 1920, 2160, 3840, 4, 11, v });
    // mode 12: nearest, one channel, fused normalise.
    for (int v = -1; v < n; v++)
        b->Args({ 1080, 1920, 2160, 3840, 4, 12, v });
}

void BM_resize_cuda_kernel_variant(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const row_shape r(st);
    // mode 10: 3 channels, fused normalise; 11: bicubic, 12: nearest, fused normalise
    const int channels = st.range(5) == 10 ? 3 : 1;
    const auto mode = st.range(5) >= 10 ? gpu::resize_bench_mode::fused
                                        : gpu::resize_bench_mode(st.range(5));
    const auto method = st.range(5) == 11   ? kernel::resize_method::bicubic
                        : st.range(5) == 12 ? kernel::resize_method::nearest
                                            : kernel::resize_method::bilinear;
    const int variant = int(st.range(6));
    int ran = -1;
    time_kernel(st,
                { r.ih, r.iw, r.oh, r.ow, channels, method, r.frames },
                mode,
                false,
                50,
                variant,
                0,
                &ran);
    st.counters["floor_ms"] = floor_ms(
        double(r.frames), double(channels) * r.ih * r.iw, double(channels) * r.oh * r.ow);
    st.counters["ran_variant"] = ran;
}
BENCHMARK(BM_resize_cuda_kernel_variant)
    ->Apply(variant_sizes)
    ->Apply(gpuinterp_bench::device_timed);

// The gather-bound shrink (16 x 4K -> 224x224 bilinear, resize only) with the context's
// L2 fetch granularity hint set to l2fetch bytes (0: left as it is) during the timed
// launches. Each output reads 2 source rows at 2 adjacent columns: ~2.1 sectors of 32 B,
// ~58 MB in all; if L2 fills from DRAM in 64-byte units that is ~110 MB, which at the
// measured 0.032 ms is already ~3.4 TB/s. If l2fetch=32 is markedly faster, the shrink is
// bound by over-fetch, and the library could set the hint around its shrink launches.
// Counter l2fetch_default: the value the driver reports outside the experiment. The engine now
// sets 32 bytes itself for these launches (l2_gather_hint in resize_2d.cu): run this benchmark
// with GPUINTERP_RESIZE_L2_HINT=0 for a clean experiment.
void BM_resize_cuda_shrink_l2_fetch(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const int variant = int(st.range(0)), l2 = int(st.range(1));
    int ran = -1;
    time_kernel(st,
                { 2160, 3840, 224, 224, 1, kernel::resize_method::bilinear, 16 },
                gpu::resize_bench_mode::plain,
                false,
                50,
                variant,
                l2,
                &ran);
    st.counters["l2fetch_default"] = gpu::l2_fetch_granularity(0);
    st.counters["ran_variant"] = ran;
}
BENCHMARK(BM_resize_cuda_shrink_l2_fetch)
    ->ArgNames({ "variant", "l2fetch" })
    ->ArgsProduct({ { -1, 5, 6 }, { 0, 32, 64, 128 } })
    ->Apply(gpuinterp_bench::device_timed);

// --- Build constants and the tile row value (BM_tuning_resize_*) ------------------------
// The library's kernel templates with the other build constants of gpu::resize_lab_builds
// (bench/resize_lab.h), each at shapes where `automatic` runs the variants that constant shapes,
// float32 in and out, fused normalise, median of 50 launches; the library's build (build 0) is a
// row of every sweep. --benchmark_filter=BM_tuning_resize_ selects them all. Counters:
// kernel_ms, ran_variant (what the plan ran), build (the index; the label names it and the shape),
// rows (output rows per thread of the plan: a tile block of 512 elements halves the blocks that
// the tile_waves rule counts, so it may take fewer rows than the 256-element ones).
// Every row is planned with the sm_90 row (the one measured; tile_waves varies it), whatever
// device runs it.
constexpr int tuned_sm = 90;

struct sweep_shape {
    const char* name;
    resize_shape s;
};
const sweep_shape sweep_shapes[] = {
    // 0, 1: rowcache_r32 (upscales with row reuse, >= 2 taps)
    { "bilinear_1080p_to_4k_x4",
      { 1080, 1920, 2160, 3840, 1, kernel::resize_method::bilinear, 4 } },
    { "bicubic_1080p_to_4k_x4",
      { 1080, 1920, 2160, 3840, 1, kernel::resize_method::bicubic, 4 } },
    // 2, 3: vec4_r4 (nearest upscale, bilinear shrink)
    { "nearest_1080p_to_4k_x4",
      { 1080, 1920, 2160, 3840, 1, kernel::resize_method::nearest, 4 } },
    { "bilinear_4k_to_1080p_x4",
      { 2160, 3840, 1080, 1920, 1, kernel::resize_method::bilinear, 4 } },
    // 4, 5: tile (bicubic without row reuse); 4 frames keep 4 rows per thread, 1 frame 2
    { "bicubic_4k_to_1080p_x4",
      { 2160, 3840, 1080, 1920, 1, kernel::resize_method::bicubic, 4 } },
    { "bicubic_4k_to_1080p_x1",
      { 2160, 3840, 1080, 1920, 1, kernel::resize_method::bicubic, 1 } },
    // 6, 7: point_f4, point (small outputs)
    { "bilinear_4k_to_224_x16",
      { 2160, 3840, 224, 224, 1, kernel::resize_method::bilinear, 16 } },
    { "bilinear_4k_to_224_x1",
      { 2160, 3840, 224, 224, 1, kernel::resize_method::bilinear, 1 } },
};

//! The plan the lab engine makes of shape s on device 0 (its rows per thread: counter rows).
gpu::resize_plan plan_of(const resize_shape& s,
                         int variant,
                         const gpu::resize_build_tuning& b,
                         const gpu::resize_tuning& t)
{
    const int taps = s.method == kernel::resize_method::nearest    ? 1
                     : s.method == kernel::resize_method::bilinear ? 2
                                                                   : 4;
    return gpu::resize_plan_launch(
        gpu::resize_variant(variant),
        s.out_w * s.channels,
        s.out_h,
        s.n_frames,
        gpu::make_resize_lab_engine<float>(0, 1)->multiprocessors(),
        true,
        taps,
        s.out_h >= s.in_h,
        t,
        b);
}

void BM_tuning_resize_build(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const sweep_shape& sh = sweep_shapes[st.range(0)];
    const gpu::resize_lab_build& b = gpu::resize_lab_builds[st.range(1)];
    const gpu::resize_tuning& t = gpu::resize_tuning_for(tuned_sm);
    int ran = -1;
    time_kernel(st,
                sh.s,
                gpu::resize_bench_mode::fused,
                false,
                50,
                int(st.range(2)),
                0,
                &ran,
                &b.build,
                &t);
    st.counters["ran_variant"] = ran;
    st.counters["build"] = double(st.range(1));
    st.counters["rows"] = plan_of(sh.s, int(st.range(2)), b.build, t).rows;
    st.SetLabel(std::string(sh.name) + " " + b.name);
}
//! Rows: every entry of `group` and the library's build, at the shapes, with variant v (-1:
//! automatic).
void build_rows(benchmark::internal::Benchmark* b,
                gpu::resize_lab_build::group_t group,
                std::initializer_list<int> shapes,
                std::initializer_list<int> variants = { -1 })
{
    for (int s : shapes)
        for (int v : variants)
            for (int i = 0; i < gpu::resize_lab_build_count; i++)
                if (i == 0 || gpu::resize_lab_builds[i].group == group)
                    b->Args({ s, i, v });
}
void build_sweep(benchmark::internal::Benchmark* b)
{
    using g = gpu::resize_lab_build;
    constexpr int rowcache_r32 = int(gpu::resize_variant::rowcache_r32);
    b->ArgNames({ "shape", "build", "variant" });
    build_rows(b, g::tile, { 4, 5 });
    build_rows(b, g::vec, { 0, 1, 2, 3 });
    build_rows(b, g::point, { 6, 7 });
    // Blocks per SM of rowcache: nearest at the nearest upscale, where `automatic` runs vec4_r4
    // (its row is the vec sweep's production row at shape 2), so rowcache_r32 is forced: the
    // library's nearest instance only runs when asked for; bicubic at its upscale.
    build_rows(b, g::rowcache_nearest, { 2 }, { rowcache_r32 });
    build_rows(b, g::rowcache_bicubic, { 1 });
    // The staged variants are the lab's (bench/resize_lab.cu): the rectangle only shapes them.
    build_rows(
        b,
        g::staged,
        { 0, 1 },
        { int(gpu::resize_variant::staged_r8), int(gpu::resize_variant::staged_r16) });
}
BENCHMARK(BM_tuning_resize_build)
    ->Apply(build_sweep)
    ->Apply(gpuinterp_bench::device_timed);

// resize_tuning::tile_waves (4 in the sm_90 row) at the tile shapes: the row of the plan is the
// sm_90 row with tile_waves = waves. Counter rows: the rows per tile thread the plan chose (at
// 132 SMs: 4 frames 4, 4, 2, 1 at waves 1, 2, 4, 8; 1 frame 2, 1, 1, 1).
void BM_tuning_resize_tile_waves(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const sweep_shape& sh = sweep_shapes[st.range(0)];
    gpu::resize_tuning t = gpu::resize_tuning_for(tuned_sm);
    t.tile_waves = double(st.range(1));
    int ran = -1;
    time_kernel(
        st, sh.s, gpu::resize_bench_mode::fused, false, 50, -1, 0, &ran, nullptr, &t);
    st.counters["ran_variant"] = ran;
    st.counters["rows"] = plan_of(sh.s, -1, gpu::resize_build, t).rows;
    st.SetLabel(sh.name);
}
BENCHMARK(BM_tuning_resize_tile_waves)
    ->ArgNames({ "shape", "waves" })
    ->ArgsProduct({ { 4, 5 }, { 1, 2, 4, 8 } })
    ->Apply(gpuinterp_bench::device_timed);

void BM_resize_cuda_kernel_bicubic_f32(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    time_kernel(st,
                { 1080, 1920, 2160, 3840, 1, kernel::resize_method::bicubic, 4 },
                gpu::resize_bench_mode::fused,
                false,
                20);
    st.counters["floor_ms"] = floor_ms(4, 1080.0 * 1920, 2160.0 * 3840);
}
BENCHMARK(BM_resize_cuda_kernel_bicubic_f32)->Apply(gpuinterp_bench::device_timed);

void BM_resize_cuda_host_f32(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    resize_host_f32(st, backend::cuda, size_t(st.range(5)), true);
}
BENCHMARK(BM_resize_cuda_host_f32)
    ->ArgNames({ "ih", "iw", "oh", "ow", "frames", "batch" })
    ->Args({ 1080, 1920, 2160, 3840, 8, 1 })
    ->Args({ 1080, 1920, 2160, 3840, 8, 2 })
    ->Args({ 1080, 1920, 2160, 3840, 8, 4 })
    ->Args({ 2160, 3840, 224, 224, 32, 4 })
    ->Args({ 2160, 3840, 224, 224, 32, 16 })
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
#endif

} // namespace

#ifdef GPUINTERP_HAVE_CUDA
// What a 2x upscale's traffic can reach (4 x 1080x1920 -> 2160x3840 float32: read 33 MB,
// write 133 MB) without gathers or arithmetic, in three thread layouts
// (gpu::time_resize_expand_floor_ms): 0 = output order, 1 = the rowcache mapping, 2 = two
// half-sector-strided stores per row (a pattern to avoid). Compare kernel_ms with
// BM_resize_cuda_kernel_variant's 1080p -> 4K rows and floor_ms.
void BM_resize_cuda_expand_floor(benchmark::State& st)
{
    if (gpuinterp_bench::skip_without_cuda(st))
        return;
    const int layout = int(st.range(0));
    const size_t frames = 4;
    const double ms = gpuinterp_bench::run_device_timed(st, [&] {
        return gpu::time_resize_expand_floor_ms(0, 1080, 1920, frames, layout, 50);
    });
    st.SetItemsProcessed(int64_t(st.iterations()) * frames * 2160 * 3840);
    st.counters["floor_ms"] = floor_ms(double(frames), 1080.0 * 1920, 2160.0 * 3840);
    st.counters["kernel_ms"] = ms;
}
BENCHMARK(BM_resize_cuda_expand_floor)
    ->ArgName("layout")
    ->DenseRange(0, 2)
    ->Apply(gpuinterp_bench::device_timed);
#endif
