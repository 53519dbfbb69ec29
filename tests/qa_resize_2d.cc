/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Kernel tests of resize_2d against a naive double-precision reference written here from
// the definitions (coordinate maps, Keys' cubic with a = -0.75, periodic border folding,
// transform), on the CPU and, when present, the GPU.
#include "common/float16.h"
#include "cuda/resize_launch.h"
#ifdef GPUINTERP_RESIZE_LAB
#include "../bench/resize_lab.h" // the lab engine: every variant, bench/resize_lab.cu
#endif
#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <array>
#include <cstring>
#include <functional>

using namespace gpuinterp_test;
using gr::gpuinterp::kernel::resize_2d;

namespace {

struct spec {
    int ih, iw, oh, ow, C;
    std::string method = "bilinear", coord = "half_pixel", border = "replicate";
    double bv = 0;
    std::vector<double> mean, stdv;
    double scale = 1;
    bool clip = false;
    double lo = 0, hi = 1;
};

// Border folding written as a period, independent of the library's mirror loop.
// Returns -1 for a constant-border sample.
int ref_border(long p, long n, const std::string& b)
{
    if (p >= 0 && p < n)
        return int(p);
    if (b == "replicate")
        return p < 0 ? 0 : int(n - 1);
    if (b == "constant")
        return -1;
    if (b == "reflect") { // ... 1 0 | 0 1 ... n-1 | n-1 ...
        const long per = 2 * n;
        long q = ((p % per) + per) % per;
        return int(q < n ? q : per - 1 - q);
    }
    // reflect_101: ... 2 1 | 0 1 ... n-1 | n-2 ...
    if (n == 1)
        return 0;
    const long per = 2 * n - 2;
    long q = ((p % per) + per) % per;
    return int(q < n ? q : per - q);
}

double keys(double t)
{
    const double a = -0.75;
    t = std::fabs(t);
    if (t <= 1)
        return (a + 2) * t * t * t - (a + 3) * t * t + 1;
    if (t < 2)
        return a * t * t * t - 5 * a * t * t + 8 * a * t - 4 * a;
    return 0;
}

// Unmapped source taps (index, weight) of output position o along one axis.
std::vector<std::pair<long, double>> ref_taps(int o, int in, int out, const spec& s)
{
    double x;
    if (s.coord == "half_pixel")
        x = (o + 0.5) * in / out - 0.5;
    else if (s.coord == "align_corners")
        x = out > 1 ? double(o) * (in - 1) / (out - 1) : 0.0;
    else
        x = double(o) * in / out;
    if (s.method == "nearest") {
        long i;
        if (s.coord == "half_pixel")
            // OpenCV INTER_NEAREST evaluates floor(o * (1 / (out/in))) in double, which
            // falls one short of the exact floor at some exact multiples (8 -> 196, o =
            // 49); cv2 is the oracle.
            i = std::min<long>(long(std::floor(o * (1.0 / (double(out) / in)))), in - 1);
        else
            i = long(std::nearbyint(x));
        return { { i, 1.0 } };
    }
    const long i0 = long(std::floor(x));
    const double f = x - i0;
    if (s.method == "bilinear")
        return { { i0, 1 - f }, { i0 + 1, f } };
    std::vector<std::pair<long, double>> t;
    for (int k = -1; k <= 2; k++)
        t.push_back({ i0 + k, keys(f - k) });
    return t;
}

template <typename T>
std::vector<double> reference(const spec& s, const std::vector<T>& in, size_t frames)
{
    const size_t inf = size_t(s.ih) * s.iw * s.C, outf = size_t(s.oh) * s.ow * s.C;
    std::vector<double> y(frames * outf);
    for (size_t f = 0; f < frames; f++)
        for (int oy = 0; oy < s.oh; oy++) {
            const auto ty = ref_taps(oy, s.ih, s.oh, s);
            for (int ox = 0; ox < s.ow; ox++) {
                const auto tx = ref_taps(ox, s.iw, s.ow, s);
                for (int c = 0; c < s.C; c++) {
                    double v = 0;
                    for (auto& a : ty)
                        for (auto& b : tx) {
                            const int yy = ref_border(a.first, s.ih, s.border);
                            const int xx = ref_border(b.first, s.iw, s.border);
                            const double p =
                                (yy < 0 || xx < 0)
                                    ? s.bv
                                    : double(in[f * inf + (size_t(yy) * s.iw + xx) * s.C +
                                                c]);
                            v += a.second * b.second * p;
                        }
                    double u = s.scale * v;
                    if (s.clip)
                        u = std::min(std::max(u, s.lo), s.hi);
                    const double m =
                        s.mean.empty() ? 0 : s.mean[s.mean.size() == 1 ? 0 : c];
                    const double d =
                        s.stdv.empty() ? 1 : s.stdv[s.stdv.size() == 1 ? 0 : c];
                    y[f * outf + (size_t(oy) * s.ow + ox) * s.C + c] = (u - m) / d;
                }
            }
        }
    return y;
}

template <typename T>
std::vector<T> random_frames(size_t n);
template <>
std::vector<float> random_frames<float>(size_t n)
{
    return random_vector<float>(n);
}
template <>
std::vector<uint8_t> random_frames<uint8_t>(size_t n)
{
    std::vector<uint8_t> v(n);
    for (auto& x : v)
        x = uint8_t(random_size(1, 255));
    return v;
}

std::vector<float> to_f(const std::vector<double>& v)
{
    return std::vector<float>(v.begin(), v.end());
}

// Weights are float and sums float: a few ulps of the largest |value| involved.
constexpr double rtol = 1e-5;
constexpr double atol = 1e-5;

class Resize : public ::testing::TestWithParam<backend>
{
protected:
    void SetUp() override { GPUINTERP_SKIP_WITHOUT_DEVICE(GetParam()); }

