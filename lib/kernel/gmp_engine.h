/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpuinterp authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef INCLUDED_GPUINTERP_KERNEL_GMP_ENGINE_H
#define INCLUDED_GPUINTERP_KERNEL_GMP_ENGINE_H

// Internal: what a backend implements for the memory-polynomial families (mp, gmp) of
// dpd_predistorter, and the "program" form of a model the backends share.
//
// Program. With the output delayed by D = lookahead(), every term reads inputs at or behind the
// current one, so per output i (input lags relative to i, all >= 0):
//     out[i] = c + sum_s x[i-s] * g_s[i],
//     g_s[i] = sum_{entries (e, k0, cnt, off) of s} |x[i-e]|^k0 * sum_{t<cnt} coef[off+t] |x[i-e]|^t
// An entry is one envelope lag e with a run of consecutive powers k0 .. k0+cnt-1 (a: e = s, powers
// 0..Ka-1; b: e = s+m, powers 1..Kb; c: e = s-m, powers 1..Kc). The inner sum is evaluated by
// Horner's rule, 2 real fused multiply-adds per complex coefficient (the factor |x|^k0 folds into
// the accumulation into g), and the product with the signal sample costs 4 more per signal lag. Coefficients are stored in program order (entry by
// entry, ascending power), not in the user's order.

#include "dpd_engine.h"
#include <gnuradio/gpuinterp/kernel/dpd_model.h>
#include <complex>
#include <cstddef>
#include <memory>
#include <vector>

namespace gr {
namespace gpuinterp {
namespace kernel {

struct gmp_program {
    struct entry {
        int e;   //!< envelope lag behind the output
        int k0;  //!< first power
        int cnt; //!< number of consecutive powers (>= 1)
        int off; //!< first coefficient in `coef`
    };
    struct lag {
        int s;     //!< signal lag behind the output
        int first; //!< entries [first, end) belong to this lag
        int end;
    };
    size_t H = 0; //!< history: the deepest lag read
    std::vector<lag> lags;
    std::vector<entry> entries;
    std::vector<std::complex<float>> coef; //!< program order
    float cr = 0, ci = 0;                  //!< LO leakage

    //! Real fused multiply-adds (or adds/multiplies) per output that the program needs: 2 per
    //! coefficient (Horner steps and the final accumulation into g) except the constant term of
    //! each k0 = 0 entry (the constants of a lag add up ahead of time into one, which costs none),
    //! 4 per signal lag, plus 2 per power above the first of an entry's k0 (none for mp/gmp, whose
    //! k0 is 0 or 1).
    size_t fmas_per_sample() const
    {
        size_t n = 2 * coef.size() + 4 * lags.size();
        for (const auto& e : entries) {
            n -= e.k0 == 0 ? 2 : 0;
            n += e.k0 > 1 ? 2 * size_t(e.k0 - 1) : 0;
        }
        return n;
    }
};

//! Build the program of an mp or gmp model from its coefficients in the model's order (checked by the caller).
gmp_program make_gmp_program(const dpd_model& model,
                             const std::vector<std::complex<float>>& coefficients,
                             std::complex<float> c);

class gmp_engine : public dpd_stream_engine
{
public:
    //! The structure (lags, entries, H) never changes after the first call; only the values do.
    virtual void set_program(const gmp_program& p) = 0;
};

} // namespace kernel
} // namespace gpuinterp
} // namespace gr

#endif
