/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "block_util.h"
#include "table_lookup_impl.h"
#include <gnuradio/io_signature.h>

namespace gr {
namespace gpuinterp {

namespace {
kernel::lookup_config make_config(bool normalized,
                                  const std::string& f,
                                  const std::string& a,
                                  const std::string& p)
{
    kernel::lookup_config c;
    c.normalized = normalized;
    c.filter = kernel::filter_from_string(f);
    c.addr = kernel::address_from_string(a);
    c.precision = kernel::precision_from_string(p);
    return c;
}
} // namespace

template <class T>
int table_lookup_impl<T>::work(int noutput_items,
                               gr_vector_const_void_star& input_items,
                               gr_vector_void_star& output_items)
{
    return this->locked_work([&] {
        const size_t n = size_t(noutput_items);
        const auto* x =
            static_cast<const float*>(this->port_input(input_items, n * sizeof(float)));
        T* y = static_cast<T*>(output_items[0]);
        if (d_device_buffers)
            d_kernel->lookup_device(y, x, n);
        else
            d_kernel->lookup(y, x, n);
        return noutput_items;
    });
}

template <class T>
typename table_lookup<T>::sptr table_lookup<T>::make(const std::vector<T>& table,
                                                     bool normalized,
                                                     const std::string& filter,
                                                     const std::string& address,
                                                     const std::string& precision,
                                                     const std::string& backend,
                                                     int device,
                                                     bool device_buffers)
{
    return gnuradio::make_block_sptr<table_lookup_impl<T>>(
        std::make_unique<kernel::table_lookup<T>>(
            table,
            make_config(normalized, filter, address, precision),
            backend_from_string(backend),
            device),
        device,
        device_buffers);
}

template class table_lookup<float>;
template class table_lookup<std::complex<float>>;

} // namespace gpuinterp
} // namespace gr
