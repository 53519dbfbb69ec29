#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""neural_train: the torch modules are the contract's equations (a float64 numpy forward written here
from docs/neural_models.md, independently of the torch code), their flat weights round-trip exactly,
training fits a synthetic PA, and direct learning through a frozen PA linearises it. Tiny models, a few
seconds of CPU each; skipped, with the reason, where PyTorch is not installed."""

import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

try:
    from gnuradio.gpuinterp import neural_train as nt
    from gnuradio.gpuinterp import arena_ledger as al, dpd_model as dm, metrics as mx, neural_spec as ns
except ImportError:  # run from the source tree without a build: the module needs nothing compiled
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import neural_train as nt
    import arena_ledger as al
    import neural_spec as ns
    dm = mx = None

try:
    import torch
    torch.set_num_threads(1)  # CI's two cores are shared with the other tests
except ImportError:
    torch = None

NO_TORCH = "PyTorch is not installed (neural training needs it)"


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def hardswish(v):
    return v * np.clip(v + 3.0, 0.0, 6.0) / 6.0


def _reader(w):
    """take(*shape): the next prod(shape) weights of the file's flat layout, float64, in that shape;
    used(): whether every weight has been taken."""
    w = np.asarray(w, dtype=np.float64)
    o = 0

    def take(*shape):
        nonlocal o
        n = int(np.prod(shape))
        v = w[o:o + n].reshape(shape)
        o += n
        return v

    return take, lambda: o == w.size


def gru_ref(w, H, C, D, x):
    """docs/neural_models.md's gru, float64, one sample at a time."""
    take, used = _reader(w)
    Wih, Whh, bih, bhh, Wo, bo = take(3 * H, 6), take(3 * H, H), take(3 * H), take(3 * H), take(2, H), take(2)
    K = take(C, 2, 3) if C else None
    P = take(2, C) if C else None
    assert used()
    T = x.size
    iq = np.stack([x.real, x.imag], 1)

    def at(n):
        return iq[n] if 0 <= n < T else np.zeros(2)

    h = np.zeros(H)
    y = np.zeros((T, 2))
    for n in range(T):
        a = abs(x[n])
        u = np.concatenate([iq[n], [a, a ** 3], at(n + 1)])
        gi, gh = Wih @ u + bih, Whh @ h + bhh
        r = sigmoid(gi[:H] + gh[:H])
        z = sigmoid(gi[H:2 * H] + gh[H:2 * H])
        g = np.tanh(gi[2 * H:] + r * gh[2 * H:])
        h = (1 - z) * g + z * h
        y[n] = Wo @ h + bo
        if C:
            v = hardswish(K[:, :, 0] @ at(n - D) + K[:, :, 1] @ at(n) + K[:, :, 2] @ at(n + D))
            y[n] += P @ v
    return y[:, 0] + 1j * y[:, 1]


def tdnn_ref(w, M, H, N, x):
    take, used = _reader(w)
    layers = [(take(H, 4 * M), take(H))] + [(take(H, H), take(H)) for _ in range(N - 1)]
    Wo, bo = take(2, H), take(2)
    assert used()
    f = np.stack([x.real, x.imag, np.abs(x), np.abs(x) ** 3], 1)
    y = np.zeros(x.size, dtype=np.complex128)
    for n in range(x.size):
        u = np.concatenate([f[n - m] if n - m >= 0 else np.zeros(4) for m in range(M)])
        g = u
        for W, b in layers:
            g = np.tanh(W @ g + b)
        v = Wo @ g + bo
        y[n] = complex(v[0], v[1]) + x[n]
    return y


def poly_ref(spec, c, lo, x):
    """y[n] = sum c_t x[n-l] |x[n-j]|^k + lo over the spec's terms, zero outside x."""
    y = np.full(x.size, complex(lo))
    for ct, (l, j, k, conj) in zip(c, nt.term_list(spec)):
        for n in range(x.size):
            if 0 <= n - l < x.size and 0 <= n - j < x.size:
                v = x[n - l] * abs(x[n - j]) ** k
                y[n] += ct * (np.conj(v) if conj else v)
    return y


