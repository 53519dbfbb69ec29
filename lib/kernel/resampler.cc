/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Resampler front end: validation, the fixed-point output clock, history and the
// consume/produce bookkeeping that makes chunking irrelevant. The engines only compute
// outputs.
#include "../common/sc16.h"
#include "channel_major.h"
#include "engine_factory.h"
#include "fixed_phase.h"
#include <gnuradio/gpuinterp/kernel/channels.h>
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <type_traits>
#include <cmath>

namespace gr {
namespace gpuinterp {
namespace kernel {

namespace {

constexpr double min_rate = 1e-4, max_rate = 1e4;

// n sc16 inputs as complex float (sample_format.h); real samples never get here.
template <typename T>
void expand_sc16_input(T* out, const void* in, size_t n, float full_scale)
{
    if constexpr (std::is_same_v<T, std::complex<float>>)
        sc16_expand(
            out, static_cast<const int16_t*>(in), n, sc16_inverse_scale(full_scale));
}

void check_rate(double r)
{
    if (!std::isfinite(r) || !(r > 0))
        invalid_parameter("rate",
                          "must be a finite number > 0, got " + std::to_string(r));
    if (r < min_rate || r > max_rate)
        invalid_parameter("rate", "must lie in [1e-4, 1e4], got " + std::to_string(r));
}

void check_params(const polyphase_params& p)
{
    if (p.nfilts < 2 || p.nfilts > 4096)
        invalid_parameter("nfilts",
                          "must lie in 2..4096, got " + std::to_string(p.nfilts));
    if (p.taps_per_arm < 4 || p.taps_per_arm > 512 || p.taps_per_arm % 2)
        invalid_parameter("taps_per_arm",
                          "must be even and lie in 4..512, got " +
                              std::to_string(p.taps_per_arm));
    if (!std::isfinite(p.attenuation_db) || p.attenuation_db < 20 ||
        p.attenuation_db > 150)
        invalid_parameter("attenuation_db",
                          "must lie in [20, 150] dB, got " +
                              std::to_string(p.attenuation_db));
}

fx_step step_from_rate(double r)
{
    const double d =
        1.0 / r; // D = 1/r as a double; its fraction fits 64 bits exactly for D >= 2^-11
    const double ip = std::floor(d);
    const double frac = d - ip;
    return { uint64_t(ip), uint64_t(std::ldexp(frac, 64)) };
}

double bessel_i0(double x)
{
    double sum = 1, term = 1;
    for (int k = 1; k < 200; k++) {
        term *= (x / (2 * k)) * (x / (2 * k));
        sum += term;
        if (term < 1e-17 * sum)
            break;
    }
    return sum;
}

} // namespace

double polyphase_h(const polyphase_params& pp, double tau)
{
    const double K = pp.taps_per_arm;
    const double half = K / 2;
    if (std::abs(tau) > half)
        return 0;
    const double A = pp.attenuation_db;
    const double beta =
        A > 50 ? 0.1102 * (A - 8.7)
               : (A >= 21 ? 0.5842 * std::pow(A - 21, 0.4) + 0.07886 * (A - 21) : 0);
    const double df =
        (A - 7.95) / (14.36 * K);   // Kaiser's transition width for K taps per unit
    const double fc = 0.5 - df / 2; // -6 dB point: the stop band starts at 0.5
    const double v = tau / half;
    const double w =
        bessel_i0(beta * std::sqrt(std::max(0.0, 1 - v * v))) / bessel_i0(beta);
    const double x = 2 * fc * tau;
    const double sinc = x == 0 ? 1.0 : std::sin(M_PI * x) / (M_PI * x);
    return 2 * fc * sinc * w;
}

std::vector<float> polyphase_prototype(const polyphase_params& pp, double scale)
{
    check_params(pp);
    const size_t K = polyphase_taps(pp, scale);
    const size_t n = K * pp.nfilts + 1;
    std::vector<float> h(n);
    for (size_t j = 0; j < n; j++) {
        const double tau = double(j) / pp.nfilts - double(K) / 2; // input samples
        h[j] = float(scale * polyphase_h(pp, scale * tau));
    }
    return h;
}

size_t polyphase_taps(const polyphase_params& pp, double scale)
{
    if (scale >= 1)
        return pp.taps_per_arm;
    return 2 * size_t(std::ceil(pp.taps_per_arm / (2 * scale) - 1e-9));
}

template <typename T>
resampler<T>::resampler(double rate,
                        resamp_method method,
                        backend requested,
                        int device,
                        const polyphase_params& pp,
                        size_t batch,
                        unsigned channels,
                        sample_format input_format)
    : d_rate(rate),
      d_method(method),
      d_channels(check_channels(channels)), // before anything is sized by it
      d_in_format(input_format),
      d_pp(pp),
      d_hist(d_channels),
      d_counts(d_channels)
{
    check_rate(rate);
    if (input_format == sample_format::sc16 && !std::is_same_v<T, std::complex<float>>)
        invalid_parameter("input_format", "sc16 needs complex samples");
    // Checked for every method, although only polyphase uses them: a wrong value is a caller's
    // mistake whatever the method, and it would surface later if the method is changed.
    check_params(pp);
    const backend_choice choice = select_backend(requested, device);
    d_backend = choice.selected;
    d_note = choice.reason;
    const size_t b = batch ? batch : default_batch;
    d_engine = make_resamp_engine<T>(d_backend, device, b, channels, method);
    const fx_step s = step_from_rate(rate);
    d_step_ip = s.ip;
    d_step_fp = s.fp;
    configure_reach();
}

template <typename T>
resampler<T>::~resampler() = default;

template <typename T>
const sc16_counts& resampler<T>::counts(unsigned channel) const
{
    check_channel_index(channel, d_channels);
    return d_counts[channel];
}

template <typename T>
void resampler<T>::reset_counts()
{
    std::fill(d_counts.begin(), d_counts.end(), sc16_counts{});
}

template <typename T>
void resampler<T>::pull_histories()
{
    d_engine->pull_history(d_hist);
}

template <typename T>
void resampler<T>::configure_reach()
{
    switch (d_method) {
    case resamp_method::nearest:
    case resamp_method::linear:
    case resamp_method::texture:
        d_back = 0;
        d_ahead = 1;
        break;
    case resamp_method::cubic:
        d_back = 1;
        d_ahead = 2;
        break;
    case resamp_method::polyphase: {
        // The table is w(tau) = s h(s tau) at nfilts points per INPUT sample, s = min(1,
        // r): for r < 1 the stretched filter spans K' = K/r inputs, so every output, at
        // any rate, is two dot products over K' inputs (arm p and p+1), like the r >= 1
        // case. Rebuilt when s changes.
        const double scale = std::min(1.0, d_rate);
        if (d_proto.empty() || scale != d_proto_scale) {
            d_proto = polyphase_prototype(d_pp, scale);
            d_proto_scale = scale;
            d_engine->set_prototype(
                d_proto, unsigned(polyphase_taps(d_pp, scale)), d_pp.nfilts);
        }
        const size_t half = polyphase_taps(d_pp, scale) / 2;
        d_back = half - 1;
        d_ahead = half;
        break;
    }
    }
    // Never shrink: the next output may still need samples the old reach kept. A larger reach
    // (a lower polyphase rate) looks further back than the history kept: those samples were
    // consumed and are gone, so the stream's oldest known sample stands in for them.
    for (auto& h : d_hist)
        h.grow_extending(d_back + d_ahead + 1);
}

template <typename T>
size_t resampler<T>::count_outputs(int64_t ip, uint64_t fp, int64_t last) const
{
    if (ip > last)
        return 0;
    const fx_pos p{ ip, fp };
    const fx_step s{ d_step_ip, d_step_fp };
    const long double step =
        (long double)d_step_ip + std::ldexp((long double)d_step_fp, -64);
    const long double span =
        (long double)(last + 1 - ip) - std::ldexp((long double)fp, -64);
    long double est = std::ceil(span / step);
    size_t n = est < 1 ? 1 : size_t(est);
    // n outputs fit when output n-1 is at or before `last`; correct the estimate exactly.
    while (n > 1 && fx_advance(p, s, n - 1).ip > last)
        n--;
    while (fx_advance(p, s, n).ip <= last)
        n++;
    return n;
}

template <typename T>
size_t resampler<T>::outputs_possible(size_t n_in) const
{
    const int64_t H = int64_t(d_hist[0].size());
    const int64_t ip = d_next_ip - int64_t(d_consumed) + H;
    return count_outputs(ip, d_next_fp, H + int64_t(n_in) - 1 - int64_t(d_ahead));
}

template <typename T>
size_t resampler<T>::inputs_needed(size_t n_out) const
{
    if (n_out == 0)
        return 0;
    const fx_pos q =
        fx_advance({ d_next_ip, d_next_fp }, { d_step_ip, d_step_fp }, n_out - 1);
    const int64_t need = q.ip + int64_t(d_ahead) - int64_t(d_consumed) + 1;
    return need > 0 ? size_t(need) : 0;
}

template <typename T>
template <typename Compute>
size_t
resampler<T>::step(size_t max_out, size_t n_in, size_t& consumed, Compute&& compute)
{
    consumed = 0;
    const size_t H = d_hist[0].size();
    const int64_t ip = d_next_ip - int64_t(d_consumed) + int64_t(H);
    const int64_t last = int64_t(H + n_in) - 1 - int64_t(d_ahead);
    const size_t n_out = std::min(max_out, count_outputs(ip, d_next_fp, last));
    const fx_step s{ d_step_ip, d_step_fp };
    const fx_pos after = fx_advance({ ip, d_next_fp }, s, n_out);
    // Consume up to (not including) the last input the next output needs: that output
    // then always needs at least one new input (so a forecast of 0 never happens), and
    // the history, H >= back + ahead + 1 samples, still holds everything it reads further
    // back.
    const int64_t c = std::min<int64_t>(
        int64_t(n_in), std::max<int64_t>(0, after.ip - int64_t(H) + int64_t(d_ahead)));
    resamp_plan plan;
    plan.method = d_method;
    plan.pos0 = { ip, d_next_fp };
    plan.step = s;
    plan.n_out = n_out;
    plan.hist = H;
    plan.scale = std::min(1.0, d_rate);
    plan.half_span = int(d_ahead); // polyphase: K'/2
    plan.nfilts = int(d_pp.nfilts);
    plan.back = d_back;
    plan.ahead = d_ahead;
    compute(plan, size_t(c)); // writes the outputs and advances the history by c inputs
    const fx_pos next = fx_advance({ d_next_ip, d_next_fp }, s, n_out);
    d_next_ip = next.ip;
    d_next_fp = next.fp;
    d_produced += n_out;
    d_consumed += uint64_t(c);
    consumed = size_t(c);
    return n_out;
}

template <typename T>
void resampler<T>::check_fc32_input(const char* what) const
{
    if (d_in_format != sample_format::fc32)
        invalid_parameter("input_format",
                          std::string(what) +
                              " takes complex float, this resampler reads " +
                              to_string(d_in_format) + ": use resample_items()");
}

template <typename T>
size_t resampler<T>::resample_items(void* const* out,
                                    size_t max_out,
                                    const void* const* in,
                                    size_t n_in,
                                    size_t& consumed,
                                    sample_format output,
                                    float full_scale,
                                    bool device)
{
    const bool sc16_in = d_in_format == sample_format::sc16;
    const bool sc16_out = output == sample_format::sc16;
    const T* const* x = reinterpret_cast<const T* const*>(in);
    if (sc16_in || sc16_out)
        validate_full_scale(full_scale);
    if (!std::is_same_v<T, std::complex<float>> && (sc16_in || sc16_out)) {
        consumed = 0;
        invalid_parameter(sc16_in ? "input_format" : "output_format",
                          "sc16 needs complex samples");
    }
    if (sc16_in && device && d_backend == backend::cuda) {
        // Device buffers on CUDA: the inputs expanded in device memory by the engine, then
        // its complex float device path (its history and kernels read complex float).
        const float inverse = sc16_inverse_scale(full_scale);
        d_expanded_ptr.resize(d_channels);
        for (unsigned c = 0; c < d_channels; c++)
            d_expanded_ptr[c] = d_engine->expand_sc16_device(
                c, static_cast<const int16_t*>(in[c]), n_in, inverse);
        x = d_expanded_ptr.data();
    } else if (sc16_in) {
        // The call's inputs expanded in host memory, then the complex float path.
        d_expanded.resize(d_channels);
        d_expanded_ptr.resize(d_channels);
        for (unsigned c = 0; c < d_channels; c++) {
            d_expanded[c].resize(n_in);
            expand_sc16_input(d_expanded[c].data(), in[c], n_in, full_scale);
            d_expanded_ptr[c] = d_expanded[c].data();
        }
        x = d_expanded_ptr.data();
    }
    const float scale = sc16_scale(full_scale);
    // Device calls keep the history on the device; host calls need it on the host.
    if (!device)
        pull_histories();
    return step(max_out, n_in, consumed, [&](const resamp_plan& plan, size_t used) {
        const resamp_call<T> call{ x, n_in, d_hist, used, plan, device };
        if (sc16_out)
            d_engine->run_sc16(
                reinterpret_cast<int16_t* const*>(out), call, scale, d_counts.data());
        else
            d_engine->run(reinterpret_cast<T* const*>(out), call);
    });
}

template <typename T>
template <typename O, typename Call>
std::vector<O>
resampler<T>::resample_all(const std::vector<T>& in, size_t per_out, Call&& call)
{
    const unsigned N = d_channels;
    const size_t total = channel_run(in.size(), N);
    std::vector<std::vector<O>> out(N);
    std::vector<O*> o(N);
    std::vector<const T*> x(N);
    size_t pos = 0, n_out = 0;
    // The input may have to be offered more than once: consumption stops where history
    // must start.
    for (;;) {
        const size_t n_in = total - pos;
        const size_t cap = outputs_possible(n_in);
        for (unsigned c = 0; c < N; c++) {
            out[c].resize((n_out + cap) * per_out);
            o[c] = out[c].data() + n_out * per_out;
            x[c] = in.data() + c * total + pos;
        }
        size_t used = 0;
        const size_t got = call(o.data(), cap, x.data(), n_in, used);
        n_out += got;
        pos += used;
        if (used == n_in || (got == 0 && used == 0))
            break;
    }
    if (N == 1) {
        out[0].resize(n_out * per_out);
        return std::move(out[0]);
    }
    std::vector<O> all;
    all.reserve(N * n_out * per_out);
    for (auto& v : out)
        all.insert(all.end(), v.begin(), v.begin() + n_out * per_out);
    return all;
}

template <typename T>
std::vector<T> resampler<T>::resample(const std::vector<T>& in)
{
    check_fc32_input("resample()");
    return resample_all<T>(
        in,
        1,
        [&](T* const* out, size_t max_out, const T* const* x, size_t n_in, size_t& used) {
            return resample_items(reinterpret_cast<void* const*>(out),
                                  max_out,
                                  reinterpret_cast<const void* const*>(x),
                                  n_in,
                                  used);
        });
}

template <typename T>
std::vector<int16_t> resampler<T>::resample_sc16(const std::vector<T>& in,
                                                 float full_scale)
{
    check_fc32_input("resample_sc16()");
    return resample_all<int16_t>(in,
                                 2,
                                 [&](int16_t* const* out,
                                     size_t max_out,
                                     const T* const* x,
                                     size_t n_in,
                                     size_t& used) {
                                     return resample_items(
                                         reinterpret_cast<void* const*>(out),
                                         max_out,
                                         reinterpret_cast<const void* const*>(x),
                                         n_in,
                                         used,
                                         sample_format::sc16,
                                         full_scale);
                                 });
}

template <typename T>
double resampler<T>::output_time(uint64_t k) const
{
    if (k >= d_seg_k) {
        const fx_pos p =
            fx_advance({ d_seg_ip, d_seg_fp }, { d_step_ip, d_step_fp }, k - d_seg_k);
        return double(p.ip) + fx_frac_d(p.fp);
    }
    return double(d_seg_ip) + fx_frac_d(d_seg_fp) - double(d_seg_k - k) / d_rate;
}

template <typename T>
uint64_t resampler<T>::first_output_at(uint64_t n) const
{
    const fx_pos seg{ d_seg_ip, d_seg_fp };
    const fx_step s{ d_step_ip, d_step_fp };
    if (int64_t(n) <=
        d_seg_ip) { // before this segment (approximate across a rate change)
        const double back = (double(d_seg_ip) + fx_frac_d(d_seg_fp) - double(n)) * d_rate;
        const double k = double(d_seg_k) - std::floor(back);
        return k < 0 ? 0 : uint64_t(k);
    }
    // Positions are >= n exactly when their integer part is >= n (n is an integer).
    const double est = (double(n) - double(d_seg_ip) - fx_frac_d(d_seg_fp)) * d_rate;
    uint64_t j = est > 1 ? uint64_t(est) - 1 : 0;
    while (j > 0 && fx_advance(seg, s, j - 1).ip >= int64_t(n))
        j--;
    while (fx_advance(seg, s, j).ip < int64_t(n))
        j++;
    return d_seg_k + j;
}

template <typename T>
void resampler<T>::set_rate(double rate)
{
    check_rate(rate);
    pull_histories(); // configure_reach() may grow them
    d_seg_k = d_produced;
    d_seg_ip = d_next_ip;
    d_seg_fp = d_next_fp;
    d_rate = rate;
    const fx_step s = step_from_rate(rate);
    d_step_ip = s.ip;
    d_step_fp = s.fp;
    configure_reach();
}

template <typename T>
void resampler<T>::reset()
{
    d_next_ip = d_seg_ip = 0;
    d_next_fp = d_seg_fp = 0;
    d_seg_k = 0;
    d_consumed = d_produced = 0;
    for (auto& h : d_hist)
        h.clear();
    d_engine->forget_history();
}

template <typename T>
void resampler<T>::set_batch(size_t batch)
{
    if (batch < 1)
        invalid_parameter("batch", "must be >= 1");
    d_engine->set_batch(batch);
}

template <typename T>
void resampler<T>::set_cuda_variant(resamp_cuda_variant v)
{
    d_variant = v;
    d_engine->set_cuda_variant(v);
}

template class resampler<float>;
template class resampler<std::complex<float>>;

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
