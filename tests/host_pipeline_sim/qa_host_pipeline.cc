/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The two-slot host pipeline (lib/cuda/host_pipeline.cuh) on the CPU, against the fake runtime in
// fake_cuda/: its streams run queued work only when synchronised, so a slot reused too early, a
// missing final drain or a throw that leaves work queued shows up as wrong output or an abort.
// The device work is a stand-in "kernel" queued on the slot's stream; the real kernels are
// covered by the CUDA cases of qa_kernels on a GPU host.
#include "host_pipeline.cuh"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <gtest/gtest.h>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {
void throw_cuda_error(cudaError_t err, const char* expr, const char*, int)
{
    throw std::runtime_error(std::string("CUDA error ") + std::to_string(err) + " in " +
                             expr);
}
bool debug_sync_enabled() { return false; }
} // namespace gpu
} // namespace gpuinterp
} // namespace gr

namespace {

using namespace gr::gpuinterp;
using pipeline = gpu::host_pipeline<float, float>;

// A FIR-like engine: history H, L outputs per input, y[n*L + p] = x[n] * (p + 1) + x[n - H].
std::vector<float> reference(const std::vector<float>& x, size_t H, size_t L)
{
    std::vector<float> y(x.size() * L);
    for (size_t n = 0; n < x.size(); n++)
        for (size_t p = 0; p < L; p++)
            y[n * L + p] = x[n] * float(p + 1) + (n >= H ? x[n - H] : 0.f);
    return y;
}

struct fir_like {
    pipeline pipe;
    kernel::stream_history<float> hist;
    size_t L;
    std::vector<cudaStream_t> used; // the stream of every chunk, in order
    fir_like(size_t H, size_t L, bool mapped) : pipe(0, mapped), L(L) { hist.resize(H); }

