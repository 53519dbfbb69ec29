/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_TEST_UTIL_H
#define INCLUDED_GPUINTERP_TEST_UTIL_H

// Shared by the kernel tests: random data (never zeros), backend parametrisation with a clean skip
// when no CUDA device exists, NaN poisoning of output buffers, and tolerance checks.

#include <gnuradio/gpuinterp/kernel/backend.h>
#include <gnuradio/gpuinterp/kernel/dpd_bank.h>
#include <gnuradio/gpuinterp/kernel/dpd_model.h>
#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <gtest/gtest.h>
#ifdef GPUINTERP_HAVE_CUDA
#include <cuda_runtime.h> // the device-pointer tests stage their data with the runtime itself
#endif
#include <initializer_list>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuinterp_test {

using cf = std::complex<float>;
using cd = std::complex<double>;
using gr::gpuinterp::backend;
using gr::gpuinterp::kernel::sample_format; // the sc16 tests of every family
using gr::gpuinterp::kernel::sc16_counts;

//! A predistorter bank's options: its backend and formats (device 0, the default batch).
inline gr::gpuinterp::kernel::dpd_bank::options
bank_options(backend b,
             sample_format out,
             float full_scale = 1.0f,
             sample_format in = sample_format::fc32)
{
    gr::gpuinterp::kernel::dpd_bank::options o(b);
    o.output_format = out;
    o.full_scale = full_scale;
    o.input_format = in;
    return o;
}

//! The bit pattern of v: the texture tests compare floats to the bit.
inline uint32_t bits(float v)
{
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return u;
}

//! The message of the std::invalid_argument that f throws ("no exception" when it throws none): the
//! tests compare a parameter error's exact text.
inline std::string invalid_argument_message(const std::function<void()>& f)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "no exception";
}

//! The table t[i] = i of n entries: inside it, a linear fetch at x returns x.
inline std::vector<float> identity_table(int n)
{
    std::vector<float> t(n);
    for (int i = 0; i < n; i++)
        t[i] = float(i);
    return t;
}

//! Whether f throws std::invalid_argument with a message that starts with `prefix` (the
//! parameter's name and a colon); another exception propagates.
inline ::testing::AssertionResult throws_naming(const std::function<void()>& f,
                                                const std::string& prefix)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        if (std::string(e.what()).rfind(prefix, 0) == 0)
            return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure()
               << "'" << e.what() << "' does not start with '" << prefix << "'";
    }
    return ::testing::AssertionFailure()
           << "no std::invalid_argument ('" << prefix << "')";
}

//! One channel of a kernel::polyphase_interpolator or kernel::resampler through its one
//! streaming call (filter_items(), resample_items()): `in` in the kernel's input format, `out`
//! in the output format; `rest` as the call takes it after its pointers and counts.
template <typename K, typename O, typename I, typename... Rest>
void filter_one(K& k, O* out, const I* in, size_t n_in, Rest... rest)
{
    void* o[] = { out };
    const void* i[] = { in };
    k.filter_items(o, i, n_in, rest...);
}
template <typename K, typename O, typename I, typename... Rest>
size_t resample_one(
    K& k, O* out, size_t max_out, const I* in, size_t n_in, size_t& used, Rest... rest)
{
    void* o[] = { out };
    const void* i[] = { in };
    return k.resample_items(o, max_out, i, n_in, used, rest...);
}

//! Runs a multi-channel kernel over n samples of every channel in calls of the given sizes (a
//! size beyond what is left takes the rest; the list should end with n): call(out, in, m) with
//! out[c] = out_at(c, pos) and in[c] = in_at(c, pos), pos the samples the calls before took.
template <typename OutAt, typename InAt, typename Call>
void call_in_steps(unsigned N,
                   size_t n,
                   std::initializer_list<size_t> steps,
                   OutAt&& out_at,
                   InAt&& in_at,
                   Call&& call)
{
    size_t pos = 0;
    for (size_t step : steps) {
        const size_t m = std::min(step, n - pos);
        std::vector<void*> o(N);
        std::vector<const void*> i(N);
        for (unsigned c = 0; c < N; c++) {
            o[c] = out_at(c, pos);
            i[c] = in_at(c, pos);
        }
        call(o.data(), i.data(), m);
        pos += m;
        if (pos == n)
            break;
    }
}

