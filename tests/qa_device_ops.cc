/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The device operations behind cuda_buffer (no GNU Radio): the simulation's deferred
// copies, overlap- safe device moves in both directions (every code path of the CUDA
// move: disjoint, chunked, via scratch), allocation counters, and the FIR kernel's
// device-resident calls filter_items(…, device) and resample_items(…, device) against their
// host calls for random chunk sizes.
// Parametrised over the simulation and CUDA.
#include "device/device_ops.h"
#include "test_util.h"
#include <gnuradio/gpuinterp/kernel/polyphase_interpolator.h>
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <cstring>
#include <numeric>

using namespace gpuinterp_test;
namespace gi = gr::gpuinterp;
namespace dev = gr::gpuinterp::device;

namespace {

TEST(DeviceOpsSim, CopiesWaitForWait)
{
    auto ops = dev::make_sim_device_ops();
    auto* d = static_cast<float*>(ops->alloc_device(64 * sizeof(float)));
    auto* h = static_cast<float*>(ops->alloc_host(64 * sizeof(float)));
    for (int i = 0; i < 64; i++)
        h[i] = float(i + 1);
    ops->copy_async(d, h, 64 * sizeof(float), dev::copy_dir::host_to_device);
    EXPECT_EQ(d[10], 0.f) << "a queued copy must not be visible before wait()";
    ops->wait();
    EXPECT_EQ(d[10], 11.f);
    ops->free_device(d);
    ops->free_host(h);
}

TEST(DeviceOpsSim, CountersBalance)
{
    const auto before = gi::device_memory_usage();
    {
        auto ops = dev::make_sim_device_ops();
        void* a = ops->alloc_device(1000);
        void* b = ops->alloc_host(3000);
        const auto mid = gi::device_memory_usage();
        EXPECT_EQ(mid.sim_device_bytes - before.sim_device_bytes, 1000u);
        EXPECT_EQ(mid.sim_host_bytes - before.sim_host_bytes, 3000u);
        ops->free_device(a);
        ops->free_host(b);
    }
    const auto after = gi::device_memory_usage();
    EXPECT_EQ(after.sim_device_bytes, before.sim_device_bytes);
    EXPECT_EQ(after.sim_device_allocs, before.sim_device_allocs);
    EXPECT_EQ(after.sim_host_bytes, before.sim_host_bytes);
}

class DeviceOps : public ::testing::TestWithParam<backend>
{
protected:
    void SetUp() override { GPUINTERP_SKIP_WITHOUT_DEVICE(GetParam()); }
    gi::device_binding binding() const
    {
        return GetParam() == backend::cuda
                   ? gi::device_binding{ gi::memory_kind::cuda, 0 }
                   : gi::device_binding{ gi::memory_kind::simulated, 0 };
    }
};

TEST_P(DeviceOps, ZeroedAllocationsAndRoundTrip)
{
    auto ops = dev::make_device_ops(binding());
    const size_t n = 100003;
    auto* d = ops->alloc_device(n * sizeof(cf));
    auto* h = static_cast<cf*>(ops->alloc_host(n * sizeof(cf)));
    for (size_t i = 0; i < n; i++)
        ASSERT_EQ(h[i], cf(0));
    std::vector<cf> back(n, cf(1));
    ops->copy_async(back.data(), d, n * sizeof(cf), dev::copy_dir::device_to_host);
    ops->wait();
    for (size_t i = 0; i < n; i++)
        ASSERT_EQ(back[i], cf(0)) << "device memory must start zeroed (history pre-load)";
    const auto x = random_vector<cf>(n);
    std::copy(x.begin(), x.end(), h);
    ops->copy_async(d, h, n * sizeof(cf), dev::copy_dir::host_to_device);
    std::fill(back.begin(), back.end(), cf(7));
    ops->copy_async(back.data(), d, n * sizeof(cf), dev::copy_dir::device_to_host);
    ops->wait();
    EXPECT_EQ(back, x);
    ops->free_device(d);
    ops->free_host(h);
}

TEST_P(DeviceOps, OverlappingMovesBothDirections)
{
    auto ops = dev::make_device_ops(binding());
    const size_t n = 1 << 16;
    auto* d = static_cast<char*>(ops->alloc_device(n));
    std::vector<char> ref(n);
    for (size_t i = 0; i < n; i++)
        ref[i] = char((i * 131) % 251);
    // gap vs length: disjoint, chunked (gap >= len/16), via scratch (small gap)
    for (auto [src, dst, len] :
         std::vector<std::tuple<size_t, size_t, size_t>>{ { 0, 40000, 20000 },
                                                          { 1000, 0, 30000 },
                                                          { 0, 3000, 30000 },
                                                          { 5000, 5, 40000 },
                                                          { 8, 0, 50000 },
                                                          { 0, 8, 50000 } }) {
        // (the source of a queued copy must stay untouched until wait(): ref is never
        // modified)
        ops->copy_async(d, ref.data(), n, dev::copy_dir::host_to_device);
        ops->move_device_async(d + dst, d + src, len);
        std::vector<char> buf = ref;
        std::memmove(buf.data() + dst, buf.data() + src, len);
        std::vector<char> got(n);
        ops->copy_async(got.data(), d, n, dev::copy_dir::device_to_host);
        ops->wait();
        EXPECT_EQ(got, buf) << "move " << src << " -> " << dst << " len " << len;
    }
    ops->free_device(d);
}

// filter_items() on device memory == on host memory, chunk by chunk, including
// chunks shorter than the history, and switching between the two entry points mid-stream.
TEST_P(DeviceOps, FirFilterDeviceMatchesHost)
{
    auto ops = dev::make_device_ops(binding());
    for (auto [L, ntaps] : std::vector<std::pair<unsigned, size_t>>{
             { 2, 12 }, { 8, 128 }, { 3, 1 }, { 4, 77 } }) {
        const auto taps = random_vector<float>(ntaps);
        gi::kernel::polyphase_interpolator_ccf on_dev(L, taps, GetParam(), 0);
        gi::kernel::polyphase_interpolator_ccf ref(L, taps, backend::cpu, 0);
        const size_t total = 50000;
        const auto x = random_vector<cf>(total);
        auto* din = static_cast<cf*>(ops->alloc_device(total * sizeof(cf)));
        auto* dout = static_cast<cf*>(ops->alloc_device(total * L * sizeof(cf)));
        ops->copy_async(din, x.data(), total * sizeof(cf), dev::copy_dir::host_to_device);
        ops->wait();
        std::vector<cf> got(total * L, cf(std::nanf(""), 0)), want(total * L);
        size_t pos = 0;
        int k = 0;
        while (pos < total) {
            const size_t n = std::min(
                total - pos, k % 3 == 0 ? random_size(1, 20) : random_size(1, 9000));
            if (k % 5 == 4) // host entry point in between: the history must follow
                filter_one(on_dev, got.data() + pos * L, x.data() + pos, n);
            else {
                filter_one(on_dev,
                           dout + pos * L,
                           din + pos,
                           n,
                           sample_format::fc32,
                           1.0f,
                           true);
                ops->copy_async(got.data() + pos * L,
                                dout + pos * L,
                                n * L * sizeof(cf),
                                dev::copy_dir::device_to_host);
                ops->wait();
            }
            filter_one(ref, want.data() + pos * L, x.data() + pos, n);
            pos += n;
            k++;
            if (k == 7) { // new taps (another length) mid-stream, with the history on the
                          // device
                const auto t2 = random_vector<float>(ntaps + 9);
                on_dev.set_taps(t2);
                ref.set_taps(t2);
            }
        }
        std::vector<cd> want_d(want.begin(), want.end());
        EXPECT_TRUE(all_close(got, want_d, 1e-5, 1e-6)) << "L=" << L << " taps=" << ntaps;
        ops->free_device(din);
        ops->free_device(dout);
    }
}

// resample_items() on device memory == on host memory of the same backend, bit for
// bit (same kernels, same positions; only the window differs: seam + in place vs one host
// window), and == the CPU backend to float rounding; GNU Radio's protocol: random input counts and
// output space, unconsumed inputs offered again, a rate change with the history on the device,
// and the host entry point in between.
TEST_P(DeviceOps, ResamplerDeviceMatchesHost)
{
    namespace k = gi::kernel;
    auto ops = dev::make_device_ops(binding());
    const size_t total = 60000;
    const auto x = random_vector<cf>(total);
    auto* din = static_cast<cf*>(ops->alloc_device(total * sizeof(cf)));
    ops->copy_async(din, x.data(), total * sizeof(cf), dev::copy_dir::host_to_device);
    ops->wait();
    for (const char* m : { "nearest", "linear", "texture", "cubic", "polyphase" }) {
        for (double r : { 1.25, 0.73, 0.05, 3.1 }) {
            const auto meth = k::method_from_string(m);
            k::resampler_cc on_dev(r, meth, GetParam(), 0, {}, 7000);
            k::resampler_cc same(r, meth, GetParam(), 0, {}, 7000);
            k::resampler_cc cpu(r, meth, backend::cpu);
            const size_t cap = size_t(double(total) * std::max(r, 1.0) * 4) + 64;
            auto* dout = static_cast<cf*>(ops->alloc_device(cap * sizeof(cf)));
            std::vector<cf> got(cap, cf(std::nanf(""), 0)), want(cap), want_cpu(cap);
            size_t pos = 0, produced = 0;
            for (int call = 0; pos < total; call++) {
                const size_t n =
                    std::min(total - pos,
                             call % 3 == 0 ? random_size(0, 12) : random_size(1, 9000));
                const size_t max_out = random_size(0, on_dev.outputs_possible(n) + 3);
                size_t used = 0, used_same = 0, used_cpu = 0;
                size_t got_n;
                if (call % 5 == 4) {
                    got_n = resample_one(
                        on_dev, got.data() + produced, max_out, x.data() + pos, n, used);
                } else {
                    got_n = resample_one(on_dev,
                                         dout + produced,
                                         max_out,
                                         din + pos,
                                         n,
                                         used,
                                         sample_format::fc32,
                                         1.0f,
                                         true);
                    ops->copy_async(got.data() + produced,
                                    dout + produced,
                                    got_n * sizeof(cf),
                                    dev::copy_dir::device_to_host);
                    ops->wait();
                }
                const size_t want_n = resample_one(
                    same, want.data() + produced, max_out, x.data() + pos, n, used_same);
                const size_t cpu_n = resample_one(cpu,
                                                  want_cpu.data() + produced,
                                                  max_out,
                                                  x.data() + pos,
                                                  n,
                                                  used_cpu);
                ASSERT_EQ(got_n, want_n) << m << " r=" << r << " call " << call;
                ASSERT_EQ(cpu_n, want_n);
                ASSERT_EQ(used, used_same);
                ASSERT_EQ(used_cpu, used_same);
                ASSERT_TRUE(got_n > 0 || used > 0 || n == 0 || max_out == 0)
                    << "no progress: " << m << " r=" << r;
                produced += got_n;
                pos += used;
                if (call == 9) { // new rate with the history on the device
                    const double r2 = r * 0.61;
                    on_dev.set_rate(r2);
                    same.set_rate(r2);
                    cpu.set_rate(r2);
                }
            }
            ASSERT_GT(produced, 100u);
            size_t differ = 0;
            double err = 0;
            for (size_t i = 0; i < produced; i++) {
                differ += std::memcmp(&got[i], &want[i], sizeof(cf)) != 0;
                err = std::max(err, double(std::abs(got[i] - want_cpu[i])));
            }
            EXPECT_EQ(differ, 0u) << m << " r=" << r << " (of " << produced << ")";
            EXPECT_LE(err, 1e-5) << m << " r=" << r;
            ops->free_device(dout);
        }
    }
    ops->free_device(din);
}

GPUINTERP_BACKEND_SUITE(DeviceOps);

} // namespace