    //! fail_at: the chunk whose stage (or work) throws; -1: none.
    void run(float* out,
             const float* in,
             size_t n,
             size_t chunk,
             long fail_at = -1,
             bool in_stage = false)
    {
        const size_t H = hist.size(), Lc = L;
        long k = 0;
        pipe.run(
            out,
            n,
            chunk,
            { H, 1, L },
            [&](float* staged, size_t pos, size_t cnt) {
                if (in_stage && k == fail_at)
                    throw std::runtime_error("stage failed");
                hist.window(staged, in, pos, cnt);
            },
            [&](const float* x, float* y, size_t cnt, cudaStream_t st) {
                used.push_back(st);
                if (!in_stage && k == fail_at)
                    throw std::runtime_error("work failed");
                k++;
                fake_enqueue(st, [=] {
                    for (size_t i = 0; i < cnt; i++)
                        for (size_t p = 0; p < Lc; p++)
                            y[i * Lc + p] = x[H + i] * float(p + 1) + x[i];
                });
            });
        hist.advance(in, n);
    }
};

std::vector<float> random_signal(std::mt19937& rng, size_t n)
{
    std::uniform_real_distribution<float> d(0.5f, 1.5f); // never zero
    std::vector<float> x(n);
    for (auto& v : x)
        v = d(rng);
    return x;
}

class HostPipeline : public ::testing::TestWithParam<bool> // mapped staging or not
{
};

TEST_P(HostPipeline, RandomCallsAndChunksMatchReference)
{
    std::mt19937 rng(11);
    for (int trial = 0; trial < 200; trial++) {
        const size_t H = rng() % 6, L = 1 + rng() % 5, total = 1 + rng() % 400;
        const auto x = random_signal(rng, total);
        fir_like e(H, L, GetParam());
        std::vector<float> y(total * L, std::numeric_limits<float>::quiet_NaN());
        for (size_t pos = 0; pos < total;) {
            const size_t n = std::min(total - pos, size_t(rng() % 120));
            const size_t chunk = rng() % 5 == 0 ? 0 : rng() % 40; // 0 runs chunks of one
            e.run(y.data() + pos * L, x.data() + pos, n, chunk);
            ASSERT_TRUE(fake_idle()) << "work left in flight after run()";
            pos += n;
        }
        ASSERT_EQ(y, reference(x, H, L)) << "trial " << trial;
    }
}

TEST_P(HostPipeline, ChunksAlternateSlotsStartingWithStream0)
{
    std::mt19937 rng(12);
    const auto x = random_signal(rng, 25);
    fir_like e(2, 3, GetParam());
    std::vector<float> y(75);
    e.run(y.data(), x.data(), 25, 10);
    ASSERT_EQ(e.used.size(), 3u);
    EXPECT_EQ(e.used[0], e.pipe.stream0());
    EXPECT_NE(e.used[1], e.used[0]);
    EXPECT_EQ(e.used[2], e.used[0]);
    EXPECT_EQ(y, reference(x, 2, 3));
}

TEST_P(HostPipeline, EmptyInputCallsNothingAndWritesNothing)
{
    fir_like e(3, 2, GetParam());
    std::vector<float> y(4, 42.f);
    e.run(y.data(), nullptr, 0, 8);
    EXPECT_TRUE(e.used.empty());
    EXPECT_EQ(y, std::vector<float>(4, 42.f));
}

TEST_P(HostPipeline, ThrowLeavesNothingInFlightAndNoStaleOutput)
{
    std::mt19937 rng(13);
    const size_t H = 3, L = 2, n = 50;
    for (int in_stage = 0; in_stage < 2; in_stage++)
        for (long at = 0; at < 5; at++) {
            const auto x = random_signal(rng, n);
            fir_like e(H, L, GetParam());
            // Earlier chunks complete into `junk`; they must not reach the next call's output.
            std::vector<float> junk(n * L, -7.f);
            try {
                e.run(junk.data(), x.data(), n, 10, at, in_stage);
                ADD_FAILURE() << "no exception";
            } catch (const std::runtime_error& err) {
                EXPECT_EQ(std::string(err.what()),
                          in_stage ? "stage failed" : "work failed");
            }
            EXPECT_TRUE(fake_idle()) << "work left in flight after a throw";
            // An empty call only drains: a chunk still marked pending would be copied out here.
            std::vector<float> untouched(n * L, 5.f);
            e.run(untouched.data(), x.data(), 0, 10);
            EXPECT_EQ(untouched, std::vector<float>(n * L, 5.f))
                << "throw at chunk " << at;
            e.hist.clear();
            const auto x2 = random_signal(rng, n);
            std::vector<float> y(n * L, std::numeric_limits<float>::quiet_NaN());
            e.run(y.data(), x2.data(), n, 7);
            EXPECT_EQ(y, reference(x2, H, L)) << "throw at chunk " << at;
        }
}

TEST(HostPipelineErrors, FailedDeviceAllocationLeavesNothingInFlight)
{
    std::mt19937 rng(14);
    const auto x = random_signal(rng, 40);
    fir_like e(2, 1, false);
    std::vector<float> y(40);
    fake_mallocs_left() =
        2; // slot 0's device buffers; slot 1's input buffer fails, chunk 0 queued
    EXPECT_THROW(e.run(y.data(), x.data(), 40, 10), std::runtime_error);
    fake_mallocs_left() = -1;
    EXPECT_TRUE(fake_idle());
}

TEST(HostPipelineErrors, DestructorWaitsForQueuedWork)
{
    bool ran = false;
    {
        pipeline p(0);
        // Like a device-buffer call on stream0() that threw before its synchronise.
        fake_enqueue(p.stream0(), [&] { ran = true; });
    } // cudaStreamDestroy would abort with work still queued
    EXPECT_TRUE(ran);
    EXPECT_TRUE(fake_streams().empty());
}

// resize_2d's shape: frames of F inputs, outputs staged as bytes (float32 or binary16).
TEST(HostPipelineFrames, ByteOutputOfWholeFrames)
{
    std::mt19937 rng(15);
    for (int trial = 0; trial < 100; trial++) {
        const size_t F = 1 + rng() % 7, G = 1 + rng() % 9, frames = rng() % 30,
                     batch = rng() % 6;
        const size_t osz = (rng() & 1) ? 2 : 4;
        std::vector<uint8_t> in(frames * F);
        for (auto& v : in)
            v = uint8_t(1 + rng() % 255);
        auto value = [&](const uint8_t* f, size_t g) {
            unsigned s = unsigned(g);
            for (size_t i = 0; i < F; i++)
                s += f[i] * unsigned(i + 1);
            return s;
        };
        auto store = [osz](char* p, unsigned v) {
            if (osz == 2) {
                const uint16_t h = uint16_t(v);
                std::memcpy(p, &h, 2);
            } else {
                const float f = float(v);
                std::memcpy(p, &f, 4);
            }
        };
        gpu::host_pipeline<uint8_t, char> p(0);
        std::vector<char> out(frames * G * osz, 0x55);
        p.run(
            out.data(),
            frames,
            batch,
            { 0, F, G * osz },
            [&](uint8_t* staged, size_t pos, size_t cnt) {
                std::memcpy(staged, in.data() + pos * F, cnt * F);
            },
            [&](const uint8_t* x, char* y, size_t cnt, cudaStream_t st) {
                fake_enqueue(st, [=] {
                    for (size_t f = 0; f < cnt; f++)
                        for (size_t g = 0; g < G; g++)
                            store(y + (f * G + g) * osz, value(x + f * F, g));
                });
            });
        std::vector<char> expect(out.size());
        for (size_t f = 0; f < frames; f++)
            for (size_t g = 0; g < G; g++)
                store(expect.data() + (f * G + g) * osz, value(in.data() + f * F, g));
        ASSERT_EQ(out, expect) << "trial " << trial;
    }
}

INSTANTIATE_TEST_SUITE_P(Staging,
                         HostPipeline,
                         ::testing::Values(false, true),
                         [](const auto& i) {
                             return std::string(i.param ? "mapped" : "pinned");
                         });

} // namespace
