#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA for the neural model families (gru, tdnn; docs/neural_models.md) run by the module's own kernel:
specs, the streaming kernel against a float64 numpy forward pass written here and against PyTorch's
(nn.GRU, conv1d, plain ops) when torch is installed, model files with "weights", and a neural PA model
file in pa_model_cc."""

import json
import math
import os
import tempfile

import numpy as np
from gnuradio import blocks, gr, gr_unittest
import pmt

from gnuradio import gpuinterp
from gnuradio.gpuinterp import dpd, pa_models
from gnuradio.gpuinterp import dpd_model as dm

try:
    import torch
except ImportError:  # the comparison with PyTorch is skipped; the numpy reference still runs
    torch = None

# Bound on max |kernel - reference| / rms(reference): float32 rounding (2^-24 per operation) over
# dot products of H + 6 (gru) or 4M (tdnn) terms and tanh/sigmoid, accumulated through the gru's
# recursion, where it decays as the state forgets (measured about 1e-6 for these models).
TOL = 1e-5


def random_weights(spec, seed, gain=1.0):
    """Uniform in +-1/sqrt(fan-in), PyTorch's default initialisation scale."""
    m = dm.parse(spec)
    fan = m.H if m.family == "gru" else 4 * m.M
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, m.num_weights) * gain / math.sqrt(fan)).astype(np.float32)


def signal(n, seed):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-0.7, 0.7, n) + 1j * rng.uniform(-0.7, 0.7, n)).astype(np.complex64)


def gru_blocks(m, w):
    """The weight blocks of docs/neural_models.md's table, in float64."""
    w = np.asarray(w, dtype=np.float64)
    H, C = m.H, m.C
    sizes = [("w_ih", (3 * H, 6)), ("w_hh", (3 * H, H)), ("b_ih", (3 * H,)), ("b_hh", (3 * H,)),
             ("w_o", (2, H)), ("b_o", (2,))]
    if C:
        sizes += [("K", (C, 2, 3)), ("P", (2, C))]
    out, o = {}, 0
    for name, shape in sizes:
        k = int(np.prod(shape))
        out[name] = w[o:o + k].reshape(shape)
        o += k
    assert o == w.size
    return out


def tdnn_blocks(m, w):
    w = np.asarray(w, dtype=np.float64)
    M, H, N = m.M, m.H, m.N
    layers, o = [], 0
    for layer in range(N):
        cols = 4 * M if layer == 0 else H
        W = w[o:o + H * cols].reshape(H, cols)
        o += H * cols
        layers.append((W, w[o:o + H]))
        o += H
    W_out = w[o:o + 2 * H].reshape(2, H)
    b_out = w[o + 2 * H:o + 2 * H + 2]
    assert o + 2 * H + 2 == w.size
    return layers, W_out, b_out


def numpy_forward(spec, w, x):
    """y[n] of the document's equations in float64, n = 0 .. len(x)-1, x[n] = 0 outside x."""
    m = dm.parse(spec)
    x = np.asarray(x, dtype=np.complex128)
    n = x.size
    pad = 2048
    xe = np.concatenate([np.zeros(pad), x, np.zeros(pad)])

    def at(k):  # x[k] for an array of k
        return xe[pad + k]

    t = np.arange(n)
    if m.family == "tdnn":
        layers, W_out, b_out = tdnn_blocks(m, w)
        feats = []
        for k in range(m.M):
            v = at(t - k)
            a = np.abs(v)
            feats.append(np.stack([v.real, v.imag, a, a ** 3], axis=1))
        g = np.concatenate(feats, axis=1)
        for W, b in layers:
            g = np.tanh(g @ W.T + b)
        y = g @ W_out.T + b_out
        return y[:, 0] + 1j * y[:, 1] + x
    B = gru_blocks(m, w)
    H = m.H
    a = np.abs(x)
    x1 = at(t + 1)
    u = np.stack([x.real, x.imag, a, a ** 3, x1.real, x1.imag], axis=1)
    gi = u @ B["w_ih"].T + B["b_ih"]
    h = np.zeros(H)
    hs = np.empty((n, H))
    for k in range(n):
        gh = B["w_hh"] @ h + B["b_hh"]
        r = 1 / (1 + np.exp(-(gi[k, :H] + gh[:H])))
        z = 1 / (1 + np.exp(-(gi[k, H:2 * H] + gh[H:2 * H])))
        g = np.tanh(gi[k, 2 * H:] + r * gh[2 * H:])
        h = (1 - z) * g + z * h
        hs[k] = h
    y = hs @ B["w_o"].T + B["b_o"]
    if m.C:
        D = m.D
        taps = [at(t - D), x, at(t + D)]
        s = np.zeros((n, m.C))
        for j in range(3):
            s += np.outer(taps[j].real, B["K"][:, 0, j]) + np.outer(taps[j].imag, B["K"][:, 1, j])
        v = s * np.clip(s + 3, 0, 6) / 6
        y = y + v @ B["P"].T
    return y[:, 0] + 1j * y[:, 1]


