/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
// Table lookup front end: validation and the user-visible state; the engines compute.
#include "engine_factory.h"
#include <gnuradio/gpuinterp/kernel/table_lookup.h>
#include <gnuradio/gpuinterp/kernel/validate.h>
#include <cmath>

namespace gr {
namespace gpuinterp {
namespace kernel {

template <typename T>
table_lookup<T>::table_lookup(const std::vector<T>& table,
                              const lookup_config& cfg,
                              backend requested,
                              int device,
                              size_t batch)
    : d_cfg(cfg)
{
    require_nonempty_finite("table", table);
    const backend_choice choice = select_backend(requested, device);
    d_backend = choice.selected;
    d_note = choice.reason;
    d_engine = make_lookup_engine<T>(d_backend, device, batch ? batch : default_batch);
    set_table(table);
}

template <typename T>
table_lookup<T>::~table_lookup() = default;

template <typename T>
void table_lookup<T>::set_table(const std::vector<T>& table)
{
    require_nonempty_finite("table", table);
    d_engine->set_table(table,
                        d_cfg); // may refuse (CUDA: wider than the device's 1D textures)
    d_table = table;
}

template <typename T>
void table_lookup<T>::lookup(T* out, const float* x, size_t n)
{
    if (n == 0)
        return;
    d_engine->lookup(out, x, n);
}

template <typename T>
void table_lookup<T>::lookup_device(T* out, const float* x, size_t n)
{
    if (n == 0)
        return;
    d_engine->lookup_device(out, x, n);
}

template <typename T>
std::vector<T> table_lookup<T>::lookup(const std::vector<float>& x)
{
    std::vector<T> y(x.size());
    lookup(y.data(), x.data(), x.size());
    return y;
}

template class table_lookup<float>;
template class table_lookup<std::complex<float>>;

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
