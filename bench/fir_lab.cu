/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The polyphase interpolation lab (fir_lab.h): fir_kernels.cuh's kernel (one channel) and
// plan_fir_shape() instantiated here with the (R, threads) pairs of fir_lab_shapes(), for complex
// float samples and float taps with the plain store. Everything else (tile geometry from the
// device's tuning row, shared-memory layout, grid cap from the occupancy) is the library's code
// with the other constants, so a row differs from the library's in the pair alone. The library's
// pair is not compiled again: it runs through plan_fir() / launch_fir(), exactly what the engines
// launch.
#include "cuda/cuda_common.cuh"
#include "cuda/fir_kernels.cuh"
#include "fir_lab.h"
#include "launch_timing.cuh"
#include <algorithm>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

using lab_plan_fn = fir_plan (*)(int, unsigned, size_t);
using lab_launch_fn =
    void (*)(const fir_plan&, const float2*, float2*, const float*, int, cudaStream_t);

//! The plan and launch of Shape's kernel, as plan_fir() / launch_fir() make the library's; the
//! plan permits the shared memory of the one kernel the lab launches.
template <typename Shape>
fir_plan lab_plan(int device, unsigned L, size_t M)
{
    return plan_fir_shape<Shape, float2, float>(
        device,
        L,
        M,
        fir_tuning_for(compute_capability(device)),
        [](const tile_geometry& g, int optin) {
            allow_smem(pick_kernel<float2, float2, float, fir_store<float2>, Shape>(g),
                       optin);
        });
}

template <typename Shape>
void lab_launch(const fir_plan& pl,
                const float2* x,
                float2* y,
                const float* taps,
                int n,
                cudaStream_t st)
{
    channel_pointers p{};
    p.x[0] = x;
    p.y[0] = y;
    launch_channels<float2, float2, float, Shape>(
        fir_call<float>{ pl, taps, n, {}, st }, p, 1, fir_store<float2>{});
}

struct lab_entry {
    fir_lab_shape shape;
    lab_plan_fn plan;
    lab_launch_fn launch;
};

template <int R, int NT>
constexpr lab_entry entry()
{
    return { { R, NT }, lab_plan<fir_shape<R, NT>>, lab_launch<fir_shape<R, NT>> };
}

fir_plan library_plan(int device, unsigned L, size_t M)
{
    return plan_fir<float2, float>(device, L, M);
}

// The library's pair first, then the others: one build constant changed at a time.
constexpr lab_entry lab_entries[] = {
    { { fir_build.outputs_per_item, fir_build.threads },
      library_plan,
      launch_fir<float2, float> },
    entry<5, 256>(),
    entry<9, 256>(),
    entry<11, 256>(),
    entry<8, 256>(),
    entry<7, 128>(),
    entry<7, 512>(),
    entry<9, 128>(),
};

const lab_entry& find(fir_lab_shape s)
{
    for (const lab_entry& e : lab_entries)
        if (e.shape.R == s.R && e.shape.threads == s.threads)
            return e;
    throw std::invalid_argument("shape: the FIR lab does not compile " + to_string(s));
}

//! The prototype zero-padded to M * L (tap k of arm p at k * L + p), on the device.
device_buffer<float> padded_taps(unsigned L, const std::vector<float>& taps, size_t& M)
{
    M = (taps.size() + L - 1) / L;
    std::vector<float> padded(M * L, 0.f);
    std::copy(taps.begin(), taps.end(), padded.begin());
    device_buffer<float> d(padded.size());
    upload(d.get(), padded.data(), padded.size());
    return d;
}

//! The pair's entry, its plan for p and the padded taps on the device, on `device`.
struct lab_setup {
    const lab_entry& e;
    device_guard guard;
    size_t M = 0;
    device_buffer<float> taps;
    fir_plan plan;

    lab_setup(int device, const fir_lab_problem& p)
        : e(find(p.shape)),
          guard(device),
          taps(padded_taps(p.L, p.taps, M)),
          plan(e.plan(device, p.L, M))
    {
    }
    void launch(const float2* x, float2* y, size_t n, cudaStream_t s) const
    {
        e.launch(plan, x, y, taps.get(), int(n), s);
    }
};

} // namespace

std::vector<fir_lab_shape> fir_lab_shapes()
{
    std::vector<fir_lab_shape> v;
    for (const lab_entry& e : lab_entries)
        v.push_back(e.shape);
    return v;
}

bool fir_lab_is_library(fir_lab_shape s)
{
    return s.R == fir_build.outputs_per_item && s.threads == fir_build.threads;
}

std::string to_string(fir_lab_shape s)
{
    return "R" + std::to_string(s.R) + "_nt" + std::to_string(s.threads);
}

void run_fir_lab(int device,
                 const fir_lab_problem& p,
                 const std::complex<float>* x,
                 std::complex<float>* y,
                 size_t n)
{
    const lab_setup lab(device, p);
    if (n == 0)
        return;
    device_buffer<float2> dx(n + lab.M - 1), dy(n * p.L);
    upload(dx.get(), x, n + lab.M - 1);
    stream st;
    lab.launch(dx.get(), dy.get(), n, st.get());
    GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
        y, dy.get(), n * p.L * sizeof(float2), cudaMemcpyDeviceToHost, st.get()));
    st.synchronize();
}

fir_lab_timing
time_fir_lab_kernel(int device, const fir_lab_problem& p, size_t n_in, int iters)
{
    const lab_setup lab(device, p);
    device_buffer<float2> x = test_signal(n_in + lab.M - 1), y(n_in * p.L);
    stream st;
    fir_lab_timing r;
    r.ms = median_launch_ms(
        st.get(), iters, [&] { lab.launch(x.get(), y.get(), n_in, st.get()); });
    const fir_plan& plan = lab.plan;
    r.TI = plan.g.TI;
    r.stage = plan.g.stage;
    r.taps_smem = plan.g.taps_smem;
    return r;
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
