/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CHANNEL_PORTS_H
#define INCLUDED_GPUINTERP_CHANNEL_PORTS_H

// The ports of a multi-channel block whose items may be sc16 (the FIR interpolator, the
// resampler, the predistorter): their formats and full scale, one call's port pointers, one sc16
// warning per channel.

#include "block_util.h"
#include "device_io.h"
#include <gnuradio/block.h>
#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {

class channel_ports
{
public:
    //! in_bytes: one input item (input_item_size()); output, full_scale as make() took them.
    channel_ports(unsigned channels,
                  size_t in_bytes,
                  kernel::sample_format output,
                  float full_scale)
        : output(output),
          full_scale(full_scale),
          in(channels),
          out(channels),
          d_in_bytes(in_bytes),
          d_warnings(channels)
    {
    }

    //! This call's pointers: input c from item `skip` on (n items), output c. With device
    //! buffers the inputs are handed over as device pointers (host memory on the CPU backend).
    void point(gr::block& blk,
               device_io& io,
               bool device_buffers,
               const gr_vector_const_void_star& input_items,
               const gr_vector_void_star& output_items,
               size_t skip,
               size_t n)
    {
        for (size_t c = 0; c < in.size(); c++) {
            const void* x = static_cast<const char*>(input_items[c]) + skip * d_in_bytes;
            in[c] = device_buffers ? io.input(blk, int(c), x, n * d_in_bytes) : x;
            out[c] = output_items[c];
        }
    }

    //! After a call with sc16 output: a warning for each channel whose counts(c) grew.
    template <typename Counts>
    void warn(const gr::logger_ptr& log, Counts&& counts)
    {
        if (output != kernel::sample_format::sc16)
            return;
        const size_t N = d_warnings.size();
        for (size_t c = 0; c < N; c++)
            d_warnings[c].check(log,
                                N > 1 ? "channel " + std::to_string(c) + ": " : "",
                                counts(c),
                                full_scale);
    }

    const kernel::sample_format output;
    const float full_scale;
    std::vector<const void*> in; //!< this call's port pointers
    std::vector<void*> out;

private:
    size_t d_in_bytes;
    std::vector<sc16_warning> d_warnings;
};

} // namespace gpuinterp
} // namespace gr

#endif