    template <typename T>
    std::unique_ptr<resize_2d<T>> make(const spec& s, size_t batch = 0)
    {
        auto k = std::make_unique<resize_2d<T>>(s.ih,
                                                s.iw,
                                                s.oh,
                                                s.ow,
                                                s.C,
                                                s.method,
                                                s.coord,
                                                s.border,
                                                float(s.bv),
                                                GetParam(),
                                                0,
                                                batch);
        EXPECT_EQ(k->active_backend(), GetParam());
        std::vector<float> m(s.mean.begin(), s.mean.end()),
            d(s.stdv.begin(), s.stdv.end());
        k->set_normalization(m, d);
        k->set_scale(float(s.scale));
        k->set_clip(s.clip, float(s.lo), float(s.hi));
        return k;
    }

    template <typename T>
    void check(const spec& s, size_t frames, size_t batch = 0)
    {
        auto k = make<T>(s, batch);
        auto x = random_frames<T>(frames * k->in_frame_size());
        std::vector<float> y(frames * k->out_frame_size());
        poison(y);
        k->resize(y.data(), x.data(), frames);
        EXPECT_TRUE(all_close(y, reference(s, x, frames), rtol, atol))
            << s.method << " " << s.coord << " " << s.border << " " << s.ih << "x" << s.iw
            << "->" << s.oh << "x" << s.ow << " C=" << s.C << " frames=" << frames;
    }
};

TEST_P(Resize, EveryMethodCoordBorder)
{
    const std::vector<std::array<int, 4>> sizes = { { 5, 7, 9, 4 },
                                                    { 6, 6, 3, 11 },
                                                    { 4, 9, 13, 2 } };
    for (auto m : { "nearest", "bilinear", "bicubic" })
        for (auto c : { "half_pixel", "align_corners", "asymmetric" })
            for (auto b : { "replicate", "reflect", "reflect_101", "constant" })
                for (auto& sz : sizes)
                    for (int C : { 1, 3 }) {
                        spec s{ sz[0], sz[1], sz[2], sz[3], C, m, c, b };
                        s.bv = random_value<float>(2.0f);
                        check<float>(s, 2);
                    }
}

TEST_P(Resize, DegenerateShapes)
{
    // 1xN, Nx1, 1x1 frames in and out, in both directions; the reflect modes fold
    // repeatedly.
    const std::vector<std::array<int, 4>> sizes = { { 1, 9, 1, 20 }, { 9, 1, 20, 1 },
                                                    { 1, 1, 5, 3 },  { 7, 5, 1, 1 },
                                                    { 1, 12, 3, 5 }, { 2, 2, 9, 9 },
                                                    { 17, 1, 4, 1 } };
    for (auto m : { "nearest", "bilinear", "bicubic" })
        for (auto c : { "half_pixel", "align_corners", "asymmetric" })
            for (auto b : { "replicate", "reflect", "reflect_101", "constant" })
                for (auto& sz : sizes) {
                    spec s{ sz[0], sz[1], sz[2], sz[3], 2, m, c, b };
                    s.bv = 0.75;
                    check<float>(s, 1);
                }
}

TEST_P(Resize, ChannelsOneToFour)
{
    for (int C = 1; C <= 4; C++)
        for (auto m : { "nearest", "bilinear", "bicubic" }) {
            spec s{ 11, 13, 7, 29, C, m };
            check<float>(s, 3);
            check<uint8_t>(s, 3);
        }
}

TEST_P(Resize, UpAndDownScaleLargerFrames)
{
    // Many rows: the CPU splits a frame over threads (row blocks) and reuses cached H
    // rows.
    for (auto m : { "nearest", "bilinear", "bicubic" }) {
        check<float>(spec{ 120, 200, 257, 431, 1, m }, 1);
        check<float>(spec{ 257, 431, 64, 64, 3, m }, 2);
        check<uint8_t>(spec{ 90, 160, 224, 224, 1, m, "half_pixel", "reflect_101" }, 2);
    }
}

TEST_P(Resize, LargeOutputStreamedPastTheCache)
{
    // 70 frames of 256x256 floats (18 MB out): the CPU backend writes rows with
    // non-temporal stores above 16 MB of output per call; the unaligned frame offset
    // exercises the scalar head.
    spec s{ 40, 41, 256, 255, 1, "bilinear" };
    s.mean = { 0.25 };
    check<float>(s, 70);
}

TEST_P(Resize, FusedTransform)
{
    spec s{ 23, 17, 31, 12, 3, "bicubic", "half_pixel", "reflect" };
    s.mean = { 0.485, 0.456, 0.406 };
    s.stdv = { 0.229, 0.224, 0.225 };
    s.scale = 1.0 / 255.0;
    check<uint8_t>(s, 4);
    s.clip = true; // bicubic overshoot of [0, 255] is cut before normalising
    check<uint8_t>(s, 4);
    spec t{ 9, 8, 16, 5, 1, "bilinear", "align_corners", "constant" };
    t.bv = -0.5;
    t.mean = { 0.25 };
    t.stdv = { 3.0 };
    t.scale = -2.0;
    t.clip = true;
    t.lo = -0.7;
    t.hi = 0.9;
    check<float>(t, 5);
    spec u{ 9, 8, 16, 5, 2, "nearest" };
    u.mean = { 1.5 }; // one mean for all channels, std left at 1
    check<float>(u, 2);
}

TEST_P(Resize, ManyFramesPerCallAndSmallBatches)
{
    // batch=4 frames per GPU launch: the two-slot pipeline wraps many times within one
    // call.
    spec s{ 33, 47, 64, 64, 1, "bilinear" };
    s.mean = { 0.1 };
    s.stdv = { 0.5 };
    check<float>(s, 37, 4);
    check<uint8_t>(spec{ 21, 19, 8, 40, 3, "bicubic" }, 50, 3);
}

TEST_P(Resize, RandomFrameChunksEqualOneCall)
{
    // Frames are independent; what this checks is the plumbing across calls of varying
    // size (staging buffers that grow, slots reused, empty calls in between):
    // bit-identical output.
    spec s{ 13, 21, 30, 17, 3, "bicubic", "align_corners", "reflect" };
    s.mean = { 0.3 };
    auto k = make<float>(s, 3);
    const size_t frames = 40;
    auto x = random_frames<float>(frames * k->in_frame_size());
    std::vector<float> one(frames * k->out_frame_size()), chunked(one.size());
    std::vector<uint16_t> one_h(one.size()), chunked_h(one.size());
    k->resize(one.data(), x.data(), frames);
    k->resize_half(one_h.data(), x.data(), frames);
    poison(chunked);
    size_t pos = 0;
    while (pos < frames) {
        const size_t c = std::min(frames - pos, random_size(0, 7));
        k->resize(chunked.data() + pos * k->out_frame_size(),
                  x.data() + pos * k->in_frame_size(),
                  c);
        k->resize_half(chunked_h.data() + pos * k->out_frame_size(),
                       x.data() + pos * k->in_frame_size(),
                       c);
        pos += c;
    }
    for (size_t i = 0; i < one.size(); i++) {
        ASSERT_EQ(chunked[i], one[i]) << i;
        ASSERT_EQ(chunked_h[i], one_h[i]) << i;
    }
    EXPECT_TRUE(all_close(one, reference(s, x, frames), rtol, atol));
}

TEST_P(Resize, HalfOutputWithinRelativeTolerance)
{
    for (auto m : { "nearest", "bilinear", "bicubic" }) {
        spec s{ 19, 23, 40, 9, 3, m };
        s.mean = { 0.5 };
        s.stdv = { 0.01 }; // values up to ~150: tests the exponent range beyond [-1, 1]
        auto k = make<float>(s, 2);
        const size_t frames = 5;
        auto x = random_frames<float>(frames * k->in_frame_size());
        std::vector<float> yf(frames * k->out_frame_size());
        std::vector<uint16_t> yh(yf.size(),
                                 0x7e00); // NaN pattern: an unwritten item fails
        k->resize(yf.data(), x.data(), frames);
        k->resize_half(yh.data(), x.data(), frames);
        const auto want = reference(s, x, frames);
        ASSERT_TRUE(all_close(yf, want, rtol, 1e-3));
        for (size_t i = 0; i < yh.size(); i++) {
            const float h = gr::gpuinterp::half_to_float(yh[i]);
            ASSERT_LE(std::fabs(h - yf[i]), 1e-3 * std::fabs(yf[i]) + 6e-8)
                << "index " << i << " half " << h << " float " << yf[i];
            // On the CPU the float and half paths share every operation up to the
            // conversion (F16C or the portable one): the half is exactly the float
            // rounded to nearest even.
            if (GetParam() == backend::cpu)
                ASSERT_EQ(yh[i], gr::gpuinterp::float_to_half(yf[i])) << "index " << i;
        }
    }
}

// The CUDA backend has several kernel variants (lib/cuda/resize_launch.h) with the same
// arithmetic and different thread mappings; the other tests run the automatic choice.
// Here each variant is forced, through the benchmarks' lab engine (bench/resize_lab.cu: the
// library's tables, plan and kernel instances, with the variant chosen by the caller), on shapes that exercise its edges (row widths that are and
// are not multiples of 4 and of the 256/512-element blocks, partial blocks in x, y and
// frames, 1..4 taps, channels, every border, the fused transform, exact 2x/3x upscales
// whose output rows share source rows, shrinks), with float32 and uint8 input, and checked
// against the reference, and bit for bit against the original "tile" kernel in float32 and
// binary16 output: every variant performs the same roundings in the same order
// (lib/cuda/resize_walk.h), so any difference is a wrong tap, weight or row reuse.
namespace gpu = gr::gpuinterp::gpu;

// The variant the plan runs when `v` is requested on spec `s` (resize_launch.h's rules).
int expected_variant(int v, const spec& s)
{
    const auto vr = gpu::resize_variant(v);
    const bool vec_fits = s.ow * s.C % 4 == 0;
    if (vr == gpu::resize_variant::rowcache_w8 && s.method == "bicubic")
        return vec_fits ? int(gpu::resize_variant::rowcache_r8) : 0;
    if ((gpu::resize_is_vec4(vr) || gpu::resize_is_rowcache(vr)) && !vec_fits)
        return 0;
    return v;
}

std::vector<spec> variant_specs()
{
    std::vector<spec> specs;
    specs.push_back(spec{ 30, 50, 61, 100, 1, "bilinear" }); // RW 100: vec4
    specs.push_back(spec{ 30, 50, 61, 98, 1, "bilinear" });  // RW 98: tile fallback
    specs.push_back(spec{ 97, 131, 19, 21, 3, "bilinear" }); // shrink, RW 63
    specs.push_back(spec{ 23, 17, 37, 20, 3, "bicubic", "half_pixel", "reflect" });
    specs.push_back(spec{ 9, 8, 16, 12, 2, "nearest", "asymmetric", "constant", -0.5 });
    specs.push_back(
        spec{ 40, 40, 81, 264, 4, "bicubic", "align_corners", "constant", 2 });
    specs[3].mean = { 0.485, 0.456, 0.406 };
    specs[3].stdv = { 0.229, 0.224, 0.225 };
    specs[3].clip = true;
    specs[3].lo = 0.1;
    specs[3].hi = 0.8;
    specs[5].mean = { 0.5 };
    specs[5].scale = 3.0;
    // Exact 2x: output rows 2i+1 and 2i+2 share both source rows (rowcache reuse); 70 rows
    // leave partial 32- and 64-row blocks, RW 264 partial 256- and 512-element blocks.
    specs.push_back(spec{ 35, 132, 70, 264, 1, "bilinear" });
    specs.push_back(spec{ 35, 66, 70, 132, 2, "bicubic", "half_pixel", "reflect_101" });
    specs.push_back(spec{ 35, 33, 105, 132, 4, "nearest" }); // 3x: 3 rows per source row
    specs.push_back(
        spec{ 18, 20, 37, 40, 1, "bilinear", "align_corners", "constant", 0.25 });
    specs.push_back(spec{ 20, 30, 41, 60, 2, "bilinear", "half_pixel", "reflect" });
    specs.back().mean = { 0.2, -0.1 };
    specs.back().stdv = { 0.5, 2.0 };
    // Rows that map to one source row each, and a shrink by 3.
    specs.push_back(spec{ 50, 16, 50, 64, 1, "bilinear" });
    specs.push_back(spec{ 90, 96, 30, 32, 1, "bicubic", "asymmetric", "replicate" });
    return specs;
}

#ifdef GPUINTERP_RESIZE_LAB
// The lab engine with the tables and transform resize_2d gives its engine for spec `s`.
template <typename T>
std::unique_ptr<gpu::resize_lab_engine<T>> make_lab(const spec& s, size_t frames)
{
    namespace k = gr::gpuinterp::kernel;
    auto e = gpu::make_resize_lab_engine<T>(0, frames);
    const auto m = k::resize_method_from_string(s.method);
    const auto c = k::resize_coord_from_string(s.coord);
    const auto b = k::resize_border_from_string(s.border);
    const k::resize_geometry g{ s.ih, s.iw, s.oh, s.ow, s.C };
    k::set_resize_tables(*e, g, m, c, b, float(s.bv));
    k::resize_transform tf;
    for (int ch = 0; ch < 4; ch++) {
        const size_t cc = size_t(std::min(ch, s.C - 1));
        tf.mean[ch] = s.mean.empty() ? 0.f : float(s.mean[s.mean.size() == 1 ? 0 : cc]);
        const double sd =
            s.stdv.empty() ? 1.0 : double(float(s.stdv[s.stdv.size() == 1 ? 0 : cc]));
        tf.inv_std[ch] = float(1.0 / sd);
    }
    tf.scale = float(s.scale);
    tf.clip = s.clip;
    tf.clip_min = float(s.lo);
    tf.clip_max = float(s.hi);
    e->set_transform(tf);
    return e;
}

template <typename T>
void check_variants()
{
    const size_t frames = 5;
    for (const auto& s : variant_specs()) {
        const std::vector<T> x = random_frames<T>(frames * size_t(s.ih) * s.iw * s.C);
        const auto want = reference(s, x, frames);
        std::vector<float> tile;
        std::vector<uint16_t> tile_h;
        auto k = make_lab<T>(s, frames);
        const size_t out_n = frames * size_t(s.oh) * s.ow * s.C;
        for (int v = 0; v < gpu::resize_variant_count; v++) {
            const auto vr = gpu::resize_variant(v);
            const std::string what = std::string(gpu::resize_variant_name(vr)) + " " +
                                     s.method + " " + s.coord + " " + s.border + " " +
                                     std::to_string(s.ih) + "x" + std::to_string(s.iw) +
                                     "->" + std::to_string(s.oh) + "x" +
                                     std::to_string(s.ow) + " C=" + std::to_string(s.C) +
                                     (sizeof(T) == 1 ? " uint8" : " float32");
            k->set_variant(v);
            std::vector<float> y(out_n);
            std::vector<uint16_t> yh(y.size(), 0x7e00); // NaN: an unwritten item fails
            poison(y);
            k->run(y.data(), false, x.data(), frames);
            EXPECT_EQ(k->last_variant(), expected_variant(v, s)) << what;
            k->run(yh.data(), true, x.data(), frames);
            EXPECT_EQ(k->last_variant(), expected_variant(v, s)) << what;
            EXPECT_TRUE(all_close(y, want, rtol, atol)) << what;
            if (v == 0) {
                tile = y;
                tile_h = yh;
            } else {
                size_t diff = 0, first = 0;
                for (size_t i = 0; i < y.size(); i++) {
                    uint32_t a, b;
                    std::memcpy(&a, &y[i], 4);
                    std::memcpy(&b, &tile[i], 4);
                    if (a != b && diff++ == 0)
                        first = i;
                }
                EXPECT_EQ(diff, 0u)
                    << what << ": float32 output differs from tile, first at " << first
                    << " (" << y[first] << " vs " << tile[first] << ")";
                diff = 0;
                for (size_t i = 0; i < yh.size(); i++)
                    if (yh[i] != tile_h[i] && diff++ == 0)
                        first = i;
                EXPECT_EQ(diff, 0u)
                    << what << ": binary16 output differs from tile, first at " << first;
            }
            for (size_t i = 0; i < yh.size(); i++) {
                const float h = gr::gpuinterp::half_to_float(yh[i]);
                ASSERT_LE(std::fabs(h - y[i]), 1e-3 * std::fabs(y[i]) + 6e-8)
                    << what << " index " << i << " half " << h << " float " << y[i];
            }
        }
    }
}
#endif

TEST_P(Resize, EveryKernelVariant)
{
    if (GetParam() != backend::cuda)
        GTEST_SKIP() << "CUDA kernel variants";
#ifdef GPUINTERP_RESIZE_LAB
    check_variants<float>();
    EXPECT_THROW(
        make_lab<float>(variant_specs()[0], 1)->set_variant(gpu::resize_variant_count),
        std::invalid_argument);
#else
    GTEST_SKIP() << "the lab engine (bench/resize_lab.cu) is not linked";
#endif
}

#ifdef GPUINTERP_RESIZE_LAB
// The lab engine is the library's recipe: with the automatic choice it runs a library variant
// and gives resize_2d's output bit for bit, so what the benchmarks time is what the library runs.
TEST_P(Resize, LabEngineAutomaticIsTheLibrary)
{
    if (GetParam() != backend::cuda)
        GTEST_SKIP() << "CUDA kernel variants";
    const size_t frames = 5;
    for (const auto& s : variant_specs()) {
        auto k = make<float>(s);
        const std::vector<float> x = random_frames<float>(frames * k->in_frame_size());
        std::vector<float> y(frames * k->out_frame_size()), ylab(y.size());
        k->resize(y.data(), x.data(), frames);
        auto lab = make_lab<float>(s, frames);
        lab->run(ylab.data(), false, x.data(), frames);
        EXPECT_TRUE(gpu::resize_is_production(gpu::resize_variant(lab->last_variant())))
            << gpu::resize_variant_name(gpu::resize_variant(lab->last_variant()));
        EXPECT_EQ(std::memcmp(y.data(), ylab.data(), y.size() * sizeof(float)), 0)
            << s.method << " " << s.ih << "x" << s.iw << "->" << s.oh << "x" << s.ow;
    }
}
#endif

TEST_P(Resize, EveryKernelVariantUint8)
{
    if (GetParam() != backend::cuda)
        GTEST_SKIP() << "CUDA kernel variants";
#ifdef GPUINTERP_RESIZE_LAB
    check_variants<uint8_t>();
#else
    GTEST_SKIP() << "the lab engine (bench/resize_lab.cu) is not linked";
#endif
}

#ifdef GPUINTERP_RESIZE_LAB
// The variants whose kernel instances an entry of resize_lab_builds changes (bench/resize_lab.h).
std::vector<int> build_variants(const gpu::resize_lab_build& b)
{
    using v = gpu::resize_variant;
    switch (b.group) {
    case gpu::resize_lab_build::tile:
        return { int(v::tile) };
    case gpu::resize_lab_build::vec:
        return { int(v::vec4_r4), int(v::rowcache_r32) };
    case gpu::resize_lab_build::point:
        return { int(v::point), int(v::point_f4) };
    case gpu::resize_lab_build::rowcache_nearest:
    case gpu::resize_lab_build::rowcache_bicubic:
        return { int(v::rowcache_r32) };
    case gpu::resize_lab_build::staged:
        return { int(v::staged_r8), int(v::staged_r16) };
    default:
        return {};
    }
}

// "bilinear half_pixel constant 12x10->7x15 C=2".
std::string shape_name(const spec& s)
{
    return std::string(s.method) + " " + s.coord + " " + s.border + " " +
           std::to_string(s.ih) + "x" + std::to_string(s.iw) + "->" +
           std::to_string(s.oh) + "x" + std::to_string(s.ow) +
           " C=" + std::to_string(s.C);
}

// One spec's float32 case for the lab tests below: five random frames, the reference, and the
// lab engine's output with the library's tile variant (what every other build must equal).
struct lab_case {
    static constexpr size_t frames = 5;
    std::vector<float> x;
    std::vector<double> want;
    size_t out_n;
    std::unique_ptr<gpu::resize_lab_engine<float>> k;
    std::vector<float> tile;

