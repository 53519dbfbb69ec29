/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The CUDA engine of dpd_gram: the basis chunk (R rows x K columns, column-major) built
// on the device from the uploaded samples by one kernel, G += A^H A by cuBLAS Zherk
// (upper triangle), b += A^H t by Zgemv, all in double; the eigendecomposition of the
// normalised Gram by cuSOLVER Zheevd. G and b stay on the device between add() calls;
// only read() (solve) brings them back.
//
// Overlap: accumulate() copies a chunk's samples, row indices and targets into pinned
// staging and returns without waiting; the next call waits for the stream before reusing
// the staging (and the device buffers, which the stream has finished with by then). The
// host's row walk of chunk i+1 thereby overlaps the device's work on chunk i. A second
// set of buffers would also overlap the uploads with Zherk, but Zherk dominates (R K^2
// against R K bytes), so it is not done.
#include "../common/parallel.h"
#include "cuda_common.cuh"
#include "cuda_engines.h"
#include "dpd_gram_tuning.h"
#include <cuComplex.h>
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <algorithm>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

namespace {
using cd = std::complex<double>;

#define GPUINTERP_CUBLAS_CHECK(expr) \
    GPUINTERP_LIBRARY_CHECK("cuBLAS", CUBLAS_STATUS_SUCCESS, expr)
#define GPUINTERP_CUSOLVER_CHECK(expr) \
    GPUINTERP_LIBRARY_CHECK("cuSOLVER", CUSOLVER_STATUS_SUCCESS, expr)

// The two libraries' handles, one owner each, set to the engine's stream by its constructor (a
// handle whose stream could not be set is still destroyed: it is owned by then).
using cublas_handle = unique_handle<cublasHandle_t, cublasStatus_t, cublasDestroy>;
using cusolver_handle =
    unique_handle<cusolverDnHandle_t, cusolverStatus_t, cusolverDnDestroy>;

struct term_d {
    int lag, env;
    int power;
    int flags; // 1 conj, 2 ones
};

// A[c*R + r] = y[rows[r] - lag] |y[rows[r] - env]|^power (conjugated), samples at
// negative indices zero. One thread per element, r fastest: coalesced stores, the y reads
// of one column are a shifted contiguous run.
__global__ void build_basis(cuDoubleComplex* __restrict__ A,
                            const cuDoubleComplex* __restrict__ y,
                            long long w0,
                            long long wn,
                            long long lo,
                            const long long* __restrict__ rows,
                            const term_d* __restrict__ terms,
                            int R,
                            int K)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    const int c = blockIdx.y;
    if (r >= R || c >= K)
        return;
    const term_d t = terms[c];
    cuDoubleComplex v;
    if (t.flags & 2) {
        v = make_cuDoubleComplex(1, 0);
    } else {
        const long long is = rows[r] - t.lag, ie = rows[r] - t.env;
        const cuDoubleComplex s =
            (is >= lo && is < w0 + wn) ? y[is - w0] : make_cuDoubleComplex(0, 0);
        double a = 1, p = 1;
        if (t.power) {
            const cuDoubleComplex e =
                (ie >= lo && ie < w0 + wn) ? y[ie - w0] : make_cuDoubleComplex(0, 0);
            a = hypot(cuCreal(e), cuCimag(e));
            for (int k = 0; k < t.power; k++)
                p *= a;
        }
        v = make_cuDoubleComplex(cuCreal(s) * p, cuCimag(s) * p);
        if (t.flags & 1)
            v = cuConj(v);
    }
    A[size_t(c) * size_t(R) + size_t(r)] = v;
}

// dst = src * f: a held capture's y taken from the capture kernel's device copy.
__global__ void scaled_copy(cuDoubleComplex* __restrict__ dst,
                            const cuDoubleComplex* __restrict__ src,
                            size_t n,
                            cuDoubleComplex f)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x)
        dst[i] = cuCmul(src[i], f);
}

