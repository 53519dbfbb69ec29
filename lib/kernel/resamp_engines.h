/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_RESAMP_ENGINES_H
#define INCLUDED_GPUINTERP_KERNEL_RESAMP_ENGINES_H

// Internal: what a backend implements for table_lookup and resampler. The front ends
// validate and keep the user-visible state; the engines own buffers and compute.

#include "fixed_phase.h"
#include <gnuradio/gpuinterp/kernel/resampler.h>
#include <gnuradio/gpuinterp/kernel/sample_format.h>
#include <gnuradio/gpuinterp/kernel/table_lookup.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

template <typename T>
class lookup_engine
{
public:
    virtual ~lookup_engine() = default;
    virtual void set_table(const std::vector<T>& table, const lookup_config& cfg) = 0;
    virtual void lookup(T* out, const float* x, size_t n) = 0;
    //! Pointers in the backend's own memory (GNU Radio device buffers); the CPU's is the host's.
    virtual void lookup_device(T* out, const float* x, size_t n) { lookup(out, x, n); }
    virtual void set_batch(size_t) {}
};

//! Everything an engine needs to compute a run of outputs (see resampler.h for the
//! conventions).
struct resamp_plan {
    resamp_method method;
    fx_pos pos0;   //!< position of the first output, relative to window index `hist`
    fx_step step;  //!< input samples per output
    size_t n_out;  //!< outputs to compute (all needed inputs are inside the window)
    size_t hist;   //!< window index of the first new input (history length)
    double scale;  //!< min(1, r): polyphase time scale
    int half_span; //!< polyphase: K/2 (taps per arm / 2)
    int nfilts;    //!< polyphase arms
    size_t back;   //!< samples before floor(t) an output reads
    size_t ahead;  //!< samples after floor(t) an output reads
};

/*!
 * What one call of a resampler engine runs on: `in` holds the n_in new inputs, and afterwards
 * `hist` holds the newest samples of [hist, in[0 .. used)]. `device`: pointers in the backend's
 * memory, the history kept there (pull_history() brings it back). One input and one history
 * for resamp_engine (resamp_call), one of each per channel for resamp_channels_engine
 * (resamp_channels_call: in[c], hist[c]).
 */
template <typename In, typename History>
struct basic_resamp_call {
    In in;
    size_t n_in;
    History& hist;
    size_t used;
    const resamp_plan& plan;
    bool device;
};

template <typename T>
using resamp_call = basic_resamp_call<const T*, stream_history<T>>;
template <typename T>
using resamp_channels_call =
    basic_resamp_call<const T* const*, std::vector<stream_history<T>>>;

//! The controls both resampler engine interfaces share.
class resamp_engine_controls
{
public:
    virtual ~resamp_engine_controls() = default;
    //! Polyphase prototype, sampled at nfilts points per unit: K*nfilts + 1 values.
    virtual void
    set_prototype(const std::vector<float>& table, unsigned K, unsigned nfilts) = 0;
    //! The history was reset: drop any copy of it the engine keeps.
    virtual void forget_history() {}
    virtual void set_batch(size_t) {}
    //! The CUDA engines' polyphase kernel choice; the CPU engine has one kernel.
    virtual void set_cuda_variant(resamp_cuda_variant) {}
};

