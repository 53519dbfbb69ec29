/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_BLOCK_UTIL_H
#define INCLUDED_GPUINTERP_BLOCK_UTIL_H

// Glue shared by every block: parameter checks made before a kernel exists, the one log line for a
// backend fallback, and the rule for failures inside work().

#include <gnuradio/block.h>
#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/kernel/channels.h>
#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <gnuradio/gpuinterp/stream_options.h>
#include <gnuradio/logger.h>
#include <type_traits>
#include <chrono>
#include <complex>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {

inline size_t batch_from_param(int batch)
{
    if (batch < 0)
        throw std::invalid_argument("batch: must be >= 0 (0 selects the default), got " +
                                    std::to_string(batch));
    return static_cast<size_t>(batch);
}

//! Interpolation/decimation factors arrive as int from Python and GRC so a negative value raises a
//! ValueError naming the parameter instead of a pybind11 TypeError.
inline unsigned interpolation_from_param(int interpolation)
{
    if (interpolation < 1)
        throw std::invalid_argument("interpolation: must be >= 1, got " +
                                    std::to_string(interpolation));
    return static_cast<unsigned>(interpolation);
}

//! The output item of a block with an output_format parameter: T, or with sc16 two int16 (complex
//! samples only). Validates both parameters, naming them.
template <class T>
size_t output_item_size(kernel::sample_format f, float full_scale)
{
    if (f == kernel::sample_format::sc16) {
        if (!std::is_same_v<T, std::complex<float>>)
            throw std::invalid_argument("output_format: sc16 needs complex samples");
        kernel::validate_full_scale(full_scale);
        return kernel::sample_bytes(f);
    }
    return sizeof(T);
}

//! The input item of a block with an input_format parameter: T, or with sc16 two int16 (complex
//! samples only; std::invalid_argument naming `input_format` otherwise).
template <class T>
size_t input_item_size(kernel::sample_format f)
{
    if (f == kernel::sample_format::sc16 && !std::is_same_v<T, std::complex<float>>)
        throw std::invalid_argument("input_format: sc16 needs complex samples");
    return f == kernel::sample_format::sc16 ? kernel::sample_bytes(f) : sizeof(T);
}

//! stream_options in the kernels' types.
struct stream_setup {
    backend requested;
    int device;
    size_t batch;
    bool device_buffers;
    unsigned channels;
    kernel::sample_format input, output;
    float full_scale;
};

//! Every stream option checked, once, as make() receives them (before a kernel exists), each
//! std::invalid_argument naming its field; T the block's sample type.
template <class T>
stream_setup check_stream(const stream_options& o)
{
    stream_setup s;
    s.requested = backend_from_string(o.backend);
    s.device = o.device; // checked with the backend (select_backend())
    s.batch = batch_from_param(o.batch);
    s.device_buffers = o.device_buffers;
    s.channels = kernel::check_channels(o.channels);
    s.output = kernel::sample_format_from_string(o.output_format);
    output_item_size<T>(s.output, o.full_scale);
    s.input = kernel::sample_format_from_string(o.input_format, "input_format");
    input_item_size<T>(s.input);
    if (s.input == kernel::sample_format::sc16)
        kernel::validate_full_scale(o.full_scale);
    s.full_scale = o.full_scale;
    return s;
}

//! Log the backend a block ended up with, and why automatic fell back to the CPU. The reason is the
//! same for every block of a process (no driver, no device, GPUINTERP_BACKEND=cpu), so each distinct
//! reason is logged at info level once per process, and only at trace level for the blocks after.
inline void
log_backend(const gr::logger_ptr& log, backend active, const std::string& note)
{
    if (note.empty()) {
        log->debug("backend: {}", to_string(active));
        return;
    }
    static std::mutex mutex;
    static std::set<std::string> logged;
    bool first;
    {
        std::lock_guard<std::mutex> lock(mutex);
        first = logged.insert(note).second;
    }
    if (first)
        log->info("{}", note);
    else
        log->trace("{}", note);
}

//! The saturation warning of a block with sc16 output: one line when outputs were clipped or NaN
//! since the last line, at most one a second, so a clipping chain is reported without flooding.
class sc16_warning
{
public:
    void check(const gr::logger_ptr& log,
               const std::string& what,
               const kernel::sc16_counts& k,
               float full_scale)
    {
        if (k.saturated + k.invalid <= d_reported)
            return;
        const auto now = std::chrono::steady_clock::now();
        if (d_reported > 0 && now - d_last < std::chrono::seconds(1))
            return;
        log->warn("{}{} sc16 output samples saturated at full scale {} and {} were NaN "
                  "(written as 0) since start",
                  what,
                  k.saturated,
                  full_scale,
                  k.invalid);
        d_reported = k.saturated + k.invalid;
        d_last = now;
    }

private:
    uint64_t d_reported = 0;
    std::chrono::steady_clock::time_point d_last{};
};

//! Run the body of a work() call; a failure (CUDA fault, ...) is logged and ends the stream
//! cleanly with WORK_DONE instead of corrupting output or throwing into the scheduler.
template <typename F>
int guarded_work(const gr::logger_ptr& log, F&& body)
{
    try {
        return body();
    } catch (const std::exception& e) {
        log->error("work() failed, stopping this block: {}", e.what());
        return gr::block::WORK_DONE;
    }
}

} // namespace gpuinterp
} // namespace gr

#endif
