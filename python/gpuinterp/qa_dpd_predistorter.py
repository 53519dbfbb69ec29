#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA of the parallel-Hammerstein predistorter: the kernel (numpy API) and dpd_predistorter_cc
(flowgraphs) against a numpy implementation of the model; coefficient updates through the setter,
the 'coeffs' message port and 'dpd_coeffs' stream tags; bad inputs."""

import os
import threading
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp.qa_util import start_throttled

RNG = np.random.default_rng(303)
BACKENDS = ["cpu"] + (["cuda"] if gpuinterp.cuda_device_count() > 0 else [])


def ncoef(P, Q, Lp, Lq):
    return (P + 1) // 2 * Lp + ((Q + 1) // 2 * Lq if Q else 0)


def dpd_numpy(x, P, Q, Lp, Lq, co, c=0):
    """The model, straight from the equation, in complex128. Returns (z, S) with
    S[n] = |c| + sum |coef| |psi| (the scale float rounding errors live on)."""
    x = np.asarray(x, np.complex128)
    co = np.asarray(co, np.complex128)
    n = len(x)
    a2 = np.abs(x) ** 2
    z = np.full(n, complex(c), np.complex128)
    S = np.full(n, abs(complex(c)))
    Rp = (P + 1) // 2
    for p in range(1, P + 1, 2):
        psi = x * a2 ** ((p - 1) // 2)
        for k in range(min(Lp, n)):
            h = co[(p - 1) // 2 * Lp + k]
            z[k:] += h * psi[: n - k]
            S[k:] += abs(h) * np.abs(psi[: n - k])
    for q in range(1, Q + 1, 2) if Q else []:
        psi = np.conj(x * a2 ** ((q - 1) // 2))
        for k in range(min(Lq, n)):
            g = co[Rp * Lp + (q - 1) // 2 * Lq + k]
            z[k:] += g * psi[: n - k]
            S[k:] += abs(g) * np.abs(psi[: n - k])
    return z, S


def tolerance(P, Q, Lp, Lq):
    """Per-sample relative bound (times S[n]) of the float computation; derivation in
    tests/qa_dpd_predistorter.cc: 2 (3M + 3 + 2T) 2^-24, M orders, T taps over the orders."""
    M = (max(P, Q) + 1) // 2
    T = sum(max(Lp if o < (P + 1) // 2 else 0, Lq if Q and o < (Q + 1) // 2 else 0) for o in range(M))
    return 2.0 * (3 * M + 3 + 2 * T) * 2.0 ** -24


def crandn(n, peak=1.0):
    """complex64 samples with |x| <= peak, never zero."""
    r = peak * np.sqrt(RNG.uniform(0.01, 1.0, n))
    return (r * np.exp(2j * np.pi * RNG.uniform(size=n))).astype(np.complex64)


def random_coeffs(P, Q, Lp, Lq):
    co = (RNG.standard_normal(ncoef(P, Q, Lp, Lq)) + 1j * RNG.standard_normal(ncoef(P, Q, Lp, Lq))) * 0.3
    co[0] = 1.0
    return co.astype(np.complex64)


def run_block(blk, x, tags=()):
    src = blocks.vector_source_c(x.tolist() if hasattr(x, "tolist") else x, False, 1, list(tags))
    snk = blocks.vector_sink_c()
    tb = gr.top_block()
    tb.connect(src, blk, snk)
    tb.run()
    return np.array(snk.data(), np.complex64), snk.tags()


def make_tag(offset, key, value):
    t = gr.tag_t()
    t.offset = offset
    t.key = pmt.intern(key)
    t.value = value
    return t


def switch_case(P, Q, L, n, lo_b):
    """A coefficient switch on n random samples x: sets a (no leakage) and b (leakage lo_b),
    memory L on both branches, with the model's (z, S) of x through each."""
    a, b = random_coeffs(P, Q, L, L), random_coeffs(P, Q, L, L)
    x = crandn(n)
    za, Sa = dpd_numpy(x, P, Q, L, L, a, 0)
    zb, Sb = dpd_numpy(x, P, Q, L, L, b, lo_b)
    return a, b, x, za, Sa, zb, Sb


