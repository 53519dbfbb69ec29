/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_DPD_BANK_H
#define INCLUDED_GPUINTERP_KERNEL_DPD_BANK_H

#include <gnuradio/gpuinterp/kernel/channels.h>
#include <gnuradio/gpuinterp/kernel/dpd_predistorter.h>
#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <complex>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

class dpd_bank_engine;

/*!
 * \brief Where and how the bank runs, and its ports' formats: the kernel's side of the
 * blocks' stream options (stream_options.h), checked once, by the bank's constructor.
 * A backend alone converts to options (the common case in code and tests).
 */
struct dpd_bank_options {
    backend requested = backend::cpu; //!< as dpd_predistorter's
    int device = 0;                   //!< CUDA device index
    size_t batch = 0; //!< most samples per GPU launch (0: dpd_predistorter's default)
    //! CUDA polynomial engines: host staging through mapped memory (no neural engine has it)
    bool mapped = false;
    sample_format input_format = sample_format::fc32;  //!< complex float or sc16
    sample_format output_format = sample_format::fc32; //!< complex float or sc16
    //! The magnitude that maps to 32767 on every sc16 side (> 0, finite; unused when both
    //! sides are complex float).
    float full_scale = 1.0f;

    dpd_bank_options() = default;
    dpd_bank_options(backend b) : requested(b) {} // NOLINT(google-explicit-constructor)
};

/*!
 * \brief N predistorters of one model, each channel with its own coefficients and history,
 * reading and writing complex float or sc16 (sample_format.h): the transmit side of a
 * multi-channel radio.
 *
 * \details The predistorter kernel: dpd_predistorter (dpd_predistorter.h) is its one-channel
 * form. Channel c is exactly a dpd_predistorter of the same model and channel c's coefficients,
 * fed channel c's samples: on the CPU bit for bit; on CUDA the ph model
 * runs all channels in one launch (tiled kernel, gridDim.y = channel) with the same arithmetic
 * as the single-channel kernel; mp/gmp on CUDA run one launch per channel (complex float in and
 * out only).
 *
 * sc16 input: each input is converted as sample_format.h says (times full_scale / 32767), in the
 * kernel's window load on CUDA (the history and the host staging stay sc16, 4 bytes a sample),
 * per cache-resident chunk on the CPU; channel c then equals a complex float predistorter fed
 * the converted values, bit for bit on the CPU.
 *
 * sc16 output: each output is converted as sample_format.h says, inside the kernel's last store
 * on CUDA, per cache-resident chunk on the CPU. Saturated and invalid samples are counted per
 * channel (counts()), cumulatively since construction or reset_counts().
 *
 * process(out, in, n): in[c] holds n inputs of channel c, out[c] receives n outputs, each in its
 * format (complex float, or 2 x int16 per sample). process_device(): the same with device
 * pointers (GNU Radio device buffers) on CUDA, host pointers on the CPU.
 */
class dpd_bank
{
public:
    using complex = std::complex<float>;
    //! Most channels one bank takes: kernel/channels.h's bound, shared with the FIR and the
    //! resampler (one launch carries every channel's pointers).
    static constexpr unsigned max_channels = kernel::max_channels;

    using options = dpd_bank_options;

    /*!
     * \param model the structure shared by the channels
     * \param channels 1 .. max_channels
     * \param coefficients model.num_coefficients() values, the initial set of every channel
     * \param lo_leakage the initial c of every channel
     * \param o where it runs and its formats
     */
    dpd_bank(const dpd_model& model,
             unsigned channels,
             const std::vector<complex>& coefficients,
             complex lo_leakage = complex(0),
             const options& o = {});
    /*!
     * \brief N neural predistorters (gru, tdnn) of one model: channel c is a dpd_predistorter
     * built with channel c's weights (one engine per channel, either backend; sc16 on the CPU).
     * \param weights model.num_weights() finite values, the initial set of every channel
     * Other parameters as above (no mapped staging for the neural engines).
     */
    dpd_bank(const dpd_model& model,
             unsigned channels,
             const std::vector<float>& weights,
             const options& o = {});
    ~dpd_bank();
    dpd_bank(const dpd_bank&) = delete;
    dpd_bank& operator=(const dpd_bank&) = delete;

