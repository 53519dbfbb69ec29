/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Resize CUDA variants kept for comparison only (benchmark and test targets, not the library), and
// the lab engine that launches them next to the library's own. The library's `automatic` picks
// among tile, vec4_r4, rowcache_r32, point and point_f4; every variant here lost to one of them on
// the H200 (docs/performance.md, "2D frame resize"):
//  - vec4_r1, vec4_r2, vec4_r2_plain: the vec4 mapping with 1 or 2 rows per thread (plain: ordinary
//    write-back stores instead of streaming ones);
//  - strided_r2, strided_r4: vec4's blocks with tile's element mapping;
//  - rowcache_r8, rowcache_r16, rowcache_w8: the rowcache walk over fewer rows (w8: two chunks per
//    thread);
//  - staged_r8, staged_r16: the rowcache walk reading a shared-memory copy of the source rectangle.
// All of them sample the same tables with the same arithmetic as the library's kernels, so their
// output is bit-identical (Resize.EveryKernelVariant). The engine is the library's recipe
// (lib/cuda/resize_device.cuh: tables, transform, plan, slices, L2 hint) with the variant chosen
// by its caller.
// Besides the variants, the lab instantiates the library's kernel templates with the other build
// constants of resize_lab_builds (resize_lab.h: tile threads and elements, vec4/rowcache and point
// blocks, rowcache blocks per SM, the staged rectangle), float32 in and out, for the variants each
// entry concerns; the engine plans them with the entry's build (set_build()) and, for the tile
// rows per thread, a tuning row of its caller's (set_tuning()).
#include "cuda/resize_device.cuh"
#include "cuda/resize_kernels.cuh"
#include "resize_lab.h"
#include <climits>
#include <stdexcept>
#include <string>
#include <utility>
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
// STAGE: the rectangle's floats (resize_build.stage_floats; the build lab compares others).
template <typename T, typename O, int KY, int KX, int R, int STAGE = resize_stage_floats>
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
    __shared__ float tile[STAGE];
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
    const bool staged = any_tap && (long long)pitch * nrows <= STAGE;
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
    // One walk, reading the source rows from the staged rectangle or from global memory.
    const auto walk = [&](auto rows) {
        rowcache_walk<KY, KX, R, 1>(
            rows, t, fout, pos.e0, pos.oy0, global_ytab<KY>{ yidx, yw }, s, tf);
    };
    if (staged)
        walk(shared_rows{ tile, pitch, y0, x0 });
    else
        walk(global_rows<T>{ fin, s.in_row, s.in_h });
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

void launch_lab(
    resize_variant v, int K, bool in_u8, bool half, const resize_launch_args& a)
{
    if (in_u8)
        half ? launch_t<uint8_t, unsigned short>(v, K, a)
             : launch_t<uint8_t, float>(v, K, a);
    else
        half ? launch_t<float, unsigned short>(v, K, a) : launch_t<float, float>(v, K, a);
}

// --- Other build constants ------------------------------------------------------------
// The library's kernel templates instantiated with the entries of resize_lab_builds
// (resize_lab.h). Which fields of resize_build_tuning a variant's instance is built with:
constexpr bool same_tile(const resize_build_tuning& a, const resize_build_tuning& b)
{
    return a.tile_threads == b.tile_threads && a.tile_elements == b.tile_elements;
}
constexpr bool same_vec(const resize_build_tuning& a, const resize_build_tuning& b)
{
    return a.vec_bx == b.vec_bx && a.vec_by == b.vec_by;
}
constexpr bool same_point(const resize_build_tuning& a, const resize_build_tuning& b)
{
    return a.point_bx == b.point_bx && a.point_by == b.point_by;
}
//! resize_rowcache_min_blocks<K, chunks>() of build b.
constexpr int rowcache_blocks(const resize_build_tuning& b, int K, int chunks)
{
    return K == 1 ? b.rowcache_blocks_nearest
                  : (K == 2 && chunks == 1 ? b.rowcache_blocks_bilinear
                                           : b.rowcache_blocks_other);
}
constexpr bool same_rowcache(const resize_build_tuning& a,
                             const resize_build_tuning& b,
                             int K,
                             int chunks)
{
    return same_vec(a, b) &&
           rowcache_blocks(a, K, chunks) == rowcache_blocks(b, K, chunks);
}
constexpr bool
same_staged(const resize_build_tuning& a, const resize_build_tuning& b, int K)
{
    return same_rowcache(a, b, K, 1) && a.stage_floats == b.stage_floats;
}
//! Whether variant v with K taps runs the same kernel instance under builds a and b.
constexpr bool same_instance(resize_variant v,
                             int K,
                             const resize_build_tuning& a,
                             const resize_build_tuning& b)
{
    if (v == resize_variant::tile)
        return same_tile(a, b);
    if (v == resize_variant::point || v == resize_variant::point_f4)
        return same_point(a, b);
    if (v == resize_variant::staged_r8 || v == resize_variant::staged_r16)
        return same_staged(a, b, K);
    if (v == resize_variant::rowcache_w8)
        return same_rowcache(a, b, K, 2);
    if (resize_is_rowcache(v))
        return same_rowcache(a, b, K, 1);
    return same_vec(a, b); // vec4, strided
}

