/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// CUDA backend of the resampler. One thread per output: its position comes in closed form
// from the 64.64 fixed-point clock (fixed_phase.h), the same integers the CPU backend
// steps through, so both backends read the same samples with the same phase.
//
// Texture method, long streams: PITCH-2D TEXTURE OVER DEVICE MEMORY, not chunks of 1D
// cudaArrays. A 1D cudaArray holds at most 131072 texels, so a stream would have to be
// cut into overlapping arrays and copied into each (a cudaMemcpyToArray per chunk, a
// texture object per chunk, and a branch per output to pick the object). A pitch-2D
// texture reads device memory we already own: the window is laid out in rows of W+1
// texels where row j holds samples jW .. jW+W (the last texel duplicates the first of the
// next row, the overlap linear filtering needs), written by two strided device-to-device
// copies (cudaMemcpy2DAsync), and ONE texture object covers up to 65000 rows (266 M
// samples per launch with W = 4096). An output between samples i and i+1 fetches row
// floor(i/W) at x = (i mod W) + 0.5 + k/256 and y = row + 0.5: y sits on the row centre,
// so the vertical weight is exactly 0 and the fetch is the 1D linear filter along the
// row. W = 4096 keeps x below 2^13, where (i mod W) + 0.5 + k/256 is exact in float: the
// coordinate carries exactly the weight k/256 the CPU emulation uses, so CPU and GPU
// agree bit for bit whatever rounding the texture unit applies to coordinates. The price
// is one extra device-side read and write of the input. (Caveat: a non-finite input may
// reach the row above through the zero vertical weight.)
//
// Polyphase, tiled (the default): a block stages the whole arm table (K x (P+1)
// floats, tap-major: see poly_tiles.h) in shared memory once, then walks tiles of
// consecutive outputs (persistent blocks, grid = what fits on the SMs): per tile it loads
// the input span the tile reads (tile span + K) with coalesced loads, and each thread
// computes outputs j, j + blockDim, ... of the tile from shared memory, lanes on
// consecutive outputs (their taps are consecutive or equal samples, and their arms are
// words of one 33-word row: no bank conflicts). Same arms, same tap order, same mac()
// and the same blend as the first (untiled) kernel, which runs when the table + span do not
// fit in shared memory (r << 1 stretches the arms to K/r taps) or when the untiled
// resamp_cuda_variant is chosen.
//
// Host side: one stream; the window (history + new inputs) is staged through pinned
// memory and copied once per batch of outputs, then the kernel runs and the outputs come
// back. Not double-buffered: unlike the FIR interpolator each batch's window depends on
// where the previous batch's outputs ended, and the copies (8 B in, 8r B out per sample)
// dominate the kernel time.
//
// sc16 output: the same kernels with the sc16 store policy (resamp_kernels.cuh), which converts
// each output in the kernel's last store, so the outputs cross the bus (or reach the next block's
// device buffer) at 4 bytes instead of 8 and no conversion pass reads them again. The saturated
// and NaN counters live on the device and only grow; a call reads what they grew by in the copy
// it already waits for at its end.

#include "cuda_engines.h"
#include "resamp_engine.cuh"

namespace gr {
namespace gpuinterp {
namespace gpu {

template <typename T>
std::unique_ptr<kernel::resamp_engine<T>> make_cuda_resamp_engine(
    int device, size_t batch, unsigned channels, kernel::resamp_method method)
{
    if (channels > 1 && method != kernel::resamp_method::texture)
        return make_cuda_resamp_channels_engine<T>(device, batch, channels);
    return std::make_unique<cuda_resamp_engine<device_t<T>, T>>(device, batch, channels);
}

template std::unique_ptr<kernel::resamp_engine<float>>
make_cuda_resamp_engine<float>(int, size_t, unsigned, kernel::resamp_method);
template std::unique_ptr<kernel::resamp_engine<std::complex<float>>>
make_cuda_resamp_engine<std::complex<float>>(int,
                                             size_t,
                                             unsigned,
                                             kernel::resamp_method);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
