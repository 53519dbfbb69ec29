#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA for gpuinterp_dpd_bench's held-out surrogate: on a synthetic PA whose true response is known (a
memory polynomial generating the "measured" dataset), the DPD's ACLR through the held-out surrogate
(a family the DPD never saw) must be within 1 dB of its ACLR through the true PA; and the report says
which surrogate is which. Small data and small models: seconds, not the measured dataset's minutes."""

import json
import os
import tempfile

import numpy as np
from gnuradio import gr_unittest

from gnuradio.gpuinterp import dpd_bench, dpd_bench_cli, metrics
from gnuradio.gpuinterp import dpd_model as dm

FS, BW, NPERSEG = 983.04e6, 200e6, 2048
SPLIT = {"train": 16384, "val": 6144, "test": 8192}
# The true PA: an all-order memory polynomial with a short memory, AM/AM compression and AM/PM
# (about -30 dBc ACLR at the level below, as APA_200MHz); the held-out surrogate has its structure,
# the trained-through ones are GMPs of other depths.
TRUE_PA = "mp:K=7,M=3"
TRUE_W = np.array([1.0, 0.12 - 0.04j, -0.03 + 0.01j,                 # |x|^0
                   0.05 + 0.02j, -0.02, 0.01j,                        # |x|^1
                   -0.45 + 0.12j, 0.08 - 0.03j, -0.02,                # |x|^2
                   0.10 - 0.05j, -0.02, 0.0,                          # |x|^3
                   0.15 + 0.05j, 0.01, 0.0,                           # |x|^4
                   -0.05, 0.0, 0.0,                                   # |x|^5
                   -0.08 + 0.02j, 0.01j, 0.0])                        # |x|^6
PA = "gmp:Ka=5,La=4,Kb=2,Lb=2,Mb=1"
ENSEMBLE = "gmp:Ka=5,La=3,Kb=2,Lb=3,Mb=2"
HELD_OUT = "mp:K=7,M=3"
DPD = "mp:K=5,M=6"


def band_limited(n, rng):
    """Complex Gaussian noise occupying BW of FS (a brick wall in frequency), unit RMS."""
    spec = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    f = np.fft.fftfreq(n, 1 / FS)
    spec[np.abs(f) > 0.95 * BW / 2] = 0
    x = np.fft.ifft(spec)
    return x / np.sqrt(np.mean(np.abs(x) ** 2))


def true_pa(x):
    return dm.apply(x, TRUE_PA, TRUE_W)


def write_dataset(folder, rng):
    n = sum(SPLIT.values())
    x = 0.35 * band_limited(n, rng)
    x = x * np.minimum(1.0, 1.0 / np.maximum(np.abs(x), 1e-12))  # a DAC's full scale
    y = true_pa(x)
    y = y + 3e-4 * np.sqrt(np.mean(np.abs(y) ** 2)) * (rng.standard_normal(n) + 1j * rng.standard_normal(n))
    i = 0
    for s, k in SPLIT.items():
        for side, v in (("input", x[i:i + k]), ("output", y[i:i + k])):
            with open(os.path.join(folder, f"{s}_{side}.csv"), "w") as f:
                f.write("I,Q\n")
                f.writelines(f"{a:.12e},{b:.12e}\n" for a, b in zip(v.real, v.imag))
        i += k
    ratios = {s: k / n for s, k in SPLIT.items()}
    with open(os.path.join(folder, "spec.json"), "w") as f:
        json.dump({"dataset_format": "split_csv", "split_ratios": ratios, "input_signal_fs": FS,
                   "bw_main_ch": BW, "n_sub_ch": 1, "nperseg": NPERSEG}, f)
    return x


