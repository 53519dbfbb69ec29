/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_COMMON_ENUM_NAMES_H
#define INCLUDED_GPUINTERP_COMMON_ENUM_NAMES_H

// The one enum <-> string mapping every option of the module uses (backend, methods,
// borders...): a table of {value, name} per enum. The first entry of a value is its name;
// later entries with the same value are accepted aliases ("auto" for "automatic"). An
// unknown name throws std::invalid_argument "<param>: unknown value 'x' (expected 'a',
// 'b' or 'c')".

#include <gnuradio/gpuinterp/kernel/validate.h>
#include <cstddef>
#include <string>

namespace gr {
namespace gpuinterp {

template <typename E>
struct enum_name {
    E value;
    const char* name;
};

template <typename E, size_t N>
std::string enum_to_string(E v, const enum_name<E> (&table)[N])
{
    for (const auto& e : table)
        if (e.value == v)
            return e.name;
    return "unknown";
}

template <typename E, size_t N>
E enum_from_string(const char* param,
                   const std::string& s,
                   const enum_name<E> (&table)[N])
{
    for (const auto& e : table)
        if (s == e.name)
            return e.value;
    std::string names;
    size_t n_names = 0;
    for (size_t i = 0; i < N; i++) {
        bool alias = false;
        for (size_t j = 0; j < i; j++)
            alias = alias || table[j].value == table[i].value;
        if (alias)
            continue;
        names += (n_names == 0 ? "'" : "', '") + std::string(table[i].name);
        n_names++;
    }
    // "'a', 'b', 'c'" -> "'a', 'b' or 'c'"
    const size_t last = names.rfind("', '");
    if (last != std::string::npos)
        names.replace(last, 4, "' or '");
    invalid_parameter(param, "unknown value '" + s + "' (expected " + names + "')");
}

} // namespace gpuinterp
} // namespace gr

//! Defines the pair an option's header declares, `E parse(const std::string&)` and
//! `std::string to_string(E)`, over `table`; `param` names the option in parse errors.
#define GPUINTERP_ENUM_STRINGS(E, parse, param, table)             \
    E parse(const std::string& s)                                  \
    {                                                              \
        return ::gr::gpuinterp::enum_from_string(param, s, table); \
    }                                                              \
    std::string to_string(E v) { return ::gr::gpuinterp::enum_to_string(v, table); }

#endif
