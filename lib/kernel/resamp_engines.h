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
 * What one call of a resampler engine runs on, for every channel: in[c] holds channel c's n_in
 * new inputs, and afterwards hist[c] holds the newest samples of [hist[c], in[c][0 .. used)]. The
 * channels share the rate, hence the plan. `device`: pointers in the backend's memory, the
 * histories possibly kept there (pull_history() brings them back).
 */
template <typename T>
struct resamp_call {
    const T* const* in;
    size_t n_in;
    std::vector<stream_history<T>>& hist;
    size_t used;
    const resamp_plan& plan;
    bool device;
};

/*!
 * The resampler's engine, one per kernel object whatever its channel count. out[c] receives
 * channel c's plan.n_out outputs: T, or with run_sc16() 2 x int16 each (complex samples;
 * kernel/sample_format.h, scale = 32767 / full scale), converted where the engine stores them
 * (the CUDA kernels' last store; the CPU a cache-resident block at a time), never as a pass of
 * its own, channel c's saturated and invalid samples added to counts[c]. The front end refuses
 * real samples with sc16 before an engine sees them. Device calls return once `out` is written.
 */
template <typename T>
class resamp_engine
{
public:
    virtual ~resamp_engine() = default;
    //! Polyphase prototype, sampled at nfilts points per unit: K*nfilts + 1 values.
    virtual void
    set_prototype(const std::vector<float>& table, unsigned K, unsigned nfilts) = 0;
    //! The histories were reset: drop any copy of them the engine keeps.
    virtual void forget_history() {}
    virtual void set_batch(size_t) {}
    //! The CUDA engines' polyphase kernel choice; the CPU engine has one kernel.
    virtual void set_cuda_variant(resamp_cuda_variant) {}
    virtual void run(T* const* out, const resamp_call<T>& call) = 0;
    virtual void run_sc16(int16_t* const* out,
                          const resamp_call<T>& call,
                          float scale,
                          sc16_counts* counts) = 0;
    //! Make every hist[c] current again when device calls kept the histories elsewhere.
    virtual void pull_history(std::vector<stream_history<T>>&) {}
    //! Channel c's sc16 input in the engine's device memory (n I/Q int16 pairs) expanded there
    //! to T, each component times `inverse`, for the next device call; valid until the next
    //! expansion of that channel. nullptr where the engine's own memory is host memory (the
    //! front end expands there).
    virtual const T* expand_sc16_device(unsigned, const int16_t*, size_t, float)
    {
        return nullptr;
    }
};

/*!
 * The base of the engines that compute one channel's window at a time (the CPU's, and the CUDA
 * engine of one channel or of the texture method, whose window needs a texture of its own): in
 * host memory each channel's window [hist[c], in[c]] is assembled and run_window() computes its
 * outputs; device calls go to run_device() per channel. run_window() is public so the tests can
 * compare engines on one window.
 */
template <typename T>
class resamp_window_engine : public resamp_engine<T>
{
public:
    //! win: `plan.hist` history samples followed by the new inputs (length n_win).
    virtual void
    run_window(T* out, const T* win, size_t n_win, const resamp_plan& plan) = 0;
    //! run_window() with sc16 output (resamp_engine::run_sc16()).
    virtual void run_window_sc16(int16_t* out,
                                 const T* win,
                                 size_t n_win,
                                 const resamp_plan& plan,
                                 float scale,
                                 sc16_counts& counts) = 0;

    void run(T* const* out, const resamp_call<T>& call) final
    {
        for (unsigned c = 0; c < call.hist.size(); c++) {
            if (call.device)
                run_device(c, out[c], call);
            else
                with_window(c, call, [&](const T* win, size_t n_win) {
                    run_window(out[c], win, n_win, call.plan);
                });
        }
    }
    void run_sc16(int16_t* const* out,
                  const resamp_call<T>& call,
                  float scale,
                  sc16_counts* counts) final
    {
        for (unsigned c = 0; c < call.hist.size(); c++) {
            if (call.device)
                run_device_sc16(c, out[c], call, scale, counts[c]);
            else
                with_window(c, call, [&](const T* win, size_t n_win) {
                    run_window_sc16(out[c], win, n_win, call.plan, scale, counts[c]);
                });
        }
    }

protected:
    /*!
     * Channel c of a device-buffer call: in[c] and `out` live in the backend's own memory (host
     * memory for the CPU backend, which is what the simulated device hands out). The window is
     * [hist[c], in[c]]; afterwards the history must hold the newest hist[c].size() samples of
     * [hist[c], in[c][0 .. used)]. An engine may keep that history in its own memory (then
     * pull_history() brings it back before the front end touches it). By default, the
     * host-memory path.
     */
    virtual void run_device(unsigned c, T* out, const resamp_call<T>& call)
    {
        with_window(c, call, [&](const T* win, size_t n_win) {
            run_window(out, win, n_win, call.plan);
        });
    }
    //! run_device() with sc16 output.
    virtual void run_device_sc16(unsigned c,
                                 int16_t* out,
                                 const resamp_call<T>& call,
                                 float scale,
                                 sc16_counts& counts)
    {
        with_window(c, call, [&](const T* win, size_t n_win) {
            run_window_sc16(out, win, n_win, call.plan, scale, counts);
        });
    }

private:
    //! Assemble channel c's window [hist, in] for compute(win, n_win) (when there is an output
    //! to compute), then advance its history by `used`.
    template <typename Compute>
    void with_window(unsigned c, const resamp_call<T>& call, Compute&& compute)
    {
        stream_history<T>& hist = call.hist[c];
        if (call.plan.n_out > 0) {
            d_host_window.resize(hist.size() + call.n_in);
            hist.window(d_host_window.data(), call.in[c], 0, call.n_in);
            compute(d_host_window.data(), d_host_window.size());
        }
        hist.advance(call.in[c], call.used);
    }

    std::vector<T> d_host_window;
};

} // namespace kernel


} // namespace gpuinterp
} // namespace gr

#endif
