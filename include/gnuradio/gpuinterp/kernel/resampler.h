/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_RESAMPLER_H
#define INCLUDED_GPUINTERP_KERNEL_RESAMPLER_H

#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

enum class resamp_method { nearest, linear, texture, cubic, polyphase };
resamp_method method_from_string(
    const std::string& s); //!< throws std::invalid_argument naming `method`
std::string to_string(resamp_method m);

//! Which CUDA kernel runs the polyphase method (the other methods have one each; the CPU ignores
//! it). automatic: the tiled kernel (arm table and input span in shared memory) wherever they fit
//! in a block's shared memory, else the untiled one (one thread per output, arms read through the
//! read-only cache; needed when r << 1 stretches the arms). untiled: always the untiled kernel, for
//! comparison; the two agree to ~1e-7 (docs/resampler.md).
enum class resamp_cuda_variant { automatic, untiled };
resamp_cuda_variant resamp_cuda_variant_from_string(
    const std::string& s); //!< throws std::invalid_argument naming `variant`
std::string to_string(resamp_cuda_variant v);

//! Polyphase design: a Kaiser-windowed sinc sampled at `nfilts` points per input sample.
struct polyphase_params {
    unsigned nfilts = 32; //!< arms (>= 2)
    unsigned taps_per_arm =
        32; //!< K, even, 4..512: the filter spans K inputs (K/r when r < 1)
    double attenuation_db = 80.0; //!< Kaiser design attenuation (20..150 dB)
};

template <typename T>
class resamp_engine;

/*!
 * \brief Streaming arbitrary-rate resampler, r = output rate / input rate.
 *
 * \details Time convention. Input sample n sits at time n (input samples). Output k sits
 * at t_k = t_0 + k * D,   D = 1/r rounded to a double,   t_0 = 0, i.e. the first output
 * coincides with input 0. Positions are kept in 64.64 fixed point, so t_k is exact and
 * chunking never changes the output. set_rate() starts a new segment: the outputs after
 * it continue from the position of the next output with the new D. The stream starts from
 * zero history (x[n] = 0 for n < 0). Outputs are not delayed: the resampler waits for the
 * `lookahead()` inputs after floor(t_k) that output k needs, so output k is produced once
 * input floor(t_k) + lookahead() has arrived.
 *
 * Methods (i = floor(t), mu = t - i):
 *  - nearest:   y = x[floor(t + 1/2)]                                (ties go up)
 *  - linear:    y = (1 - mu) x[i] + mu x[i+1]                        (float weights,
 * 24-bit mu)
 *  - texture:   the same with mu rounded to k/256 (round half up): the GPU texture unit's
 * 9-bit weights. The CPU backend emulates the texture unit bit for bit.
 *  - cubic:     Catmull-Rom (Keys, a = -1/2) through x[i-1..i+2]
 *  - polyphase: y = sum_n x[n] s h(s (t - n)), s = min(1, r), h a Kaiser-windowed sinc
 * with cutoff
 *               (-6 dB) at 0.5 - df/2 of the lower of the two rates, df = (A
 * - 7.95)/(14.36 K); s h(s tau) is tabulated at nfilts points per input sample and
 * linearly interpolated between adjacent arms (GNU Radio pfb_arb_resampler / liquid
 * resamp design). For r < 1 the filter is stretched by 1/r (K' = K/r taps per output, the
 *               table grows to K' nfilts floats) so it also suppresses aliasing.
 * No gain: a constant input gives that constant out (to the design's passband ripple).
 *
 * Channels: with `channels` = N > 1 the kernel resamples N streams (resample_items()), each
 * with its own history, all at the same rate and with one clock: a call takes the same number
 * of inputs from every channel and gives each the same number of outputs, and set_rate()
 * changes every channel at the same output. Channel c is exactly a single-channel resampler
 * fed channel c's inputs: on the CPU bit for bit; on CUDA every channel runs in one launch
 * (gridDim.y = channel) of the single-channel kernels' bodies, except the texture method, which
 * needs a texture per channel and runs one launch per channel.
 *
 * Input format (complex samples): a resampler made with `input_format` sc16 reads I/Q int16
 * pairs (resample_items()), each component times full_scale / 32767 (kernel/sample_format.h).
 * The inputs of a call are expanded to complex float and the complex float resampler runs on
 * them, so the outputs equal the fc32 resampler's fed the expanded samples, bit for bit, on
 * either backend: in host memory for host pointers (on CUDA the staging step of host buffers,
 * the inputs then cross the bus as complex float) and, for CUDA device pointers, in device
 * memory by the engine, ahead of its kernels on its stream (the front end and the engines keep
 * the history in complex float).
 */
template <typename T>
class resampler
{
public:
    resampler(double rate,
              resamp_method method = resamp_method::linear,
              backend requested = backend::cpu,
              int device = 0,
              const polyphase_params& pp = {},
              size_t batch = 0,
              unsigned channels = 1,
              sample_format input_format = sample_format::fc32);
    ~resampler();
    resampler(const resampler&) = delete;
    resampler& operator=(const resampler&) = delete;