/*!
 * Launches variant v (K taps) with the instance of entry I of resize_lab_builds if b is that
 * entry's build in the fields of v and the entry changes them; returns whether it did. Instances
 * exist for the library's variants (staged: the lab's) in the groups the entry changes:
 * tile; vec4_r4 and rowcache_r32; point and point_f4; rowcache_r32 with the K whose blocks per SM
 * change; staged_r8 and staged_r16.
 */
template <int I, int K>
bool launch_build_entry(resize_variant v,
                        const resize_build_tuning& b,
                        const resize_launch_args& a)
{
    constexpr resize_build_tuning B = resize_lab_builds[I].build;
    using T = float;
    using O = float;
    switch (v) {
    case resize_variant::tile:
        if constexpr (!same_tile(B, resize_build))
            if (same_tile(B, b)) {
                launch_variant<T, O>(
                    resize_kernel<T, O, K, K, B.tile_threads, B.tile_elements>, a);
                return true;
            }
        return false;
    case resize_variant::vec4_r4:
        if constexpr (!same_vec(B, resize_build))
            if (same_vec(B, b)) {
                launch_variant<T, O>(
                    resize_vec4_kernel<T, O, K, K, 4, true, false, B.vec_bx, B.vec_by>,
                    a);
                return true;
            }
        return false;
    case resize_variant::rowcache_r32:
        if constexpr (!same_rowcache(B, resize_build, K, 1))
            if (same_rowcache(B, b, K, 1)) {
                launch_variant<T, O>(resize_rowcache_kernel<T,
                                                            O,
                                                            K,
                                                            K,
                                                            32,
                                                            1,
                                                            B.vec_bx,
                                                            B.vec_by,
                                                            rowcache_blocks(B, K, 1)>,
                                     a);
                return true;
            }
        return false;
    case resize_variant::point:
    case resize_variant::point_f4:
        if constexpr (!same_point(B, resize_build))
            if (same_point(B, b)) {
                if (v == resize_variant::point)
                    launch_variant<T, O>(
                        resize_point_kernel<T, O, K, K, 1, B.point_bx, B.point_by>, a);
                else
                    launch_variant<T, O>(
                        resize_point_kernel<T, O, K, K, 4, B.point_bx, B.point_by>, a);
                return true;
            }
        return false;
    case resize_variant::staged_r8:
    case resize_variant::staged_r16:
        // The staged kernel keeps the library's block: only the rectangle changes.
        if constexpr (same_rowcache(B, resize_build, K, 1) &&
                      B.stage_floats != resize_build.stage_floats)
            if (same_staged(B, b, K)) {
                if (v == resize_variant::staged_r8)
                    launch_variant<T, O>(
                        resize_staged_kernel<T, O, K, K, 8, B.stage_floats>, a);
                else
                    launch_variant<T, O>(
                        resize_staged_kernel<T, O, K, K, 16, B.stage_floats>, a);
                return true;
            }
        return false;
    default:
        return false;
    }
}

template <int K, size_t... I>
bool launch_build_k(resize_variant v,
                    const resize_build_tuning& b,
                    const resize_launch_args& a,
                    std::index_sequence<I...>)
{
    return (launch_build_entry<int(I), K>(v, b, a) || ...);
}

//! One launch of variant v under build b, which differs from resize_build in v's fields.
void launch_build(resize_variant v,
                  const resize_build_tuning& b,
                  int K,
                  bool in_u8,
                  bool half,
                  const resize_launch_args& a)
{
    if (in_u8 || half)
        throw std::invalid_argument("build: other build constants are instantiated for "
                                    "float32 input and output only");
    const auto all = std::make_index_sequence<size_t(resize_lab_build_count)>();
    const bool ran = K == 1   ? launch_build_k<1>(v, b, a, all)
                     : K == 2 ? launch_build_k<2>(v, b, a, all)
                              : launch_build_k<4>(v, b, a, all);
    if (!ran)
        throw std::invalid_argument(
            std::string("build: no instance of '") + resize_variant_name(v) + "' with " +
            std::to_string(K) + " taps for these build constants (resize_lab_builds)");
    GPUINTERP_CUDA_CHECK_LAUNCH(a.st);
}

