/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The CUDA engine of dpd_capture. The capture is uploaded once; every pass runs on the
// device in double, the three correlations on cuFFT (plans cached per size), the quantile
// by CUB's radix sort. A reduction leaves one partial per block, which the host adds in
// block order, so a result does not depend on scheduling (atomics would make the chosen
// delay, and so the fit, differ bit-wise from run to run). Only scalars, the 129
// correlation values and the block phase sums cross the bus until read() brings the
// aligned capture back. Both crossings go through pinned staging, filled and emptied by
// threads: from pageable memory the DMA and one thread's memcpy each run at a fraction of
// the bus.
#include "../common/parallel.h"
#include "cuda_common.cuh"
#include "cuda_engines.h"
#include "dpd_capture_tuning.h"
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cufft.h>
#include <thrust/complex.h>
#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>
#include <tuple>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {
using cd = std::complex<double>;
using tc = thrust::complex<double>;
using E = kernel::capture_engine;
constexpr int threads = capture_threads_build;
constexpr double two_pi = 6.283185307179586;

#define GPUINTERP_CUFFT_CHECK(expr) GPUINTERP_LIBRARY_CHECK("cuFFT", CUFFT_SUCCESS, expr)

__device__ inline tc rot(const kernel::capture_rotation& r, int64_t m)
{
    double s, c;
    sincos(r.angle(m), &s, &c);
    return tc(c, s);
}

// The sum of v over the block's threads (blockDim.x == threads) in a fixed tree order, for
// every thread; sh is reusable when it returns.
__device__ tc block_sum(tc v, tc* sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = threads / 2; s > 0; s >>= 1) {
        if (int(threadIdx.x) < s)
            sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    const tc r = sh[0];
    __syncthreads();
    return r;
}

// K complex sums per block: f(i, acc) adds row i's terms into acc[0..K).
template <int K, typename F>
__global__ void partial_sums(size_t n, F f, tc* out)
{
    tc acc[K];
    for (int k = 0; k < K; k++)
        acc[k] = 0;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x)
        f(i, acc);
    __shared__ tc sh[threads];
    for (int k = 0; k < K; k++) {
        const tc v = block_sum(acc[k], sh);
        if (threadIdx.x == 0)
            out[blockIdx.x * K + k] = v;
    }
}

// The first index of the largest f(i), i < n, per block (value, index).
template <typename F>
__global__ void partial_argmax(size_t n, F f, double* val, int64_t* idx)
{
    double best = -INFINITY;
    int64_t arg = -1;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
        const double v = f(i);
        if (v > best) { // ascending i per thread: the first of equal values stays
            best = v;
            arg = int64_t(i);
        }
    }
    __shared__ double sv[threads];
    __shared__ int64_t si[threads];
    sv[threadIdx.x] = best;
    si[threadIdx.x] = arg;
    __syncthreads();
    for (int s = threads / 2; s > 0; s >>= 1) {
        if (int(threadIdx.x) < s) {
            const double v = sv[threadIdx.x + s];
            const int64_t j = si[threadIdx.x + s];
            if (j >= 0 &&
                (v > sv[threadIdx.x] || (v == sv[threadIdx.x] &&
                                         (si[threadIdx.x] < 0 || j < si[threadIdx.x])))) {
                sv[threadIdx.x] = v;
                si[threadIdx.x] = j;
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        val[blockIdx.x] = sv[0];
        idx[blockIdx.x] = si[0];
    }
}

template <typename F>
__global__ void for_each(size_t n, F f)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x)
        f(i);
}

