/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// The names every string option of the kernels and blocks accepts, in one place: the one
// table per enum that its parse and to_string read (common/enum_names.h) and that an
// unknown name's error message lists. Kept together so the vocabulary the user sees stays
// consistent across options: every 'automatic' also answers to 'auto', the same method is
// spelled the same way on every block. (The CUDA resize variants, an option of the CUDA
// engine only, keep theirs in cuda/resize_variant.h.)
#include "../common/enum_names.h"
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/kernel/dpd_predistorter.h>
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <gnuradio/gpuinterp/kernel/table_lookup.h>

namespace gr {
namespace gpuinterp {

namespace {
constexpr enum_name<backend> backends[] = {
    { backend::automatic, "automatic" },
    { backend::cpu, "cpu" },
    { backend::cuda, "cuda" },
    { backend::automatic, "auto" },
};
} // namespace

GPUINTERP_ENUM_STRINGS(backend, backend_from_string, "backend", backends)

namespace kernel {

namespace {
// GRC's and gr-uhd's names are accepted next to the short ones.
const enum_name<sample_format> formats[] = {
    { sample_format::fc32, "fc32" },          { sample_format::sc16, "sc16" },
    { sample_format::fc32, "complex" },       { sample_format::fc32, "complex float" },
    { sample_format::sc16, "complex int16" },
};

constexpr enum_name<resamp_method> resamp_methods[] = {
    { resamp_method::nearest, "nearest" },     { resamp_method::linear, "linear" },
    { resamp_method::texture, "texture" },     { resamp_method::cubic, "cubic" },
    { resamp_method::polyphase, "polyphase" },
};
constexpr enum_name<resamp_cuda_variant> resamp_cuda_variants[] = {
    { resamp_cuda_variant::automatic, "automatic" },
    { resamp_cuda_variant::untiled, "untiled" },
    { resamp_cuda_variant::automatic, "auto" },
};

constexpr enum_name<resize_method> resize_methods[] = {
    { resize_method::nearest, "nearest" }, { resize_method::bilinear, "bilinear" },
    { resize_method::bicubic, "bicubic" }, { resize_method::bilinear, "linear" },
    { resize_method::bicubic, "cubic" },
};
constexpr enum_name<resize_coord> resize_coords[] = {
    { resize_coord::half_pixel, "half_pixel" },
    { resize_coord::align_corners, "align_corners" },
    { resize_coord::asymmetric, "asymmetric" },
};
constexpr enum_name<resize_border> resize_borders[] = {
    { resize_border::replicate, "replicate" },
    { resize_border::reflect, "reflect" },
    { resize_border::reflect_101, "reflect_101" },
    { resize_border::constant, "constant" },
};

constexpr enum_name<filter_mode> filter_modes[] = { { filter_mode::point, "point" },
                                                    { filter_mode::linear, "linear" } };
constexpr enum_name<texemu::address> addresses[] = {
    { texemu::address::clamp, "clamp" }, { texemu::address::border, "border" }
};
constexpr enum_name<lookup_precision> precisions[] = {
    { lookup_precision::exact, "exact" }, { lookup_precision::texture, "texture" }
};

constexpr enum_name<dpd_cuda_variant> dpd_cuda_variants[] = {
    { dpd_cuda_variant::automatic, "automatic" },
    { dpd_cuda_variant::smem, "smem" },
    { dpd_cuda_variant::tiled, "tiled" },
    { dpd_cuda_variant::compiled, "compiled" },
    { dpd_cuda_variant::interpreted, "interpreted" },
    { dpd_cuda_variant::automatic, "auto" },
};
} // namespace

// The sample format's parse names its parameter per call (input_format, output_format).
sample_format sample_format_from_string(const std::string& name, const char* what)
{
    return enum_from_string(what, name, formats);
}
std::string to_string(sample_format f) { return enum_to_string(f, formats); }

GPUINTERP_ENUM_STRINGS(resamp_method, method_from_string, "method", resamp_methods)
GPUINTERP_ENUM_STRINGS(resamp_cuda_variant,
                       resamp_cuda_variant_from_string,
                       "variant",
                       resamp_cuda_variants)
GPUINTERP_ENUM_STRINGS(resize_method, resize_method_from_string, "method", resize_methods)
GPUINTERP_ENUM_STRINGS(resize_coord, resize_coord_from_string, "coord", resize_coords)
GPUINTERP_ENUM_STRINGS(resize_border, resize_border_from_string, "border", resize_borders)
GPUINTERP_ENUM_STRINGS(filter_mode, filter_from_string, "filter", filter_modes)
GPUINTERP_ENUM_STRINGS(texemu::address, address_from_string, "address", addresses)
GPUINTERP_ENUM_STRINGS(lookup_precision, precision_from_string, "precision", precisions)
GPUINTERP_ENUM_STRINGS(dpd_cuda_variant,
                       dpd_cuda_variant_from_string,
                       "variant",
                       dpd_cuda_variants)

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
