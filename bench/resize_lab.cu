/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Resize CUDA variants kept for comparison only (benchmark and test targets, not the library), the
// floor diagnostics and the timing hooks. The library's `automatic` picks among tile, vec4_r4,
// rowcache_r32, point and point_f4; every variant here lost to one of them on the H200
// (docs/performance.md, "2D frame resize"):
//  - vec4_r1, vec4_r2, vec4_r2_plain: the vec4 mapping with 1 or 2 rows per thread (plain: ordinary
//    write-back stores instead of streaming ones);
//  - strided_r2, strided_r4: vec4's blocks with tile's element mapping;
//  - rowcache_r8, rowcache_r16, rowcache_w8: the rowcache walk over fewer rows (w8: two chunks per
//    thread);
//  - staged_r8, staged_r16: the rowcache walk reading a shared-memory copy of the source rectangle.
// All of them sample the same tables with the same arithmetic as the library's kernels, so their
// output is bit-identical (Resize.EveryKernelVariant). register_resize_lab_variants() hands them to
// the library's engine (lib/cuda/resize_lab.h); the override (bench_hooks.h) selects them.
#include "cuda/bench_hooks.h"
#include "cuda/resize_kernels.cuh"
#include "cuda/resize_lab.h"
#include <climits>
#include <random>
#include <stdexcept>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {

// staged: the same walk, but the block first copies the source rectangle its 32 (64) output
// rows x 256 elements need into shared memory with coalesced loads, all in flight at once
// (one DRAM round trip per block instead of one per new source row and warp), then gathers
// from shared memory. The rectangle is the bounding box of the block's table entries; where
// it exceeds the buffer (shrinks, or reflected taps far apart) the block walks the global
// source like rowcache. The staged values are load_src's floats, so the result is the same.
template <typename T, typename O, int KY, int KX, int R>
__global__ void __launch_bounds__(resize_vec_bx* resize_vec_by,
                                  resize_rowcache_min_blocks<KY, 1>())
    resize_staged_kernel(const T* __restrict__ in,
                         O* __restrict__ out,
                         const int* __restrict__ yidx,
                         const float* __restrict__ yw,
                         const int* __restrict__ xidx,
                         const float* __restrict__ xw,
                         launch_shape s,
                         dev_transform tf)
{
    constexpr int NT = resize_vec_bx * resize_vec_by;
    constexpr int block_rows = resize_vec_by * R;
    static_assert(block_rows * KY <= NT, "one thread per row tap of the block");
    __shared__ float tile[resize_stage_floats];
    __shared__ int box[4]; // source rows y0..y1, elements x0..x1 the block reads
    const resize_thread_pos pos = resize_rowcache_pos(
        blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, R, 1);
    const int tid = threadIdx.y * resize_vec_bx + threadIdx.x;
    const bool has_cols = pos.e0 < s.RW;
    // No early return before the barriers: threads past the row or the frame still take
    // part in the bounds and the copy.
    chunk_taps<KX, 1> t;
    t.load(xidx, xw, has_cols ? pos.e0 : 0, s.RW, s.C, tf);
    if (tid == 0) {
        box[0] = INT_MAX;
        box[1] = INT_MIN;
        box[2] = INT_MAX;
        box[3] = INT_MIN;
    }
    int xlo = INT_MAX, xhi = INT_MIN, ylo = INT_MAX, yhi = INT_MIN;
    if (has_cols)
#pragma unroll
        for (int v = 0; v < 4; v++)
#pragma unroll
            for (int k = 0; k < KX; k++)
                if (t.xi[v][k] >= 0) {
                    xlo = min(xlo, t.xi[v][k]);
                    xhi = max(xhi, t.xi[v][k]);
                }
    if (tid < block_rows * KY) {
        const int oy = int(blockIdx.y) * block_rows + tid / KY;
        if (oy < s.out_h) {
            const int sy = __ldg(yidx + oy * KY + tid % KY);
            if (sy >= 0) {
                ylo = sy;
                yhi = sy;
            }
        }
    }
    // Warp reductions by shuffles (__reduce_min_sync would need sm_80).
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        xlo = min(xlo, __shfl_xor_sync(0xffffffffu, xlo, d));
        xhi = max(xhi, __shfl_xor_sync(0xffffffffu, xhi, d));
        ylo = min(ylo, __shfl_xor_sync(0xffffffffu, ylo, d));
        yhi = max(yhi, __shfl_xor_sync(0xffffffffu, yhi, d));
    }
    __syncthreads(); // box initialised
    if ((tid & 31) == 0) {
        atomicMin(&box[0], ylo);
        atomicMax(&box[1], yhi);
        atomicMin(&box[2], xlo);
        atomicMax(&box[3], xhi);
    }
    __syncthreads();
    const int y0 = box[0], y1 = box[1], x0 = box[2], x1 = box[3];
    const bool any_tap = y1 >= y0 && x1 >= x0; // else every tap is a constant border
    const int pitch = any_tap ? x1 - x0 + 1 : 1, nrows = any_tap ? y1 - y0 + 1 : 1;
    const bool staged = any_tap && (long long)pitch * nrows <= resize_stage_floats;
    const T* fin = in + pos.f * s.in_frame;
    if (staged) {
        const int n = pitch * nrows;
        // Element i of the rectangle is (row i / pitch, column i % pitch); r and c follow i
        // in steps of NT without a division per element. U loads in flight per thread
        // before their shared-memory stores, enough for a 2x upscale's rectangle in one
        // round trip (bilinear 18 x 130 = 9.1 elements per thread for 32 rows, bicubic
        // 36 x 132 = 18.6 for 64 rows); larger rectangles take more.
        constexpr int U = R <= 8 ? 12 : 20;
        const int dr = NT / pitch, dc = NT - dr * pitch;
        int r = tid / pitch, c = tid - (tid / pitch) * pitch;
        for (int i0 = tid; i0 < n; i0 += U * NT) {
            float v[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                v[u] = i0 + u * NT < n
                           ? load_src(fin + (long long)(y0 + r) * s.in_row + x0 + c)
                           : 0.f;
                r += dr;
                c += dc;
                if (c >= pitch) {
                    c -= pitch;
                    r++;
                }
            }
#pragma unroll
            for (int u = 0; u < U; u++)
                if (i0 + u * NT < n)
                    tile[i0 + u * NT] = v[u];
        }
    }
    __syncthreads();
    if (!has_cols || pos.oy0 >= s.out_h)
        return;
    O* fout = out + pos.f * s.out_frame;
    if (staged)
        rowcache_walk<KY, KX, R, 1>(shared_rows{ tile, pitch, y0, x0 },
                                    t,
                                    fout,
                                    pos.e0,
                                    pos.oy0,
                                    global_ytab<KY>{ yidx, yw },
                                    s,
                                    tf);
    else
        rowcache_walk<KY, KX, R, 1>(global_rows<T>{ fin, s.in_row, s.in_h },
                                    t,
                                    fout,
                                    pos.e0,
                                    pos.oy0,
                                    global_ytab<KY>{ yidx, yw },
                                    s,
                                    tf);
}