    explicit lab_case(const spec& s)
        : x(random_frames<float>(frames * size_t(s.ih) * s.iw * s.C)),
          want(reference(s, x, frames)),
          out_n(frames * size_t(s.oh) * s.ow * s.C),
          k(make_lab<float>(s, frames)),
          tile(out_n)
    {
        k->set_variant(int(gpu::resize_variant::tile));
        k->run(tile.data(), false, x.data(), frames);
    }

    // Variant v forced with the engine's current build and tuning: `ran` ran, and the output
    // equals the reference and, bit for bit, the library's tile.
    void expect_forced(int v, int ran, const std::string& what)
    {
        k->set_variant(v);
        std::vector<float> y(out_n);
        poison(y);
        k->run(y.data(), false, x.data(), frames);
        EXPECT_EQ(k->last_variant(), ran) << what;
        EXPECT_TRUE(all_close(y, want, rtol, atol)) << what;
        EXPECT_EQ(std::memcmp(y.data(), tile.data(), out_n * sizeof(float)), 0)
            << what << ": float32 output differs from the library's tile";
    }
};

// The library's kernel templates instantiated with the lab's other build constants
// (resize_lab_builds: tile threads and elements, vec4/rowcache blocks, point blocks, rowcache
// blocks per SM, the staged rectangle), each forced on every spec above and planned for its
// build: checked against the reference and bit for bit against the library's tile. float32 in and
// out: the lab instantiates the other builds for float32 only.
TEST(ResizeLab, EveryLabBuild)
{
    GPUINTERP_SKIP_WITHOUT_DEVICE(backend::cuda);
    for (const auto& s : variant_specs()) {
        lab_case c(s);
        for (int i = 1; i < gpu::resize_lab_build_count; i++) {
            const gpu::resize_lab_build& b = gpu::resize_lab_builds[i];
            c.k->set_build(b.build);
            for (int v : build_variants(b))
                c.expect_forced(v,
                                expected_variant(v, s),
                                std::string(b.name) + " " +
                                    gpu::resize_variant_name(gpu::resize_variant(v)) +
                                    " " + shape_name(s));
        }
        // Only float32 is instantiated for the other builds.
        c.k->set_build(gpu::resize_lab_builds[1].build);
        c.k->set_variant(int(gpu::resize_variant::tile));
        std::vector<uint16_t> yh(c.out_n);
        EXPECT_THROW(c.k->run(yh.data(), true, c.x.data(), c.frames),
                     std::invalid_argument);
    }
}

// The tile plan with other values of the tuning row's tile_waves (the benchmarks' sweep, and 0:
// always 4 rows per thread): the rows per thread change, the output does not.
TEST(ResizeLab, TileWavesOfTheRow)
{
    GPUINTERP_SKIP_WITHOUT_DEVICE(backend::cuda);
    const int tile = int(gpu::resize_variant::tile);
    for (const auto& s : variant_specs()) {
        lab_case c(s);
        for (double waves : { 0.0, 1.0, 2.0, 4.0, 8.0 }) {
            gpu::resize_tuning t = gpu::resize_tuning_for(90);
            t.tile_waves = waves;
            c.k->set_tuning(t);
            c.expect_forced(
                tile, tile, "tile_waves " + std::to_string(waves) + " " + shape_name(s));
        }
    }
}
#endif

// The expected fallbacks above are resize_launch.h's rules restated; this pins them to
// the plan itself for the variants whose support is partial.
TEST(ResizeVariants, ExpectedFallbacksMatchThePlan)
{
    for (const auto& s : variant_specs())
        for (int v = 0; v < gpu::resize_variant_count; v++) {
            const int taps = s.method == "nearest" ? 1 : (s.method == "bilinear" ? 2 : 4);
            const auto p = gpu::resize_plan_launch(gpu::resize_variant(v),
                                                   s.ow * s.C,
                                                   s.oh,
                                                   5,
                                                   132,
                                                   s.ow * s.C % 4 == 0,
                                                   taps);
            EXPECT_EQ(int(p.variant), expected_variant(v, s))
                << gpu::resize_variant_name(gpu::resize_variant(v)) << " " << s.method
                << " RW=" << s.ow * s.C;
        }
}

TEST_P(Resize, SettersBetweenCalls)
{
    spec s{ 12, 10, 7, 15, 2, "bilinear", "half_pixel", "constant" };
    s.bv = 1.0;
    auto k = make<float>(s);
    auto x = random_frames<float>(2 * k->in_frame_size());
    std::vector<float> y(2 * k->out_frame_size());
    k->resize(y.data(), x.data(), 2);
    EXPECT_TRUE(all_close(y, reference(s, x, 2), rtol, atol));

    s.bv = -3.0;
    k->set_border_value(-3.0f);
    s.mean = { 1.0, -1.0 };
    s.stdv = { 2.0, 0.5 };
    k->set_normalization({ 1.0f, -1.0f }, { 2.0f, 0.5f });
    poison(y);
    k->resize(y.data(), x.data(), 2);
    EXPECT_TRUE(all_close(y, reference(s, x, 2), rtol, atol));

    s.method = "bicubic";
    s.coord = "asymmetric";
    s.border = "reflect_101";
    k->set_method("bicubic");
    k->set_coord("asymmetric");
    k->set_border("reflect_101");
    poison(y);
    k->resize(y.data(), x.data(), 2);
    EXPECT_TRUE(all_close(y, reference(s, x, 2), rtol, atol));
    EXPECT_EQ(k->method(), "bicubic");
    EXPECT_EQ(k->border(), "reflect_101");
    EXPECT_EQ(k->coord(), "asymmetric");
}

TEST_P(Resize, EmptyCallWritesNothing)
{
    resize_2d<float> k(
        4, 4, 8, 8, 1, "bilinear", "half_pixel", "replicate", 0.f, GetParam());
    std::vector<float> y(64, 42.0f);
    k.resize(y.data(), nullptr, 0);
    for (float v : y)
        EXPECT_EQ(v, 42.0f);
}

GPUINTERP_BACKEND_SUITE(Resize);

// --- backend-independent checks ---

::testing::AssertionResult throws_named(const std::function<void()>& f,
                                        const std::string& name)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        const std::string w = e.what();
        if (w.rfind(name + ":", 0) == 0)
            return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure()
               << "message '" << w << "' does not start with " << name;
    }
    return ::testing::AssertionFailure() << "no std::invalid_argument for " << name;
}