def torch_forward(spec, w, x):
    """The same forward pass with PyTorch's own layers (nn.GRU, conv1d, hardswish) in float64."""
    m = dm.parse(spec)
    x = np.asarray(x, dtype=np.complex128)
    iq = torch.tensor(np.stack([x.real, x.imag], axis=1), dtype=torch.float64)  # (n, 2)
    n = iq.shape[0]
    a = torch.sqrt(iq[:, 0] ** 2 + iq[:, 1] ** 2)
    with torch.no_grad():
        if m.family == "tdnn":
            layers, W_out, b_out = tdnn_blocks(m, w)
            f = torch.stack([iq[:, 0], iq[:, 1], a, a ** 3], dim=1)  # (n, 4)
            fp = torch.cat([torch.zeros(m.M - 1, 4, dtype=torch.float64), f])
            g = torch.cat([fp[m.M - 1 - k:m.M - 1 - k + n] for k in range(m.M)], dim=1)
            for W, b in layers:
                g = torch.tanh(torch.nn.functional.linear(g, torch.tensor(W), torch.tensor(b)))
            y = torch.nn.functional.linear(g, torch.tensor(W_out), torch.tensor(b_out)) + iq
            y = y.numpy()
            return y[:, 0] + 1j * y[:, 1]
        B = gru_blocks(m, w)
        nxt = torch.cat([iq[1:], torch.zeros(1, 2, dtype=torch.float64)])
        u = torch.stack([iq[:, 0], iq[:, 1], a, a ** 3, nxt[:, 0], nxt[:, 1]], dim=1)
        gru = torch.nn.GRU(6, m.H, batch_first=True).double()
        gru.weight_ih_l0.copy_(torch.tensor(B["w_ih"]))
        gru.weight_hh_l0.copy_(torch.tensor(B["w_hh"]))
        gru.bias_ih_l0.copy_(torch.tensor(B["b_ih"]))
        gru.bias_hh_l0.copy_(torch.tensor(B["b_hh"]))
        h, _ = gru(u.unsqueeze(0))
        y = torch.nn.functional.linear(h[0], torch.tensor(B["w_o"]), torch.tensor(B["b_o"]))
        if m.C:
            v = torch.nn.functional.conv1d(iq.T.unsqueeze(0), torch.tensor(B["K"]), padding=m.D,
                                           dilation=m.D)
            v = torch.nn.functional.hardswish(v)[0].T  # (n, C)
            y = y + torch.nn.functional.linear(v, torch.tensor(B["P"]))
        y = y.numpy()
        return y[:, 0] + 1j * y[:, 1]


def delayed(y, lookahead):
    """The kernel's streaming convention: out[i] = y[i - lookahead], zero before the stream."""
    return np.concatenate([np.zeros(lookahead), y[:y.size - lookahead]]) if lookahead else y


def rel_err(got, want):
    return float(np.max(np.abs(np.asarray(got, np.complex128) - want)) / np.sqrt(np.mean(np.abs(want) ** 2)))


SPECS = ["gru:H=8,C=0,D=1", "gru:H=16,C=4,D=3", "gru:H=40,C=6,D=11", "tdnn:M=1,H=3,N=1",
         "tdnn:M=6,H=16,N=2", "tdnn:M=20,H=24,N=3"]