// Stand-alone normaliser, only for the "resize, then normalise" benchmark comparison.
__global__ void normalise_kernel(float* y, long long n, int C, dev_transform tf)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const int c = int(i % C);
        y[i] = y[i] * pick4(tf.mul, c) + pick4(tf.add, c);
    }
}

// Gather-free 2x2 expands (benchmark floor only, time_resize_expand_floor_ms). Input
// frames of h rows x w4 float4, output 2h rows x 2*w4 float4.
__global__ void expand_out_order_kernel(const float2* __restrict__ x,
                                        float4* __restrict__ y,
                                        long long n_out4,
                                        int h,
                                        int w4)
{
    const long long ow4 = 2LL * w4;
    for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < n_out4;
         j += (long long)gridDim.x * blockDim.x) {
        const long long oy = j / ow4, c = j - oy * ow4;
        const long long f = oy / (2 * h), r = (oy - f * 2 * h) / 2;
        const float2 v = __ldg(x + (f * h + r) * ow4 + c);
        __stcs(y + j, make_float4(v.x, v.x, v.y, v.y));
    }
}

__global__ void expand_walk_kernel(const float2* __restrict__ x, float4* __restrict__ y, int h, int w4)
{
    constexpr int R = 32;
    const int ow4 = 2 * w4;
    const int c = int(blockIdx.x) * resize_vec_bx + threadIdx.x;
    const int oy0 = (int(blockIdx.y) * resize_vec_by + threadIdx.y) * R;
    const long long f = blockIdx.z;
    if (c >= ow4 || oy0 >= 2 * h)
        return;
    float2 v = make_float2(0.f, 0.f);
#pragma unroll 1
    for (int r = 0; r < R && oy0 + r < 2 * h; r++) {
        const int oy = oy0 + r;
        if (r == 0 || (oy & 1) == 0)
            v = __ldg(x + (f * h + oy / 2) * ow4 + c);
        __stcs(y + (f * 2 * h + oy) * ow4 + c, make_float4(v.x, v.x, v.y, v.y));
    }
}

