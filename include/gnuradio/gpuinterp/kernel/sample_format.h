/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_SAMPLE_FORMAT_H
#define INCLUDED_GPUINTERP_KERNEL_SAMPLE_FORMAT_H

// The item formats a block exchanges with a radio. sc16 is what gr-uhd's usrp_sink/usrp_source
// take with cpu_format "sc16" (and what the wire carries anyway): I then Q, each a signed 16-bit
// integer, 4 bytes per sample against complex float's 8, so a chain that ends in sc16 moves half
// the bytes over the bus and through GNU Radio's buffers.
//
// Conversion, the one definition every backend uses: with scale = 32767 / full_scale, each
// component v becomes rint(v * scale) (round half to even, as the GPU's cvt.rni and the CPU's
// default rounding do). A product past [-32768.5, 32767.5) saturates to -32768 / 32767 and the
// sample counts as saturated; a NaN component becomes 0 and the sample counts as invalid.
// An sc16 input becomes complex float as v * (full_scale / 32767) per component (exact up to the
// one rounding of that product), so a value written and read back with the same full scale
// returns within half a step.
// full_scale 1.0 is UHD's own convention (complex float +-1.0 <-> +-32767).

#include <cstdint>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {
namespace kernel {

enum class sample_format { fc32 = 0, sc16 = 1 };

//! "fc32" (also "complex", "complex float") | "sc16" (also "complex int16"); throws
//! std::invalid_argument naming `what`.
sample_format sample_format_from_string(const std::string& name,
                                        const char* what = "output_format");
std::string to_string(sample_format f);
//! Bytes per complex sample: 8 (fc32) or 4 (sc16).
inline size_t sample_bytes(sample_format f) { return f == sample_format::sc16 ? 4 : 8; }

//! What a converter counted, in samples (a sample with both components clipped counts once).
struct sc16_counts {
    uint64_t saturated = 0; //!< at least one component clipped to -32768 / 32767
    uint64_t invalid = 0;   //!< at least one component NaN (written as 0)
};

//! Throws std::invalid_argument ("full_scale: ...") unless 0 < full_scale < inf.
void validate_full_scale(float full_scale);

//! 32767 / full_scale: the factor every converter multiplies by.
inline float sc16_scale(float full_scale) { return 32767.0f / full_scale; }
//! full_scale / 32767: the factor an sc16 input is multiplied by.
inline float sc16_inverse_scale(float full_scale) { return full_scale / 32767.0f; }

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