// t[r] = x[rows[r]]: a chunk's targets from the held capture.
__global__ void gather_targets(cuDoubleComplex* __restrict__ t,
                               const cuDoubleComplex* __restrict__ x,
                               const long long* __restrict__ rows,
                               int R)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < R)
        t[r] = x[rows[r]];
}

class gram_cuda : public kernel::gram_engine
{
public:
    explicit gram_cuda(int device)
        : d_device(device), d_tune(gram_tuning_for(compute_capability(device)))
    {
        device_guard g(device); // the stream and the handles belong to `device`
        d_stream = std::make_unique<stream>();
        cublasHandle_t blas = nullptr;
        GPUINTERP_CUBLAS_CHECK(cublasCreate(&blas));
        d_blas.reset(blas);
        GPUINTERP_CUBLAS_CHECK(cublasSetStream(blas, d_stream->get()));
        cusolverDnHandle_t solver = nullptr;
        GPUINTERP_CUSOLVER_CHECK(cusolverDnCreate(&solver));
        d_solver.reset(solver);
        GPUINTERP_CUSOLVER_CHECK(cusolverDnSetStream(solver, d_stream->get()));
    }

    void init(const std::vector<kernel::gram_term>& terms) override
    {
        device_guard g(d_device);
        d_K = terms.size();
        std::vector<term_d> t(d_K);
        int back = 0, ahead = 0;
        for (size_t i = 0; i < d_K; i++) {
            t[i] = { terms[i].lag,
                     terms[i].env,
                     int(terms[i].power),
                     (terms[i].conj ? 1 : 0) | (terms[i].ones ? 2 : 0) };
            back = std::max({ back, terms[i].lag, terms[i].env });
            ahead = std::max(ahead, -terms[i].env);
        }
        // Memory: two Grams (K^2), the basis chunk (R K), and the staged window (< 4R +
        // history). The chunk takes what is free up to 256 MiB and 2^18 rows (a small
        // model's capture then crosses in a few chunks: each costs a host wait, and a
        // larger pinned staging would cost its allocation on every estimator constructed);
        // below 256 rows, refuse with the sizes.
        size_t free_b = 0, total_b = 0;
        GPUINTERP_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        const size_t K = d_K, cplx = sizeof(cuDoubleComplex);
        const size_t grams = 2 * (K * K + K) * cplx;
        const size_t per_row = K * cplx + 4 * (cplx + sizeof(long long) + cplx);
        const size_t budget = free_b > grams ? (free_b - grams) * 3 / 4 : 0;
        size_t R = std::min<size_t>((size_t(256) << 20) / (K * cplx), size_t(1) << 18);
        R = std::min(R, budget / per_row);
        if (R < 256) {
            std::ostringstream os;
            os << "dpd_gram: CUDA device " << d_device << " has " << (free_b >> 20)
               << " MiB free of " << (total_b >> 20) << " MiB; K = " << K
               << " columns need " << (grams >> 20)
               << " MiB for the two Gram matrices (2 x K^2 x 16 B) "
                  "plus at least 256 rows x "
               << K << " x 16 B of basis chunk";
            throw std::runtime_error(os.str());
        }
        d_chunk = R;
        d_pad = size_t(back + ahead) + 1;
        d_terms.reserve(K);
        upload(d_terms.get(), t.data(), K);
        for (int s = 0; s < 2; s++) {
            d_G[s].reserve(K * K);
            d_b[s].reserve(K);
        }
        d_A.reserve(R * K);
        if (K <= d_tune.small_columns) {
            d_slices.reserve(d_tune.max_slices * K * K);
            d_ones.reserve(d_tune.max_slices);
            const std::vector<cuDoubleComplex> ones(d_tune.max_slices,
                                                    make_cuDoubleComplex(1, 0));
            upload(d_ones.get(), ones.data(), d_tune.max_slices);
        }
        d_rows.reserve(R);
        d_t.reserve(R);
        d_y.reserve(4 * R + d_pad);
        h_rows.reserve(R);
        h_t.reserve(R);
        h_y.reserve(4 * R + d_pad);
        clear();
    }