__global__ void expand_pairs_kernel(const float4* __restrict__ x,
                                    float4* __restrict__ y,
                                    long long n_in4,
                                    int w4)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n_in4;
         i += (long long)gridDim.x * blockDim.x) {
        const long long row = i / w4, c = i - row * w4;
        const float4 v = __ldcs(x + i);
        const float4 a = make_float4(v.x, v.x, v.y, v.y), b = make_float4(v.z, v.z, v.w, v.w);
        float4* o = y + 2 * row * (2LL * w4) + 2 * c;
        __stcs(o, a);
        __stcs(o + 1, b);
        __stcs(o + 2 * w4, a);
        __stcs(o + 2 * w4 + 1, b);
    }
}

template <typename T, typename O, int K>
void launch_k(resize_variant v, const resize_launch_args& a)
{
    const auto go = [&](auto kernel) { launch_variant<T, O>(kernel, a); };
    switch (v) {
    case resize_variant::vec4_r1:
        go(resize_vec4_kernel<T, O, K, K, 1, true, false>);
        break;
    case resize_variant::vec4_r2:
        go(resize_vec4_kernel<T, O, K, K, 2, true, false>);
        break;
    case resize_variant::vec4_r2_plain:
        go(resize_vec4_kernel<T, O, K, K, 2, false, false>);
        break;
    case resize_variant::strided_r2:
        go(resize_vec4_kernel<T, O, K, K, 2, true, true>);
        break;
    case resize_variant::strided_r4:
        go(resize_vec4_kernel<T, O, K, K, 4, true, true>);
        break;
    case resize_variant::rowcache_r8:
        go(resize_rowcache_kernel<T, O, K, K, 8, 1>);
        break;
    case resize_variant::rowcache_r16:
        go(resize_rowcache_kernel<T, O, K, K, 16, 1>);
        break;
    case resize_variant::rowcache_w8:
        // The plan runs rowcache_r8 for bicubic taps (register budget).
        if constexpr (K <= 2)
            go(resize_rowcache_kernel<T, O, K, K, 8, 2>);
        else
            throw std::logic_error("resize: rowcache_w8 planned for bicubic taps");
        break;
    case resize_variant::staged_r8:
        go(resize_staged_kernel<T, O, K, K, 8>);
        break;
    case resize_variant::staged_r16:
        go(resize_staged_kernel<T, O, K, K, 16>);
        break;
    default:
        throw std::logic_error(std::string("resize lab: '") + resize_variant_name(v) +
                               "' is not a benchmark-only variant");
    }
    GPUINTERP_CUDA_CHECK_LAUNCH(a.st);
}

template <typename T, typename O>
void launch_t(resize_variant v, int K, const resize_launch_args& a)
{
    if (K == 1)
        launch_k<T, O, 1>(v, a);
    else if (K == 2)
        launch_k<T, O, 2>(v, a);
    else
        launch_k<T, O, 4>(v, a);
}

void launch(resize_variant v, int K, bool in_u8, bool half, const resize_launch_args& a)
{
    if (in_u8)
        half ? launch_t<uint8_t, unsigned short>(v, K, a) : launch_t<uint8_t, float>(v, K, a);
    else
        half ? launch_t<float, unsigned short>(v, K, a) : launch_t<float, float>(v, K, a);
}

} // namespace

void register_resize_lab_variants()
{
    resize_lab_variants v;
    v.launch = launch;
    set_resize_lab_variants(v);
}

int l2_fetch_granularity(int device)
{
    device_guard guard(device);
    size_t v = 0;
    GPUINTERP_CUDA_CHECK(cudaDeviceGetLimit(&v, cudaLimitMaxL2FetchGranularity));
    return int(v);
}

