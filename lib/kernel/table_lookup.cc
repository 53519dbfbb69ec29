/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Table lookup front end and its CPU backend (exact weights, or the texture unit emulated
// bit for bit). The lookup has no state, so the CPU backend splits large calls across
// OpenMP threads.
#include "../cpu/parallel.h"
#include "resamp_engines.h"
#include <gnuradio/gpuinterp/kernel/table_lookup.h>
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <cmath>

namespace gr {
namespace gpuinterp {
namespace kernel {

filter_mode filter_from_string(const std::string& s)
{
    if (s == "point")
        return filter_mode::point;
    if (s == "linear")
        return filter_mode::linear;
    invalid_parameter("filter", "expected 'point' or 'linear', got '" + s + "'");
}

texemu::address address_from_string(const std::string& s)
{
    if (s == "clamp")
        return texemu::address::clamp;
    if (s == "border")
        return texemu::address::border;
    invalid_parameter("address", "expected 'clamp' or 'border', got '" + s + "'");
}

lookup_precision precision_from_string(const std::string& s)
{
    if (s == "exact")
        return lookup_precision::exact;
    if (s == "texture")
        return lookup_precision::texture;
    invalid_parameter("precision", "expected 'exact' or 'texture', got '" + s + "'");
}

std::string to_string(filter_mode f)
{
    return f == filter_mode::point ? "point" : "linear";
}
std::string to_string(texemu::address a)
{
    return a == texemu::address::clamp ? "clamp" : "border";
}
std::string to_string(lookup_precision p)
{
    return p == lookup_precision::exact ? "exact" : "texture";
}

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

//! Linear interpolation with unrounded weights: one rounding of the double result.
template <typename T>
T exact_linear(const T* t, size_t n, float x, bool normalized, texemu::address mode)
{
    double xu = normalized ? double(x) * double(n) : double(x);
    if (std::isnan(xu))
        xu = 0;
    const double lim = 4.0 * double(n) + 1024.0;
    xu = std::min(std::max(xu, -lim), lim);
    const double xb = xu - 0.5;
    const double fl = std::floor(xb);
    const double a = xb - fl;
    const int64_t i = int64_t(fl);
    return narrow((1.0 - a) * widen(texemu::texel(t, n, i, mode)) +
                  a * widen(texemu::texel(t, n, i + 1, mode)));
}

template <typename T>
T exact_point(const T* t, size_t n, float x, bool normalized, texemu::address mode)
{
    double xu = normalized ? double(x) * double(n) : double(x);
    if (std::isnan(xu))
        xu = 0;
    const double lim = 4.0 * double(n) + 1024.0;
    xu = std::min(std::max(xu, -lim), lim);
    return texemu::texel(t, n, int64_t(std::floor(xu)), mode);
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

template <typename T>
table_lookup<T>::table_lookup(const std::vector<T>& table,
                              const lookup_config& cfg,
                              backend requested,
                              int device,
                              size_t batch)
    : d_cfg(cfg)
{
    require_nonempty_finite("table", table);
    const backend_choice choice = select_backend(requested, device);
    d_backend = choice.selected;
    d_note = choice.reason;
    if (d_backend == backend::cuda) {
#ifdef GPUINTERP_HAVE_CUDA
        d_engine = gpu::make_cuda_lookup_engine<T>(device, batch ? batch : default_batch);
#endif
    } else {
        d_engine = make_cpu_lookup_engine<T>();
    }
    set_table(table);
}

template <typename T>
table_lookup<T>::~table_lookup() = default;

template <typename T>
void table_lookup<T>::set_table(const std::vector<T>& table)
{
    require_nonempty_finite("table", table);
    d_engine->set_table(table,
                        d_cfg); // may refuse (CUDA: wider than the device's 1D textures)
    d_table = table;
}

template <typename T>
void table_lookup<T>::lookup(T* out, const float* x, size_t n)
{
    if (n == 0)
        return;
    d_engine->lookup(out, x, n);
}

template <typename T>
void table_lookup<T>::lookup_device(T* out, const float* x, size_t n)
{
    if (n == 0)
        return;
    d_engine->lookup_device(out, x, n);
}

template <typename T>
std::vector<T> table_lookup<T>::lookup(const std::vector<float>& x)
{
    std::vector<T> y(x.size());
    lookup(y.data(), x.data(), x.size());
    return y;
}

template class table_lookup<float>;
template class table_lookup<std::complex<float>>;

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
