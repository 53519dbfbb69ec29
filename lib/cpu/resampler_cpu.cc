/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU backend of the resampler. Outputs are independent once their position is known, and
// the fixed-point clock gives any output's position in closed form, so blocks of outputs
// go to OpenMP threads; inside a block the position is stepped (the same integers the
// closed form gives). Polyphase stores the nfilts+1 arms reversed and contiguous so one
// output is two SIMD dot products (arm p and arm p+1) blended by the arm fraction, as GNU
// Radio's pfb_arb_resampler blends its filter and derivative outputs (for r < 1 the arms
// are K/r long: the table is stretched).
#include "../common/parallel.h"
#include "../common/sc16.h"
#include "../kernel/fixed_phase.h"
#include "cpu_engines.h"
#include "dot.h"
#include <gnuradio/gpuinterp/kernel/texture_emulation.h>
#include <atomic>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {

template <typename T>
class cpu_resamp_engine final : public resamp_window_engine<T>
{
public:
    static constexpr bool cplx = !std::is_same_v<T, float>;

    void set_prototype(const std::vector<float>& table, unsigned K, unsigned P) override
    {
        d_table = table;
        d_K = K;
        d_P = P;
        d_stride = cpu::arm_stride<T, float>(K);
        d_arms.assign(size_t(P + 1) * d_stride, 0.f);
        std::vector<float> arm(K);
        for (unsigned p = 0; p <= P; p++) {
            // arm p, tap m multiplies x[i - K/2 + 1 + m]: h at tau = mu + K/2 - 1 - m
            for (unsigned m = 0; m < K; m++)
                arm[m] = table[size_t(K - 1 - m) * P + p];
            cpu::store_arm(d_arms.data() + p * d_stride, arm.data(), K, cplx);
        }
    }

    void run_window(T* out, const T* w, size_t, const resamp_plan& plan) override
    {
        for_each_block(plan,
                       [&](size_t lo, size_t hi) { outputs(out + lo, w, plan, lo, hi); });
    }

    // The parameters are unused where the samples are real.
    void run_window_sc16([[maybe_unused]] int16_t* out,
                         [[maybe_unused]] const T* w,
                         size_t,
                         [[maybe_unused]] const resamp_plan& plan,
                         [[maybe_unused]] float scale,
                         [[maybe_unused]] sc16_counts& counts) override
    {
        if constexpr (!cplx) {
            throw std::logic_error("resampler engine: sc16 needs complex samples");
        } else {
            // Each block's outputs are converted while they are in cache (a block is 32 KB of
            // complex float), in the block's own thread.
            std::atomic<uint64_t> sat{ 0 }, bad{ 0 };
            for_each_block(plan, [&](size_t lo, size_t hi) {
                T y[block];
                outputs(y, w, plan, lo, hi);
                uint64_t s_n = 0, b_n = 0;
                sc16_convert(out + 2 * lo, y, hi - lo, scale, s_n, b_n);
                if (s_n)
                    sat += s_n;
                if (b_n)
                    bad += b_n;
            });
            counts.saturated += sat.load();
            counts.invalid += bad.load();
        }
    }

private:
    static constexpr size_t block = 4096; // outputs per parallel block

    //! f(lo, hi) for blocks [lo, hi) of the plan's outputs, spread over threads when the call
    //! is large enough.
    template <typename F>
    void for_each_block(const resamp_plan& plan, F&& f) const
    {
        const size_t n = plan.n_out;
        double cost = double(n);
        if (plan.method == resamp_method::polyphase)
            cost *= 2.0 * d_K;
        cpu::parallel_blocks((n + block - 1) / block, cost, [&](size_t b) {
            const size_t lo = b * block;
            f(lo, std::min(n, lo + block));
        });
    }

    //! Outputs lo .. hi-1 of the plan into o[0 .. hi-lo).
    void outputs(T* o, const T* w, const resamp_plan& plan, size_t lo, size_t hi) const
    {
        fx_pos p = fx_advance(plan.pos0, plan.step, lo);
        switch (plan.method) {
        case resamp_method::nearest:
            for (size_t k = lo; k < hi; k++, p = fx_add(p, plan.step))
                o[k - lo] = w[p.ip + (p.fp >> 63)];
            break;
        case resamp_method::linear:
            for (size_t k = lo; k < hi; k++, p = fx_add(p, plan.step)) {
                const float mu = fx_frac_f(p.fp);
                o[k - lo] = (1.0f - mu) * w[p.ip] + mu * w[p.ip + 1];
            }
            break;
        case resamp_method::texture:
            for (size_t k = lo; k < hi; k++, p = fx_add(p, plan.step)) {
                int64_t i = p.ip;
                int q = fx_weight9(p.fp);
                if (q == 256) { // the texel centre of x[i+1]: every rounding order
                                // returns it
                    i++;
                    q = 0;
                }
                o[k - lo] =
                    texemu::lerp9_value(w[i], w[i + 1], q, texemu::hardware_model.lerp);
            }
            break;
        case resamp_method::cubic:
            for (size_t k = lo; k < hi; k++, p = fx_add(p, plan.step)) {
                const float mu = fx_frac_f(p.fp);
                const T* x = w + p.ip;
                const T xm = x[-1], x0 = x[0], x1 = x[1], x2 = x[2];
                // Catmull-Rom in Horner form
                o[k - lo] =
                    x0 + 0.5f * mu *
                             ((x1 - xm) + mu * ((2.0f * xm - 5.0f * x0 + 4.0f * x1 - x2) +
                                                mu * (3.0f * (x0 - x1) + x2 - xm)));
            }
            break;
        case resamp_method::polyphase:
            for (size_t k = lo; k < hi; k++, p = fx_add(p, plan.step))
                o[k - lo] = poly(w, p, plan);
            break;
        }
    }

    T poly(const T* w, fx_pos p, const resamp_plan& plan) const
    {
        // arm index = floor(mu * P), arm fraction = frac(mu * P), both exact from the
        // 64-bit phase
        const uint64_t pa = fx_mulhi(p.fp, d_P);
        const float f = fx_frac_f(p.fp * uint64_t(d_P));
        const T* x = w + p.ip - (plan.half_span - 1);
        T y0, y1;
        cpu::dot(&y0, x, d_arms.data() + pa * d_stride, d_K);
        cpu::dot(&y1, x, d_arms.data() + (pa + 1) * d_stride, d_K);
        return (1.0f - f) * y0 + f * y1;
    }

    std::vector<float> d_table;
    cpu::tap_vector<float> d_arms;
    unsigned d_K = 0, d_P = 0;
    size_t d_stride = 0;
};

} // namespace

template <typename T>
std::unique_ptr<resamp_window_engine<T>> make_cpu_resamp_engine()
{
    return std::make_unique<cpu_resamp_engine<T>>();
}

template std::unique_ptr<resamp_window_engine<float>> make_cpu_resamp_engine();
template std::unique_ptr<resamp_window_engine<std::complex<float>>>
make_cpu_resamp_engine();

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
