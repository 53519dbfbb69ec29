/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Builds against an installed gr-gpuinterp: a block (GNU Radio side) and a kernel (numeric side).
#include <gnuradio/gpuinterp/interp_fir.h>
#include <gnuradio/gpuinterp/kernel/polyphase_interpolator.h>
#include <complex>
#include <cstdio>
#include <vector>

int main()
{
    auto blk = gr::gpuinterp::interp_fir_ccf::make(2, { 1.0f, 0.5f }, "automatic", 0, 0);
    gr::gpuinterp::kernel::polyphase_interpolator<std::complex<float>, float> k(
        2, { 1.0f, 0.5f }, gr::gpuinterp::backend::cpu);
    // y[2n] = x[n], y[2n+1] = 0.5 x[n]
    const auto y = k.filter(std::vector<std::complex<float>>{ { 1, 0 }, { 0, 2 } });
    const bool ok = y.size() == 4 && y[0] == std::complex<float>(1, 0) &&
                    y[1] == std::complex<float>(0.5f, 0) &&
                    y[2] == std::complex<float>(0, 2) &&
                    y[3] == std::complex<float>(0, 1);
    std::printf("consumer: block backend %s, kernel output %s\n",
                blk->active_backend().c_str(),
                ok ? "correct" : "WRONG");
    return ok ? 0 : 1;
}
