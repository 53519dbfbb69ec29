/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_BENCH_FG_UTIL_H
#define INCLUDED_GPUINTERP_BENCH_FG_UTIL_H

// Shared by the flowgraph benchmarks (bench_flowgraphs, with GNU Radio).

#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/null_source.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <benchmark/benchmark.h>
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace gpuinterp_bench {

//! One block in the flowgraph GNU Radio times blocks with: every iteration builds
//! null_source -> head(n) -> make_block() -> null_sink untimed (items of in_bytes into the block,
//! out_bytes out of it; minimum output buffers of 2^22 items on the block, head_buffer on the
//! head, so neither is starved by small buffers) and times its run to the end.
template <typename F>
void time_block_flowgraph(benchmark::State& st,
                          size_t n,
                          size_t in_bytes,
                          size_t out_bytes,
                          int head_buffer,
                          F&& make_block)
{
    for (auto _ : st) {
        st.PauseTiming();
        auto tb = gr::make_top_block("bench");
        auto src = gr::blocks::null_source::make(in_bytes);
        auto head = gr::blocks::head::make(in_bytes, n);
        auto snk = gr::blocks::null_sink::make(out_bytes);
        const gr::block_sptr blk = make_block();
        blk->set_min_output_buffer(1 << 22);
        head->set_min_output_buffer(head_buffer);
        tb->connect(src, 0, head, 0);
        tb->connect(head, 0, blk, 0);
        tb->connect(blk, 0, snk, 0);
        st.ResumeTiming();
        tb->run();
    }
}

//! N items of whatever its output buffer holds (zeros: GNU Radio and cuda_buffer zero-fill),
//! then done: a source that costs the flowgraph nothing per item.
class count_source : public gr::sync_block
{
public:
    count_source(size_t itemsize, uint64_t n)
        : gr::sync_block("count_source",
                         gr::io_signature::make(0, 0, 0),
                         gr::io_signature::make(1, 1, itemsize)),
          d_left(n)
    {
    }
    int work(int noutput_items, gr_vector_const_void_star&, gr_vector_void_star&) override
    {
        if (d_left == 0)
            return WORK_DONE;
        const int k = int(std::min<uint64_t>(uint64_t(noutput_items), d_left));
        d_left -= uint64_t(k);
        return k;
    }

private:
    uint64_t d_left;
};

} // namespace gpuinterp_bench

#endif
