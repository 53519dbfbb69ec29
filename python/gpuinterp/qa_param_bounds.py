#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Messages for bad parameters name the right parameter and state the bound the code enforces.

qa_bad_params checks that a bad value is refused with the parameter's name; this table checks the
stated range too: just past each end the message must give both ends, and at each end the value
must not be refused for that parameter (so the stated bound is the true one). Before, a value
beyond the C type said "batch: must be an integer >= 0, got 2147483648" (a bound it met),
interpolation, nfilts, P and the others named the C type's range instead of the kernel's,
resize_2d kernels of 1 x 2*10^9 pixels (within the 2^31-1 elements per frame) failed with
std::bad_alloc, and a few inputs ended in numpy's messages or named a parameter the caller does
not have."""

import unittest

from gnuradio import gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp.pa_models import pa_model_cc

TAPS = [0.25, 0.5, 0.25]
TABLE = [0.0, 1.0, 4.0, 9.0]
CO = [1.0, 0, 0.1, 0]  # P=3, Q=0, Lp=2, Lq=1
I32 = 2 ** 31 - 1
SIDE = 2 ** 20

# (label, factory, valid keyword arguments, parameter, lo, hi, check the ends are accepted)
# Ends are not tried where a valid end value would allocate gigabytes (batch, frame sides).
BOUNDS = []
for t in ("ccf", "fff", "ccc"):
    for kind in ("interp_fir", "polyphase_interpolator"):
        f = getattr(gpuinterp, f"{kind}_{t}")
        kw = dict(interpolation=2, taps=TAPS, backend="cpu")
        BOUNDS += [(f"{kind}_{t}", f, kw, "interpolation", 1, 65536, True),
                   (f"{kind}_{t}", f, kw, "device", 0, I32, True),
                   (f"{kind}_{t}", f, kw, "batch", 0, I32, False)]
for t in ("cc", "ff"):
    for kind in ("resampler", "resampler_kernel"):
        f = getattr(gpuinterp, f"{kind}_{t}")
        kw = dict(rate=1.5, backend="cpu")
        BOUNDS += [(f"{kind}_{t}", f, kw, "nfilts", 2, 4096, True),
                   (f"{kind}_{t}", f, kw, "taps_per_arm", 4, 512, True),
                   (f"{kind}_{t}", f, kw, "device", 0, I32, True)]
    BOUNDS.append((f"resampler_kernel_{t}", getattr(gpuinterp, f"resampler_kernel_{t}"), dict(rate=1.5, backend="cpu"),
                   "batch", 0, I32, False))
BOUNDS += [
    ("polyphase_prototype", gpuinterp.polyphase_prototype, {}, "nfilts", 2, 4096, False),
    ("polyphase_prototype", gpuinterp.polyphase_prototype, {}, "taps_per_arm", 4, 512, True),
]
for label, f in (("dpd_predistorter", gpuinterp.dpd_predistorter), ("dpd_predistorter_cc", gpuinterp.dpd_predistorter_cc)):
    kw = dict(P=3, Q=0, Lp=2, Lq=1, coefficients=CO, backend="cpu")
    # The ends fail on the coefficient count, which is another parameter: that is the point.
    BOUNDS += [(label, f, kw, "P", 1, 15, True), (label, f, kw, "Q", 0, 15, True),
               (label, f, kw, "Lp", 1, 1024, True), (label, f, kw, "Lq", 1, 1024, True),
               (label, f, kw, "device", 0, I32, True), (label, f, kw, "batch", 0, I32, False)]
for t in ("ff", "fc"):
    for kind in ("table_lookup", "table_lookup_kernel"):
        BOUNDS.append((f"{kind}_{t}", getattr(gpuinterp, f"{kind}_{t}"), dict(table=TABLE, backend="cpu"),
                       "device", 0, I32, True))
for name in ("resize_2d_kernel_f", "resize_2d_kernel_b", "resize_2d_ff", "resize_2d_bf"):
    f = getattr(gpuinterp, name)
    kw = dict(in_height=8, in_width=8, out_height=4, out_width=4, backend="cpu")
    for p in ("in_height", "in_width", "out_height", "out_width"):
        BOUNDS.append((name, f, kw, p, 1, SIDE, False))
    BOUNDS.append((name, f, kw, "device", 0, I32, True))


def interp_set_batch(batch):
    gpuinterp.interp_fir_ccf(2, TAPS, backend="cpu").set_batch(batch)


def inputs_needed(rate):
    k = gpuinterp.resampler_kernel_cc(rate, backend="cpu")
    return lambda n_out: k.inputs_needed(n_out)


# Methods: (label, function of the value, parameter, lo, hi, check the ends)
METHODS = [
    ("interp_fir_ccf.set_batch", interp_set_batch, "batch", 0, I32, False),
    ("dpd_predistorter_cc.set_batch",
     lambda b: gpuinterp.dpd_predistorter_cc(3, 0, 2, 1, CO, backend="cpu").set_batch(b), "batch", 0, I32, False),
    # inputs_needed works in int64 input positions: n_out up to 2^62 * min(rate, 1) fits.
    ("resampler_kernel_cc(1.5).inputs_needed", inputs_needed(1.5), "n_out", 0, 2 ** 62, True),
    ("resampler_kernel_cc(0.5).inputs_needed", inputs_needed(0.5), "n_out", 0, 2 ** 61, True),
]

# (label, call, the message's start, text it must hold, text it must not hold)
MESSAGES = [
    ("resize_2d_kernel_f 1 x 2e9", lambda: gpuinterp.resize_2d_kernel_f(4, 4, 1, 2 * 10 ** 9, backend="cpu"),
     "out_width:", f"[1, {SIDE}]", "bad_alloc"),
    ("resize_2d_kernel_f 2e9 x 1", lambda: gpuinterp.resize_2d_kernel_f(4, 4, 2 * 10 ** 9, 1, backend="cpu"),
     "out_height:", f"[1, {SIDE}]", "bad_alloc"),
    ("resize_2d_kernel_b 1 x 2e9", lambda: gpuinterp.resize_2d_kernel_b(4, 4, 1, 2 * 10 ** 9, backend="cpu"),
     "out_width:", f"[1, {SIDE}]", "bad_alloc"),
    ("resize_2d_kernel_b 2e9 x 1", lambda: gpuinterp.resize_2d_kernel_b(4, 4, 2 * 10 ** 9, 1, backend="cpu"),
     "out_height:", f"[1, {SIDE}]", "bad_alloc"),
    ("resize frame beyond 2^31-1 elements", lambda: gpuinterp.resize_2d_kernel_f(4, 4, SIDE, SIDE, backend="cpu"),
     "out_height:", "2^31-1", None),
    ("resize_2d_kernel_f batch -1", lambda: gpuinterp.resize_2d_kernel_f(8, 8, 4, 4, batch=-1, backend="cpu"),
     "batch:", ">= 0", ">= 1"),
    ("resize_2d_kernel_f device 2^31", lambda: gpuinterp.resize_2d_kernel_f(8, 8, 4, 4, device=2 ** 31,
                                                                            backend="cpu"),
     "device:", f"[0, {I32}]", None),
    ("inputs_needed(2**63)", lambda: gpuinterp.resampler_kernel_cc(1.5, backend="cpu").inputs_needed(2 ** 63),
     "n_out:", f"[0, {2 ** 62}]", None),
    ("pa_model_cc memory_polynomial, 24 orders",
     lambda: pa_model_cc(model="memory_polynomial", coefficients=[1] * 24, memory_depth=1),
     "coefficients:", "P <= 15", "P: must be odd"),
    ("resize_2d_kernel_b.resize(None)", lambda: gpuinterp.resize_2d_kernel_b(8, 8, 4, 4, backend="cpu").resize(None),
     "x:", "NoneType", "ufunc"),
    ("resize_2d_kernel_f.resize(None)", lambda: gpuinterp.resize_2d_kernel_f(8, 8, 4, 4, backend="cpu").resize(None),
     "x:", "NoneType", None),
    ("resize_2d_kernel_b.resize('abc')", lambda: gpuinterp.resize_2d_kernel_b(8, 8, 4, 4, backend="cpu").resize("abc"),
     "x:", "str", "ufunc"),
    ("resize_2d_kernel_b.resize(ragged)",
     lambda: gpuinterp.resize_2d_kernel_b(8, 8, 4, 4, backend="cpu").resize([[1, 2], [3]]), "x:", "array", None),
    ("polyphase_interpolator_fff.filter(ragged)",
     lambda: gpuinterp.polyphase_interpolator_fff(2, TAPS, backend="cpu").filter([[1, 2], [3]]), "x:", "array", None),
    ("interp_fir_ccf batch 2^31", lambda: gpuinterp.interp_fir_ccf(4, TAPS, batch=2 ** 31),
     "batch:", f"[0, {I32}]", ">= 0,"),
]


class qa_param_bounds(gr_unittest.TestCase):
    def refused(self, fn, value):
        try:
            fn(value)
        except (ValueError, RuntimeError) as e:
            return str(e)
        return None

    def check(self, label, fn, param, lo, hi, ends):
        for v in (lo - 1, hi + 1):
            with self.subTest(label=label, param=param, value=v):
                msg = self.refused(fn, v)
                self.assertIsNotNone(msg, "accepted")
                self.assertTrue(msg.startswith(param + ": "), msg)
                self.assertIn(f"{lo}", msg)
                self.assertIn(f"{hi}", msg)
        if ends:
            for v in (lo, hi):
                with self.subTest(label=label, param=param, value=v, end=True):
                    msg = self.refused(fn, v)
                    self.assertFalse(msg is not None and msg.startswith(param + ":"),
                                     f"the stated bound {v} is refused: {msg}")

    def test_constructor_bounds(self):
        for label, f, kw, param, lo, hi, ends in BOUNDS:
            self.check(label, lambda v, f=f, kw=kw, p=param: f(**dict(kw, **{p: v})), param, lo, hi, ends)

    def test_method_bounds(self):
        for label, fn, param, lo, hi, ends in METHODS:
            self.check(label, fn, param, lo, hi, ends)

    def test_messages(self):
        for label, call, start, has, lacks in MESSAGES:
            with self.subTest(label):
                with self.assertRaises(ValueError) as cm:
                    call()
                msg = str(cm.exception)
                self.assertTrue(msg.startswith(start + " "), msg)
                self.assertIn(has, msg)
                if lacks:
                    self.assertNotIn(lacks, msg)

    def test_count(self):
        # The probe's 21 wrong bounds and 6 wrong or vague messages are inside these tables.
        self.assertGreaterEqual(len(BOUNDS) + len(METHODS), 60)
        self.assertGreaterEqual(len(MESSAGES), 12)


if __name__ == "__main__":
    gr_unittest.run(qa_param_bounds)
