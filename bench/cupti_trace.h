/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_BENCH_CUPTI_TRACE_H
#define INCLUDED_GPUINTERP_BENCH_CUPTI_TRACE_H

// A timeline of what the GPU and the CUDA runtime did during one flowgraph run, from CUPTI's
// activity records: Nsight Systems does not run on the H200 host, and the flowgraph rows need a
// timeline (which kernel or copy a block's work() waited for) that GNU Radio's performance counters
// cannot give. Kernels, copies and memsets carry their stream and GPU start/end; runtime calls
// (launches, synchronisations) carry the host thread that made them, which is the block's thread
// under GNU Radio's thread-per-block scheduler. bench/cupti_timeline.py reads the CSV.
//
// Benchmark-only: bench_flowgraphs links CUPTI when the toolkit has it; without it the recorder
// does nothing.

#include <string>

namespace gpuinterp_bench {

class cupti_trace
{
public:
    //! Starts recording when `path` is not empty; the CSV is written there by the destructor.
    explicit cupti_trace(std::string path);
    ~cupti_trace();
    cupti_trace(const cupti_trace&) = delete;
    cupti_trace& operator=(const cupti_trace&) = delete;

private:
    std::string d_path;
};

//! The path a benchmark row writes its trace to: $GPUINTERP_CUPTI_TRACE, a directory, joined with
//! `row` (a file name); empty (no trace) when the variable is unset.
std::string cupti_trace_path(const std::string& row);

} // namespace gpuinterp_bench

#endif