TEST(ResizeParams, BadParametersNameThemselves)
{
    using K = resize_2d<float>;
    EXPECT_TRUE(throws_named([] { K(0, 4, 4, 4); }, "in_height"));
    EXPECT_TRUE(throws_named([] { K(4, -1, 4, 4); }, "in_width"));
    EXPECT_TRUE(throws_named([] { K(4, 4, 0, 4); }, "out_height"));
    EXPECT_TRUE(throws_named([] { K(4, 4, 4, -7); }, "out_width"));
    EXPECT_TRUE(throws_named([] { K(4, 4, 4, 4, 0); }, "channels"));
    EXPECT_TRUE(throws_named([] { K(4, 4, 4, 4, 5); }, "channels"));
    EXPECT_TRUE(throws_named([] { K(4, 4, 4, 4, 1, "area"); }, "method"));
    EXPECT_TRUE(throws_named([] { K(4, 4, 4, 4, 1, "bilinear", "center"); }, "coord"));
    EXPECT_TRUE(throws_named([] { K(4, 4, 4, 4, 1, "bilinear", "half_pixel", "wrap"); },
                             "border"));
    EXPECT_TRUE(
        throws_named([] { K(4, 4, 4, 4, 1, "bilinear", "half_pixel", "constant", NAN); },
                     "border_value"));
    EXPECT_TRUE(throws_named([] { K(100000, 100000, 4, 4); }, "in_height"));
    // Within 2^31-1 elements, but one side's tables alone were tens of GB (std::bad_alloc).
    EXPECT_TRUE(throws_named([] { K(4, 4, 1, 2000000000); }, "out_width"));
    EXPECT_TRUE(throws_named([] { K(4, 4, 2000000000, 1); }, "out_height"));
    EXPECT_TRUE(throws_named([] { K(1, 2000000000, 4, 4); }, "in_width"));
    EXPECT_NO_THROW(K(4, 4, 1, 1 << 20));
    EXPECT_TRUE(throws_named(
        [] {
            K(4, 4, 4, 4, 1, "bilinear", "half_pixel", "replicate", 0, backend::cpu, -1);
        },
        "device"));
    K k(4, 4, 4, 4, 3);
    EXPECT_TRUE(throws_named([&] { k.set_normalization({ 0.f, 0.f }, {}); }, "mean"));
    EXPECT_TRUE(throws_named([&] { k.set_normalization({}, { 1.f, 1.f }); }, "std"));
    EXPECT_TRUE(throws_named(
        [&] {
            k.set_normalization({ 0.f, 0.f, 0.f }, { 1.f });
        },
        "std"));
    EXPECT_TRUE(throws_named(
        [&] {
            k.set_normalization({ 0.f }, { 1.f, 0.f, 1.f });
        },
        "std"));
    EXPECT_TRUE(throws_named(
        [&] {
            k.set_normalization({ 0.f, 0.f, 0.f }, { 1.f, 0.f, 1.f });
        },
        "std"));
    EXPECT_TRUE(throws_named([&] { k.set_normalization({ NAN }, { 1.f }); }, "mean"));
    EXPECT_TRUE(throws_named([&] { k.set_scale(0.f); }, "scale"));
    EXPECT_TRUE(throws_named([&] { k.set_clip(true, 2.f, 1.f); }, "clip_min"));
    EXPECT_TRUE(throws_named([&] { k.set_method("lanczos"); }, "method"));
    EXPECT_TRUE(throws_named([&] { k.set_batch(0); }, "batch"));
    // A rejected setter leaves the previous settings in place.
    k.set_normalization({ 1.f, 2.f, 3.f }, { 4.f, 5.f, 6.f });
    EXPECT_TRUE(throws_named([&] { k.set_normalization({ 0.f }, { 0.f }); }, "std"));
    EXPECT_EQ(k.mean(), (std::vector<float>{ 1.f, 2.f, 3.f }));
    EXPECT_EQ(k.method(), "bilinear");
}