    void process(void* const* out, const void* const* in, size_t n);
    void process_device(void* const* out, const void* const* in, size_t n);
    //! Complex float input: the same.
    void process(void* const* out, const complex* const* in, size_t n)
    {
        process(out, reinterpret_cast<const void* const*>(in), n);
    }
    void process_device(void* const* out, const complex* const* in, size_t n)
    {
        process_device(out, reinterpret_cast<const void* const*>(in), n);
    }
    //! Conveniences for bindings and tests: in, n = size / channels per channel, channel-major;
    //! returns the outputs channel-major (sc16: I, Q as int16 pairs). The complex inputs need a
    //! complex float bank input, the int16 ones (I, Q pairs) an sc16 one.
    std::vector<complex> process(const std::vector<complex>& in);
    std::vector<int16_t> process_sc16(const std::vector<complex>& in);
    std::vector<complex> process(const std::vector<int16_t>& in);
    std::vector<int16_t> process_sc16(const std::vector<int16_t>& in);

    //! Channel c's set; validated first (std::invalid_argument naming the parameter), unchanged
    //! on error. Outputs of the next call use it (switching at a sample boundary, as
    //! dpd_predistorter::set_coefficients()).
    void set_coefficients(unsigned channel,
                          const std::vector<complex>& coefficients,
                          complex lo_leakage);
    //! Channels first .. last take the set, validated once (none changes on error);
    //! lo_leakage nullopt: each keeps its own c.
    void set_coefficients(unsigned first,
                          unsigned last,
                          const std::vector<complex>& coefficients,
                          std::optional<complex> lo_leakage);
    //! Empty for a neural model.
    const std::vector<complex>& coefficients(unsigned channel) const;
    complex lo_leakage(unsigned channel) const;
    //! Neural models: channel c's weights, validated first and switched as set_coefficients().
    void set_weights(unsigned channel, const std::vector<float>& weights);
    //! Channels first .. last take the weights, validated once.
    void set_weights(unsigned first, unsigned last, const std::vector<float>& weights);
    //! gru on CUDA: warm-up steps of every chunk after the first (dpd_predistorter::set_warmup).
    void set_warmup(size_t samples);
    size_t warmup() const;
    //! Empty for a polynomial model.
    const std::vector<float>& weights(unsigned channel) const;
    sc16_counts counts(unsigned channel) const;
    void reset_counts();
    void reset(); //!< every channel's history to zero

    unsigned channels() const { return d_channels; }
    sample_format output_format() const { return d_o.output_format; }
    sample_format input_format() const { return d_o.input_format; }
    float full_scale() const { return d_o.full_scale; }
    const dpd_model& model() const { return d_model; }
    size_t delay() const { return d_model.lookahead(); }
    void set_batch(size_t batch);
    size_t batch() const { return d_o.batch; }
    void set_cuda_variant(dpd_cuda_variant v);
    dpd_cuda_variant cuda_variant() const { return d_variant; }
    //! The kernel running (the first channel's; the one-launch bank's tiled body).
    dpd_cuda_variant active_cuda_variant() const;
    bool mapped() const { return d_o.mapped; }
    backend active_backend() const { return d_backend; }
    const std::string& backend_note() const { return d_note; }
    //! True when all channels run in one launch (CUDA, ph model).
    bool one_launch() const;

private:
    void check_channel(unsigned channel) const;
    void check_range(unsigned first, unsigned last) const;
    //! The engine (make_dpd_bank_engine()), then set_values() gives it its first values, then
    //! the backend note gains what the engine says of itself.
    template <typename Values>
    void make_engine(Values&& set_values);
    void apply_values(unsigned first,
                      unsigned last,
                      const std::vector<complex>& coefficients,
                      std::optional<complex> lo_leakage);
    dpd_bank(const dpd_model& model, unsigned channels, const options& o);

    dpd_model d_model;
    unsigned d_channels;
    options d_o; //!< as given, batch resolved
    dpd_cuda_variant d_variant = dpd_cuda_variant::automatic;
    backend d_backend = backend::cpu;
    std::string d_note;
    std::vector<std::vector<complex>> d_coeffs;
    std::vector<complex> d_c;
    std::vector<std::vector<float>> d_weights;
    //! Every channel's (lib/kernel/dpd_bank_engine.h): one launch for all, or one per channel.
    std::unique_ptr<dpd_bank_engine> d_engine;
};

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
