/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_TABLE_LOOKUP_H
#define INCLUDED_GPUINTERP_KERNEL_TABLE_LOOKUP_H

#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/kernel/texture_emulation.h>
#include <complex>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

enum class filter_mode { point, linear };
//! exact: float weights a = frac(x_B) (double arithmetic, one rounding); texture: 9-bit
//! weights.
enum class lookup_precision { exact, texture };

filter_mode
filter_from_string(const std::string& s); //!< "point" | "linear"; throws naming `filter`
texemu::address address_from_string(
    const std::string& s); //!< "clamp" | "border"; throws naming `address`
lookup_precision precision_from_string(
    const std::string& s); //!< "exact" | "texture"; throws naming `precision`
std::string to_string(filter_mode f);
std::string to_string(texemu::address a);
std::string to_string(lookup_precision p);

struct lookup_config {
    bool normalized = false;
    filter_mode filter = filter_mode::linear;
    texemu::address addr = texemu::address::clamp;
    lookup_precision precision = lookup_precision::texture;
};

template <typename T>
class lookup_engine;

/*!
 * \brief Interpolated table lookup: y[n] = T(x[n]), the CUDA Handbook's TexReadout as a
 * kernel.
 *
 * \details Conventions (those of a CUDA 1D texture, texture_emulation.h):
 *  - unnormalised coordinates: texel k's centre is at x = k + 0.5; normalised: x is
 * multiplied by the table length N first (x = 1 is the right edge);
 *  - point:  y = T[floor(x)];
 *  - linear: y = (1 - a) T[i] + a T[i+1], x_B = x - 0.5, i = floor(x_B), a = frac(x_B);
 *  - texels outside 0..N-1 read the edge texel (clamp) or 0 (border).
 *  - precision `texture` rounds a to k/256 (the GPU's 9-bit weights; max error
 * |T[i+1]-T[i]|/512); the CPU backend emulates the hardware bit for bit, the CUDA backend
 * runs the texture unit (float2 textures for complex tables). Precision `exact` keeps a
 * unrounded (CPU: double arithmetic rounded once; CUDA: an ALU kernel reading the table
 * from global memory).
 *  - one output per coordinate; no state, so chunking is irrelevant. set_table() takes
 * effect at the next lookup(). The CUDA backend holds at most the device's 1D texture
 * width (131072 on the H200).
 */
template <typename T>
class table_lookup
{
public:
    table_lookup(const std::vector<T>& table,
                 const lookup_config& cfg = {},
                 backend requested = backend::cpu,
                 int device = 0,
                 size_t batch = 0);
    ~table_lookup();
    table_lookup(const table_lookup&) = delete;
    table_lookup& operator=(const table_lookup&) = delete;

    void lookup(T* out, const float* x, size_t n);
    //! lookup() with `out` and `x` in the backend's own memory (device memory on CUDA: GNU Radio
    //! device buffers; host memory on the CPU). Returns when `out` is complete.
    void lookup_device(T* out, const float* x, size_t n);
    std::vector<T> lookup(const std::vector<float>& x);

    void set_table(const std::vector<T>& table);
    const std::vector<T>& table() const { return d_table; }
    const lookup_config& config() const { return d_cfg; }

    backend active_backend() const { return d_backend; }
    const std::string& backend_note() const { return d_note; }

    static constexpr size_t default_batch = 1 << 20;

private:
    lookup_config d_cfg;
    std::vector<T> d_table;
    backend d_backend;
    std::string d_note;
    std::unique_ptr<lookup_engine<T>> d_engine;
};

using table_lookup_ff = table_lookup<float>;
using table_lookup_fc = table_lookup<std::complex<float>>;

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
