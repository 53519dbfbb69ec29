/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_ARCH_TUNING_H
#define INCLUDED_GPUINTERP_CUDA_ARCH_TUNING_H

// Per-architecture tuning data of the CUDA kernel families, kept as CUB keeps
// cub/device/dispatch/tuning/: one header per family beside its launch plan, <family>_tuning.h
// (fir, dpd_ph, gmp, resize, resamp, table_lookup), each holding the constants that were chosen by
// measurement rather than derived, and docs/performance.md ("Tuning tables") names the
// measurement behind each value.
//
// Each family splits its constants in two:
//  - a run-time table, one row per architecture family (first field sm_min), ordered newest first.
//    The plan picks the row from the device's compute capability when the engine is built, so an
//    architecture gets its own thresholds and variant choices without a rebuild;
//  - a build constant (`*_build`): what the kernels are compiled with (template arguments,
//    __launch_bounds__, register-array sizes), one value for every architecture of a build. A row
//    per architecture there would mean instantiating each kernel once per row and having the plan
//    pick the instantiation; selecting on __CUDA_ARCH__ instead is avoided on purpose: a GPU newer
//    than the build runs the PTX JIT-compiled with the PTX's __CUDA_ARCH__, which would then
//    disagree with a host plan made from the device's real compute capability (the plan's block
//    size and shared memory must match the kernel's).
// Only sm_90 (H200) has been measured, so each table has the one sm_90 row, which is also the
// default: an architecture older than every row gets the last row. A second row belongs here only
// with a measurement that makes it differ.
//
// Plain C++ (no CUDA headers), so the CPU test suite checks the tables and the plans built from
// them.

#include <cstddef>

namespace gr {
namespace gpuinterp {
namespace gpu {

//! The row of compute capability `sm` (major * 10 + minor) in `table` (descending sm_min): the
//! first whose sm_min <= sm; an architecture older than every row gets the last row.
template <typename Row, size_t N>
constexpr const Row& tuning_row(const Row (&table)[N], int sm)
{
    for (size_t i = 0; i < N; i++)
        if (sm >= table[i].sm_min)
            return table[i];
    return table[N - 1];
}

//! Whether `table` is ordered as tuning_row() expects (tests).
template <typename Row, size_t N>
constexpr bool tuning_table_ordered(const Row (&table)[N])
{
    for (size_t i = 1; i < N; i++)
        if (table[i - 1].sm_min <= table[i].sm_min)
            return false;
    return true;
}

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

//! Defines `<row>_for(int sm)`, the row of compute capability `sm` in the family's table
//! `<row>_table` (tuning_row()). Every family's plan and the table test call it by that name, so
//! one definition here keeps the accessors alike; used inside namespace gr::gpuinterp::gpu.
#define GPUINTERP_TUNING_ROW_FOR(row)                             \
    inline const row& row##_for(int sm)                           \
    {                                                             \
        return ::gr::gpuinterp::gpu::tuning_row(row##_table, sm); \
    }

#endif
