/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CPU backend of table_lookup: exact weights, or the texture unit emulated bit for bit.
// The lookup has no state, so large calls split across OpenMP threads.
#include "../common/parallel.h"
#include "cpu_engines.h"
#include <gnuradio/gpuinterp/kernel/table_lookup.h>
#include <cmath>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {

inline std::complex<double> widen(std::complex<float> v)
{
    return { v.real(), v.imag() };
}
inline double widen(float v) { return v; }
inline std::complex<float> narrow(std::complex<double> v)
{
    return { float(v.real()), float(v.imag()) };
}
inline float narrow(double v) { return float(v); }

//! Texel-space coordinate of x in double (exact), NaN read as 0, clamped far outside the table
//! (every coordinate there gives the same answer) so floor() stays in int64 range.
inline double exact_coordinate(float x, size_t n, bool normalized)
{
    double xu = normalized ? double(x) * double(n) : double(x);
    if (std::isnan(xu))
        xu = 0;
    const double lim = 4.0 * double(n) + 1024.0;
    return std::min(std::max(xu, -lim), lim);
}

//! Linear interpolation with unrounded weights: one rounding of the double result.
template <typename T>
T exact_linear(const T* t, size_t n, float x, bool normalized, texemu::address mode)
{
    const double xb = exact_coordinate(x, n, normalized) - 0.5;
    const double fl = std::floor(xb);
    const double a = xb - fl;
    const int64_t i = int64_t(fl);
    return narrow((1.0 - a) * widen(texemu::texel(t, n, i, mode)) +
                  a * widen(texemu::texel(t, n, i + 1, mode)));
}

template <typename T>
T exact_point(const T* t, size_t n, float x, bool normalized, texemu::address mode)
{
    return texemu::texel(
        t, n, int64_t(std::floor(exact_coordinate(x, n, normalized))), mode);
}

template <typename T>
class cpu_lookup_engine final : public lookup_engine<T>
{
public:
    void set_table(const std::vector<T>& table, const lookup_config& cfg) override
    {
        d_table = table;
        d_cfg = cfg;
    }

    void lookup(T* out, const float* x, size_t n) override
    {
        constexpr size_t block = 8192;
        const T* t = d_table.data();
        const size_t N = d_table.size();
        const lookup_config c = d_cfg;
        cpu::parallel_blocks((n + block - 1) / block, double(n) * 8, [&](size_t b) {
            const size_t lo = b * block, hi = std::min(n, lo + block);
            if (c.precision == lookup_precision::texture) {
                if (c.filter == filter_mode::linear)
                    for (size_t k = lo; k < hi; k++)
                        out[k] = texemu::fetch_linear(t, N, x[k], c.normalized, c.addr);
                else
                    for (size_t k = lo; k < hi; k++)
                        out[k] = texemu::fetch_point(t, N, x[k], c.normalized, c.addr);
            } else {
                if (c.filter == filter_mode::linear)
                    for (size_t k = lo; k < hi; k++)
                        out[k] = exact_linear(t, N, x[k], c.normalized, c.addr);
                else
                    for (size_t k = lo; k < hi; k++)
                        out[k] = exact_point(t, N, x[k], c.normalized, c.addr);
            }
        });
    }

private:
    std::vector<T> d_table;
    lookup_config d_cfg;
};

} // namespace

template <typename T>
std::unique_ptr<lookup_engine<T>> make_cpu_lookup_engine()
{
    return std::make_unique<cpu_lookup_engine<T>>();
}

template std::unique_ptr<lookup_engine<float>> make_cpu_lookup_engine<float>();
template std::unique_ptr<lookup_engine<std::complex<float>>>
make_cpu_lookup_engine<std::complex<float>>();

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
