/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// See resamp_lab.h. The engine template is the library's; only its tiled kernel's block differs.
#include "cuda/resamp_engine.cuh"
#include "resamp_lab.h"
#include <stdexcept>
#include <string>

namespace gr {
namespace gpuinterp {
namespace gpu {

template <typename T>
std::unique_ptr<kernel::resamp_window_engine<T>>
make_resamp_lab_engine(int device, size_t batch, int tiled_threads)
{
    using D = device_t<T>;
    switch (tiled_threads) {
    case 128:
        return std::make_unique<cuda_resamp_engine<D, T, 128>>(device, batch);
    case 256:
        return std::make_unique<cuda_resamp_engine<D, T, 256>>(device, batch);
    case 512:
        return std::make_unique<cuda_resamp_engine<D, T, 512>>(device, batch);
    default:
        throw std::invalid_argument(
            "tiled_threads: the lab builds 128, 256 or 512, not " +
            std::to_string(tiled_threads));
    }
}

template <typename T>
std::unique_ptr<kernel::resamp_window_engine<T>> make_resamp_library_engine(int device,
                                                                            size_t batch)
{
    return std::make_unique<cuda_resamp_engine<device_t<T>, T>>(device, batch);
}

template std::unique_ptr<kernel::resamp_window_engine<float>>
make_resamp_lab_engine<float>(int, size_t, int);
template std::unique_ptr<kernel::resamp_window_engine<std::complex<float>>>
make_resamp_lab_engine<std::complex<float>>(int, size_t, int);
template std::unique_ptr<kernel::resamp_window_engine<float>>
make_resamp_library_engine<float>(int, size_t);
template std::unique_ptr<kernel::resamp_window_engine<std::complex<float>>>
make_resamp_library_engine<std::complex<float>>(int, size_t);

} // namespace gpu
} // namespace gpuinterp
} // namespace gr