double time_resize_kernel_ms(int device,
                             int in_h,
                             int in_w,
                             int out_h,
                             int out_w,
                             int channels,
                             kernel::resize_method method,
                             size_t n_frames,
                             resize_bench_mode mode,
                             bool half_output,
                             int iters,
                             int variant,
                             int l2_fetch_bytes)
{
    if (half_output && mode == resize_bench_mode::separate)
        throw std::invalid_argument(
            "half_output: the separate normalise pass works on float32 output");
    device_guard guard(device);
    register_resize_lab_variants();
    const auto engine = make_resize_lab_engine(device, n_frames);
    resize_lab_engine<float>& e = *engine;
    e.set_variant(resize_variant(variant));
    kernel::resize_geometry g;
    g.in_h = in_h;
    g.in_w = in_w;
    g.out_h = out_h;
    g.out_w = out_w;
    g.channels = channels;
    using kernel::resize_border;
    using kernel::resize_coord;
    e.set_tables(
        g,
        kernel::resize_make_axis_table(
            in_h, out_h, method, resize_coord::half_pixel, resize_border::replicate),
        kernel::resize_make_axis_table(
            in_w, out_w, method, resize_coord::half_pixel, resize_border::replicate),
        0.f);
    kernel::resize_transform tf;
    for (int c = 0; c < 4; c++) {
        tf.mean[c] = 0.5f;
        tf.inv_std[c] = 4.0f;
    }
    kernel::resize_transform plain;
    e.set_transform(mode == resize_bench_mode::fused ? tf : plain);

    const size_t in_n = n_frames * size_t(in_h) * in_w * channels;
    const size_t out_n = n_frames * size_t(out_h) * out_w * channels;
    device_buffer<float> x(in_n);
    device_buffer<char> y(out_n * (half_output ? 2 : 4));
    {
        std::vector<float> hx(in_n);
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> d(0.f, 1.f);
        for (auto& v : hx)
            v = d(rng);
        upload(x.get(), hx.data(), in_n);
    }
    cudaStream_t st = e.stream0();
    // A 17x bilinear shrink reads ~2 scattered 32-byte sectors per output: if L2 fills
    // from DRAM in larger units, most of each fill is wasted (benchmark experiment only).
    struct l2_fetch_scope {
        size_t old = 0;
        bool set = false;
        explicit l2_fetch_scope(int bytes)
        {
            if (bytes <= 0)
                return;
            GPUINTERP_CUDA_CHECK(cudaDeviceGetLimit(&old, cudaLimitMaxL2FetchGranularity));
            GPUINTERP_CUDA_CHECK(
                cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, size_t(bytes)));
            set = true;
        }
        ~l2_fetch_scope()
        {
            if (set)
                cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, old);
        }
    } l2_scope(l2_fetch_bytes);
    return median_launch_ms(st, iters, [&] {
        e.launch(x.get(), y.get(), half_output, n_frames, st);
        if (mode == resize_bench_mode::separate) {
            e.set_transform(tf);
            const long long n = (long long)out_n;
            const int blocks =
                int(std::min<long long>((n + 255) / 256, (long long)e.multiprocessors() * 16));
            normalise_kernel<<<blocks, 256, 0, st>>>(
                reinterpret_cast<float*>(y.get()), n, channels, e.device_transform());
            GPUINTERP_CUDA_CHECK_LAUNCH(st);
            e.set_transform(plain);
        }
    });
}

double time_resize_expand_floor_ms(int device, int in_h, int in_w, size_t n_frames, int layout, int iters)
{
    if (in_w % 4 != 0 || in_h < 1 || n_frames < 1)
        throw std::invalid_argument("in_w: the expand floor needs a multiple of 4 (and in_h, "
                                    "n_frames >= 1)");
    if (layout < 0 || layout > 2)
        throw std::invalid_argument("layout: 0, 1 or 2");
    device_guard guard(device);
    const size_t in_n = n_frames * size_t(in_h) * in_w, out_n = 4 * in_n;
    device_buffer<float> x(in_n);
    device_buffer<float> y(out_n);
    GPUINTERP_CUDA_CHECK(cudaMemset(x.get(), 0, in_n * sizeof(float)));
    int sms = 0;
    GPUINTERP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    cudaStream_t st = nullptr;
    const int w4 = in_w / 4;
    return median_launch_ms(st, iters, [&] {
        if (layout == 0)
            expand_out_order_kernel<<<unsigned(sms) * 8, 256, 0, st>>>(
                reinterpret_cast<const float2*>(x.get()),
                reinterpret_cast<float4*>(y.get()),
                (long long)(out_n / 4),
                in_h,
                w4);
        else if (layout == 1)
            expand_walk_kernel<<<dim3(unsigned((2 * w4 + resize_vec_bx - 1) / resize_vec_bx),
                                      unsigned((2 * in_h + resize_vec_by * 32 - 1) /
                                               (resize_vec_by * 32)),
                                      unsigned(n_frames)),
                                 dim3(resize_vec_bx, resize_vec_by),
                                 0,
                                 st>>>(
                reinterpret_cast<const float2*>(x.get()), reinterpret_cast<float4*>(y.get()), in_h, w4);
        else
            expand_pairs_kernel<<<unsigned(sms) * 8, 256, 0, st>>>(
                reinterpret_cast<const float4*>(x.get()),
                reinterpret_cast<float4*>(y.get()),
                (long long)(in_n / 4),
                w4);
        GPUINTERP_CUDA_CHECK(cudaGetLastError());
    });
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
