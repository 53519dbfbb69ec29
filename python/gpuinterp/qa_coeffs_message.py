#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA for the `coeffs` message codec bound from C++ (decode_coeffs_message / encode_coeffs_message)
and the Python DPD blocks' use of it."""

import numpy as np
import pmt
from gnuradio import gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import dpd_blocks, radio_messages
from gnuradio.gpuinterp.dpd_adapt import Adaptation, StepResult


class qa_coeffs_message(gr_unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(5)
        self.w = (rng.uniform(-2, 2, 7) + 1j * rng.uniform(-2, 2, 7)).astype(np.complex64)

    def test_round_trip(self):
        m = gpuinterp.encode_coeffs_message(list(self.w), 0.5 - 0.25j)
        self.assertTrue(pmt.is_pair(m))
        self.assertTrue(pmt.is_c32vector(pmt.car(m)))
        w, c = gpuinterp.decode_coeffs_message(m)
        self.assertEqual(w.dtype, np.complex64)
        np.testing.assert_array_equal(w, self.w)
        self.assertEqual(c, 0.5 - 0.25j)

    def test_every_form(self):
        w64 = [complex(v) for v in self.w]
        vec = pmt.make_vector(len(w64), pmt.PMT_NIL)
        for i, v in enumerate(w64):
            pmt.vector_set(vec, i, pmt.from_complex(v))
        for m in (pmt.init_c32vector(len(w64), w64), pmt.init_c64vector(len(w64), w64), vec):
            w, c = gpuinterp.decode_coeffs_message(m)
            np.testing.assert_array_equal(w, self.w)
            self.assertIsNone(c)
        w, c = gpuinterp.decode_coeffs_message(pmt.cons(pmt.init_f32vector(2, [1.5, -2.0]), pmt.from_double(3.0)))
        np.testing.assert_array_equal(w, np.array([1.5, -2.0], dtype=np.complex64))
        self.assertEqual(c, 3.0)
        for key, ckey in (("coefficients", "lo_leakage"), ("coeffs", "c")):
            d = pmt.dict_add(pmt.make_dict(), pmt.intern(key), pmt.init_c32vector(len(w64), w64))
            d = pmt.dict_add(d, pmt.intern(ckey), pmt.from_complex(1 + 2j))
            w, c = gpuinterp.decode_coeffs_message(d)
            np.testing.assert_array_equal(w, self.w)
            self.assertEqual(c, 1 + 2j)

    def test_malformed(self):
        for m, prefix in ((pmt.from_double(1.0), "coefficients:"),
                          (pmt.cons(pmt.init_c32vector(1, [1j]), pmt.intern("x")), "lo_leakage:")):
            with self.assertRaises(ValueError) as cm:
                gpuinterp.decode_coeffs_message(m)
            self.assertTrue(str(cm.exception).startswith(prefix), str(cm.exception))

    def test_python_blocks_use_the_codec(self):
        # The dict form, which the Python decoder did not accept before it used the codec.
        d = pmt.dict_add(pmt.make_dict(), pmt.intern("coeffs"),
                         pmt.init_c32vector(len(self.w), [complex(v) for v in self.w]))
        w, c = dpd_blocks.parse_coefficients_message(d, self.w.size)
        np.testing.assert_array_equal(w, self.w.astype(np.complex128))
        self.assertIsNone(c)
        with self.assertRaises(ValueError):
            dpd_blocks.parse_coefficients_message(d, self.w.size + 1)
        m = dpd_blocks.coefficients_message(self.w, 0.5j)
        w, c = gpuinterp.decode_coeffs_message(m)
        np.testing.assert_array_equal(w, self.w)
        self.assertEqual(c, 0.5j)

    def test_encoder_forms(self):
        """The binding's keywords reach the C++ encoder: a channel gives the dict, weights the
        neural form, no c the bare vector; each decodes back (the decoder is tested above)."""
        m = gpuinterp.encode_coeffs_message(self.w, 0.5j, channel=2)
        self.assertEqual(radio_messages.message_channel(m), 2)
        w, c = gpuinterp.decode_coeffs_message(m)
        np.testing.assert_array_equal(w, self.w)
        self.assertEqual(c, 0.5j)
        m = gpuinterp.encode_coeffs_message(self.w)
        self.assertTrue(pmt.is_c32vector(m))
        m = radio_messages.weights_message([0.5, -1.5], channel=1)
        self.assertTrue(pmt.is_f32vector(pmt.dict_ref(m, pmt.intern("weights"), pmt.PMT_NIL)))
        np.testing.assert_array_equal(pmt.f32vector_elements(pmt.dict_ref(m, pmt.intern("weights"), pmt.PMT_NIL)),
                                      [0.5, -1.5])
        self.assertEqual(pmt.to_long(pmt.dict_ref(m, pmt.intern("channel"), pmt.PMT_NIL)), 1)
        for kw, name in ((dict(coefficients=[1, np.nan]), "coefficients: element 1"),
                         (dict(coefficients=[1], lo_leakage=complex(np.inf, 0)), "lo_leakage:"),
                         (dict(weights=[np.inf]), "weights: element 0"),
                         (dict(coefficients=[1], channel=-1), "channel:")):
            with self.assertRaises(ValueError) as cm:
                gpuinterp.encode_coeffs_message(**kw)
            self.assertTrue(str(cm.exception).startswith(name), str(cm.exception))

    def test_adaptation_message(self):
        """The estimator sends what its loop holds, in its model's form: a polynomial set as the
        pair (or the channel's dict), a neural set as its weights (the real parts)."""
        a = Adaptation(0, 0, 1, 1, model="mp:K=3,M=2", initial_coefficients=self.w[:6],
                       initial_lo_leakage=0.25j)
        w, c = gpuinterp.decode_coeffs_message(a.message())
        np.testing.assert_array_equal(w, self.w[:6])
        self.assertEqual(c, 0.25j)
        r = StepResult(1, "updated", 2 * self.w[:6], -0.5, "")
        m = a.message(r, 4)
        self.assertEqual(radio_messages.message_channel(m), 4)
        w, c = gpuinterp.decode_coeffs_message(m)
        np.testing.assert_array_equal(w, 2 * self.w[:6])
        self.assertEqual(c, -0.5)
        with self.assertRaises(ValueError) as cm:
            a.message(StepResult(1, "updated", np.full(6, np.nan), 0, ""))
        self.assertTrue(str(cm.exception).startswith("coefficients:"), str(cm.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_coeffs_message)
