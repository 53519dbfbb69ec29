/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_RESIZE_ENGINE_H
#define INCLUDED_GPUINTERP_KERNEL_RESIZE_ENGINE_H

// Internal: what a backend implements for resize_2d. The front end validates parameters
// and builds the per-axis tables; engines only sample with them.

#include <gnuradio/gpuinterp/kernel/resize_2d.h>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace gr {
namespace gpuinterp {
namespace kernel {

struct resize_geometry {
    int in_h = 0, in_w = 0, out_h = 0, out_w = 0, channels = 1;
};

template <typename T>
class resize_engine
{
public:
    virtual ~resize_engine() = default;
    virtual void set_tables(const resize_geometry& g,
                            const resize_axis_table& ytab,
                            const resize_axis_table& xtab,
                            float border_value) = 0;
    virtual void set_transform(const resize_transform& tf) = 0;
    //! out: float* or uint16_t* (binary16) per `half`.
    virtual void run(void* out, bool half, const T* in, size_t n_frames) = 0;
    //! Pointers in the backend's own memory (GNU Radio device buffers); the CPU's is the host's.
    virtual void run_device(void* out, bool half, const T* in, size_t n_frames)
    {
        run(out, half, in, n_frames);
    }
    virtual void set_batch(size_t) {}
};

//! Gives engine `e` (a resize_engine, or the benchmarks' lab engine) the tables of geometry g
//! with one method, coordinate rule and border on both axes.
template <typename Engine>
void set_resize_tables(Engine& e,
                       const resize_geometry& g,
                       resize_method m,
                       resize_coord c,
                       resize_border b,
                       float border_value)
{
    e.set_tables(g,
                 resize_make_axis_table(g.in_h, g.out_h, m, c, b),
                 resize_make_axis_table(g.in_w, g.out_w, m, c, b),
                 border_value);
}

} // namespace kernel

} // namespace gpuinterp
} // namespace gr

#endif