template <typename T>
class lab_engine final : public resize_lab_engine<T>
{
public:
    explicit lab_engine(int device) : d_device(device)
    {
        int sm = 90;
        query_resize_device(d_device, d_sms, sm);
        d_tuning = resize_tuning_for(sm);
    }

    void set_tables(const kernel::resize_geometry& g,
                    const kernel::resize_axis_table& ytab,
                    const kernel::resize_axis_table& xtab,
                    float border_value) override
    {
        device_guard guard(d_device);
        d_st.synchronize();
        d_tab.set(g, ytab, xtab, border_value);
    }

    void set_transform(const kernel::resize_transform& tf) override
    {
        d_tf = resize_dev_transform(tf);
    }

    void run(void* out, bool half, const T* in, size_t n_frames) override
    {
        if (n_frames == 0)
            return;
        device_guard guard(d_device);
        const size_t osz = half ? sizeof(unsigned short) : sizeof(float);
        const size_t n_in = n_frames * d_tab.in_frame();
        const size_t out_bytes = n_frames * d_tab.out_frame() * osz;
        d_x.reserve(n_in);
        d_y.reserve(out_bytes);
        upload(d_x.get(), in, n_in);
        // All-ones bytes are NaN in float32 and binary16: an element no kernel writes fails the
        // tests' comparisons instead of showing the previous run's value.
        GPUINTERP_CUDA_CHECK(cudaMemsetAsync(d_y.get(), 0xff, out_bytes, d_st.get()));
        launch(d_x.get(), d_y.get(), half, n_frames, d_st.get());
        d_st.synchronize();
        GPUINTERP_CUDA_CHECK(
            cudaMemcpy(out, d_y.get(), out_bytes, cudaMemcpyDeviceToHost));
    }

    void run_device(void* out, bool half, const T* in, size_t n_frames) override
    {
        device_guard guard(d_device);
        launch(in, out, half, n_frames, d_st.get());
        d_st.synchronize();
    }

    void
    launch(const T* d_in, void* d_out, bool half, size_t frames, CUstream_st* st) override
    {
        if (frames == 0)
            return;
        const size_t osz = half ? sizeof(unsigned short) : sizeof(float);
        const resize_plan p =
            d_tab.plan(d_variant, d_out, osz, frames, d_sms, d_tuning, d_build);
        d_last = int(p.variant);
        d_l2.note(d_device, p.variant);
        const int K = d_tab.ky();
        const bool library_build = same_instance(p.variant, K, d_build, resize_build);
        d_tab.for_each_launch(p, d_tf, d_in, d_out, osz, frames, st, [&](const auto& a) {
            if (!library_build)
                launch_build(p.variant, d_build, K, sizeof(T) == 1, half, a);
            else if (resize_is_production(p.variant))
                launch_resize(p.variant, K, sizeof(T) == 1, half, a);
            else
                launch_lab(p.variant, K, sizeof(T) == 1, half, a);
        });
    }

    void set_variant(int variant) override
    {
        if (variant < -1 || variant >= resize_variant_count)
            throw std::invalid_argument("variant: " + std::to_string(variant) +
                                        " is not a resize kernel variant");
        d_variant = resize_variant(variant);
    }
    int last_variant() const override { return d_last; }
    void set_build(const resize_build_tuning& b) override { d_build = b; }
    void set_tuning(const resize_tuning& t) override { d_tuning = t; }
    CUstream_st* stream() const override { return d_st.get(); }
    int multiprocessors() const override { return d_sms; }

private:
    int d_device;
    int d_sms = 1;
    resize_tuning d_tuning{};
    resize_build_tuning d_build = resize_build;
    resize_variant d_variant = resize_variant::automatic;
    int d_last = -1;
    resize_device_tables d_tab;
    dev_transform d_tf = resize_identity_transform;
    device_buffer<T> d_x;
    device_buffer<char> d_y;
    resize_l2_hint d_l2;
    // Last member, so destroyed first: nothing that reads the buffers above is then in flight.
    struct synced_stream : gpu::stream {
        ~synced_stream() { cudaStreamSynchronize(get()); }
    } d_st;
};

} // namespace

template <typename T>
std::unique_ptr<resize_lab_engine<T>> make_resize_lab_engine(int device, size_t)
{
    return std::make_unique<lab_engine<T>>(device);
}

template std::unique_ptr<resize_lab_engine<float>> make_resize_lab_engine<float>(int,
                                                                                 size_t);
template std::unique_ptr<resize_lab_engine<uint8_t>>
make_resize_lab_engine<uint8_t>(int, size_t);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
