# SPDX-License-Identifier: GPL-3.0-or-later
"""Double-precision numpy references of gpuinterp's stream blocks, for tests and examples."""

import numpy as np


def polyphase_resample(x, rate, nfilts=32, taps_per_arm=32, attenuation_db=80.0):
    """What resampler_cc(rate, "polyphase", nfilts, taps_per_arm, attenuation_db) outputs for the
    whole stream x, in double precision: y_k = sum_n x[n] w(t_k - n) at t_k = k D, D = 1/rate
    rounded to a double and k D taken exactly, as the block's 64.64 fixed-point clock does (k / rate
    rounded could land on the other side of an integer and pick the other edge tap); the first
    output at input 0, zero history, no delay, so output k exists once input floor(t_k) + K/2 does;
    w the block's windowed-sinc table (polyphase_prototype: nfilts samples per input sample of
    h(tau), tau in [-K/2, K/2]) interpolated linearly between arms. rate >= 1 only (below 1 the
    block stretches the filter by 1/rate)."""
    from gnuradio import gpuinterp

    if rate < 1:
        raise ValueError("rate: the reference covers rate >= 1")
    table = np.asarray(gpuinterp.polyphase_prototype(nfilts, taps_per_arm, attenuation_db),
                       dtype=np.float64)
    x = np.asarray(x, dtype=np.complex128)
    half = taps_per_arm // 2
    a, b = (1.0 / rate).as_integer_ratio()  # D = a / b exactly, b a power of two
    prod = np.arange(int(np.ceil(max(0, len(x) - half) * rate)) + 2, dtype=np.int64).astype(object) * a
    i = (prod // b).astype(np.int64)
    keep = i + half <= len(x) - 1
    i = i[keep]
    mu = (prod[keep] % b).astype(np.float64) / b  # exact numerator, one rounding
    xp = np.concatenate([np.zeros(half, dtype=np.complex128), x])
    y = np.zeros(len(i), dtype=np.complex128)
    for m in range(taps_per_arm):  # tap m reads x[i - (half - 1) + m] at tau = t - n
        n = i - (half - 1) + m
        pos = ((i - n) + mu + half) * nfilts
        j = np.minimum(np.floor(pos).astype(np.int64), len(table) - 2)
        y += (table[j] + (pos - j) * (table[j + 1] - table[j])) * xp[n + half]
    return y


class seeded_case:
    """Mixin of the QA test cases that draw random inputs: before each test, self.rng is a generator
    seeded anew with the class's `seed`, so a test draws the same numbers whether it runs alone or
    after others; rand_c(n) draws n complex Gaussian samples whose real and imaginary parts have
    standard deviation `scale` (the class's `rand_scale` unless given), signal(n, cplx) a block's
    input stream. Put it before gr_unittest.TestCase in the bases."""

    seed = 0
    rand_scale = 1.0

    def setUp(self):
        self.rng = np.random.default_rng(self.seed)

    def rand_c(self, n, scale=None):
        scale = self.rand_scale if scale is None else scale
        return scale * (self.rng.standard_normal(n) + 1j * self.rng.standard_normal(n))

    def signal(self, n, cplx):
        """n samples of Gaussian noise of standard deviation 0.3 per component: complex64 when
        cplx, else float32."""
        x = self.rng.standard_normal(n) + (1j * self.rng.standard_normal(n) if cplx else 0)
        return (0.3 * x).astype(np.complex64 if cplx else np.float32)