#ifdef GPUINTERP_HAVE_CUDA
//! cudaMemcpy from pageable host memory to the device, waited for: the plain call returns once
//! the data is staged, its DMA possibly still queued on the legacy default stream, which the
//! engines' non-blocking streams do not wait for, so a kernel launched next could read the old
//! contents (the more likely the busier the GPU). Device-pointer tests stage their inputs here;
//! waiting for the legacy stream also covers a cudaMemset queued there before.
inline cudaError_t upload_waited(void* device, const void* host, size_t bytes)
{
    const cudaError_t e = cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);
    return e != cudaSuccess ? e : cudaStreamSynchronize(cudaStreamLegacy);
}

//! N channels of n items of item_bytes in device memory, channel c starting c % 3 items into its
//! allocation (the buffers of separate GNU Radio ports start anywhere); freed with the object.
class device_channels
{
public:
    device_channels(unsigned N, size_t n, size_t item_bytes)
        : d_base(N, nullptr), d_n(n), d_item(item_bytes)
    {
        for (auto& p : d_base)
            if (cudaMalloc(reinterpret_cast<void**>(&p), (n + 3) * item_bytes) !=
                cudaSuccess)
                throw std::runtime_error("device_channels: cudaMalloc failed");
    }
    ~device_channels()
    {
        for (auto* p : d_base)
            cudaFree(p);
    }
    device_channels(const device_channels&) = delete;
    device_channels& operator=(const device_channels&) = delete;

