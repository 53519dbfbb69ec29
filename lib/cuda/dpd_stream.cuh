/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_CUDA_DPD_STREAM_CUH
#define INCLUDED_GPUINTERP_CUDA_DPD_STREAM_CUH

// The streaming half both predistorter CUDA engines share (ph: dpd_predistorter.cu, mp/gmp:
// gmp_engine.cu): the input history on the host and, in device-buffer mode, on the device; the
// two-slot host pipeline; and the device-resident timing of a kernel. An engine supplies only its
// launch, `launch(x, y, n, st)`: n outputs y from x, which holds the H history samples, then the
// n inputs. dpd_stream_engine below holds it, and whatever else the engines share, for both.

#include "../common/parallel.h"
#include "../kernel/dpd_engine.h"
#include "cuda_common.cuh"
#include "device_history.cuh"
#include "host_pipeline.cuh"
#include <gnuradio/gpuinterp/kernel/stream_history.h>
#include <complex>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace gpu {

class dpd_stream
{
public:
    using cf = std::complex<float>;

    //! mapped: the pipeline's staging is mapped pinned memory the kernels read in place.
    dpd_stream(int device, size_t batch, bool mapped)
        : d_device(device), d_batch(batch), d_pipe(device, mapped)
    {
        if (mapped) {
            device_guard guard(d_device);
            int can_map = 0;
            GPUINTERP_CUDA_CHECK(
                cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, device));
            if (!can_map)
                throw std::runtime_error("mapped: device " + std::to_string(device) +
                                         " cannot map host memory");
        }
    }

    size_t history() const { return d_hist.size(); }
    void set_history(size_t H) { d_hist.resize(H); }
    void reset()
    {
        d_hist.clear();
        d_dev_hist.invalidate();
    }
    void set_batch(size_t b) { d_batch = b; }
    cudaStream_t stream0() const { return d_pipe.stream0(); }

    //! Host memory in and out: chunks of `batch` samples through the pipeline.
    template <typename L>
    void process(cf* out, const cf* in, size_t n, L&& launch)
    {
        device_guard guard(d_device);
        d_dev_hist.pull(d_hist);
        const size_t H = d_hist.size();
        d_pipe.run(
            reinterpret_cast<float2*>(out),
            n,
            d_batch,
            { H, 1, 1 },
            [&](float2* pinned, size_t pos, size_t cnt) {
                // The H samples before `pos` (history or input), then the chunk, copied by threads.
                cf* staged = reinterpret_cast<cf*>(pinned);
                d_hist.window(staged, in, pos, 0);
                cpu::parallel_copy(staged + H, in + pos, cnt * sizeof(cf));
            },
            launch);
        d_hist.advance(in, n);
    }

    //! Device-buffer entry point: device pointers, history kept on the device (device_history.cuh);
    //! ends with a synchronise of this engine's stream only.
    template <typename L>
    void process_device(cf* out, const cf* in, size_t n, L&& launch)
    {
        device_guard guard(d_device);
        const size_t H = d_hist.size();
        cudaStream_t st = d_pipe.stream0();
        float2* y = reinterpret_cast<float2*>(out);
        d_dev_hist.run(d_hist,
                       reinterpret_cast<const float2*>(in),
                       n,
                       st,
                       [&](const float2* x, size_t first, size_t count) {
                           launch(x - H, y + first, count, st);
                       });
        GPUINTERP_CUDA_CHECK(cudaStreamSynchronize(st));
    }

private:
    int d_device;
    size_t d_batch;
    kernel::stream_history<cf> d_hist;
    device_history<float2, cf> d_dev_hist; // device-buffer mode
    // Last member, so destroyed first: its destructor waits for both streams before the members
    // above free memory that queued work may still use.
    host_pipeline<float2, float2> d_pipe;
};

/*!
 * What the two engines share around their launch: the device, the requested variant, the
 * model's copy on the device (`Word`s: the ph maps as float4, the mp/gmp program as int4), the
 * dpd_stream and the stream entry points, all handed to that stream. `Engine` derives from this
 * with `Base` its interface (kernel::dpd_engine or kernel::gmp_engine) and provides
 * `launcher()`, its launch, and `configure()`, which resolves it for d_requested once a model
 * is loaded.
 */
template <typename Base, typename Engine, typename Word>
class dpd_stream_engine : public Base
{
public:
    using cf = std::complex<float>;
    void process(cf* out, const cf* in, size_t n) override
    {
        d_stream.process(out, in, n, self().launcher());
    }
    void process_device(cf* out, const cf* in, size_t n) override
    {
        d_stream.process_device(out, in, n, self().launcher());
    }
    void reset() override { d_stream.reset(); }
    void set_batch(size_t b) override { d_stream.set_batch(b); }
    void set_variant(kernel::dpd_cuda_variant v) override
    {
        d_requested = v;
        if (loaded())
            self().configure();
    }

protected:
    dpd_stream_engine(int device, size_t batch, bool mapped)
        : d_device(device), d_stream(device, batch, mapped)
    {
    }

    bool loaded() const { return d_model.capacity() != 0; }

    //! Copies a model's `count` words (floats or ints, four to a Word) to the device, the
    //! engine's own state for it already set; the first model also sizes the history to its H
    //! samples and configures the engine. The entry points drain their work before they return,
    //! so no kernel reads the copy being replaced; upload() lands it before the next one.
    template <typename T>
    void store_model(const T* words, size_t count, size_t H)
    {
        static_assert(sizeof(Word) == 4 * sizeof(T), "four words to a Word");
        const bool first = !loaded();
        d_model.reserve(count / 4);
        upload(reinterpret_cast<T*>(d_model.get()), words, count);
        if (first) {
            d_stream.set_history(H);
            self().configure();
        }
    }

    const int d_device;
    kernel::dpd_cuda_variant d_requested = kernel::dpd_cuda_variant::automatic;
    device_buffer<Word> d_model;

private:
    Engine& self() { return static_cast<Engine&>(*this); }

    // Last member, so destroyed first: its pipeline waits for both streams before d_model and
    // the engine's own members free memory that queued work may still use.
    dpd_stream d_stream;
};

} // namespace gpu
} // namespace gpuinterp
} // namespace gr

#endif
