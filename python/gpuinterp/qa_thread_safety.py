#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The kernel classes' thread-safety contract: one object may be used from several Python threads;
its methods are serialised (each compute call sees the settings of the setter calls that completed
before it, never a half-applied one). Every test runs a compute loop on one thread while another
thread changes a setting back and forth, and checks each output against single-threaded references
computed beforehand, one per setting: an output mixing two settings, or a crash, fails."""

import threading
import unittest

import numpy as np
from gnuradio import gr_unittest

from gnuradio import gpuinterp

ITER = 300


def run_pair(compute, setters, n=ITER):
    """Run compute() n times on a worker thread while this thread cycles through setters; returns the
    outputs. A failure on the worker is re-raised here."""
    outs, errors = [], []
    started = threading.Event()

    def worker():
        started.wait()  # the setters are already running when the first compute call starts
        try:
            for _ in range(n):
                outs.append(compute())
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    t = threading.Thread(target=worker)
    t.start()
    i = 0
    while t.is_alive():
        setters[i % len(setters)]()
        i += 1
        started.set()
    t.join()
    if errors:
        raise errors[0]
    return outs, i


def which(out, refs, rtol=0.0, atol=0.0):
    """Index of the reference out equals (exactly, or within the tolerances), else -1."""
    for j, r in enumerate(refs):
        if out.shape == r.shape and np.allclose(out, r, rtol=rtol, atol=atol, equal_nan=False):
            return j
    return -1


class qa_thread_safety(gr_unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(7)

    def check_all_match(self, outs, refs, setter_calls, **tol):
        idx = [which(o, refs, **tol) for o in outs]
        self.assertEqual(len(outs), ITER)
        self.assertNotIn(-1, idx, "an output matches no single-threaded reference (a torn setting)")
        self.assertGreater(setter_calls, 0)
        return idx

    # -- the reported failure: resize with set_method on another thread ----------------------------
    def _resize(self, kernel_cls, dtype):
        k = kernel_cls(64, 64, 96, 80)
        if dtype == np.uint8:
            f = self.rng.integers(0, 256, (8, 64, 64)).astype(np.uint8)
        else:
            f = self.rng.standard_normal((8, 64, 64)).astype(np.float32)
        methods = ["nearest", "bilinear", "bicubic"]
        refs = []
        for m in methods:  # a fresh kernel per method: the independent single-threaded reference
            r = kernel_cls(64, 64, 96, 80, method=m)
            refs.append(r.resize(f))
        self.assertFalse(np.array_equal(refs[0], refs[1]))  # the settings must be distinguishable
        setters = [lambda m=m: k.set_method(m) for m in methods]
        outs, calls = run_pair(lambda: k.resize(f), setters)
        self.check_all_match(outs, refs, calls)
        # The normalisation setters too: mean/std pairs applied atomically.
        norms = [([0.0], [1.0]), ([0.5], [2.0])]
        k.set_method("bilinear")
        refs = [kernel_cls(64, 64, 96, 80, mean=m, std=s).resize(f) for m, s in norms]
        outs, calls = run_pair(lambda: k.resize(f), [lambda m=m, s=s: k.set_normalization(m, s)
                                                     for m, s in norms])
        self.check_all_match(outs, refs, calls)

    def test_resize_2d_kernel_f(self):
        self._resize(gpuinterp.resize_2d_kernel_f, np.float32)

    def test_resize_2d_kernel_b(self):
        self._resize(gpuinterp.resize_2d_kernel_b, np.uint8)

    # -- streaming interpolator: set_taps between two equal-length tap sets ----------------------
    def _interp(self, cls, xdtype, tdtype):
        L = 4
        taps = [self.rng.standard_normal(24), self.rng.standard_normal(24)]
        if tdtype == complex:
            taps = [t + 1j * self.rng.standard_normal(24) for t in taps]
        x = self.rng.standard_normal(200)
        if xdtype == complex:
            x = x + 1j * self.rng.standard_normal(200)
        x = x.astype(np.complex64 if xdtype == complex else np.float32)
        refs = []
        for t in taps:
            r = cls(L, list(t))
            r.filter(x)  # steady state: the history is the tail of x, as in the loop below
            refs.append(r.filter(x))
        k = cls(L, list(taps[0]))
        k.filter(x)
        outs, calls = run_pair(lambda: k.filter(x), [lambda t=t: k.set_taps(list(t)) for t in taps])
        self.check_all_match(outs, refs, calls)

    def test_polyphase_interpolator_ccf(self):
        self._interp(gpuinterp.polyphase_interpolator_ccf, complex, float)

    def test_polyphase_interpolator_fff(self):
        self._interp(gpuinterp.polyphase_interpolator_fff, float, float)

    def test_polyphase_interpolator_ccc(self):
        self._interp(gpuinterp.polyphase_interpolator_ccc, complex, complex)

    # -- table lookup: set_table between two tables, and two compute threads at once -------------
    def _lookup(self, cls, complex_table):
        tables = [self.rng.standard_normal(64), self.rng.standard_normal(64)]
        if complex_table:
            tables = [t + 1j * self.rng.standard_normal(64) for t in tables]
        x = self.rng.uniform(-2, 66, 4096).astype(np.float32)
        refs = [cls(list(t)).lookup(x) for t in tables]
        k = cls(list(tables[0]))
        outs, calls = run_pair(lambda: k.lookup(x), [lambda t=t: k.set_table(list(t)) for t in tables])
        self.check_all_match(outs, refs, calls)
        # Two compute loops on one object, no setter: both always give the reference.
        k.set_table(list(tables[1]))
        outs_main = []
        outs2, calls2 = run_pair(lambda: k.lookup(x), [lambda: outs_main.append(k.lookup(x))])
        self.check_all_match(outs2, refs[1:], calls2)
        self.assertEqual([which(o, refs[1:]) for o in outs_main], [0] * len(outs_main))

    def test_table_lookup_kernel_ff(self):
        self._lookup(gpuinterp.table_lookup_kernel_ff, False)

    def test_table_lookup_kernel_fc(self):
        self._lookup(gpuinterp.table_lookup_kernel_fc, True)

    # -- predistorter: set_coefficients between two sets ----------------------------------------
    def test_dpd_predistorter(self):
        n = gpuinterp.dpd_predistorter.num_coefficients(5, 1, 3, 2)
        sets = [(self.rng.standard_normal(n) + 1j * self.rng.standard_normal(n)) * 0.3 for _ in range(2)]
        los = [0.01 + 0.02j, -0.03j]
        x = ((self.rng.standard_normal(1000) + 1j * self.rng.standard_normal(1000)) * 0.3).astype(np.complex64)
        refs = []
        for w, c in zip(sets, los):
            r = gpuinterp.dpd_predistorter(5, 1, 3, 2, list(w), c)
            r.process(x)
            refs.append(r.process(x))
        k = gpuinterp.dpd_predistorter(5, 1, 3, 2, list(sets[0]), los[0])
        k.process(x)
        outs, calls = run_pair(lambda: k.process(x),
                               [lambda w=w, c=c: k.set_coefficients(list(w), c) for w, c in zip(sets, los)])
        self.check_all_match(outs, refs, calls)

    # -- resampler: set_rate on another thread ---------------------------------------------------
    def _resampler(self, cls, dtype):
        # A ramp x[n] = n through the linear method: every output is the input time it was taken at,
        # so consecutive outputs step by 1/r for one of the rates set (0.5 or 0.25), whatever the
        # interleaving of set_rate and resample.
        k = cls(2.0, "linear")
        chunk = 64
        ramp = np.arange(ITER * chunk, dtype=np.float64)
        pos = [0]

        def compute():
            p = pos[0]
            pos[0] += chunk
            return k.resample(ramp[p:p + chunk].astype(dtype))

        outs, calls = run_pair(compute, [lambda: k.set_rate(4.0), lambda: k.set_rate(2.0)])
        y = np.concatenate(outs).real.astype(np.float64)
        self.assertGreater(calls, 0)
        self.assertEqual(y.size, k.outputs_produced())
        self.assertEqual(y[0], 0.0)
        steps = np.diff(y)
        ok = np.isclose(steps, 0.5, atol=1e-3) | np.isclose(steps, 0.25, atol=1e-3)
        self.assertTrue(ok.all(), f"steps other than 1/r: {steps[~ok][:5]}")
        # A polyphase resampler rebuilds its stretched filter on set_rate below 1: a DC input must
        # stay DC (gain 1) through every change.
        k = cls(0.5, "polyphase")
        dc = np.ones(256, dtype=dtype)
        outs, calls = run_pair(lambda: k.resample(dc), [lambda: k.set_rate(0.7), lambda: k.set_rate(0.5)])
        y = np.concatenate(outs)
        settled = y[64:]  # past the filter's start-up from zero history
        self.assertTrue(np.all(np.isfinite(settled)))
        np.testing.assert_allclose(settled.real, 1.0, atol=2e-3)

    def test_resampler_kernel_ff(self):
        self._resampler(gpuinterp.resampler_kernel_ff, np.float32)

    def test_resampler_kernel_cc(self):
        self._resampler(gpuinterp.resampler_kernel_cc, np.complex64)

    def test_docstrings_state_the_contract(self):
        for name in ["resize_2d_kernel_f", "resize_2d_kernel_b", "polyphase_interpolator_ccf",
                     "polyphase_interpolator_fff", "polyphase_interpolator_ccc", "resampler_kernel_cc",
                     "resampler_kernel_ff", "table_lookup_kernel_ff", "table_lookup_kernel_fc",
                     "dpd_predistorter"]:
            self.assertIn("Thread safety", getattr(gpuinterp, name).__doc__, name)


if __name__ == "__main__":
    gr_unittest.run(qa_thread_safety)
