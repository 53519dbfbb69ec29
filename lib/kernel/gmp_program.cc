/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "gmp_engine.h"
#include <algorithm>
#include <map>
#include <stdexcept>

namespace gr {
namespace gpuinterp {
namespace kernel {

gmp_program make_gmp_program(const dpd_model& model,
                             const std::vector<std::complex<float>>& co,
                             std::complex<float> c)
{
    // Built from the model's terms (dpd_model::terms(), the one description of the coefficient
    // layout), so a model key that yields mp/gmp-shaped terms needs nothing here. An entry is one
    // (signal lag, envelope lag) pair with its consecutive powers; lags count behind the output,
    // so the lookahead D shifts them all.
    const int D = int(model.lookahead());
    std::map<int, std::map<int, std::vector<std::pair<unsigned, size_t>>>> by_lag;
    const std::vector<dpd_model::term> terms = model.terms();
    for (size_t i = 0; i < terms.size(); i++) {
        const dpd_model::term& t = terms[i];
        if (t.conjugate)
            throw std::logic_error(
                "make_gmp_program: conjugate terms are not mp/gmp terms");
        by_lag[D + int(t.signal_lag)][D + t.envelope_lag].emplace_back(t.power, i);
    }

    gmp_program prog;
    prog.H = model.history();
    for (auto& [s, entries] : by_lag) {
        // Entries in envelope-lag order (the map's): neighbouring entries read neighbouring
        // shared-memory words.
        gmp_program::lag L{ s, int(prog.entries.size()), 0 };
        for (auto& [e, powers] : entries) {
            std::sort(powers.begin(), powers.end());
            const int k0 = int(powers.front().first);
            for (size_t j = 0; j < powers.size(); j++)
                if (powers[j].first != unsigned(k0) + j)
                    throw std::logic_error("make_gmp_program: an entry's powers must be "
                                           "consecutive");
            prog.entries.push_back({ e, k0, int(powers.size()), int(prog.coef.size()) });
            for (const auto& pw : powers)
                prog.coef.push_back(co[pw.second]);
        }
        L.end = int(prog.entries.size());
        prog.lags.push_back(L);
    }
    prog.cr = c.real();
    prog.ci = c.imag();
    return prog;
}

} // namespace kernel
} // namespace gpuinterp
} // namespace gr