// Sums of `block` consecutive z[i] exp(-2 pi j f0 (k - centre)), one thread block per sum
// (each adds its samples in a fixed order).
__global__ void block_sums(const tc* ys,
                           const tc* xz,
                           int64_t lo,
                           int64_t d,
                           double f0,
                           double centre,
                           size_t block,
                           tc* out)
{
    __shared__ tc sh[threads];
    tc acc = 0;
    const size_t b0 = size_t(blockIdx.x) * block;
    for (size_t i = threadIdx.x; i < block; i += threads) {
        const int64_t k = lo + int64_t(b0 + i);
        double sn, cs;
        sincos(-two_pi * f0 * (double(k) - centre), &sn, &cs);
        acc += ys[k] * conj(xz[k - d]) * tc(cs, sn);
    }
    const tc v = block_sum(acc, sh);
    if (threadIdx.x == 0)
        out[blockIdx.x] = v;
}


// Every member is public: nvcc refuses extended (__device__) lambdas inside private member
// functions.
class capture_engine_cuda final : public E
{
public:
    explicit capture_engine_cuda(int device)
        : d_device(device),
          d_blocks(capture_tuning_for(compute_capability(device)).blocks_per_sm *
                   device_attribute(cudaDevAttrMultiProcessorCount, device))
    {
        device_guard g(device);
        d_stream = std::make_unique<stream>();
        d_part.reserve(size_t(d_blocks) * 8);
        d_pval.reserve(size_t(d_blocks));
        d_pidx.reserve(size_t(d_blocks));
    }

    ~capture_engine_cuda() override
    {
        for (auto& p : d_plans)
            cufftDestroy(p.second);
    }

