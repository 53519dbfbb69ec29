#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA for the `coeffs` message codec bound from C++ (decode_coeffs_message / encode_coeffs_message)
and the Python DPD blocks' use of it."""

import numpy as np
import pmt
from gnuradio import gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import dpd_blocks


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


if __name__ == "__main__":
    gr_unittest.run(qa_coeffs_message)