    /*!
     * \brief The one streaming call: every channel in the resampler's input format, outputs in
     * `output`. in[c] holds channel c's n_in new inputs (T, or I/Q int16 pairs when
     * input_format() is sc16); out[c] receives at most max_out outputs (T, or I/Q int16 pairs
     * for sc16), the same count for every channel, returned. \p consumed: inputs used up, the
     * same for every channel (the kernel keeps what it still needs as history; pass the rest
     * again next time, like GNU Radio's general_work).
     *
     * sc16 output (complex samples only): each output is the conversion of the complex float
     * output the same backend computes (kernel/sample_format.h): CUDA converts in the
     * resampling kernel's own store, the CPU a cache-resident block at a time. Saturated and
     * invalid outputs of channel c add to counts(c). full_scale: every sc16 side's, input and
     * output (unused when neither is sc16); std::invalid_argument naming `full_scale`, or
     * `output_format` / `input_format` for real samples.
     *
     * `device`: `in` and `out` are device memory of the active backend (CUDA device memory of
     * `device` for cuda; host memory for cpu), as blocks whose ports use device buffers pass
     * them. Returns when `out` is complete. Host and device calls share the stream state and
     * may be mixed (the history moves between host and device).
     */
    size_t resample_items(void* const* out,
                          size_t max_out,
                          const void* const* in,
                          size_t n_in,
                          size_t& consumed,
                          sample_format output = sample_format::fc32,
                          float full_scale = 1.0f,
                          bool device = false);
    //! Conveniences for bindings and tests (complex float or T input): consume everything and
    //! return every output it allows. With channels > 1, `in` holds every channel's inputs
    //! channel-major (equal lengths) and the outputs come channel-major.
    std::vector<T> resample(const std::vector<T>& in);
    //! resample(in) with sc16 output: 2 values per output.
    std::vector<int16_t> resample_sc16(const std::vector<T>& in, float full_scale);
    sample_format input_format() const { return d_in_format; }
    //! sc16 outputs of `channel` counted since construction or reset_counts() (reset() keeps
    //! them).
    const sc16_counts& counts(unsigned channel = 0) const;
    void reset_counts();
    unsigned channels() const { return d_channels; }

    //! Inputs to pass so that the next n_out outputs can be produced (GNU Radio
    //! forecast).
    size_t inputs_needed(size_t n_out) const;
    //! Largest output count that n_in inputs allow now.
    size_t outputs_possible(size_t n_in) const;

    void set_rate(double rate);
    double rate() const { return d_rate; }
    resamp_method method() const { return d_method; }
    const polyphase_params& params() const { return d_pp; }
    //! Polyphase table for the current rate (K'*nfilts + 1 values; empty for other
    //! methods).
    const std::vector<float>& prototype() const { return d_proto; }
    //! Samples after / before floor(t) an output reads.
    size_t lookahead() const { return d_ahead; }
    size_t reach_back() const { return d_back; }

    uint64_t inputs_consumed() const { return d_consumed; }
    uint64_t outputs_produced() const { return d_produced; }
    //! Time (input samples) of output k; exact for outputs of the current rate segment.
    double output_time(uint64_t k) const;
    //! Index of the first output at or after input time n (for moving stream tags).
    uint64_t first_output_at(uint64_t n) const;

    void reset();
    void set_batch(size_t batch);
    //! CUDA polyphase kernel (see resamp_cuda_variant); takes effect at the next call.
    void set_cuda_variant(resamp_cuda_variant v);
    resamp_cuda_variant cuda_variant() const { return d_variant; }
    backend active_backend() const { return d_backend; }
    const std::string& backend_note() const { return d_note; }

    static constexpr size_t default_batch = 1 << 22;

private:
    void configure_reach();
    void check_fc32_input(const char* what) const;
    //! Brings every channel's history back to the host (after device calls).
    void pull_histories();
    //! The bookkeeping of resample_items(): plans the call, lets
    //! `compute(plan, used)` produce the outputs, advances the clock.
    template <typename Compute>
    size_t step(size_t max_out, size_t n_in, size_t& consumed, Compute&& compute);
    size_t count_outputs(int64_t first_ip, uint64_t first_fp, int64_t last_index) const;
    //! The loop of resample(in): `call(out, max_out, in, n_in, consumed)` (per-channel
    //! pointers) writes `per_out` values of O per output.
    template <typename O, typename Call>
    std::vector<O> resample_all(const std::vector<T>& in, size_t per_out, Call&& call);

    double d_rate;
    resamp_method d_method;
    unsigned d_channels;
    sample_format d_in_format;
    polyphase_params d_pp;
    std::vector<float> d_proto;
    double d_proto_scale = 0;
    size_t d_ahead = 1, d_back = 0;
    uint64_t d_step_ip = 0, d_step_fp = 0;
    int64_t d_next_ip = 0; // absolute position of the next output
    uint64_t d_next_fp = 0;
    uint64_t d_seg_k = 0; // first output of the current rate segment and its position
    int64_t d_seg_ip = 0;
    uint64_t d_seg_fp = 0;
    uint64_t d_consumed = 0, d_produced = 0;
    std::vector<stream_history<T>> d_hist; //!< per channel, all of one length
    backend d_backend;
    std::string d_note;
    resamp_cuda_variant d_variant = resamp_cuda_variant::automatic;
    //! Every channel's: the factory picks it from the backend, the channels and the method.
    std::unique_ptr<resamp_engine<T>> d_engine;
    std::vector<sc16_counts> d_counts;
    std::vector<std::vector<T>>
        d_expanded; //!< sc16 input: one call's inputs, per channel
    std::vector<const T*> d_expanded_ptr;
};

using resampler_cc = resampler<std::complex<float>>;
using resampler_ff = resampler<float>;

//! The table the polyphase method uses at time scale s = min(1, r) (exposed for tests and
//! docs): K'*nfilts + 1 samples of s h(s tau), tau = j/nfilts - K'/2 input samples, K' =
//! polyphase_taps().
std::vector<float> polyphase_prototype(const polyphase_params& pp, double scale = 1.0);
//! Inputs one polyphase output reads: K for r >= 1, the even number >= K/r for r < 1.
size_t polyphase_taps(const polyphase_params& pp, double scale);
//! The same continuous h(tau) in double precision (the test reference).
double polyphase_h(const polyphase_params& pp, double tau);

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