    std::array<size_t, 2> load(const cd* x, const cd* y, size_t n) override
    {
        device_guard g(d_device);
        d_n = n;
        reserve_all(n);
        for (auto& l : d_len)
            l = 0;
        d_len[X] = d_len[Y] = n;
        d_stage.reserve(2 * n);
        cpu::parallel_copy(d_stage.get(), x, n * sizeof(cd));
        cpu::parallel_copy(d_stage.get() + n, y, n * sizeof(cd));
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
            v(X), d_stage.get(), n * sizeof(cd), cudaMemcpyHostToDevice, s()));
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
            v(Y), d_stage.get() + n, n * sizeof(cd), cudaMemcpyHostToDevice, s()));
        GPUINTERP_CUDA_CHECK(cudaMemsetAsync(m(BAD), 0, n, s()));
        d_env_ready = false;
        const tc* px = v(X);
        const tc* py = v(Y);
        const auto c = sums<1>(n, [=] __device__(size_t i, tc * a) {
            const bool bx = !(isfinite(px[i].real()) && isfinite(px[i].imag()));
            const bool by = !(isfinite(py[i].real()) && isfinite(py[i].imag()));
            a[0] += tc(bx, by);
        });
        return { size_t(c[0].real()), size_t(c[0].imag()) };
    }

    size_t clip(double lim, double& peak) override
    {
        device_guard g(d_device);
        const tc* py = v(Y);
        uint8_t* mc = m(CLIP);
        const auto c = sums<1>(d_n, [=] __device__(size_t i, tc * a) {
            const bool cl = fabs(py[i].real()) >= lim || fabs(py[i].imag()) >= lim;
            mc[i] = cl;
            a[0] += double(cl);
        });
        peak = argmax(d_n, [=] __device__(size_t i) {
                   return fmax(fabs(py[i].real()), fabs(py[i].imag()));
               }).second;
        return size_t(c[0].real());
    }

    size_t exclude(const uint8_t* flags) override
    {
        device_guard g(d_device);
        // Through the pinned stage (2n samples, reserved by load) into BAD, which bad_rows()
        // writes whole later, then or'ed into CLIP on the device.
        std::memcpy(d_stage.get(), flags, d_n);
        GPUINTERP_CUDA_CHECK(
            cudaMemcpyAsync(m(BAD), d_stage.get(), d_n, cudaMemcpyHostToDevice, s()));
        uint8_t* mc = m(CLIP);
        const uint8_t* mb = m(BAD);
        const auto c = sums<1>(d_n, [=] __device__(size_t i, tc * a) {
            const bool e = mc[i] || mb[i];
            mc[i] = e;
            a[0] += double(e);
        });
        GPUINTERP_CUDA_CHECK(cudaMemsetAsync(m(BAD), 0, d_n, s()));
        return size_t(c[0].real());
    }

    double abs_quantile(vec src, double q) override
    {
        device_guard g(d_device);
        const tc* p = v(src);
        double* mag = d_keys.get();
        launch(d_n, [=] __device__(size_t i) { mag[i] = abs(p[i]); });
        size_t temp = 0;
        GPUINTERP_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(
            nullptr, temp, mag, d_sorted.get(), int(d_n), 0, 64, s()));
        d_temp.reserve(temp);
        GPUINTERP_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(
            d_temp.get(), temp, mag, d_sorted.get(), int(d_n), 0, 64, s()));
        const double h = q * double(d_n - 1);
        const size_t lo = size_t(std::floor(h));
        const double t = h - double(lo);
        double ab[2];
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(ab,
                                             d_sorted.get() + lo,
                                             (lo + 1 < d_n ? 2 : 1) * sizeof(double),
                                             cudaMemcpyDeviceToHost,
                                             s()));
        d_stream->synchronize();
        if (lo + 1 >= d_n)
            ab[1] = ab[0];
        return t >= 0.5 ? ab[1] - (ab[1] - ab[0]) * (1 - t) : ab[0] + (ab[1] - ab[0]) * t;
    }

    size_t zero_where(vec src, vec dst, mask out, double thr, mask with) override
    {
        device_guard g(d_device);
        const tc* ps = v(src);
        tc* pd = v(dst);
        uint8_t* mo = m(out);
        const uint8_t* mw = with == num_masks ? nullptr : m(with);
        d_len[dst] = d_n;
        d_env_ready = false;
        const auto c = sums<1>(d_n, [=] __device__(size_t i, tc * a) {
            const bool o = abs(ps[i]) > thr;
            const bool z = o || (mw && mw[i]);
            mo[i] = z;
            pd[i] = z ? tc(0) : ps[i];
            a[0] += double(o);
        });
        return size_t(c[0].real());
    }

    std::pair<int64_t, double> envelope_delay(int64_t max_delay) override
    {
        device_guard g(d_device);
        if (!d_env_ready)
            envelope_correlation();
        const int64_t n = int64_t(d_n), m = int64_t(d_m);
        const double* r = d_env.get();
        const double* cx = d_cx.get();
        const double* cy = d_cy.get();
        const auto best = argmax(size_t(2 * max_delay + 1), [=] __device__(size_t i) {
            const int64_t t = int64_t(i) - max_delay;
            if ((t < 0 ? -t : t) > 3 * n / 4)
                return 0.0;
            // cx, cy: inclusive running sums, so the exclusive sum of the first k is [k - 1]
            auto ex_ = [&](int64_t k) { return k > 0 ? cx[k - 1] : 0.0; };
            auto ey_ = [&](int64_t k) { return k > 0 ? cy[k - 1] : 0.0; };
            const double ex = t >= 0 ? ex_(n - t) : ex_(n) - ex_(-t);
            const double ey = t >= 0 ? ey_(n) - ey_(t) : ey_(n + t);
            return r[((t % m) + m) % m] / sqrt(fmax(ex * ey, 1e-300));
        });
        return { best.first - max_delay, best.second };
    }

    cd phase_sum(int64_t d) override
    {
        device_guard g(d_device);
        const auto ov = overlap(d);
        const tc* ys = v(YS);
        const tc* xz = v(XZ);
        const int64_t lo = ov.first;
        const auto c = sums<1>(ov.second, [=] __device__(size_t i, tc * a) {
            a[0] += ys[lo + int64_t(i)] * conj(xz[lo + int64_t(i) - d]);
        });
        return c[0];
    }

    size_t phase_line(int64_t d, size_t nfft) override
    {
        device_guard g(d_device);
        const auto ov = overlap(d);
        d_fa.reserve(nfft);
        tc* z = d_fa.get();
        const tc* ys = v(YS);
        const tc* xz = v(XZ);
        const int64_t lo = ov.first;
        const size_t len = ov.second;
        launch(nfft, [=] __device__(size_t i) {
            z[i] = i < len ? ys[lo + int64_t(i)] * conj(xz[lo + int64_t(i) - d]) : tc(0);
        });
        GPUINTERP_CUFFT_CHECK(cufftExecZ2Z(plan(nfft, CUFFT_Z2Z),
                                           reinterpret_cast<cufftDoubleComplex*>(z),
                                           reinterpret_cast<cufftDoubleComplex*>(z),
                                           CUFFT_FORWARD));
        return size_t(argmax(nfft, [=] __device__(size_t i) { return abs(z[i]); }).first);
    }

    std::vector<cd>
    phase_blocks(int64_t d, double f0, double centre, size_t block, size_t nb) override
    {
        device_guard g(d_device);
        const int64_t lo = overlap(d).first;
        const tc* ys = v(YS);
        const tc* xz = v(XZ);
        d_blk.reserve(nb);
        tc* out = d_blk.get();
        block_sums<<<unsigned(nb), threads, 0, s()>>>(
            ys, xz, lo, d, f0, centre, block, out);
        GPUINTERP_CUDA_CHECK_LAUNCH(s());
        std::vector<cd> h(nb);
        GPUINTERP_CUDA_CHECK(
            cudaMemcpyAsync(h.data(), out, nb * sizeof(cd), cudaMemcpyDeviceToHost, s()));
        d_stream->synchronize();
        return h;
    }

    void derotate(const kernel::capture_rotation& r) override
    {
        device_guard g(d_device);
        const tc* ys = v(YS);
        tc* yr = v(YR);
        d_len[YR] = d_n;
        launch(d_n,
               [=] __device__(size_t i) { yr[i] = ys[i] * conj(rot(r, int64_t(i))); });
    }

    int64_t
    xcorr_peak(int64_t d, int64_t max_lag, int half, std::vector<cd>& seg) override
    {
        device_guard g(d_device);
        const size_t mm = kernel::capture_fft_size(2 * d_n);
        d_fa.reserve(mm);
        d_fb.reserve(mm);
        tc* a = d_fa.get();
        tc* b = d_fb.get();
        const tc* yr = v(YR);
        const tc* xz = v(XZ);
        const int64_t n = int64_t(d_n);
        const kernel::capture_overlap ov(d_n, d);
        const int64_t lo = ov.lo, hi = ov.hi;
        launch(mm, [=] __device__(size_t i) {
            const int64_t k = int64_t(i);
            a[i] = k < n ? yr[k] : tc(0);
            b[i] = k >= lo && k < hi ? xz[k - d] : tc(0);
        });
        const cufftHandle fp = plan(mm, CUFFT_Z2Z);
        auto* fa = reinterpret_cast<cufftDoubleComplex*>(a);
        auto* fb = reinterpret_cast<cufftDoubleComplex*>(b);
        GPUINTERP_CUFFT_CHECK(cufftExecZ2Z(fp, fa, fa, CUFFT_FORWARD));
        GPUINTERP_CUFFT_CHECK(cufftExecZ2Z(fp, fb, fb, CUFFT_FORWARD));
        const double scale = 1.0 / double(mm);
        launch(mm, [=] __device__(size_t i) { a[i] = a[i] * conj(b[i]) * scale; });
        GPUINTERP_CUFFT_CHECK(cufftExecZ2Z(fp, fa, fa, CUFFT_INVERSE));
        // The peak among the lags in estimate_delay's order (0 .. L, then -L .. -1), then the
        // correlation around it gathered for the host's interpolation.
        const int64_t L = max_lag, M = int64_t(mm);
        const int64_t p0 =
            argmax(size_t(2 * L + 1), [=] __device__(size_t i) {
                const int64_t l = int64_t(i) <= L ? int64_t(i) : int64_t(i) - (2 * L + 1);
                return abs(a[(M + l) % M]);
            }).first;
        const int64_t p = p0 <= L ? p0 : p0 - (2 * L + 1);
        const size_t ns = size_t(2 * half + 1);
        d_blk.reserve(ns);
        tc* out = d_blk.get();
        launch(ns, [=] __device__(size_t j) {
            out[j] = a[((p + int64_t(j) - half) % M + M) % M];
        });
        seg.resize(ns);
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
            seg.data(), out, ns * sizeof(cd), cudaMemcpyDeviceToHost, s()));
        d_stream->synchronize();
        return p;
    }

    void shift(
        vec src, vec dst, int64_t off, const std::vector<double>& h, size_t len) override
    {
        device_guard g(d_device);
        if (h.size() > max_taps)
            throw std::logic_error("dpd_capture: more shift taps than the engine holds");
        taps t;
        std::copy(h.begin(), h.end(), t.h);
        const int nt = int(h.size());
        const tc* ps = v(src) + off;
        tc* pd = v(dst);
        d_len[dst] = len;
        launch(len, [=] __device__(size_t i) {
            tc acc = 0;
            for (int k = 0; k < nt; k++)
                acc += t.h[k] * ps[i + size_t(k)];
            pd[i] = acc;
        });
    }

    std::array<cd, 7>
    rx_sums(const kernel::capture_rotation& r, size_t first, size_t len) override
    {
        device_guard g(d_device);
        const tc* xs = v(XS);
        const tc* ys = v(YS);
        const uint8_t* by = m(BY);
        const auto c = sums<7>(len, [=] __device__(size_t i, tc * a) {
            const size_t j = first + i;
            if (by[j])
                return;
            const tc sv = rot(r, int64_t(j)) * xs[i];
            const tc yv = ys[j];
            a[0] += norm(sv);
            a[1] += sv * sv;
            a[2] += sv;
            a[3] += 1.0;
            a[4] += conj(sv) * yv;
            a[5] += sv * yv;
            a[6] += yv;
        });
        std::array<cd, 7> o;
        for (int k = 0; k < 7; k++)
            o[size_t(k)] = c[size_t(k)];
        return o;
    }

    void rx_apply(const kernel::capture_rotation& r, cd dc0, cd kappa0) override
    {
        device_guard g(d_device);
        const tc dc(dc0), kappa(kappa0);
        const tc* ys = v(YS);
        const uint8_t* by = m(BY);
        tc* yc = v(YC);
        d_len[YC] = d_n;
        launch(d_n, [=] __device__(size_t i) {
            const tc u = ys[i] - dc;
            yc[i] = by[i] ? tc(0) : (u - kappa * conj(u)) * conj(rot(r, int64_t(i)));
        });
    }

    void copy(vec src, vec dst) override
    {
        device_guard g(d_device);
        d_len[dst] = d_len[src];
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
            v(dst), v(src), d_len[src] * sizeof(cd), cudaMemcpyDeviceToDevice, s()));
    }

    std::array<cd, 3>
    dots(vec a, size_t a0, vec b, size_t b0, size_t len, bool skip_bad) override
    {
        device_guard g(d_device);
        const tc* pa = v(a) + a0;
        const tc* pb = v(b) + b0;
        const uint8_t* bad = skip_bad ? m(BAD) : nullptr;
        const auto c = sums<3>(len, [=] __device__(size_t i, tc * s) {
            if (bad && bad[i])
                return;
            const tc u = pa[i], w = pb[i];
            s[0] += norm(u);
            s[1] += norm(w);
            s[2] += conj(u) * w;
        });
        return { c[0], c[1], c[2] };
    }

    size_t bad_rows(size_t first, size_t len, int64_t shift, int half) override
    {
        device_guard g(d_device);
        const uint8_t* bx = m(BX);
        const uint8_t* by2 = m(BY2);
        uint8_t* bad = m(BAD);
        const int64_t n = int64_t(d_n);
        const auto c = sums<1>(len, [=] __device__(size_t i, tc * a) {
            int64_t j = int64_t(first + i) + shift;
            j = j < 0 ? 0 : (j > n - 1 ? n - 1 : j);
            bool hit = bx[first + i];
            for (int64_t k = (j - half < 0 ? 0 : j - half);
                 !hit && k <= j + half && k < n;
                 k++)
                hit = by2[k];
            bad[i] = hit;
            a[0] += double(hit);
        });
        return size_t(c[0].real());
    }

    void read(vec src, size_t v0, size_t len, cd div, cd* out) override
    {
        device_guard g(d_device);
        const tc* p = v(src) + v0;
        if (div != cd(1)) {
            // Divided on the device; thrust's complex division may round the last bit
            // differently from the CPU backend's (both scale against overflow).
            d_fb.reserve(len);
            tc* o = d_fb.get();
            const tc dv(div);
            launch(len, [=] __device__(size_t i) { o[i] = p[i] / dv; });
            p = o;
        }
        d_stage.reserve(len);
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
            d_stage.get(), p, len * sizeof(cd), cudaMemcpyDeviceToHost, s()));
        d_stream->synchronize();
        cpu::parallel_copy(out, d_stage.get(), len * sizeof(cd));
    }

    // The segments windowed side by side, one batched transform, |.|^2 averaged per bin: only
    // the nfft bins cross the bus.
    std::vector<double> welch_psd(vec src, size_t len, size_t nfft) override
    {
        device_guard g(d_device);
        const size_t step = nfft / 2, segs = (len - nfft) / step + 1;
        // The capture's FFT scratch holds the segments (load() sized it for 4n, segs * nfft
        // <= 2n) and its second one the bins: nothing is allocated per step.
        d_fa.reserve(segs * nfft);
        d_fb.reserve(nfft);
        tc* zp = d_fa.get();
        double* bp = reinterpret_cast<double*>(d_fb.get());
        const tc* y = v(src);
        const double w = 2 * 3.141592653589793 / double(nfft);
        launch(segs * nfft, [=] __device__(size_t i) {
            const size_t k = i % nfft;
            zp[i] = y[(i / nfft) * step + k] * (0.5 - 0.5 * cos(w * double(k)));
        });
        const cufftHandle p = plan(nfft, CUFFT_Z2Z, segs);
        auto* f = reinterpret_cast<cufftDoubleComplex*>(zp);
        GPUINTERP_CUFFT_CHECK(cufftExecZ2Z(p, f, f, CUFFT_FORWARD));
        launch(nfft, [=] __device__(size_t k) {
            // fftshifted: bin k holds frequency k - nfft / 2
            const size_t b = (k + nfft / 2) % nfft;
            double a = 0;
            for (size_t sg = 0; sg < segs; sg++)
                a += thrust::norm(zp[sg * nfft + b]);
            bp[k] = a / double(segs);
        });
        std::vector<double> psd(nfft);
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
            psd.data(), bp, nfft * sizeof(double), cudaMemcpyDeviceToHost, s()));
        d_stream->synchronize();
        return psd;
    }

    const cd* device_data(vec src) const override
    {
        return reinterpret_cast<const cd*>(v(src));
    }

    void read_bad(size_t len, uint8_t* out) override
    {
        device_guard g(d_device);
        GPUINTERP_CUDA_CHECK(
            cudaMemcpyAsync(out, m(BAD), len, cudaMemcpyDeviceToHost, s()));
        d_stream->synchronize();
    }

    static constexpr size_t max_taps = 64;
    struct taps {
        double h[max_taps];
    };

    cudaStream_t s() const { return d_stream->get(); }
    tc* v(vec i) const { return d_v[i].get(); }
    uint8_t* m(mask i) const { return d_mk[i].get(); }

    template <typename F>
    void launch(size_t n, F f)
    {
        if (!n)
            return;
        const unsigned g = unsigned(std::min<size_t>((n + threads - 1) / threads, 65535));
        for_each<<<g, threads, 0, s()>>>(n, f);
        GPUINTERP_CUDA_CHECK_LAUNCH(s());
    }

    // The K sums of f over i < n.
    template <int K, typename F>
    std::array<cd, K> sums(size_t n, F f)
    {
        std::array<cd, K> r{};
        if (!n)
            return r;
        partial_sums<K><<<d_blocks, threads, 0, s()>>>(n, f, d_part.get());
        GPUINTERP_CUDA_CHECK_LAUNCH(s());
        std::vector<cd> h(size_t(d_blocks) * K);
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
            h.data(), d_part.get(), h.size() * sizeof(cd), cudaMemcpyDeviceToHost, s()));
        d_stream->synchronize();
        for (int b = 0; b < d_blocks; b++)
            for (int k = 0; k < K; k++)
                r[size_t(k)] += h[size_t(b * K + k)];
        return r;
    }

    template <typename F>
    std::pair<int64_t, double> argmax(size_t n, F f)
    {
        partial_argmax<<<d_blocks, threads, 0, s()>>>(n, f, d_pval.get(), d_pidx.get());
        GPUINTERP_CUDA_CHECK_LAUNCH(s());
        std::vector<double> hv(static_cast<size_t>(d_blocks));
        std::vector<int64_t> hi(static_cast<size_t>(d_blocks));
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(hv.data(),
                                             d_pval.get(),
                                             hv.size() * sizeof(double),
                                             cudaMemcpyDeviceToHost,
                                             s()));
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(hi.data(),
                                             d_pidx.get(),
                                             hi.size() * sizeof(int64_t),
                                             cudaMemcpyDeviceToHost,
                                             s()));
        d_stream->synchronize();
        double best = -INFINITY;
        int64_t arg = -1;
        for (size_t b = 0; b < hv.size(); b++)
            if (hi[b] >= 0 && (hv[b] > best || (hv[b] == best && hi[b] < arg))) {
                best = hv[b];
                arg = hi[b];
            }
        return { arg, best };
    }

    std::pair<int64_t, size_t> overlap(int64_t d) const
    {
        const kernel::capture_overlap ov(d_n, d);
        return { ov.lo, ov.size() };
    }

    cufftHandle plan(size_t n, cufftType type, size_t batch = 1)
    {
        const auto key = std::make_tuple(n, int(type), batch);
        auto it = d_plans.find(key);
        if (it != d_plans.end())
            return it->second;
        cufftHandle p;
        GPUINTERP_CUFFT_CHECK(cufftPlan1d(&p, int(n), type, int(batch)));
        GPUINTERP_CUFFT_CHECK(cufftSetStream(p, s()));
        d_plans[key] = p;
        return p;
    }

    // Every buffer a capture of n samples needs, allocated together so that a capture too
    // large for the device is refused up front with its sizes.
    void reserve_all(size_t n)
    {
        const size_t mm = kernel::capture_fft_size(2 * n);
        const size_t need = num_vecs * n * sizeof(tc) + num_masks * n +
                            2 * n * sizeof(double) + 2 * (n + 1) * sizeof(double) +
                            mm * sizeof(double) + (2 * mm + 4 * n) * sizeof(tc);
        try {
            for (auto& b : d_v)
                b.reserve(n);
            for (auto& b : d_mk)
                b.reserve(n);
            d_keys.reserve(n);
            d_sorted.reserve(n);
            d_cx.reserve(n + 1);
            d_cy.reserve(n + 1);
            d_env.reserve(mm);
            d_fa.reserve(std::max(mm, 4 * n));
            d_fb.reserve(mm);
        } catch (const cuda_error& e) {
            size_t free_b = 0, total = 0;
            cudaGetLastError();
            cudaMemGetInfo(&free_b, &total);
            std::ostringstream os;
            os << "dpd_capture: a capture of " << n << " samples needs about "
               << (need >> 20) << " MiB on CUDA device " << d_device << ", which has "
               << (free_b >> 20) << " MiB free of " << (total >> 20)
               << " MiB; shorten the capture or use backend cpu (" << e.what() << ")";
            throw cuda_error(os.str());
        }
    }

    // r[t] = sum_k ey[k + t] ex[k] of the mean-removed envelopes (D2Z/Z2D of length m >= 2n,
    // so no lag wraps onto another), and the running energies of the overlaps.
    void envelope_correlation()
    {
        const size_t n = d_n, mm = kernel::capture_fft_size(2 * n);
        d_m = mm;
        const tc* xz = v(XZ);
        const tc* ys = v(YS);
        const auto mean = sums<1>(n, [=] __device__(size_t i, tc * a) {
            a[0] += tc(norm(xz[i]), norm(ys[i]));
        });
        const double mx = mean[0].real() / double(n), my = mean[0].imag() / double(n);
        // ex in d_env (real, length m, zero-padded), ey in d_keys..: both as D2Z inputs.
        double* ex = d_env.get();
        double* ey = reinterpret_cast<double*>(d_fb.get());
        double* ex2 = d_keys.get();
        double* ey2 = d_sorted.get();
        launch(mm, [=] __device__(size_t i) {
            const double a = i < n ? norm(xz[i]) - mx : 0.0;
            const double b = i < n ? norm(ys[i]) - my : 0.0;
            ex[i] = a;
            ey[i] = b;
            if (i < n) {
                ex2[i] = a * a;
                ey2[i] = b * b;
            }
        });
        size_t temp = 0;
        GPUINTERP_CUDA_CHECK(
            cub::DeviceScan::InclusiveSum(nullptr, temp, ex2, d_cx.get(), int(n), s()));
        d_temp.reserve(temp);
        GPUINTERP_CUDA_CHECK(cub::DeviceScan::InclusiveSum(
            d_temp.get(), temp, ex2, d_cx.get(), int(n), s()));
        GPUINTERP_CUDA_CHECK(cub::DeviceScan::InclusiveSum(
            d_temp.get(), temp, ey2, d_cy.get(), int(n), s()));
        auto* X = reinterpret_cast<cufftDoubleComplex*>(d_fa.get());
        auto* Y = X + (mm / 2 + 1);
        GPUINTERP_CUFFT_CHECK(cufftExecD2Z(plan(mm, CUFFT_D2Z), ex, X));
        GPUINTERP_CUFFT_CHECK(cufftExecD2Z(plan(mm, CUFFT_D2Z), ey, Y));
        tc* xt = reinterpret_cast<tc*>(X);
        tc* yt = reinterpret_cast<tc*>(Y);
        const double scale = 1.0 / double(mm);
        launch(mm / 2 + 1,
               [=] __device__(size_t i) { yt[i] = yt[i] * conj(xt[i]) * scale; });
        GPUINTERP_CUFFT_CHECK(cufftExecZ2D(plan(mm, CUFFT_Z2D), Y, ex));
        d_env_ready = true;
    }

    int d_device;
    int d_blocks; // the reductions' grid: the tuning row's blocks per SM times the SMs
    std::unique_ptr<stream> d_stream;
    size_t d_n = 0, d_m = 0;
    device_buffer<tc> d_v[num_vecs];
    size_t d_len[num_vecs] = {};
    device_buffer<uint8_t> d_mk[num_masks];
    device_buffer<double> d_keys, d_sorted, d_cx, d_cy, d_env;
    device_buffer<tc> d_fa, d_fb, d_blk, d_part;
    device_buffer<double> d_pval;
    device_buffer<int64_t> d_pidx;
    device_buffer<unsigned char> d_temp;
    pinned_buffer<tc> d_stage;
    std::map<std::tuple<size_t, int, size_t>, cufftHandle> d_plans;
    bool d_env_ready = false;
};
} // namespace

std::unique_ptr<kernel::capture_engine> make_cuda_capture_engine(int device)
{
    return std::make_unique<capture_engine_cuda>(device);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