def test_signal(n, seed=0, bw=0.24):
    """Band-limited complex Gaussian noise (an OFDM-like signal), peak |x| = 1."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(n + 256) + 1j * rng.standard_normal(n + 256)
    t = np.arange(-64, 65)
    h = np.sinc(bw * t) * np.hanning(t.size)
    x = np.convolve(z, h, mode="same")[128:128 + n]
    return x / np.max(np.abs(x))


# The synthetic PA: a memory polynomial with AM/AM compression, AM/PM and memory (mp:K=5,M=3).
PA_SPEC = "mp:K=5,M=3"
PA_COEF = np.zeros(15, dtype=np.complex128)
PA_COEF[0:3] = [1.0, 0.12 - 0.05j, -0.04]                  # k = 1: linear with memory
PA_COEF[3:6] = [0.05j, 0.03, 0.0]                          # k = 2
PA_COEF[6:9] = [-0.3 + 0.12j, -0.06, 0.03j]               # k = 3: compression, AM/PM
PA_COEF[12:15] = [0.05 - 0.02j, 0.0, 0.0]                  # k = 5


# A harder PA for the fit: 3.7 dB of compression at the peak, linear-gain NMSE about -15 dB.
PA_STRONG = PA_COEF.copy()
PA_STRONG[6:9] = [-0.5 + 0.2j, -0.08, 0.03j]
PA_STRONG[12:15] = [0.15 - 0.05j, 0.0, 0.0]


def write_dataset(d, n=(4000, 1500, 1500), coef=PA_COEF):
    x = test_signal(sum(n), seed=3)
    y = _pa_fast(x, coef)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "spec.json"), "w") as f:
        json.dump({"input_signal_fs": 1.0, "bw_main_ch": 0.3, "n_sub_ch": 1, "nperseg": 256}, f)
    o = 0
    for s, k in zip(("train", "val", "test"), n):
        for side, v in (("input", x[o:o + k]), ("output", y[o:o + k])):
            np.savetxt(os.path.join(d, f"{s}_{side}.csv"), np.stack([v.real, v.imag], 1), delimiter=",",
                       header="I,Q", comments="", fmt="%.17g")
        o += k
    return x, y


def _pa_fast(x, coef):
    y = np.zeros(x.size, dtype=np.complex128)
    for c, (l, j, k, _) in zip(coef, nt.term_list(PA_SPEC)):
        s = np.concatenate([np.zeros(l, dtype=complex), x[:x.size - l]])
        y += c * s * np.abs(s) ** k
    return y


def args(step, **kw):
    a = [step]
    for k, v in kw.items():
        a += ["--" + k.replace("_", "-"), str(v)]
    return nt._parser().parse_args(a)


class qa_neural_train_spec(unittest.TestCase):
    """What needs no torch: specs, counts, the ledger, and the one-line refusal without torch."""

    def test_specs(self):
        self.assertEqual(nt.parse_spec("gru:H=23,C=3,D=16")[2], "gru:H=23,C=3,D=16")
        self.assertEqual(nt.parse_spec("gru:H=8")[2], "gru:H=8,C=0,D=1")
        self.assertEqual(nt.parse_spec("gru:H=8,C=0,D=9")[2], "gru:H=8,C=0,D=1")
        # as the C++ kernel spells it: optional keys at 0 left out (a partial group has no terms)
        self.assertEqual(nt.parse_spec("gmp:Ka=5,La=3,Kb=0,Lb=2,Mb=1")[2], "gmp:Ka=5,La=3,Lb=2,Mb=1")
        self.assertEqual(nt.num_weights("gmp:Ka=5,La=3,Kb=0,Lb=2,Mb=1"), 15)
        for bad in ("gru:H=0", "gru:H=300", "tdnn:M=2,H=3", "gru:H=2,X=1", "lstm:H=3", "tdnn:M=1,H=1,N=9"):
            with self.assertRaises(ValueError):
                nt.parse_spec(bad)
        # docs/neural_models.md's counts
        H, C = 23, 3
        self.assertEqual(nt.num_weights("gru:H=23,C=3,D=16"), 3 * H * 6 + 3 * H * H + 6 * H + 2 * H + 2 + 8 * C)
        self.assertEqual(nt.num_weights("tdnn:M=4,H=10,N=3"), 4 * 4 * 10 + 10 + 2 * (100 + 10) + 20 + 2)
        self.assertEqual(nt.lookahead("gru:H=4,C=2,D=16"), 16)
        self.assertEqual(nt.lookahead("gru:H=4"), 1)
        self.assertEqual(nt.lookahead("gmp:Ka=2,La=2,Kc=1,Lc=2,Mc=3"), 3)

    def test_ledger(self):
        # Hand counts with the rule in neural_train (docs/neural_models.md, "Operations per sample").
        H, C = 10, 3
        gru = 5 + 36 * H + 6 * H * H + 10 * H + 4 * H + (12 * C + 5 * C + 4 * C + 2)
        self.assertEqual(nt.neural_ops("gru:H=10,C=3,D=4"), gru)
        self.assertEqual(nt.neural_ops("gru:H=10"), gru - (21 * C + 2))
        M, H, N = 4, 10, 2
        self.assertEqual(nt.neural_ops("tdnn:M=4,H=10,N=2"), 5 + 8 * M * H + H + (2 * H * H + H) + 4 * H + 2)
        # The neural rule is the one arena_ledger uses for these families (registered through its hook).
        for fam in ("gru", "tdnn"):
            self.assertIs(al._LEDGERS[fam], ns.neural_ledger)
        for spec in ("gru:H=10,C=3,D=4", "gru:H=32,C=4,D=16", "tdnn:M=4,H=10,N=2"):
            led = al.ledger(spec) if dm is not None else ns.neural_ledger(spec)
            self.assertEqual(led["ops"], nt.neural_ops(spec), spec)
            self.assertEqual(led["ops"], led["mul"] + led["add"] + led["nonlinear"], spec)
            self.assertEqual(led["params"], nt.num_weights(spec), spec)
        # The polynomial rule is arena_ledger's (the Arena's): mp:K=3,M=2 with the LO constant: |x|^2,
        # sqrt and |x|^2 again as a power (3 MUL, 2 ADD); 2 distinct products (4 MUL); 6 coefficients
        # (24 MUL, 12 ADD); accumulation and the constant (12 ADD).
        self.assertEqual(nt.ops("mp:K=3,M=2"), 31 + 26)
        for spec in ("gmp:Ka=5,La=14,Kb=3,Lb=12,Mb=3,Kc=3,Lc=12,Mc=2", "ph:P=5,Q=0,Lp=2,Lq=1"):
            self.assertEqual(nt.ops(spec), al.ledger_from_terms(nt.term_list(spec))["ops"], spec)

    def test_without_torch(self):
        # The package without torch: the module imports, specs and the ledger work, training says why
        # it cannot run in one line.
        code = ("import sys; sys.modules['torch'] = None; sys.path.insert(0, %r); import neural_train as nt; "
                "nt.ops('gru:H=4'); sys.exit(nt.main(['pa', '--data', '.', '--model', 'gru:H=4']))"
                % os.path.dirname(os.path.abspath(nt.__file__)))
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("PyTorch is not installed", r.stderr)


@unittest.skipIf(dm is None, "the package is not built: nothing to compare the fallback with")
class qa_neural_train_fallback(unittest.TestCase):
    """The copies neural_spec keeps for hosts without the compiled module agree with the package's
    versions (the C++ parser behind dpd_model, metrics.py), so the two cannot drift."""

    SPECS = ("mp:K=1,M=1", "mp:K=5,M=100", "mp:K=03,M=2", "gmp:Ka=5,La=14,Kb=3,Lb=12,Mb=3,Kc=3,Lc=12,Mc=2",
             "gmp:Ka=5,La=3,Kb=0,Lb=2,Mb=1", "gmp:Ka=5,La=3,Kb=2", "gmp:Ka=3,La=2,Kb=2,Lb=0,Mb=3",
             "gmp:La=3,Ka=5", " gmp:Ka=5, La=3", "gmp:Ka=1,La=1,Kc=1,Lc=1,Mc=1", "gmp:Ka=15,La=200,Kc=2,Lc=9,Mc=4",
             "ph:P=5,Q=3,Lp=4,Lq=2", "ph:P=5,Q=0,Lp=4,Lq=3", "ph:P=15,Q=1,Lp=7,Lq=1")
    BAD = ("mp:K=16,M=2", "mp:K=3,M=2000", "mp:K=3", "mp:K=3,M=2,M=2", "mp:K=-1,M=2", "gmp:Ka=0,La=2",
           "gmp:Ka=2,La=2,X=1", "ph:P=4,Q=0,Lp=4,Lq=1", "ph:P=5,Q=2,Lp=4,Lq=2", "ph:P=5,Q=0,Lp=4",
           "ph:P=15,Q=15,Lp=1024,Lq=1024", "gmp:Ka=15,La=1024,Kb=15,Lb=1024,Mb=1024", "lstm:H=3")

    def test_parser_and_terms(self):
        self.assertTrue(ns.PACKAGE)
        for spec in self.SPECS:
            m = dm.parse(spec)
            fam, vals, text = ns._parse_here(spec)
            self.assertEqual(text, str(m), spec)
            self.assertEqual(ns._terms_here(fam, vals), [tuple(t) for t in dm.term_list(m)], spec)
            self.assertEqual(ns.term_list(spec), ns._terms_here(fam, vals), spec)
            self.assertEqual(ns._count_here(fam, vals), m.num_coefficients, spec)
        for spec in self.BAD:
            with self.assertRaises(ValueError, msg=spec):
                dm.parse(spec)
            with self.assertRaises(ValueError, msg=spec):
                ns._parse_here(spec)

    def test_metrics(self):
        x = test_signal(5000, seed=3)
        y = x + 0.02 * test_signal(5000, seed=4) + 0.01 * x * np.abs(x) ** 2
        self.assertAlmostEqual(ns._nmse_here(x, y), mx.nmse_db(x, y), places=10)
        self.assertAlmostEqual(ns.nmse_db(x, y), mx.nmse_db(x, y), places=12)
        for nper in (1000, 1700, 5000):
            self.assertAlmostEqual(ns._segment_here(x, y, nper), mx.opendpd_nmse_db(y, x, nper), places=10)
        for bw, n_sub in ((0.25, 1), (0.25, 5), (0.4, 2)):
            for nper in (512, 1000):
                np.testing.assert_allclose(ns._aclr_here(y, 1.0, bw, n_sub, nper),
                                           mx.opendpd_aclr(y, 1.0, bw, n_sub, nper), rtol=0, atol=1e-9)


@unittest.skipIf(torch is None, NO_TORCH)
class qa_neural_train_models(unittest.TestCase):

    def setUp(self):
        torch.manual_seed(1)
        self.x = test_signal(300, seed=1)

    def perturbed(self, spec):
        m = nt.build(spec)
        with torch.no_grad():  # biases are zero at initialisation: make every weight count
            for p in m.parameters():
                p.add_(0.3 * torch.randn_like(p))
        return m

    def test_roundtrip(self):
        for spec in ("gru:H=5,C=3,D=7", "gru:H=4", "tdnn:M=3,H=6,N=3", "gmp:Ka=3,La=2,Kb=2,Lb=2,Mb=2,Kc=1,Lc=2,Mc=1"):
            m = self.perturbed(spec)
            w = nt.export_weights(m)
            m2 = nt.import_weights(nt.build(spec), *(w if isinstance(w, tuple) else (w,)))
            w2 = nt.export_weights(m2)
            if isinstance(w, tuple):
                np.testing.assert_array_equal(w[0], w2[0])
                self.assertEqual(w[1], w2[1])
            else:
                self.assertEqual(w.size, nt.num_weights(spec))
                np.testing.assert_array_equal(w, w2)
            np.testing.assert_array_equal(nt.run_stream(m, self.x), nt.run_stream(m2, self.x))
        # ... and through a model file, bit for bit (float32 weights written as exact decimals)
        with tempfile.TemporaryDirectory() as d:
            m = self.perturbed("gru:H=5,C=2,D=3")
            p = os.path.join(d, "m.json")
            nt.save_file(p, m.spec, "pa_model", weights=nt.export_weights(m), nmse={"test": -1.0})
            m2, doc = nt.load_file(p)
            self.assertEqual(doc["kind"], "pa_model")
            self.assertNotIn("coefficients", doc)
            np.testing.assert_array_equal(nt.export_weights(m), nt.export_weights(m2))
        with self.assertRaises(ValueError):
            nt.import_weights(nt.build("gru:H=5"), np.zeros(3))

    # float32 torch vs the float64 reference, over 300 samples of a recurrent state: the bound is on
    # the largest error relative to the output's RMS; measured about 1e-7 (float32 rounding).
    BOUND = 2e-6

    def check(self, y, ref):
        err = np.max(np.abs(y - ref)) / np.sqrt(np.mean(np.abs(ref) ** 2))
        self.assertLess(err, self.BOUND)

    def test_gru_equals_contract(self):
        for spec in ("gru:H=6,C=3,D=5", "gru:H=4"):
            m = self.perturbed(spec)
            _, v, _ = nt.parse_spec(spec)
            self.check(nt.run_stream(m, self.x), gru_ref(nt.export_weights(m), v["H"], v["C"], v["D"], self.x))

    def test_tdnn_equals_contract(self):
        m = self.perturbed("tdnn:M=4,H=7,N=2")
        self.check(nt.run_stream(m, self.x), tdnn_ref(nt.export_weights(m), 4, 7, 2, self.x))

    def test_poly_equals_basis(self):
        for spec in ("gmp:Ka=3,La=3,Kb=2,Lb=2,Mb=2,Kc=2,Lc=2,Mc=2", "mp:K=4,M=3", "ph:P=5,Q=3,Lp=2,Lq=2"):
            m = self.perturbed(spec)
            c, lo = nt.export_weights(m)
            self.check(nt.run_stream(m, self.x), poly_ref(spec, c, lo, self.x))
            try:  # the module's own basis, where the build is there
                from gnuradio.gpuinterp import dpd_model
            except ImportError:
                continue
            self.check(nt.run_stream(m, self.x), dpd_model.apply(self.x, spec, c, lo))
            self.assertEqual([tuple(t) for t in dpd_model.term_list(spec)], nt.term_list(spec))
        # initialised at the identity
        np.testing.assert_allclose(nt.run_stream(nt.build("gmp:Ka=3,La=2"), self.x), self.x, atol=1e-6)


@unittest.skipIf(torch is None, NO_TORCH)
class qa_neural_train_training(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.data = os.path.join(cls.tmp.name, "pa")
        write_dataset(cls.data)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_pa_training(self):
        data = os.path.join(self.tmp.name, "strong")
        write_dataset(data, coef=PA_STRONG)
        out = os.path.join(self.tmp.name, "pa.json")
        a = args("pa", data=data, model="gru:H=8,C=2,D=1", out=out, epochs=12, stride=4, batch=32, frame=32,
                 warmup=8, lr=2e-2, threads=1)
        m, figs, _ = nt.train_pa(a, log=lambda s: None)
        x, y = nt.load_split(data)[0]["test"]
        untrained = nt.nmse_db(y, nt.run_stream(nt.build(a.model), x))
        linear = nt.nmse_db(y, np.vdot(x, y) / np.vdot(x, x) * x)  # the best complex gain: -21 dB
        # A few seconds of training take the model from about 0 dB to past the best linear model, so it
        # has learned the compression, not only the gain (measured: about -24 dB, 2.7 dB past linear).
        self.assertGreater(untrained, -10)
        self.assertLess(figs["test"], untrained - 15)
        self.assertLess(figs["test"], linear - 2)
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(doc["training"]["seed"], 0)
        self.assertEqual(doc["training"]["nmse_db"]["test"], round(figs["test"], 3))
        self.assertEqual(len(doc["training"]["data_sha256"]), 6)

    def test_dpd_direct_learning(self):
        # The frozen PA is the synthetic PA itself (an mp file), so the test judges the direct-learning
        # loop, not a surrogate's accuracy.
        pa = os.path.join(self.tmp.name, "true_pa.json")
        nt.save_file(pa, PA_SPEC, "pa_model", coefficients=PA_COEF, lo_leakage=0j)
        # Margins (NMSE to g x, mean ACLR) a few seconds of training must win over the PA without DPD
        # (-24.2 dB, -35.2 dBc at the least-squares gain); measured: gmp 14 and 10 dB, gru 5.8 and 3.7 dB.
        for spec, d_nmse, d_aclr in (("gmp:Ka=5,La=3,Kb=2,Lb=2,Mb=1", 10, 6), ("gru:H=6,C=4,D=1", 3, 2)):
            out = os.path.join(self.tmp.name, "dpd.json")
            a = args("dpd", data=self.data, pa=pa, model=spec, out=out, epochs=6, stride=2, batch=32, frame=64,
                     warmup=8, lr=3e-3, threads=1)
            _, figs, res = nt.train_dpd(a, log=lambda s: None)
            self.assertLess(figs["test"], res["nmse_db_without_dpd"] - d_nmse, spec)
            self.assertLess(res["aclr_dbc"]["spec_plan"][2], res["aclr_dbc_without_dpd"]["spec_plan"][2] - d_aclr,
                            spec)
            with open(out) as f:
                doc = json.load(f)
            self.assertEqual(doc["kind"], "predistorter")
            self.assertEqual(doc["model"], nt.parse_spec(spec)[2])

    def test_dpd_through_several_surrogates(self):
        # Training through the same surrogate twice (--also-through) averages two equal losses and
        # takes the worse of two equal val scores: the same predistorter as through it once, to the
        # float32 rounding of the averaged gradient. The file records the second surrogate's hash.
        pa = os.path.join(self.tmp.name, "true_pa.json")
        nt.save_file(pa, PA_SPEC, "pa_model", coefficients=PA_COEF, lo_leakage=0j)
        spec = "gmp:Ka=3,La=2"
        docs = []
        for also in ({}, {"also_through": pa}):
            out = os.path.join(self.tmp.name, "dpd_also.json")
            a = args("dpd", data=self.data, pa=pa, model=spec, out=out, epochs=3, stride=4, batch=32, frame=64,
                     warmup=8, lr=3e-3, threads=1, seed=0, **also)
            nt.train_dpd(a, log=lambda s: None)
            with open(out) as f:
                docs.append(json.load(f))
        self.assertNotIn("also_through", docs[0]["training"])
        self.assertEqual(docs[1]["training"]["also_through"], [{"file": "true_pa.json", "sha256": nt.sha256(pa)}])
        w0, w1 = (np.asarray(d["coefficients"], dtype=float) for d in docs)
        self.assertLess(np.max(np.abs(w0 - w1)), 1e-5 * np.max(np.abs(w0)))


if __name__ == "__main__":
    unittest.main(verbosity=2)
