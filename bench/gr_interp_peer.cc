// SPDX-License-Identifier: GPL-3.0-or-later
// CPU peer of the FIR interpolator, for the GPU host (no GNU Radio Python there) and any other
// machine with GNU Radio 3.10: GNU Radio's own interp_fir_filter_ccf and pfb_interpolator_ccf in real
// flowgraphs (null_source -> head -> block -> null_sink, default buffers) at the (L, taps) rows of
// the FIR benchmarks, and the copy block's passthrough rate as the scheduler's ceiling. Output
// samples per second. Not part of the CMake build; build it by hand and pack it:
//   g++ -O2 -std=c++17 bench/gr_interp_peer.cc -o build-gpu/gr_interp_peer -lgnuradio-runtime \
//       -lgnuradio-blocks -lgnuradio-filter -lgnuradio-pmt -lfmt
//   bash scripts/gpu_pack.sh .gpu ... build-gpu/gr_interp_peer     (docs/gpu_testing.md)
//   bash .gpu/run.sh gr_interp_peer [INPUT_SAMPLES]                 (default 5e7)
// bench/gr_interp_peer.py is the same measurement from Python.
#include <gnuradio/blocks/copy.h>
#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/null_source.h>
#include <gnuradio/filter/interp_fir_filter.h>
#include <gnuradio/filter/pfb_interpolator_ccf.h>
#include <gnuradio/top_block.h>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

// Hamming-windowed sinc with the band edge at the input's Nyquist rate; the rate does not depend
// on the tap values, only on their number.
static std::vector<float> taps_for(int L, int n)
{
    std::vector<float> h(n);
    for (int i = 0; i < n; i++) {
        const double t = (i - (n - 1) / 2.0) / L;
        const double s = t == 0 ? 1.0 : std::sin(M_PI * t) / (M_PI * t);
        h[i] = float(s * (0.54 - 0.46 * std::cos(2 * M_PI * i / (n - 1))));
    }
    return h;
}

template <typename F>
static double seconds(F make, uint64_t n_in)
{
    auto tb = gr::make_top_block("gr_interp_peer");
    auto src = gr::blocks::null_source::make(sizeof(gr_complex));
    auto head = gr::blocks::head::make(sizeof(gr_complex), n_in);
    auto snk = gr::blocks::null_sink::make(sizeof(gr_complex));
    gr::basic_block_sptr blk = make();
    tb->connect(src, 0, head, 0);
    tb->connect(head, 0, blk, 0);
    tb->connect(blk, 0, snk, 0);
    const auto t0 = std::chrono::steady_clock::now();
    tb->run();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv)
{
    const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 50000000ull;
    const int rows[][2] = { { 2, 12 }, { 4, 64 }, { 8, 128 }, { 16, 256 } };
    const double tc =
        seconds([] { return gr::blocks::copy::make(sizeof(gr_complex)); }, n);
    std::printf("passthrough copy: %.1f Msample/s\n", n / tc / 1e6);
    for (const auto& r : rows) {
        const int L = r[0], ntaps = r[1];
        const auto h = taps_for(L, ntaps);
        const uint64_t n_in = n / (L / 2); // about the same output count on every row
        const double ti =
            seconds([&] { return gr::filter::interp_fir_filter_ccf::make(L, h); }, n_in);
        const double tp =
            seconds([&] { return gr::filter::pfb_interpolator_ccf::make(L, h); }, n_in);
        std::printf("L=%2d taps=%3d  interp_fir_filter_ccf %8.2f Msample/s out   "
                    "pfb_interpolator_ccf %8.2f Msample/s out\n",
                    L,
                    ntaps,
                    double(n_in) * L / ti / 1e6,
                    double(n_in) * L / tp / 1e6);
    }
}