    //! Item `pos` of channel c.
    uint8_t* at(unsigned c, size_t pos = 0) const
    {
        return d_base[c] + (c % 3 + pos) * d_item;
    }
    //! Channel c's n items from host memory.
    void upload(unsigned c, const void* host) const
    {
        if (upload_waited(at(c), host, d_n * d_item) != cudaSuccess)
            throw std::runtime_error("device_channels: upload failed");
    }
    //! Channel c's n items, as bytes.
    std::vector<uint8_t> download(unsigned c) const
    {
        std::vector<uint8_t> v(d_n * d_item);
        if (cudaMemcpy(v.data(), at(c), v.size(), cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("device_channels: download failed");
        return v;
    }

private:
    std::vector<uint8_t*> d_base;
    size_t d_n, d_item;
};

//! A multi-channel kernel's device entry point on N channels: host_in(c)'s n items of in_bytes
//! staged in device_channels, call(out, in, m) with the device pointers in calls of 3, 2 (shorter
//! than a filter's history), 5000 and the rest; returns every channel's n outputs of out_bytes.
template <typename HostIn, typename Call>
std::vector<std::vector<uint8_t>> run_on_device(unsigned N,
                                                size_t n,
                                                size_t in_bytes,
                                                size_t out_bytes,
                                                HostIn&& host_in,
                                                Call&& call)
{
    const device_channels din(N, n, in_bytes), dout(N, n, out_bytes);
    for (unsigned c = 0; c < N; c++)
        din.upload(c, host_in(c));
    call_in_steps(
        N,
        n,
        { 3, 2, 5000, n },
        [&](unsigned c, size_t pos) { return dout.at(c, pos); },
        [&](unsigned c, size_t pos) { return din.at(c, pos); },
        call);
    std::vector<std::vector<uint8_t>> y;
    for (unsigned c = 0; c < N; c++)
        y.push_back(dout.download(c));
    return y;
}

//! The device entry point (process_device) of the multi-channel kernel `dev` on host_in(c)'s n
//! items per channel (run_on_device) against `want`, what `host` (the same configuration) made
//! of the same inputs through host memory: every channel's output byte for byte, and its
//! saturation count.
template <typename K, typename HostIn>
void expect_device_path_equals(K& dev,
                               K& host,
                               const std::vector<std::vector<uint8_t>>& want,
                               size_t n,
                               size_t in_bytes,
                               size_t out_bytes,
                               HostIn&& host_in,
                               const std::string& what)
{
    const unsigned N = dev.channels();
    const auto got = run_on_device(N,
                                   n,
                                   in_bytes,
                                   out_bytes,
                                   host_in,
                                   [&](void* const* o, const void* const* i, size_t m) {
                                       dev.process_device(o, i, m);
                                   });
    for (unsigned c = 0; c < N; c++) {
        EXPECT_EQ(got[c], want[c]) << what << " channel " << c;
        EXPECT_EQ(dev.counts(c).saturated, host.counts(c).saturated)
            << what << " channel " << c;
    }
}
#endif

inline std::mt19937& rng()
{
    static std::mt19937 g(12345);
    return g;
}

//! n complex values uniform in [-a, a] from a generator seeded here, not the shared one: every
//! qa_*.cc joins one program, and drawing from the shared generator would change the data of the
//! tests that run after the caller.
inline std::vector<cf> seeded_signal(size_t n, float a, unsigned seed)
{
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(-a, a);
    std::vector<cf> v(n);
    for (auto& x : v)
        x = { d(g), d(g) };
    return v;
}

template <typename T>
T random_value(float scale = 1.0f);
template <>
inline float random_value<float>(float scale)
{
    std::uniform_real_distribution<float> d(-scale, scale);
    float v;
    do
        v = d(rng());
    while (v == 0.f);
    return v;
}
template <>
inline cf random_value<cf>(float scale)
{
    return { random_value<float>(scale), random_value<float>(scale) };
}

template <typename T>
std::vector<T> random_vector(size_t n, float scale = 1.0f)
{
    std::vector<T> v(n);
    for (auto& x : v)
        x = random_value<T>(scale);
    return v;
}

inline size_t random_size(size_t lo, size_t hi)
{
    return std::uniform_int_distribution<size_t>(lo, hi)(rng());
}

template <typename T>
void poison(std::vector<T>& v)
{
    std::fill(v.begin(), v.end(), T(std::numeric_limits<float>::quiet_NaN()));
}

//! Runs the kernel k over x with its coefficients switched between two calls at sample n0: the
//! outputs before n0 come from the set it has, the ones from n0 on from (co, c). Checks that k
//! reports the new set.
template <class K>
std::vector<cf> process_switching_at(
    K& k, const std::vector<cf>& x, size_t n0, const std::vector<cf>& co, cf c)
{
    std::vector<cf> y(x.size());
    poison(y);
    k.process(y.data(), x.data(), n0);
    k.set_coefficients(co, c);
    EXPECT_EQ(k.coefficients(), co);
    k.process(y.data() + n0, x.data() + n0, x.size() - n0);
    return y;
}

//! The reference of a coefficient switch at n0 (process_switching_at): the first n0 outputs z and
//! their rounding scales S of `before`, the rest of `after`.
template <class R>
R spliced_at(const R& before, R after, size_t n0)
{
    std::copy(before.z.begin(), before.z.begin() + n0, after.z.begin());
    std::copy(before.S.begin(), before.S.begin() + n0, after.S.begin());
    return after;
}

inline double to_d(float v) { return v; }
inline cd to_d(cf v) { return { v.real(), v.imag() }; }

inline std::string backend_name(const testing::TestParamInfo<backend>& info)
{
    return gr::gpuinterp::to_string(info.param);
}

//! One sc16 component by the tests' own rule (kernel/sample_format.h, written independently of
//! lib/common/sc16.h): float product, round half to even, clip; counts what clipped or was NaN.
inline int16_t sc16_ref(float v, float fs, uint64_t& sat, uint64_t& bad)
{
    const float s = v * (32767.0f / fs);
    if (std::isnan(s)) {
        bad++;
        return 0;
    }
    const double r = std::nearbyint(double(s)); // default rounding: half to even
    if (r > 32767 || r < -32768) {
        sat++;
        return r > 0 ? 32767 : -32768;
    }
    return int16_t(r);
}

//! Skip a CUDA-parametrised test when no device is usable.
#define GPUINTERP_SKIP_WITHOUT_DEVICE(b)               \
    do {                                               \
        if ((b) == ::gr::gpuinterp::backend::cuda &&   \
            ::gr::gpuinterp::cuda_device_count() == 0) \
            GTEST_SKIP() << "no usable CUDA device";   \
    } while (0)
//! Skip a CUDA-only test when no device is usable.
#define GPUINTERP_SKIP_WITHOUT_CUDA() \
    GPUINTERP_SKIP_WITHOUT_DEVICE(::gr::gpuinterp::backend::cuda)

//! A suite parametrised by the backend, whose cases skip in SetUp() where the backend is CUDA and
//! no device is usable; GPUINTERP_BACKEND_SUITE instantiates it for cpu and cuda, each case
//! named by its backend.
class backend_param : public ::testing::TestWithParam<backend>
{
protected:
    void SetUp() override { GPUINTERP_SKIP_WITHOUT_DEVICE(GetParam()); }
};
#define GPUINTERP_BACKEND_SUITE(suite)                                          \
    INSTANTIATE_TEST_SUITE_P(Backends,                                          \
                             suite,                                             \
                             ::testing::Values(::gr::gpuinterp::backend::cpu,   \
                                               ::gr::gpuinterp::backend::cuda), \
                             ::gpuinterp_test::backend_name)

//! max |got - want| <= atol + rtol * max|want| over the vector, reported with the worst index.
template <typename G, typename W>
::testing::AssertionResult
all_close(const std::vector<G>& got, const std::vector<W>& want, double rtol, double atol)
{
    if (got.size() != want.size())
        return ::testing::AssertionFailure()
               << "size " << got.size() << " != " << want.size();
    double scale = 0;
    for (auto& w : want)
        scale = std::max(scale, double(std::abs(w)));
    const double tol = atol + rtol * scale;
    for (size_t i = 0; i < got.size(); i++) {
        const double err = std::abs(to_d(got[i]) - want[i]);
        if (!(err <= tol))
            return ::testing::AssertionFailure()
                   << "index " << i << ": got " << got[i] << " want " << want[i]
                   << " err " << err << " > tol " << tol;
    }
    return ::testing::AssertionSuccess();
}

//! n sc16 samples (I, Q int16 pairs) uniform in [-peak, peak], the first one (-32768, 32767).
inline std::vector<int16_t> random_sc16(size_t n, unsigned seed, int peak)
{
    std::mt19937 g(seed);
    std::uniform_int_distribution<int> d(-peak, peak);
    std::vector<int16_t> v(2 * n);
    std::generate(v.begin() + 2, v.end(), [&] { return int16_t(d(g)); });
    v[0] = -32768;
    v[1] = 32767;
    return v;
}

//! What sc16 inputs stand for (kernel/sample_format.h), computed in double: an int16 times a
//! float is exact there, so one rounding to float gives the correctly rounded float product.
inline cf sc16_value(const int16_t* iq, double inverse)
{
    return { float(iq[0] * inverse), float(iq[1] * inverse) };
}
inline std::vector<cf> sc16_values(const std::vector<int16_t>& iq, float full_scale)
{
    std::vector<cf> z(iq.size() / 2);
    for (size_t i = 0; i < z.size(); i++)
        z[i] = sc16_value(&iq[2 * i], double(full_scale / 32767.0f));
    return z;
}

//! The inputs of an sc16-input test on N channels: channel c's I/Q int16 pairs iq[c] = draw(c),
//! the complex floats z[c] they stand for at full_scale (sc16_values), and both as the byte
//! pointers the kernels' item entry points take (xi[c] to iq[c], xf[c] to z[c]).
struct sc16_channels {
    std::vector<std::vector<int16_t>> iq;
    std::vector<std::vector<cf>> z;
    std::vector<const uint8_t*> xi, xf;

    template <typename Draw>
    sc16_channels(unsigned N, float full_scale, Draw&& draw) : iq(N), z(N), xi(N), xf(N)
    {
        for (unsigned c = 0; c < N; c++) {
            iq[c] = draw(c);
            z[c] = sc16_values(iq[c], full_scale);
            xi[c] = reinterpret_cast<const uint8_t*>(iq[c].data());
            xf[c] = reinterpret_cast<const uint8_t*>(z[c].data());
        }
    }
    // xi and xf point into iq and z: a copy would point into the original.
    sc16_channels(const sc16_channels&) = delete;
    sc16_channels& operator=(const sc16_channels&) = delete;
};

// The ph model of (P, Q, Lp, Lq) as the block's (P, Q, Lp, Lq) parameters give it
// (dpd_model::ph_params: the engine's bounds, refused by the parameter's name).
inline gr::gpuinterp::kernel::dpd_model
ph_of(unsigned P, unsigned Q, unsigned Lp, unsigned Lq)
{
    return gr::gpuinterp::kernel::dpd_model::ph_params(P, Q, Lp, Lq);
}

// The ph coefficient layout as docs/dpd.md writes it, kept here independently of the model's
// terms() so the tests can check one against the other: [h(1,0..Lp-1) h(3,..) .. g(1,0..Lq-1) ..].
inline size_t ph_num_coefficients(unsigned P, unsigned Q, unsigned Lp, unsigned Lq)
{
    return size_t((P + 1) / 2) * Lp + (Q ? size_t((Q + 1) / 2) * Lq : 0);
}
inline size_t ph_main_index(unsigned /* P */, unsigned Lp, unsigned p, unsigned k)
{
    return size_t((p - 1) / 2) * Lp + k;
}
inline size_t ph_conj_index(unsigned P, unsigned Lp, unsigned Lq, unsigned q, unsigned k)
{
    return size_t((P + 1) / 2) * Lp + size_t((q - 1) / 2) * Lq + k;
}

} // namespace gpuinterp_test

#endif