    size_t chunk_rows() const override { return d_chunk; }

    void accumulate(int set, const kernel::gram_rows& in) override
    {
        const size_t R = in.R;
        if (!R)
            return;
        if (R > d_chunk)
            throw std::logic_error("dpd_gram cuda: chunk of " + std::to_string(R) +
                                   " rows > " + std::to_string(d_chunk));
        device_guard g(d_device);
        d_stream->synchronize(); // the previous chunk is done with the staging and device
        cudaStream_t s = d_stream->get();
        cpu::parallel_copy(h_rows.get(), in.rows, R * sizeof(long long));
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(d_rows.get(),
                                             h_rows.get(),
                                             R * sizeof(long long),
                                             cudaMemcpyHostToDevice,
                                             s));
        const bool held = in.slot >= 0 && d_held_n[in.slot];
        const cuDoubleComplex* y = nullptr;
        long long w0 = 0, wn = 0;
        if (held) {
            // The held capture is on the device already: only the row numbers crossed.
            y = d_hy[in.slot].get();
            wn = (long long)d_held_n[in.slot];
            gather_targets<<<unsigned((R + 255) / 256), 256, 0, s>>>(
                d_t.get(), d_hx[in.slot].get(), d_rows.get(), int(R));
            GPUINTERP_CUDA_CHECK_LAUNCH(s);
        } else {
            h_y.reserve(in.wn);
            d_y.reserve(in.wn);
            cpu::parallel_copy(h_y.get(), in.yw, in.wn * sizeof(cd));
            cpu::parallel_copy(h_t.get(), in.t, R * sizeof(cd));
            GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
                d_y.get(), h_y.get(), in.wn * sizeof(cd), cudaMemcpyHostToDevice, s));
            GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
                d_t.get(), h_t.get(), R * sizeof(cd), cudaMemcpyHostToDevice, s));
            y = d_y.get();
            w0 = (long long)in.w0;
            wn = (long long)in.wn;
        }
        const dim3 block(256), grid(unsigned((R + 255) / 256), unsigned(d_K));
        build_basis<<<grid, block, 0, s>>>(d_A.get(),
                                           y,
                                           w0,
                                           wn,
                                           (long long)in.lo,
                                           d_rows.get(),
                                           d_terms.get(),
                                           int(R),
                                           int(d_K));
        GPUINTERP_CUDA_CHECK_LAUNCH(s);
        const double one = 1;
        const cuDoubleComplex cone = make_cuDoubleComplex(1, 0);
        size_t done = 0;
        if (d_K <= d_tune.small_columns && R >= 2 * d_tune.slice_rows) {
            // A small model's Gram from a tall chunk: Zherk gives its few output tiles one
            // thread block each, which then walk all R rows alone. Instead the rows are cut
            // into slices whose Grams a strided batched Zgemm computes in parallel, and one
            // Zgemv adds the slices' Grams up (the full matrices; read() uses the upper
            // triangle, as Zherk's).
            const size_t S = std::min(R / d_tune.slice_rows, d_tune.max_slices),
                         r = R / S;
            const size_t KK = d_K * d_K;
            const cuDoubleComplex zero = make_cuDoubleComplex(0, 0);
            GPUINTERP_CUBLAS_CHECK(cublasZgemmStridedBatched(d_blas.get(),
                                                             CUBLAS_OP_C,
                                                             CUBLAS_OP_N,
                                                             int(d_K),
                                                             int(d_K),
                                                             int(r),
                                                             &cone,
                                                             d_A.get(),
                                                             int(R),
                                                             (long long)r,
                                                             d_A.get(),
                                                             int(R),
                                                             (long long)r,
                                                             &zero,
                                                             d_slices.get(),
                                                             int(d_K),
                                                             (long long)KK,
                                                             int(S)));
            GPUINTERP_CUBLAS_CHECK(cublasZgemv(d_blas.get(),
                                               CUBLAS_OP_N,
                                               int(KK),
                                               int(S),
                                               &cone,
                                               d_slices.get(),
                                               int(KK),
                                               d_ones.get(),
                                               1,
                                               &cone,
                                               d_G[set].get(),
                                               1));
            done = S * r;
        }
        if (done < R)
            GPUINTERP_CUBLAS_CHECK(cublasZherk(d_blas.get(),
                                               CUBLAS_FILL_MODE_UPPER,
                                               CUBLAS_OP_C,
                                               int(d_K),
                                               int(R - done),
                                               &one,
                                               d_A.get() + done,
                                               int(R),
                                               &one,
                                               d_G[set].get(),
                                               int(d_K)));
        GPUINTERP_CUBLAS_CHECK(cublasZgemv(d_blas.get(),
                                           CUBLAS_OP_C,
                                           int(R),
                                           int(d_K),
                                           &cone,
                                           d_A.get(),
                                           int(R),
                                           d_t.get(),
                                           1,
                                           &cone,
                                           d_b[set].get(),
                                           1));
    }

    void hold(int slot, const kernel::gram_held& h) override
    {
        d_held_n[slot] = 0;
        if (!h.n)
            return;
        device_guard g(d_device);
        d_stream->synchronize();
        cudaStream_t s = d_stream->get();
        d_hy[slot].reserve(h.n);
        d_hx[slot].reserve(h.n);
        if (h.y_dev && h.x_dev && h.device == d_device) {
            // From the capture kernel's device copy, divided on the way: nothing crosses the bus.
            const cd f = cd(1) / h.y_div;
            scaled_copy<<<unsigned(std::min<size_t>((h.n + 255) / 256, 4096)),
                          256,
                          0,
                          s>>>(d_hy[slot].get(),
                               reinterpret_cast<const cuDoubleComplex*>(h.y_dev),
                               h.n,
                               make_cuDoubleComplex(f.real(), f.imag()));
            GPUINTERP_CUDA_CHECK_LAUNCH(s);
            GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(d_hx[slot].get(),
                                                 h.x_dev,
                                                 h.n * sizeof(cd),
                                                 cudaMemcpyDeviceToDevice,
                                                 s));
        } else {
            GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
                d_hy[slot].get(), h.y, h.n * sizeof(cd), cudaMemcpyHostToDevice, s));
            GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
                d_hx[slot].get(), h.x, h.n * sizeof(cd), cudaMemcpyHostToDevice, s));
        }
        d_stream->synchronize();
        d_held_n[slot] = h.n;
    }

    void release() override { d_held_n[0] = d_held_n[1] = 0; }

    void scale(double f) override
    {
        device_guard g(d_device);
        for (int s = 0; s < 2; s++) {
            GPUINTERP_CUBLAS_CHECK(
                cublasZdscal(d_blas.get(), int(d_K * d_K), &f, d_G[s].get(), 1));
            GPUINTERP_CUBLAS_CHECK(
                cublasZdscal(d_blas.get(), int(d_K), &f, d_b[s].get(), 1));
        }
        d_stream->synchronize();
    }

    void fold() override
    {
        device_guard g(d_device);
        const cuDoubleComplex one = make_cuDoubleComplex(1, 0);
        GPUINTERP_CUBLAS_CHECK(cublasZaxpy(
            d_blas.get(), int(d_K * d_K), &one, d_G[1].get(), 1, d_G[0].get(), 1));
        GPUINTERP_CUBLAS_CHECK(
            cublasZaxpy(d_blas.get(), int(d_K), &one, d_b[1].get(), 1, d_b[0].get(), 1));
        d_stream->synchronize();
    }

    void clear() override
    {
        device_guard g(d_device);
        for (int s = 0; s < 2; s++) {
            GPUINTERP_CUDA_CHECK(cudaMemsetAsync(
                d_G[s].get(), 0, d_K * d_K * sizeof(cuDoubleComplex), d_stream->get()));
            GPUINTERP_CUDA_CHECK(cudaMemsetAsync(
                d_b[s].get(), 0, d_K * sizeof(cuDoubleComplex), d_stream->get()));
        }
        d_stream->synchronize();
    }

    void read(int set, std::vector<cd>& G, std::vector<cd>& b) const override
    {
        device_guard g(d_device);
        const size_t K = d_K;
        G.resize(K * K);
        b.resize(K);
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(G.data(),
                                             d_G[set].get(),
                                             K * K * sizeof(cd),
                                             cudaMemcpyDeviceToHost,
                                             d_stream->get()));
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(b.data(),
                                             d_b[set].get(),
                                             K * sizeof(cd),
                                             cudaMemcpyDeviceToHost,
                                             d_stream->get()));
        d_stream->synchronize();
        kernel::hermitian_from_upper(G, K);
    }

    std::vector<double> eigh(std::vector<cd>& a, size_t K) const override
    {
        device_guard g(d_device);
        cudaStream_t s = d_stream->get();
        // Workspace per solve (not per add): solve is called once per capture.
        device_buffer<cuDoubleComplex> dA(K * K);
        device_buffer<double> dW(K);
        device_buffer<int> dInfo(1);
        // The workspace query and the solve take the same leading arguments.
        auto zheevd = [&](auto fn, auto... rest) {
            return fn(d_solver.get(),
                      CUSOLVER_EIG_MODE_VECTOR,
                      CUBLAS_FILL_MODE_UPPER,
                      int(K),
                      dA.get(),
                      int(K),
                      dW.get(),
                      rest...);
        };
        int lwork = 0;
        GPUINTERP_CUSOLVER_CHECK(zheevd(cusolverDnZheevd_bufferSize, &lwork));
        device_buffer<cuDoubleComplex> work(size_t(std::max(lwork, 1)));
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
            dA.get(), a.data(), K * K * sizeof(cd), cudaMemcpyHostToDevice, s));
        GPUINTERP_CUSOLVER_CHECK(
            zheevd(cusolverDnZheevd, work.get(), lwork, dInfo.get()));
        std::vector<double> w(K);
        int info = 0;
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
            a.data(), dA.get(), K * K * sizeof(cd), cudaMemcpyDeviceToHost, s));
        GPUINTERP_CUDA_CHECK(cudaMemcpyAsync(
            w.data(), dW.get(), K * sizeof(double), cudaMemcpyDeviceToHost, s));
        GPUINTERP_CUDA_CHECK(
            cudaMemcpyAsync(&info, dInfo.get(), sizeof(int), cudaMemcpyDeviceToHost, s));
        d_stream->synchronize();
        kernel::check_eigh("cusolverDnZheevd", info, K);
        return w;
    }

private:
    int d_device;
    gram_tuning d_tune;
    // Destroyed in reverse order: the handles before the stream they use.
    std::unique_ptr<stream> d_stream;
    cublas_handle d_blas;
    cusolver_handle d_solver;
    size_t d_K = 0, d_chunk = 0, d_pad = 0;
    device_buffer<term_d> d_terms;
    device_buffer<cuDoubleComplex> d_G[2], d_b[2], d_A, d_t, d_y;
    // The sliced Gram of small models (accumulate()).
    device_buffer<cuDoubleComplex> d_slices, d_ones;
    device_buffer<long long> d_rows;
    // The held captures (hold()): y and its targets, and their lengths (0: none).
    device_buffer<cuDoubleComplex> d_hy[2], d_hx[2];
    size_t d_held_n[2] = { 0, 0 };
    pinned_buffer<cd> h_y, h_t;
    pinned_buffer<long long> h_rows;
};
} // namespace

std::unique_ptr<kernel::gram_engine> make_cuda_gram_engine(int device)
{
    return std::make_unique<gram_cuda>(device);
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