TEST(ResizeParams, BorderIndexMatchesPeriodicFolding)
{
    using gr::gpuinterp::kernel::resize_border_from_string;
    using gr::gpuinterp::kernel::resize_border_index;
    for (auto b : { "replicate", "reflect", "reflect_101", "constant" })
        for (int n = 1; n <= 6; n++)
            for (int p = -20; p < 26; p++)
                EXPECT_EQ(resize_border_index(p, n, resize_border_from_string(b)),
                          ref_border(p, n, b))
                    << b << " n=" << n << " p=" << p;
}

TEST(ResizeParams, HalfConversionRoundsToNearestEven)
{
    using gr::gpuinterp::float_to_half;
    using gr::gpuinterp::half_to_float;
    EXPECT_EQ(float_to_half(1.0f), 0x3c00);
    EXPECT_EQ(float_to_half(-2.0f), 0xc000);
    EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
    EXPECT_EQ(float_to_half(65519.0f), 0x7bff);
    EXPECT_EQ(float_to_half(65520.0f), 0x7c00);
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);        // tie to even (0)
    EXPECT_EQ(float_to_half(std::ldexp(3.0f, -25)), 0x0002);        // tie to even (2)
    EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00); // tie to even
    EXPECT_EQ(float_to_half(1.0f + std::ldexp(3.0f, -11)), 0x3c02); // tie to even
    EXPECT_EQ(float_to_half(2047.0f * std::ldexp(1.0f, -25)),
              0x0400); // tie rounds up into normals
    EXPECT_EQ(float_to_half(INFINITY), 0x7c00);
    EXPECT_TRUE(std::isnan(half_to_float(float_to_half(NAN))));
    // Every finite half survives a round trip.
    for (uint32_t h = 0; h < 0x10000; h++) {
        if ((h & 0x7c00) == 0x7c00)
            continue;
        ASSERT_EQ(float_to_half(half_to_float(uint16_t(h))), h) << h;
    }
}

