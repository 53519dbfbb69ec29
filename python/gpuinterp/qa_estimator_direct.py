#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The loop's direct learning (dpd_direct): the estimator fits a neural PA surrogate on its captures and
trains the predistorter through it. Checked against the PA it models (a memory-polynomial PA, new OFDM
data every capture, as a radio sends): the surrogate reproduces that PA on data it never saw, and the
predistorter it trains lowers the PA's ACLR on fresh data; bad parameters name themselves."""

import numpy as np
from gnuradio import gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import dpd_adapt, metrics, pa_models
from gnuradio.gpuinterp import dpd_model as dm

try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False

MODEL = "gmp:Ka=5,La=4,Kb=2,Lb=2,Mb=1"
N = 16384
FS = 122.88e6


def ofdm(seed):
    return metrics.ofdm_test_signal(N, rms=0.2, papr_db=8.0, seed=seed)


def worst_aclr(pa, coefficients, lo, seed):
    s = ofdm(seed)
    y = pa.process(dm.apply(s, MODEL, coefficients, lo).astype(np.complex64))
    return metrics.aclr(y, FS, 18e6, 20e6)["worst"]


@gr_unittest.unittest.skipUnless(HAVE_TORCH, "direct learning needs PyTorch (python3-torch)")
class qa_estimator_direct(gr_unittest.TestCase):
    def test_direct_learning_through_the_fitted_surrogate(self):
        pa = pa_models.PAModel("ding2004")
        # a small feedforward surrogate keeps the step to seconds on one CPU core
        a = dpd_adapt.Adaptation(0, 0, 0, 0, model=MODEL, learning="direct", surrogate="tdnn:M=4,H=12,N=1",
                                 learning_device="cpu", rx_full_scale=None)
        before = worst_aclr(pa, a.coefficients, a.lo_leakage, 999)
        rng = np.random.default_rng(5)
        statuses = []
        for k in range(4):
            x = dm.apply(ofdm(100 + k), MODEL, a.coefficients, a.lo_leakage).astype(np.complex64)
            y = pa.process(x) + ((rng.standard_normal(N) + 1j * rng.standard_normal(N)) * 1e-4).astype(np.complex64)
            statuses.append(a.step(x, y).status)
        self.assertEqual(statuses, ["calibrating", "updated", "updated", "updated"])
        # The surrogate models y/G from x: on a signal it never saw it reproduces the PA to better
        # than -30 dB NMSE (its val figure on the captures is about -36 dB; the PA's distortion is
        # at -42 dBc, so a surrogate much worse than -30 dB would have nothing to teach).
        from gnuradio.gpuinterp import neural_train as nt
        s = ofdm(777)
        x = dm.apply(s, MODEL, a.coefficients, a.lo_leakage).astype(np.complex64)
        want = pa_models.PAModel("ding2004").process(x) / a.gain
        got = nt.run_stream(a.direct.pa, x)
        self.assertLess(metrics.nmse_db(want * np.exp(-1j * np.angle(np.vdot(got, want))), got), -30.0)
        # The predistorter trained through it lowers the PA's worst ACLR on fresh data (no DPD
        # about -41.5 dBc; three updates reach about -43 to -44, bounded by the surrogate's NMSE).
        after = worst_aclr(pa, a.coefficients, a.lo_leakage, 999)
        print(f"direct learning: worst ACLR {before:.2f} -> {after:.2f} dBc, surrogate val NMSE "
              f"{a.direct.pa_nmse_db:.2f} dB")
        self.assertLess(after, before - 1.0)

    def test_a_neural_predistorter_learns_in_the_loop(self):
        # The same loop with a tdnn predistorter: the weights it trains through the surrogate lower
        # the PA's worst ACLR on fresh data (-41.5 to -43.0 dBc in four updates; 20 epochs a step
        # instead of 60 left it at -41.5).
        spec = "tdnn:M=4,H=12,N=1"
        pa = pa_models.PAModel("ding2004")
        a = dpd_adapt.Adaptation(0, 0, 0, 0, model=spec, learning="direct", surrogate="tdnn:M=4,H=12,N=1",
                                 learning_device="cpu", rx_full_scale=None)
        self.assertEqual(a.coefficients.size, dm.parse(spec).num_weights)

        def worst(w):
            y = pa.process(dm.apply(ofdm(999), spec, w).astype(np.complex64))
            return metrics.aclr(y, FS, 18e6, 20e6)["worst"]

        before = worst(a.coefficients)
        rng = np.random.default_rng(5)
        statuses = []
        for k in range(5):
            x = dm.apply(ofdm(100 + k), spec, a.coefficients).astype(np.complex64)
            y = pa.process(x) + ((rng.standard_normal(N) + 1j * rng.standard_normal(N)) * 1e-4).astype(np.complex64)
            statuses.append(a.step(x, y).status)
        after = worst(a.coefficients)
        print(f"neural predistorter ({statuses}): worst ACLR {before:.2f} -> {after:.2f} dBc")
        self.assertEqual(statuses[0], "calibrating")
        self.assertIn("updated", statuses[1:])
        self.assertLess(after, before - 1.0)

    def test_the_block_sends_saves_and_resumes_neural_weights(self):
        # dpd_estimator_cc with a tdnn predistorter in a flowgraph: it sends the weights as
        # {"weights": f32vector}, which a neural dpd_predistorter_cc takes at once, and writes them
        # to a coefficients file a restart resumes from. (What the updates achieve is the test
        # above: here the predistorter switches sets at whatever sample a message reaches it, so a
        # capture may hold two sets and the steps differ from run to run.)
        import os
        import tempfile

        from gnuradio import blocks, gr
        from gnuradio.gpuinterp import dpd_direct

        spec = "tdnn:M=4,H=12,N=1"
        w0 = dpd_direct.identity_weights(spec)
        # the same set on every call: the estimator starts from exactly what the predistorter runs
        np.testing.assert_array_equal(w0, dpd_direct.identity_weights(spec))
        s0 = ofdm(999)
        # a wire but for its output layer's small start (0.01 x its random initialisation)
        self.assertLess(metrics.nmse_db(s0, dm.apply(s0, spec, w0)), -30.0)

        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "dpd.json")
            # four steps (the first measures |G|), then the stream runs on (max_updates): the
            # predistorter has handled the last message long before the source ends the flowgraph
            u = np.concatenate([ofdm(200 + k) for k in range(10)]).astype(np.complex64)
            tb = gr.top_block()
            src = blocks.vector_source_c(u.tolist(), False)
            pred = gpuinterp.dpd_predistorter_cc(model=spec, weights=[float(v) for v in w0], backend="cpu")
            amp = gpuinterp.pa_model_cc("ding2004", seed=1)
            est = gpuinterp.dpd_estimator_cc(model=spec, learning="direct", surrogate="tdnn:M=4,H=12,N=1",
                                             capture_length=N, update_period=N, max_delay=16, synchronous=True,
                                             backend="cpu", coefficients_file=path, rx_full_scale=10.0,
                                             max_updates=4)
            tb.connect(src, pred, amp, (est, 1))
            tb.connect(pred, (est, 0))
            tb.msg_connect(est, "coeffs", pred, "coeffs")
            tb.run()
            hist = est.history()
            statuses = [r.status for r in hist]
            self.assertIn("updated", statuses, [r.reason for r in hist])
            last = [r for r in hist if r.status in ("updated", "rolled back")][-1]  # the last set sent
            w = np.real(last.coefficients)
            self.assertFalse(np.array_equal(w, w0))
            # what the predistorter runs is the estimator's last set, in float32
            np.testing.assert_array_equal(np.asarray(pred.weights(), dtype=np.float32), w.astype(np.float32))
            # the message is the predistorter's weights form: the receivers of complex coefficients
            # read it as weights and refuse it by name
            from gnuradio.gpuinterp.radio_messages import weights_message
            with self.assertRaisesRegex(ValueError, "^weights: this receiver takes complex coefficients"):
                gpuinterp.decode_coeffs_message(weights_message(w))
            print(f"neural predistorter in a flowgraph: {statuses}")
            # a restart resumes from the file: the same weights, as a predistorter
            fit = dm.load_model(path)
            self.assertEqual(fit.kind, "predistorter")
            np.testing.assert_array_equal(np.asarray(fit.weights, dtype=np.float32), w.astype(np.float32))

    def test_bad_parameters_name_themselves(self):
        cases = [(dict(learning="hebbian"), "^learning: must be one of indirect, direct"),
                 (dict(learning="direct", surrogate="mp:K=3,M=2"), "^surrogate: mp:K=3,M=2 is not a neural"),
                 (dict(learning="direct", surrogate="gru:H=8"), "^surrogate: "),
                 (dict(learning="direct", surrogate=3), "^surrogate: must be a neural model spec")]
        for kw, msg in cases:
            with self.subTest(kw=kw), self.assertRaisesRegex(ValueError, msg):
                gpuinterp.dpd_estimator_cc(model=MODEL, backend="cpu", **kw)
        with self.assertRaisesRegex(ValueError, "^model: a neural predistorter .* learning='direct'"):
            gpuinterp.dpd_estimator_cc(model="tdnn:M=4,H=12,N=1", backend="cpu")


if __name__ == "__main__":
    gr_unittest.run(qa_estimator_direct)
