/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "gmp_engine.h"
#include <algorithm>
#include <map>

namespace gr {
namespace gpuinterp {
namespace kernel {

gmp_program make_gmp_program(const dpd_model& model,
                             const std::vector<std::complex<float>>& co,
                             std::complex<float> c)
{
    const dpd_model g = model.as_gmp();
    const int D = int(g.lookahead());
    // Per signal lag, its entries with the user-order indices of their coefficients (ascending power).
    struct pending {
        int e, k0;
        std::vector<size_t> idx;
    };
    std::map<int, std::vector<pending>> by_lag;
    if (g.Ka && g.La)
        for (unsigned l = 0; l < g.La; l++) {
            pending p{ D + int(l), 0, {} };
            for (unsigned k = 0; k < g.Ka; k++)
                p.idx.push_back(size_t(k) * g.La + l);
            by_lag[D + int(l)].push_back(std::move(p));
        }
    const size_t off_b = size_t(g.Ka) * g.La;
    if (g.Kb && g.Lb && g.Mb)
        for (unsigned l = 0; l < g.Lb; l++)
            for (unsigned m = 1; m <= g.Mb; m++) {
                pending p{ D + int(l) + int(m), 1, {} };
                for (unsigned k = 1; k <= g.Kb; k++)
                    p.idx.push_back(off_b + (size_t(k - 1) * g.Lb + l) * g.Mb + (m - 1));
                by_lag[D + int(l)].push_back(std::move(p));
            }
    const size_t off_c = off_b + size_t(g.Kb) * g.Lb * g.Mb;
    if (g.Kc && g.Lc && g.Mc)
        for (unsigned l = 0; l < g.Lc; l++)
            for (unsigned m = 1; m <= g.Mc; m++) {
                pending p{ D + int(l) - int(m), 1, {} };
                for (unsigned k = 1; k <= g.Kc; k++)
                    p.idx.push_back(off_c + (size_t(k - 1) * g.Lc + l) * g.Mc + (m - 1));
                by_lag[D + int(l)].push_back(std::move(p));
            }

    gmp_program prog;
    prog.H = g.history();
    for (auto& [s, list] : by_lag) {
        // Entries in envelope-lag order: neighbouring entries read neighbouring shared-memory words.
        std::sort(list.begin(), list.end(), [](const pending& a, const pending& b) {
            return a.e < b.e;
        });
        gmp_program::lag L{ s, int(prog.entries.size()), 0 };
        for (const auto& p : list) {
            prog.entries.push_back(
                { p.e, p.k0, int(p.idx.size()), int(prog.coef.size()) });
            for (size_t i : p.idx)
                prog.coef.push_back(co[i]);
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