TEST(ResizeParams, NearestHalfPixelIsOpenCvFloor)
{
    // Away from exact multiples the table is the exact floor(o*in/out); at o*in = k*out
    // OpenCV's double evaluation may give k-1 (cv2.resize does: 8 -> 196 maps o = 49 to
    // 1), and so do we.
    using namespace gr::gpuinterp::kernel;
    int short_by_one = 0;
    for (int in = 1; in <= 300; in += 7)
        for (int out = 1; out <= 300; out += 3) {
            const auto t = resize_make_axis_table(in,
                                                  out,
                                                  resize_method::nearest,
                                                  resize_coord::half_pixel,
                                                  resize_border::replicate);
            for (int o = 0; o < out; o++) {
                const long exact = std::min<long>(long(o) * in / out, in - 1);
                if ((long(o) * in) % out == 0 && t.idx[o] == exact - 1) {
                    short_by_one++;
                    continue;
                }
                ASSERT_EQ(t.idx[o], exact) << in << "->" << out << " o=" << o;
            }
        }
    EXPECT_GT(short_by_one, 0);
    const auto t = resize_make_axis_table(8,
                                          196,
                                          resize_method::nearest,
                                          resize_coord::half_pixel,
                                          resize_border::replicate);
    EXPECT_EQ(t.idx[49], 1);
}

} // namespace
