#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Bad parameters to every constructor, setter and kernel class raise ValueError whose message starts
with the parameter's name. The cases are generated from one table of parameter specifications: for
each integer parameter -1, 2**31, 2**64, NaN, 1.5 (and 0 where 0 is invalid); for each float
parameter NaN (and the out-of-range values listed). Before, out-of-range integers failed with pybind's
"incompatible constructor arguments" TypeError that names no parameter, and several NaNs were taken
without a word.

Not covered here: the resize_2d constructors and kernel classes, whose arguments are being
restructured (their checks come with that change)."""

import math
import unittest

import numpy as np
from gnuradio import gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import dpd

NAN = float("nan")
# Values no integer parameter accepts: negative, beyond int32, beyond uint64, NaN, not integral.
INT_BAD = (-1, 2 ** 31, 2 ** 64, NAN, 1.5)
# Counts whose C type is unsigned (their semantic upper bound is checked after conversion).
UINT_BAD = (-1, 2 ** 64, NAN, 1.5)

TAPS = [0.25, 0.5, 0.25]
TABLE = [0.0, 1.0, 4.0, 9.0]
CO = [1.0, 0, 0.1, 0]  # P=3, Q=0, Lp=2, Lq=1


def predistorter_cc(**kw):
    return gpuinterp.dpd_predistorter_cc(**kw)


# (name, factory taking keyword arguments, valid keyword arguments, {parameter: bad values})
SPECS = []
for t in ("ccf", "fff", "ccc"):
    SPECS.append((f"interp_fir_{t}", getattr(gpuinterp, f"interp_fir_{t}"),
                  dict(interpolation=2, taps=TAPS, backend="cpu"),
                  {"interpolation": INT_BAD + (0, 65537), "device": INT_BAD, "batch": INT_BAD}))
    SPECS.append((f"polyphase_interpolator_{t}", getattr(gpuinterp, f"polyphase_interpolator_{t}"),
                  dict(interpolation=2, taps=TAPS, backend="cpu"),
                  {"interpolation": INT_BAD + (0, 65537, 10 ** 9), "device": INT_BAD, "batch": INT_BAD}))
for t in ("cc", "ff"):
    for method in ("polyphase", "linear"):  # polyphase parameters are checked whatever the method
        common = {"nfilts": UINT_BAD + (0, 1, 4097), "taps_per_arm": UINT_BAD + (0, 3, 514),
                  "attenuation_db": (NAN, 5.0, 200.0), "rate": (NAN, 0.0, -1.0, math.inf),
                  "device": INT_BAD}
        SPECS.append((f"resampler_{t}[{method}]", getattr(gpuinterp, f"resampler_{t}"),
                      dict(rate=1.5, method=method, backend="cpu"), common))
        SPECS.append((f"resampler_kernel_{t}[{method}]", getattr(gpuinterp, f"resampler_kernel_{t}"),
                      dict(rate=1.5, method=method, backend="cpu"), dict(common, batch=INT_BAD)))
for t in ("ff", "fc"):
    SPECS.append((f"table_lookup_{t}", getattr(gpuinterp, f"table_lookup_{t}"),
                  dict(table=TABLE, backend="cpu"), {"device": INT_BAD, "table": ([NAN, 1.0], [])}))
    SPECS.append((f"table_lookup_kernel_{t}", getattr(gpuinterp, f"table_lookup_kernel_{t}"),
                  dict(table=TABLE, backend="cpu"), {"device": INT_BAD, "table": ([NAN, 1.0], [])}))
SPECS += [
    ("dpd_predistorter", gpuinterp.dpd_predistorter,
     dict(P=3, Q=0, Lp=2, Lq=1, coefficients=CO, backend="cpu"),
     {"P": UINT_BAD + (0, 2, 17), "Q": UINT_BAD + (2, 17), "Lp": UINT_BAD + (0,), "Lq": UINT_BAD + (0,),
      "device": INT_BAD, "batch": INT_BAD}),
    ("dpd_predistorter[model]", gpuinterp.dpd_predistorter,
     dict(model="mp:K=3,M=2", coefficients=[1, 0, 0, 0, 0, 0], backend="cpu"),
     {"device": INT_BAD, "batch": INT_BAD}),
    ("dpd_predistorter_cc", predistorter_cc,
     dict(P=3, Q=0, Lp=2, Lq=1, coefficients=CO, backend="cpu"),
     {"P": UINT_BAD + (0, 2), "Q": UINT_BAD + (2,), "Lp": UINT_BAD + (0,), "Lq": UINT_BAD + (0,),
      "device": INT_BAD, "batch": INT_BAD}),
    ("polyphase_prototype", gpuinterp.polyphase_prototype, {},
     {"nfilts": UINT_BAD + (0, 1), "taps_per_arm": UINT_BAD + (0, 3), "attenuation_db": (NAN,)}),
    ("texture_fetch", gpuinterp.texture_fetch, dict(table=TABLE, x=[0.5]), {"table": ([NAN], [math.inf, 1.0], [])}),
    ("dpd_predistorter.num_coefficients", gpuinterp.dpd_predistorter.num_coefficients,
     dict(P=3, Q=1, Lp=2, Lq=2), {"P": UINT_BAD + (0, 2), "Q": UINT_BAD + (16,), "Lp": UINT_BAD + (0,),
                                 "Lq": UINT_BAD + (0,)}),
    ("dpd_predistorter.main_index", gpuinterp.dpd_predistorter.main_index,
     dict(P=3, Lp=2, p=3, k=1), {"p": UINT_BAD + (0, 2, 5), "k": UINT_BAD + (2,), "P": UINT_BAD + (0,),
                                 "Lp": UINT_BAD + (0,)}),
    ("dpd_predistorter.conj_index", gpuinterp.dpd_predistorter.conj_index,
     dict(P=3, Lp=2, Lq=2, q=1, k=0), {"q": UINT_BAD + (0, 2), "k": UINT_BAD + (2,), "Lq": UINT_BAD + (0,)}),
    ("pa_model_cc", gpuinterp.pa_model_cc, dict(model="ding2004", backend="cpu"),
     {"snr_db": (NAN, -math.inf), "backoff_db": (NAN, math.inf), "gain": (0, NAN, complex(1, math.inf)),
      "seed": (-1, NAN, 1.5), "backend": ("gpu", "")}),
    ("pa_model_cc[rapp]", gpuinterp.pa_model_cc, dict(model="rapp", backend="cpu"),
     {"backend": ("gpu",), "rapp_saturation": (NAN, 0, -1), "rapp_smoothness": (NAN, 0), "snr_db": (-math.inf,)}),
    ("pa_model_cc[memory_polynomial]", gpuinterp.pa_model_cc,
     dict(model="memory_polynomial", coefficients=[1, 0, 0], memory_depth=3, backend="cpu"),
     {"memory_depth": (-1, 0, NAN, 1.5, 2 ** 64)}),
    ("dpd_estimator_cc", gpuinterp.dpd_estimator_cc,
     dict(P=5, Q=0, Lp=3, Lq=1, capture_length=4096, update_period=8192, max_delay=64),
     {"P": (-1, 0, 2, NAN, 1.5, 2 ** 64), "Q": (-1, 2, NAN), "Lp": (-1, 0, NAN, 2 ** 64), "Lq": (-1, 0, NAN),
      "capture_length": (-1, 0, 100, NAN, 1.5, 2 ** 31, 2 ** 64),
      "update_period": (-1, 100, NAN, 2 ** 64), "max_delay": (-1, 4096, NAN, 2 ** 64),
      "max_updates": (-1, NAN, 1.5, 2 ** 64), "damping": (NAN, 0, 1.5, -1),
      "target_gain": (NAN, complex(NAN, 0), complex(1, math.inf)), "regularization": (-1, NAN, math.inf),
      "rollback_tolerance_db": (NAN, -1), "max_gain_db": (NAN, -5, 0),
      "initial_lo_leakage": (NAN, complex(0, NAN))}),
]


class qa_bad_params(gr_unittest.TestCase):
    def assert_named(self, name, fn):
        with self.assertRaises(ValueError) as cm:
            fn()
        msg = str(cm.exception)
        self.assertTrue(msg.startswith(name + ":"), f"message does not start with '{name}:': {msg}")

    def test_table(self):
        tried = 0
        for label, factory, base, bad in SPECS:
            factory(**base)  # the base case is valid: every failure below is the one parameter's
            for param, values in bad.items():
                for v in values:
                    with self.subTest(call=label, param=param, value=v):
                        self.assert_named(param, lambda: factory(**dict(base, **{param: v})))
                    tried += 1
        print(f"qa_bad_params: {tried} constructor/function cases")
        self.assertGreater(tried, 400)

    def test_setters(self):
        cases = []
        for t in ("ccf", "fff", "ccc"):
            b = getattr(gpuinterp, f"interp_fir_{t}")(2, TAPS, backend="cpu")
            cases += [(b.set_batch, "batch", v) for v in INT_BAD]
        k = gpuinterp.dpd_predistorter(3, 0, 2, 1, CO, backend="cpu")
        cases += [(k.set_batch, "batch", v) for v in INT_BAD]
        b = gpuinterp.dpd_predistorter_cc(3, 0, 2, 1, CO, backend="cpu")
        b.set_batch(4096)
        cases += [(b.set_batch, "batch", v) for v in INT_BAD]
        for t in ("cc", "ff"):
            r = getattr(gpuinterp, f"resampler_kernel_{t}")(1.5, backend="cpu")
            cases += [(r.set_rate, "rate", v) for v in (NAN, 0.0, -1.0, math.inf)]
            cases += [(r.inputs_needed, "n_out", v) for v in UINT_BAD]
            cases += [(r.output_time, "k", v) for v in UINT_BAD]
            blk = getattr(gpuinterp, f"resampler_{t}")(1.5, backend="cpu")
            cases += [(blk.set_rate, "rate", v) for v in (NAN, 0.0, -1.0, math.inf)]
        est = gpuinterp.dpd_estimator_cc(5, 0, 3, 1, capture_length=4096, update_period=8192, max_delay=64)
        cases += [(est.set_update_period, "update_period", v) for v in (NAN, -1, 100, 1.5, 2 ** 64)]
        cases += [(est.set_damping, "damping", v) for v in (NAN, 0, 2)]
        pa = gpuinterp.pa_model_cc(backend="cpu")
        cases += [(pa.set_snr_db, "snr_db", v) for v in (NAN, -math.inf)]
        cases += [(pa.set_gain, "gain", v) for v in (0, NAN)]
        cases += [(pa.set_backoff_db, "backoff_db", v) for v in (NAN, math.inf)]
        for setter, name, v in cases:
            with self.subTest(setter=setter.__name__, value=v):
                self.assert_named(name, lambda: setter(v))
        print(f"qa_bad_params: {len(cases)} setter cases")
        # A refused value leaves the setting as it was.
        self.assertEqual(b.batch(), 4096)
        self.assertEqual(r.rate(), 1.5)

    def test_valid_edge_values_still_accepted(self):
        # The checks must not refuse what was valid: integral floats and numpy integers are counts,
        # regularization None means "choose on held-out data", the largest interpolation is allowed.
        k = gpuinterp.polyphase_interpolator_ccf(np.int64(3), TAPS, backend="cpu", batch=4.0)
        self.assertEqual(k.interpolation(), 3)
        x = np.arange(4, dtype=np.complex64) + 1
        np.testing.assert_allclose(k.filter(x)[:6], [0.25, 0.5, 0.25, 0.5, 1.0, 0.5], atol=1e-7)
        self.assertEqual(gpuinterp.polyphase_interpolator_fff(65536, [1.0], backend="cpu").interpolation(), 65536)
        self.assertEqual(gpuinterp.dpd_predistorter.conj_index(3, 2, 2, 1, 1), 5)
        self.assertEqual(gpuinterp.dpd_predistorter.main_index(3, 2, 3, 1), 3)
        self.assertEqual(gpuinterp.dpd_predistorter.num_coefficients(3, 1, 2, 2), 6)
        est = gpuinterp.dpd_estimator_cc(5, 0, 3, 1, capture_length=4096.0, update_period=8192, max_delay=64,
                                         regularization=None)
        est.set_update_period(16384)
        self.assertEqual(len(gpuinterp.polyphase_prototype(np.uint32(8), 4, 60.0)), 4 * 8 + 1)

    def test_complex_samples_to_real_kernels(self):
        # numpy's cast would drop the imaginary part with only a ComplexWarning.
        z = np.array([1 + 1j, 2, 3], dtype=np.complex64)
        calls = [gpuinterp.polyphase_interpolator_fff(2, TAPS, backend="cpu").filter,
                 gpuinterp.resampler_kernel_ff(1.5, backend="cpu").resample,
                 gpuinterp.table_lookup_kernel_ff(TABLE, backend="cpu").lookup,
                 gpuinterp.table_lookup_kernel_fc(TABLE, backend="cpu").lookup]
        for f in calls:
            with self.subTest(f=f):
                self.assert_named("x", lambda: f(z))
                self.assert_named("x", lambda: f([1, 2j]))
                self.assert_named("x", lambda: f(["a", "b"]))
        # Real arrays of other dtypes are still converted, to the right values.
        k = gpuinterp.table_lookup_kernel_ff(TABLE, filter="point", backend="cpu")
        np.testing.assert_array_equal(k.lookup(np.array([0, 1, 2, 3], dtype=np.int64)), [0.0, 1.0, 4.0, 9.0])
        np.testing.assert_array_equal(k.lookup([2.5, 3.5]), [4.0, 9.0])
        # A complex kernel takes complex samples as before.
        y = gpuinterp.polyphase_interpolator_ccf(1, [1.0], backend="cpu").filter(z)
        np.testing.assert_array_equal(y, z)

    def test_resize_frames_that_would_wrap(self):
        # uint8 frames from other dtypes: numpy's cast wrapped 300 -> 44, -1 -> 255, NaN -> 0.
        kb = gpuinterp.resize_2d_kernel_b(4, 4, 2, 2, backend="cpu")
        frame = np.arange(16, dtype=np.uint8).reshape(4, 4) * 15
        want = kb.resize(frame)
        for bad in (300.0, -1.0, NAN, 2.5):
            f = frame.astype(np.float64)
            f[1, 2] = bad
            with self.subTest(value=bad):
                self.assert_named("x", lambda: kb.resize(f))
        f = frame.astype(np.int64)
        f[0, 0] = 256
        self.assert_named("x", lambda: kb.resize(f))
        self.assert_named("x", lambda: kb.resize(frame.astype(np.complex64)))
        # Integral values in range are converted exactly as before.
        np.testing.assert_array_equal(kb.resize(frame.astype(np.float32)), want)
        np.testing.assert_array_equal(kb.resize(frame.astype(np.int32)), want)
        kf = gpuinterp.resize_2d_kernel_f(4, 4, 2, 2, backend="cpu")
        self.assert_named("x", lambda: kf.resize(frame.astype(np.complex64)))
        np.testing.assert_array_equal(kf.resize(frame.astype(np.float64)), kf.resize(frame.astype(np.float32)))


if __name__ == "__main__":
    gr_unittest.run(qa_bad_params)
