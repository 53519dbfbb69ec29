/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_INTERP_FIR_IMPL_H
#define INCLUDED_GPUINTERP_INTERP_FIR_IMPL_H

#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/polyphase_interpolator.h>
#include <mutex>

namespace gr {
namespace gpuinterp {

template <class T, class TAP>
class interp_fir_impl : public interp_fir<T, TAP>
{
public:
    interp_fir_impl(int interpolation,
                    const std::vector<TAP>& taps,
                    const std::string& backend,
                    int device,
                    int batch);

    void set_taps(const std::vector<TAP>& taps) override;
    std::vector<TAP> taps() const override;
    void set_batch(int batch) override;
    int batch() const override;
    std::string active_backend() const override;

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    mutable std::mutex d_mutex; // setters land between two work() calls
    kernel::polyphase_interpolator<T, TAP> d_kernel;
};

} // namespace gpuinterp
} // namespace gr

#endif
