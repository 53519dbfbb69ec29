/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_TABLE_LOOKUP_H
#define INCLUDED_GPUINTERP_TABLE_LOOKUP_H

#include <gnuradio/gpuinterp/api.h>
#include <gnuradio/sync_block.h>
#include <complex>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {

/*!
 * \brief Interpolated table lookup: a stream of float coordinates in, table values out.
 * \ingroup gpuinterp
 *
 * \details The CUDA Handbook's TexReadout as a block, with CUDA 1D-texture conventions:
 * texel k's centre is at coordinate k + 0.5 (normalised: (k + 0.5)/N); "point" returns
 * T[floor(x)]; "linear" returns (1-a) T[i] + a T[i+1] with x - 0.5 = i + a; out-of-range
 * texels read the edge value ("clamp") or 0 ("border"). Precision "texture" rounds a to
 * k/256 like the texture unit (the CUDA backend uses the texture unit, the CPU backend
 * emulates it bit for bit); "exact" keeps a unrounded. set_table() is safe while the
 * flowgraph runs (lands between two work() calls).
 */
template <class T>
class GPUINTERP_API table_lookup : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<table_lookup<T>> sptr;

    /*!
     * \param table non-empty, finite table (at most 131072 entries on the CUDA backend)
     * \param normalized coordinates in [0, 1] (multiplied by the table length) instead of
     * texels \param filter "point" or "linear" \param address "clamp" or "border" \param
     * precision "texture" (9-bit weights) or "exact" \param backend "automatic", "cpu" or
     * "cuda" \param device CUDA device index \param device_buffers keep the stream in device
     * memory (GRC "Keep data on GPU"; docs/device_buffers.md)
     */
    static sptr make(const std::vector<T>& table,
                     bool normalized = false,
                     const std::string& filter = "linear",
                     const std::string& address = "clamp",
                     const std::string& precision = "texture",
                     const std::string& backend = "automatic",
                     int device = 0,
                     bool device_buffers = false);

    virtual void set_table(const std::vector<T>& table) = 0;
    //! True when the ports use device buffers.
    virtual bool device_buffers() const = 0;
    virtual std::vector<T> table() const = 0;
    virtual std::string active_backend() const = 0;
};

typedef table_lookup<float> table_lookup_ff;
typedef table_lookup<std::complex<float>> table_lookup_fc;

} // namespace gpuinterp
} // namespace gr

#endif