class qa_dpd_predistorter(gr_unittest.TestCase):

    def assertModel(self, got, want, S, tol, msg=""):
        self.assertEqual(len(got), len(want), msg)
        err = np.abs(got.astype(np.complex128) - want)
        worst = int(np.argmax(err - tol * S))
        self.assertTrue(np.all(err <= tol * S + 1e-30),
                        f"{msg}: index {worst} got {got[worst]} want {want[worst]} err {err[worst]:.3g} "
                        f"> {tol * S[worst]:.3g}")
        # the bound is a worst case; typical rounding is ~1 u S (see tests/qa_dpd_predistorter.cc)
        rms = np.sqrt(np.mean((err / (S + 1e-30)) ** 2)) / 2.0 ** -24
        self.assertLessEqual(rms, 16, f"{msg}: rms(err/S) = {rms:.1f} u")

    def test_001_kernel_matches_numpy_in_random_chunks(self):
        for backend in BACKENDS:
            for P, Q, Lp, Lq, peak in [(1, 0, 1, 1, 1.0), (5, 3, 5, 5, 1.0), (7, 7, 8, 8, 1.5), (9, 5, 16, 16, 4.0),
                                       (3, 5, 2, 33, 2.0), (9, 0, 33, 1, 4.0), (5, 1, 4, 7, 0.5)]:
                co = random_coeffs(P, Q, Lp, Lq)
                c = complex(0.02, -0.01)
                k = gpuinterp.dpd_predistorter(P, Q, Lp, Lq, co, c, backend=backend)
                self.assertEqual(k.active_backend(), backend)
                x = crandn(7001, peak)
                cuts = np.sort(RNG.integers(0, len(x), 12))
                y = np.concatenate([k.process(part) for part in np.split(x, cuts)])
                self.assertEqual(y.dtype, np.complex64)
                z, S = dpd_numpy(x, P, Q, Lp, Lq, co, c)
                self.assertModel(y, z, S, tolerance(P, Q, Lp, Lq), f"{backend} P={P} Q={Q} Lp={Lp} Lq={Lq}")

    def test_002_kernel_api_for_numpy_users(self):
        P, Q, Lp, Lq = 5, 3, 4, 2
        co = random_coeffs(P, Q, Lp, Lq)
        k = gpuinterp.dpd_predistorter(P, Q, Lp, Lq, co, 0.1j)  # backend defaults to "cpu"
        k2 = gpuinterp.dpd_predistorter(P, Q, Lp, Lq, coefficients=co, lo_leakage=0.1j, backend="cpu")
        np.testing.assert_array_equal(k2.coefficients(), co)
        self.assertEqual(k.active_backend(), "cpu")
        self.assertEqual(gpuinterp.dpd_predistorter.num_coefficients(P, Q, Lp, Lq), len(co))
        self.assertEqual(k.history(), 3)
        np.testing.assert_array_equal(k.coefficients(), co)
        x = crandn(500)
        y1 = k.process(x.astype(np.complex128))  # other dtypes are converted
        self.assertEqual(y1.dtype, np.complex64)
        self.assertEqual(len(k.process(np.zeros(0, np.complex64))), 0)
        k.reset()
        np.testing.assert_array_equal(k.process(x), y1)
        # set_coefficients keeps c when lo_leakage is omitted
        co2 = random_coeffs(P, Q, Lp, Lq)
        k.set_coefficients(co2)
        self.assertEqual(k.lo_leakage(), np.complex64(0.1j))
        k.set_coefficients(co2, 0.0)
        self.assertEqual(k.lo_leakage(), 0)
        # the documented layout example: P=3, Q=1, Lp=2, Lq=3 -> [h10 h11 h30 h31 g10 g11 g12]
        D = gpuinterp.dpd_predistorter
        self.assertEqual([D.main_index(3, 2, 1, 0), D.main_index(3, 2, 1, 1), D.main_index(3, 2, 3, 0),
                          D.main_index(3, 2, 3, 1), D.conj_index(3, 2, 3, 1, 0), D.conj_index(3, 2, 3, 1, 2)],
                         [0, 1, 2, 3, 4, 6])
        # one-hot coefficients land where the layout says: g_{1,2} = 1 gives conj(x[n-2])
        one = np.zeros(7, np.complex64)
        one[D.conj_index(3, 2, 3, 1, 2)] = 1
        y = gpuinterp.dpd_predistorter(3, 1, 2, 3, one).process(x)
        np.testing.assert_array_equal(y[2:], np.conj(x[:-2]))
        np.testing.assert_array_equal(y[:2], 0)

    def test_003_block_matches_numpy_and_propagates_tags(self):
        for backend in BACKENDS:
            for P, Q, L in [(5, 3, 5), (7, 7, 8), (9, 5, 16)]:
                co = random_coeffs(P, Q, L, L)
                x = crandn(30011, 0.9)
                blk = gpuinterp.dpd_predistorter_cc(P, Q, L, L, co.tolist(), 0.01 + 0.02j, backend)
                self.assertEqual(blk.active_backend(), backend)
                y, tags = run_block(blk, x, [make_tag(777, "mark", pmt.from_long(7))])
                z, S = dpd_numpy(x, P, Q, L, L, co, 0.01 + 0.02j)
                self.assertModel(y, z, S, tolerance(P, Q, L, L), f"{backend} {P},{Q},{L}")
                self.assertEqual([(t.offset, pmt.symbol_to_string(t.key)) for t in tags], [(777, "mark")])

    def test_004_tags_switch_at_the_tagged_sample(self):
        P, Q, Lp, Lq = 5, 3, 5, 3
        a, b, c = (random_coeffs(P, Q, Lp, Lq) for _ in range(3))
        x = crandn(20000)
        for backend in BACKENDS:
            tags = [make_tag(4321, "dpd_coeffs", pmt.to_pmt(b)),                  # c32vector: keeps c
                    make_tag(6000, "dpd_coeffs", pmt.intern("not coefficients")),  # ignored
                    make_tag(12345, "dpd_coeffs", pmt.to_pmt({"coefficients": c, "lo_leakage": 0.5j}))]
            y, out_tags = run_block(gpuinterp.dpd_predistorter_cc(P, Q, Lp, Lq, a, 0.1, backend), x, tags)
            za, Sa = dpd_numpy(x, P, Q, Lp, Lq, a, 0.1)
            zb, Sb = dpd_numpy(x, P, Q, Lp, Lq, b, 0.1)
            zc, Sc = dpd_numpy(x, P, Q, Lp, Lq, c, 0.5j)
            z = np.concatenate([za[:4321], zb[4321:12345], zc[12345:]])
            S = np.concatenate([Sa[:4321], Sb[4321:12345], Sc[12345:]])
            self.assertModel(y, z, S, tolerance(P, Q, Lp, Lq), backend)
            self.assertEqual(sorted(t.offset for t in out_tags), [4321, 6000, 12345])

    def test_005_message_port(self):
        P, Q, L = 3, 1, 4
        a, b, x, za, Sa, zb, Sb = switch_case(P, Q, L, 6000, 0.25)
        tol = tolerance(P, Q, L, L)
        for backend in BACKENDS:
            for msg, z, S in [(pmt.cons(pmt.to_pmt(b), pmt.from_complex(0.25)), zb, Sb),      # pair
                              (pmt.to_pmt({"coefficients": b, "lo_leakage": 0.25}), zb, Sb),   # dict
                              (pmt.to_pmt(np.zeros(3, np.complex64)), za, Sa),                 # wrong length
                              (pmt.intern("hello"), za, Sa)]:                                  # malformed
                blk = gpuinterp.dpd_predistorter_cc(P, Q, L, L, a, 0, backend)
                # posted before the run: handled before the first work(), so the whole stream sees it
                blk._post(pmt.intern("coeffs"), msg)
                y, _ = run_block(blk, x)
                self.assertModel(y, z, S, tol, f"{backend} {pmt.write_string(msg)[:40]}")
            # a message connected from another block while running (message_strobe) keeps the
            # flowgraph running and lands between two work() calls: every output is from a or b
            blk = gpuinterp.dpd_predistorter_cc(P, Q, L, L, a, 0, backend)
            strobe = blocks.message_strobe(pmt.cons(pmt.to_pmt(b), pmt.from_complex(0.25)), 5)
            src = blocks.vector_source_c(np.tile(x, 40).tolist(), False)
            thr = blocks.throttle(gr.sizeof_gr_complex, 4e6)
            snk = blocks.vector_sink_c()
            tb = gr.top_block()
            tb.connect(src, thr, blk, snk)
            tb.msg_connect(strobe, "strobe", blk, "coeffs")
            tb.start()
            # a message_strobe never finishes: wait for the stream, then stop the flowgraph
            deadline = time.time() + 60
            while len(snk.data()) < 40 * len(x) and time.time() < deadline:
                time.sleep(0.01)
            tb.stop()
            tb.wait()
            y = np.array(snk.data())
            self.assertEqual(len(y), 40 * len(x))
            self._assert_switch(y, np.tile(za, 40), np.tile(zb, 40), tol * np.tile(np.maximum(Sa, Sb), 40),
                                L - 1, len(x))
            np.testing.assert_array_equal(blk.coefficients(), b)

    def _assert_switch(self, y, za, zb, tol, hist, period):
        """y follows a, then b from one switch point on; near period boundaries the references
        (computed per period with zero history) differ from the stream's true history, so the
        first `hist` samples of every period are not compared."""
        keep = np.ones(len(y), bool)
        for s in range(0, len(y), period):
            keep[s:s + hist] = False
        is_a = np.abs(y - za) <= tol + 1e-6
        is_b = np.abs(y - zb) <= tol + 1e-6
        self.assertTrue(np.all((is_a | is_b)[keep]), "an output matches neither set")
        only_b = np.nonzero(keep & is_b & ~is_a)[0]
        only_a = np.nonzero(keep & is_a & ~is_b)[0]
        self.assertGreater(len(only_b), 0, "the update never landed")
        if len(only_a):
            self.assertLess(only_a.max(), only_b.min(), "outputs went back to the old set")

    def test_006_setter_while_running(self):
        P, Q, L = 5, 3, 5
        a, b, x, za, Sa, zb, Sb = switch_case(P, Q, L, 5000, 0)
        for backend in BACKENDS:
            blk = gpuinterp.dpd_predistorter_cc(P, Q, L, L, a, 0, backend)
            tb, snk = start_throttled(blk, np.tile(x, 60), 3e6)
            time.sleep(0.03)
            blk.set_coefficients(b.tolist(), 0)
            with self.assertRaises(ValueError):  # refused while running; the flowgraph goes on
                blk.set_coefficients([1, 2, 3], 0)
            tb.wait()
            y = np.array(snk.data())
            self.assertEqual(len(y), 60 * len(x))
            self._assert_switch(y, np.tile(za, 60), np.tile(zb, 60),
                                tolerance(P, Q, L, L) * np.tile(np.maximum(Sa, Sb), 60), L - 1, len(x))

    def test_007_bad_inputs_raise_value_errors_naming_the_parameter(self):
        ok = [0.1] * ncoef(3, 1, 2, 2)
        cases = [
            (lambda: gpuinterp.dpd_predistorter(4, 1, 2, 2, ok), "P: must be odd"),
            (lambda: gpuinterp.dpd_predistorter(3, 2, 2, 2, ok), "Q:"),
            (lambda: gpuinterp.dpd_predistorter(3, 1, 0, 2, ok), "Lp:"),
            (lambda: gpuinterp.dpd_predistorter(3, 1, 2, 0, ok), "Lq:"),
            (lambda: gpuinterp.dpd_predistorter(3, 1, 2, 2, ok[:-1]),
             "coefficients: expected 6 values for ph:P=3,Q=1,Lp=2,Lq=2 (got 5)"),
            (lambda: gpuinterp.dpd_predistorter(3, 1, 2, 2, ok[:-1] + [float("nan")]), "coefficients: element 5"),
            (lambda: gpuinterp.dpd_predistorter(3, 1, 2, 2, ok, complex("inf")), "lo_leakage:"),
            (lambda: gpuinterp.dpd_predistorter(3, 1, 2, 2, ok, 0, "opencl"), "backend:"),
            (lambda: gpuinterp.dpd_predistorter_cc(3, 1, 2, 2, ok, 0, "cpu", -1), "device:"),
            (lambda: gpuinterp.dpd_predistorter_cc(3, 1, 2, 2, ok, 0, "cpu", 0, -5), "batch:"),
            (lambda: gpuinterp.dpd_predistorter_cc(8, 1, 2, 2, ok), "P:"),
            (lambda: gpuinterp.dpd_predistorter(3, 1, 2, 2, ok).process(np.zeros((2, 2), np.complex64)), "x:"),
        ]
        for f, prefix in cases:
            with self.assertRaises(ValueError) as cm:
                f()
            self.assertTrue(str(cm.exception).startswith(prefix), f"{cm.exception!r} !~ {prefix}")
        k = gpuinterp.dpd_predistorter(3, 1, 2, 2, ok, 0.5)
        with self.assertRaises(ValueError):
            k.set_coefficients(ok + [1])
        np.testing.assert_array_equal(k.coefficients(), np.array(ok, np.complex64))  # unchanged
        if not BACKENDS[1:]:
            with self.assertRaises(RuntimeError):
                gpuinterp.dpd_predistorter(3, 1, 2, 2, ok, 0, "cuda")


if __name__ == "__main__":
    gr_unittest.run(qa_dpd_predistorter)