class qa_neural_models(gr_unittest.TestCase):

    def test_specs(self):
        m = dm.parse("gru: D=2 ,C=4,H=8")
        self.assertEqual(str(m), "gru:H=8,C=4,D=2")
        self.assertEqual((m.H, m.C, m.D), (8, 4, 2))
        self.assertTrue(m.is_neural)
        self.assertEqual(m.num_coefficients, 0)
        self.assertEqual(m.num_weights, 3 * 8 * 6 + 3 * 64 + 6 * 8 + 2 * 8 + 2 + 8 * 4)
        self.assertEqual((m.lookahead, m.history), (2, 4))
        self.assertEqual(str(dm.parse("gru:H=8,C=0,D=9")), "gru:H=8,C=0,D=1")
        self.assertEqual(dm.parse("gru:H=8,C=0,D=9").lookahead, 1)
        t = dm.parse("tdnn:M=4,H=16,N=2")
        self.assertEqual(t.num_weights, 4 * 4 * 16 + 16 + (256 + 16) + 32 + 2)
        self.assertEqual((t.lookahead, t.history), (0, 3))
        self.assertFalse(dm.parse("gmp:Ka=3,La=2").is_neural)
        for spec, key in [("gru:H=257,C=0,D=1", "H"), ("gru:H=8,C=65,D=1", "C"), ("gru:H=8,C=1,D=0", "D"),
                          ("gru:H=8,C=1", "D"), ("tdnn:M=0,H=1,N=1", "M"), ("tdnn:M=1,H=1,N=9", "N"),
                          ("lstm:H=4", "family")]:
            with self.assertRaisesRegex(dm.ModelError, f"^model: {key}:"):
                dm.parse(spec)

    def test_numpy_reference_is_pytorch(self):
        """The two references agree to float64 rounding, so the numpy one stands for the document."""
        if torch is None:
            self.skipTest("PyTorch is not installed")
        for i, spec in enumerate(SPECS):
            w, x = random_weights(spec, 10 + i), signal(500, 20 + i)
            e = rel_err(numpy_forward(spec, w, x), torch_forward(spec, w, x))
            self.assertLess(e, 1e-12, spec)

    def check_kernel(self, reference, label):
        worst = 0.0
        for i, spec in enumerate(SPECS):
            m = dm.parse(spec)
            w, x = random_weights(spec, 30 + i), signal(4000, 40 + i)
            k = gpuinterp.dpd_predistorter(spec, weights=w, backend="cpu")
            self.assertEqual(k.delay(), m.lookahead)
            got = k.process(x)
            e = rel_err(got, delayed(reference(spec, w, x), m.lookahead))
            worst = max(worst, e)
            self.assertLess(e, TOL, spec)
            self.assertTrue(np.all(got[:m.lookahead] == 0), spec)
        print(f"neural kernel (cpu) vs {label} float64: max |error| / rms = {worst:.3g}")

    def test_kernel_against_numpy(self):
        self.check_kernel(numpy_forward, "numpy")

    def test_kernel_against_pytorch(self):
        if torch is None:
            self.skipTest("PyTorch is not installed")
        self.check_kernel(torch_forward, "PyTorch")

    def test_random_chunks_equal_one_call(self):
        rng = np.random.default_rng(5)
        for i, spec in enumerate(SPECS):
            w, x = random_weights(spec, 50 + i), signal(3000, 60 + i)
            one = gpuinterp.dpd_predistorter(spec, weights=w).process(x)
            k = gpuinterp.dpd_predistorter(dm.parse(spec).name, weights=w)
            parts, pos = [], 0
            while pos < x.size:
                c = int(rng.integers(0, 200))
                parts.append(k.process(x[pos:pos + c]))
                pos += c
            np.testing.assert_array_equal(np.concatenate(parts), one, err_msg=spec)

    def test_weight_switch_and_errors(self):
        spec = "gru:H=6,C=2,D=2"
        w1, w2 = random_weights(spec, 70), random_weights(spec, 71)
        x = signal(1000, 72)
        k = gpuinterp.dpd_predistorter(spec, weights=w1)
        a = k.process(x[:400])
        k.set_weights(w2)
        np.testing.assert_array_equal(k.weights(), w2)
        b = k.process(x[400:])
        # The switch keeps the state: from 400 on, w2's recursion continues from w1's state (checked
        # against the reference in tests/qa_neural.cc), so it differs from a fresh w2 stream.
        fresh = gpuinterp.dpd_predistorter(spec, weights=w2).process(x)
        self.assertEqual(a.size + b.size, 1000)
        self.assertFalse(np.allclose(b[:20], fresh[400:420]))
        self.assertLess(rel_err(b[300:], fresh[700:]), TOL)  # ...and forgets it
        with self.assertRaisesRegex(ValueError, "^weights:"):
            k.set_weights(w1[:-1])
        bad = w1.copy()
        bad[3] = np.nan
        with self.assertRaisesRegex(ValueError, "^weights:"):
            k.set_weights(bad)
        np.testing.assert_array_equal(k.weights(), w2)
        with self.assertRaisesRegex(ValueError, "^weights:"):
            gpuinterp.dpd_predistorter(spec, weights=w1[:5])
        with self.assertRaisesRegex(ValueError, "^coefficients:.*weights"):
            gpuinterp.dpd_predistorter(spec, [1 + 0j])
        with self.assertRaisesRegex(ValueError, "^weights:"):
            gpuinterp.dpd_predistorter("mp:K=1,M=1", weights=[1.0])
        with self.assertRaisesRegex(ValueError, "^model: N:"):
            gpuinterp.dpd_predistorter("tdnn:M=1,H=1,N=0", weights=[1.0])
        with self.assertRaisesRegex(ValueError, "^model: gmp:Ka=1,La=1 is not a neural model"):
            dpd.make_neural_engine("gmp:Ka=1,La=1", [1.0])

    def test_model_file_round_trip_and_pa_model(self):
        spec = "gru:H=8,C=2,D=3"
        w, x = random_weights(spec, 80), signal(3000, 81)
        fit = dm.ModelFit(spec, np.zeros(0, complex), kind="pa_model", weights=w,
                          training={"command": "test", "seed": 80})
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "gru.json")
            dm.save_model(path, fit)
            with open(path) as f:
                doc = json.load(f)
            self.assertEqual(doc["model"], spec)
            self.assertNotIn("coefficients", doc)
            self.assertNotIn("lo_leakage", doc)
            back = dm.load_model(path)
            np.testing.assert_array_equal(back.weights, w)  # float32 values written exactly
            self.assertEqual(back.training, {"command": "test", "seed": 80})
            # ModelFit.apply: the undelayed model; PAModel and pa_model_cc: the kernel's stream.
            want = numpy_forward(spec, w, x)
            self.assertLess(rel_err(back.apply(x), want), TOL)
            pa = pa_models.PAModel(path)
            self.assertEqual(pa.delay, 3)
            self.assertLess(rel_err(pa.process(x), delayed(want, 3)), TOL)
            tb = gr.top_block()
            src = blocks.vector_source_c(x.tolist())
            blk = pa_models.pa_model_cc(path, backend="cpu")
            snk = blocks.vector_sink_c()
            tb.connect(src, blk, snk)
            tb.run()
            self.assertLess(rel_err(np.array(snk.data()), delayed(want, 3)), TOL)

    def test_neural_predistorter_block(self):
        """dpd_predistorter_cc runs the neural families: the float64 forward pass, a weight switch at
        exactly the tagged sample ({"weights": f32vector} in a dpd_coeffs tag), per-channel weights,
        sc16 output, a model file, and the errors that name the parameter."""
        spec = "tdnn:M=4,H=8,N=2"
        w1, w2, x = random_weights(spec, 95), random_weights(spec, 96), signal(5000, 97)
        f1, f2 = numpy_forward(spec, w1, x), numpy_forward(spec, w2, x)
        n0 = 3001  # a tdnn's output n reads inputs up to n only: w2 from output n0 on
        tag = gr.tag_t()
        tag.offset, tag.key = n0, pmt.intern("dpd_coeffs")
        tag.value = pmt.dict_add(pmt.make_dict(), pmt.intern("weights"), pmt.init_f32vector(w2.size, w2.tolist()))
        # A later update with one weight short, and one of complex coefficients: each is logged and
        # refused, the running predistorter keeps w2.
        bad = []
        for off, val in ((4000, pmt.dict_add(pmt.make_dict(), pmt.intern("weights"),
                                              pmt.init_f32vector(w2.size - 1, w2[1:].tolist()))),
                         (4500, pmt.init_c32vector(w2.size, (w2 + 1j).tolist()))):
            t = gr.tag_t()
            t.offset, t.key, t.value = off, pmt.intern("dpd_coeffs"), val
            bad.append(t)
        tb = gr.top_block()
        src = blocks.vector_source_c(x.tolist(), False, 1, [tag] + bad)
        blk = gpuinterp.dpd_predistorter_cc(model=spec, weights=w1, backend="cpu")
        snk = blocks.vector_sink_c()
        tb.connect(src, blk, snk)
        tb.run()
        self.assertEqual((blk.delay(), blk.model(), blk.coefficients().size), (0, spec, 0))
        got = np.array(snk.data())
        self.assertLess(rel_err(got[:n0], f1[:n0]), TOL)
        self.assertLess(rel_err(got[n0:], f2[n0:]), TOL)
        np.testing.assert_array_equal(blk.weights(), w2)
        # A gru, two channels with their own weights, sc16 out (CPU): channel c is its float64
        # forward pass, delayed by the block's delay, rounded to int16 at full scale 2.
        g = "gru:H=8,C=4,D=2"
        wa, wb = random_weights(g, 98), random_weights(g, 99)
        two = gpuinterp.dpd_predistorter_cc(model=g, weights=wa, channels=2, backend="cpu",
                                            output_format="sc16", full_scale=2.0)
        two.set_channel_weights(1, wb)
        tb = gr.top_block()
        sinks = []
        for c in range(2):
            sinks.append(blocks.vector_sink_s(2))
            tb.connect(blocks.vector_source_c(x.tolist()), (two, c))
            tb.connect((two, c), sinks[-1])
        tb.run()
        for c, w in enumerate((wa, wb)):
            iq = np.array(sinks[c].data(), dtype=np.float64).reshape(-1, 2)
            want = delayed(numpy_forward(g, w, x), two.delay()) * 32767 / 2.0
            err = np.max(np.abs(iq[:, 0] + 1j * iq[:, 1] - want))
            self.assertLessEqual(err, 0.5 * math.sqrt(2) + TOL * np.sqrt(np.mean(np.abs(want) ** 2)))
        # From a model file, with the errors that name what is wrong.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "dpd.json")
            dm.save_model(path, dm.ModelFit(spec, None, 0j, {}, kind="predistorter", weights=w1))
            blk = gpuinterp.dpd_predistorter_from_file(path, backend="cpu")
            np.testing.assert_array_equal(blk.weights(), w1)
            dm.save_model(path, dm.ModelFit(spec, None, 0j, {}, kind="pa_model", weights=w1))
            with self.assertRaisesRegex(ValueError, "kind: a 'pa_model' file"):
                gpuinterp.dpd_predistorter_from_file(path)
        bad = [(dict(model=spec), "^weights: expected"),
               (dict(model=spec, weights=w1[1:]), "^weights: expected"),
               (dict(model=spec, weights=w1, coefficients=[1 + 0j]), "^coefficients: .* is a neural model"),
               (dict(model="mp:K=1,M=1", coefficients=[1 + 0j], weights=[1.0]), "^weights: mp:K=1,M=1 takes complex"),
               (dict(model=spec, weights=w1, backend="cpu", channels=0), "^channels:")]
        for kw, msg in bad:
            with self.subTest(kw=sorted(kw)), self.assertRaisesRegex(ValueError, msg):
                gpuinterp.dpd_predistorter_cc(**kw)
        with self.assertRaisesRegex(ValueError, "^weights:"):
            blk.set_weights(w2[1:])
        with self.assertRaisesRegex(ValueError, "^weights:"):
            gpuinterp.dpd_predistorter_cc(model="mp:K=1,M=1", coefficients=[1 + 0j]).set_weights([1.0])

    def test_bad_model_files(self):
        spec = "tdnn:M=3,H=4,N=2"
        w = random_weights(spec, 90)
        good = {"kind": "predistorter", "model": spec, "weights": [float(v) for v in w]}
        cases = [
            ({"weights": [float(v) for v in w[:-1]]}, "weights: expected"),
            ({"weights": [float(v) for v in w[:-1]] + [float("nan")]}, "weights: element"),
            ({"weights": [float(v) for v in w[:-1]] + [1e39]}, "weights: element .* float32"),
            ({"weights": [float(v) for v in w[:-1]] + ["1"]}, "weights: element .* number"),
            ({"weights": 3}, "weights: must be a flat list"),
            ({"model": "lstm:H=4"}, "model: family:"),
            ({"model": "tdnn:M=3,H=4,N=9"}, "model: N:"),
            ({"coefficients": [[1, 0]]}, "coefficients: a neural model"),
            ({"lo_leakage": [0, 0]}, "lo_leakage: a neural model"),
            ({"training": [1]}, "training: must be an object"),
        ]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.json")
            for change, msg in cases:
                doc = dict(good, **change)
                with open(path, "w") as f:
                    f.write(json.dumps(doc).replace("NaN", "NaN"))
                with self.assertRaisesRegex(ValueError, "^" + path.replace(".", r"\.") + ": " + msg):
                    dm.load_model(path)
            doc = dict(good)
            del doc["weights"]
            with open(path, "w") as f:
                json.dump(doc, f)
            with self.assertRaisesRegex(dm.ModelError, "weights: missing"):
                dm.load_model(path)
            # A polynomial model with weights is refused too.
            with open(path, "w") as f:
                json.dump({"model": "mp:K=1,M=1", "coefficients": [[1, 0]], "weights": [1.0]}, f)
            with self.assertRaisesRegex(dm.ModelError, "weights: only a neural model"):
                dm.load_model(path)


if __name__ == "__main__":
    gr_unittest.run(qa_neural_models)