template <typename T>
class resamp_engine : public resamp_engine_controls
{
public:
    //! win: `plan.hist` history samples followed by the new inputs (length n_win).
    virtual void
    run_window(T* out, const T* win, size_t n_win, const resamp_plan& plan) = 0;
    /*!
     * Complex samples with sc16 output (kernel/sample_format.h; scale = 32767 / full scale): the
     * outputs run_window() writes for the same window, each converted where the engine stores
     * it (the CUDA kernels' last store; the CPU a cache-resident block at a time), never as a
     * pass of its own; the saturated and invalid samples add to `counts`. The front end refuses
     * real samples before an engine sees them.
     */
    virtual void run_window_sc16(int16_t* out,
                                 const T* win,
                                 size_t n_win,
                                 const resamp_plan& plan,
                                 float scale,
                                 sc16_counts& counts) = 0;
    //! The call's plan.n_out outputs: run_device() for device buffers; in host memory,
    //! run_window() on the window [hist, in], then the history advanced by `used`.
    void run(T* out, const resamp_call<T>& call)
    {
        if (call.device)
            run_device(out, call);
        else
            run_host(out, call);
    }
    //! run() with sc16 output, as run_window_sc16().
    void
    run_sc16(int16_t* out, const resamp_call<T>& call, float scale, sc16_counts& counts)
    {
        if (call.device)
            run_device_sc16(out, call, scale, counts);
        else
            run_host_sc16(out, call, scale, counts);
    }
    //! Make `hist` current again when run_device() kept the history elsewhere.
    virtual void pull_history(stream_history<T>&) {}
    //! sc16 input in the engine's device memory (n I/Q int16 pairs) expanded there to T, each
    //! component times `inverse`, for the next device call; valid until the next expansion.
    //! nullptr where the engine's own memory is host memory (the front end expands there).
    virtual const T* expand_sc16_device(const int16_t*, size_t, float) { return nullptr; }

protected:
    /*!
     * Device-buffer calls (call.device): `in` and `out` live in the backend's own memory (host
     * memory for the CPU backend, which is what the simulated device hands out). The window is
     * [hist, in]; afterwards the history must hold the newest hist.size() samples of
     * [hist, in[0 .. used)]. An engine may keep that history in its own memory (then
     * pull_history() brings it back before the front end touches `hist`). Returns once `out` is
     * written. By default, the host-memory path.
     */
    virtual void run_device(T* out, const resamp_call<T>& call) { run_host(out, call); }
    //! run_device() with sc16 output, as run_window_sc16().
    virtual void run_device_sc16(int16_t* out,
                                 const resamp_call<T>& call,
                                 float scale,
                                 sc16_counts& counts)
    {
        run_host_sc16(out, call, scale, counts);
    }

private:
    void run_host(T* out, const resamp_call<T>& call)
    {
        with_window(call, [&](const T* win, size_t n_win) {
            run_window(out, win, n_win, call.plan);
        });
    }
    void run_host_sc16(int16_t* out,
                       const resamp_call<T>& call,
                       float scale,
                       sc16_counts& counts)
    {
        with_window(call, [&](const T* win, size_t n_win) {
            run_window_sc16(out, win, n_win, call.plan, scale, counts);
        });
    }
    //! Assemble the window [hist, in] for compute(win, n_win) (when there is an output to
    //! compute), then advance the history by `used`.
    template <typename Compute>
    void with_window(const resamp_call<T>& call, Compute&& compute)
    {
        if (call.plan.n_out > 0) {
            d_host_window.resize(call.hist.size() + call.n_in);
            call.hist.window(d_host_window.data(), call.in, 0, call.n_in);
            compute(d_host_window.data(), d_host_window.size());
        }
        call.hist.advance(call.in, call.used);
    }

    std::vector<T> d_host_window;
};

/*!
 * Every channel of a multi-channel resampler in one launch per kernel (CUDA). The channels share
 * the rate, hence the plan; each has its own history hist[c] (resamp_channels_call). out[c]
 * receives channel c's plan.n_out outputs (T, or with run_sc16() 2 x int16 each, channel c's
 * counts added to counts[c]).
 */
template <typename T>
class resamp_channels_engine : public resamp_engine_controls
{
public:
    virtual void run(T* const* out, const resamp_channels_call<T>& call) = 0;
    virtual void run_sc16(int16_t* const* out,
                          const resamp_channels_call<T>& call,
                          float scale,
                          sc16_counts* counts) = 0;
    virtual void pull_history(std::vector<stream_history<T>>& hist) = 0;
    //! resamp_engine::expand_sc16_device() for channel c (CUDA only, as this engine is).
    virtual const T*
    expand_sc16_device(unsigned c, const int16_t* in, size_t n, float inverse) = 0;
};

} // namespace kernel

} // namespace gpuinterp
} // namespace gr

#endif