class qa_dpd_bench_held_out(gr_unittest.TestCase):
    def test_held_out_surrogate_predicts_the_true_pa(self):
        rng = np.random.default_rng(20261201)
        with tempfile.TemporaryDirectory() as d:
            x = write_dataset(d, rng)
            out = os.path.join(d, "r.json")
            rc = dpd_bench_cli.main([d, "--json", out, "--pa-model", PA, "--ensemble", ENSEMBLE, "--held-out", HELD_OUT,
                                 "--dpd-model", DPD, "--iterations", "3", "--train-through", "both"])
            self.assertEqual(rc, 0)
            with open(out) as f:
                rep = json.load(f)
        # the old keys keep their meaning (figures through --pa-model), the new ones say which is which
        for k in ("dataset", "pa_model", "measured", "surrogate_no_dpd", "dpd", "surrogates",
                  "out_of_band_assumption", "dpd_single"):
            self.assertIn(k, rep)
        self.assertEqual([(s["name"], s["role"], s["probe_noise"]) for s in rep["surrogates"]],
                         [(str(dm.parse(PA)), "pa_model", 0.01), (str(dm.parse(ENSEMBLE)), "ensemble", 0.01),
                          (HELD_OUT, "held_out", 0.01), (HELD_OUT, "no_probe", 0.0)])
        d, single = rep["dpd"], rep["dpd_single"]
        self.assertEqual((d["training"], single["training"]), ("ensemble", "single"))
        self.assertEqual([r["trained_through"] for r in d["through"]], [True, True, False, False])
        self.assertEqual([r["trained_through"] for r in single["through"]], [True, False, False, False])
        self.assertEqual(d["aclr_dbc"], d["through"][0]["aclr_dbc"])
        self.assertEqual(d["held_out_aclr_dbc"], d["through"][2]["aclr_dbc"]["avg"])
        self.assertEqual(rep["out_of_band_assumption"]["probe_noise"], 0.01)
        self.assertEqual(rep["out_of_band_assumption"]["dpd_aclr_dbc_through_no_probe"],
                         d["through"][3]["aclr_dbc"]["avg"])

        # Through the true PA, recomputed here from the reported coefficients: the splits are one
        # stream (split_ratios), so the DPD and the PA run over all of it and the test part is scored.
        n_test = SPLIT["test"]
        peak = float(np.max(np.abs(x[:SPLIT["train"]])))
        for sec in (d, single):
            c = np.array([complex(a, b) for a, b in sec["coefficients"]])
            xp, _ = dpd_bench.limit(dm.apply(x, DPD, c[:-1], c[-1]), peak)
            y = true_pa(xp)[-n_test:]
            true_aclr = metrics.opendpd_aclr(y, FS, BW, 1, NPERSEG)[2]
            with self.subTest(training=sec["training"]):
                self.assertLess(true_aclr, -40.0)  # the DPD works on the true PA at all
                self.assertLess(abs(sec["held_out_aclr_dbc"] - true_aclr), 1.0,
                                f"held out {sec['held_out_aclr_dbc']:.2f} dBc, true PA {true_aclr:.2f} dBc")

    def test_single_without_no_probe_model(self):
        rng = np.random.default_rng(5)
        with tempfile.TemporaryDirectory() as d:
            write_dataset(d, rng)
            out = os.path.join(d, "r.json")
            rc = dpd_bench_cli.main([d, "--json", out, "--pa-model", PA, "--held-out", HELD_OUT, "--dpd-model", DPD,
                                 "--iterations", "2", "--train-through", "single", "--no-probe-model", "none"])
            self.assertEqual(rc, 0)
            with open(out) as f:
                rep = json.load(f)
        self.assertNotIn("dpd_single", rep)
        self.assertEqual([s["role"] for s in rep["surrogates"]], ["pa_model", "held_out"])
        self.assertEqual(rep["dpd"]["training"], "single")
        self.assertIsNone(rep["out_of_band_assumption"]["no_probe_surrogate"])
        self.assertIsNone(rep["dpd"]["no_probe_aclr_dbc"])
        self.assertAlmostEqual(rep["dpd"]["held_out_gap_db"],
                               rep["dpd"]["held_out_aclr_dbc"] - rep["dpd"]["trained_through_aclr_dbc"])

    def test_stacked_captures_fit_as_one(self):
        # Two captures of one known post-inverse, concatenated with the start of the second excluded,
        # give its coefficients; without the exclusion the rows across the seam bias them.
        from gnuradio.gpuinterp import dpd
        rng = np.random.default_rng(7)
        w = np.array([1.0, 0.2 - 0.1j, 0.05, -0.1 + 0.05j, 0.02, 0.01j])  # mp:K=2,M=3
        ys = [0.4 * band_limited(4096, rng) for _ in range(2)]
        xs = [dm.apply(y, "mp:K=2,M=3", w) for y in ys]
        x, y = np.concatenate(xs), np.concatenate(ys)
        seam = np.zeros(y.size, dtype=bool)
        seam[4096:4096 + 3] = True
        kw = dict(model="mp:K=2,M=3", target_gain=1.0, delay=0.0, regularization=0.0, lo_leakage=False)
        r = dpd.estimate(x, y, exclude=seam, **kw)
        self.assertLess(np.max(np.abs(r.coefficients - w)), 1e-9)
        self.assertGreater(np.max(np.abs(dpd.estimate(x, y, **kw).coefficients - w)), 1e-6)
        with self.assertRaises(dpd.DPDError):
            dpd.estimate(x, y, exclude=seam[:-1], **kw)


if __name__ == "__main__":
    gr_unittest.run(qa_dpd_bench_held_out)
