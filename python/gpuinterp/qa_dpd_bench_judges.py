#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA for the scoreboard's judges read from PA model files (dpd_bench_judges): the shipped models are
the bytes their SHA256SUMS name, a neural judge's figures are what the module's kernel gives for the
same input, a dataset gets the shipped judges trained on its own files and no others, and a bad judge
file is one named line."""

import hashlib
import json
import os
import shutil
import tempfile

import numpy as np
from gnuradio import gr_unittest

from gnuradio.gpuinterp import dpd_bench_judges as judges, dpd_model as dm
from gnuradio.gpuinterp.qa_util import bench_call
from gnuradio.gpuinterp.dpd_bench_data import load_dataset


SRC = os.environ.get("GPUINTERP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SLICE = os.path.join(SRC, "tests", "data", "APA_200MHz_slice")
MODELS = os.path.join(SRC, "data", "models")
FAST = ["--pa-model", "mp:K=3,M=2", "--dpd-model", "mp:K=3,M=2", "--iterations", "1",
        "--ensemble", "gmp:Ka=3,La=2,Kb=1,Lb=1,Mb=1", "--held-out", "mp:K=3,M=3"]


call = bench_call


def _pa_files():
    return sorted(os.path.join(MODELS, n) for n in os.listdir(MODELS) if n.startswith("pa_") and n.endswith(".json"))


class qa_dpd_bench_judges(gr_unittest.TestCase):
    def test_shipped_models_match_their_sums(self):
        sums = judges._sums(MODELS)
        shipped = sorted(n for n in os.listdir(MODELS) if n.endswith(".json"))
        self.assertEqual(sorted(sums), shipped)  # every model listed, nothing listed that is gone
        for n in shipped:
            with open(os.path.join(MODELS, n), "rb") as f:
                self.assertEqual(hashlib.sha256(f.read()).hexdigest(), sums[n], n)
            judges.verify_shipped(os.path.join(MODELS, n))

    def test_a_neural_judge_is_the_kernel_on_the_same_input(self):
        # The shipped APA_200MHz surrogate on the repository's slice of the same capture: the judge's
        # NMSE is the module's kernel over each split from a zero state (the slice's splits are not
        # consecutive), and it explains this PA to within a few dB of its figure on the full splits.
        path = _pa_files()[0]
        spec, data = load_dataset(SLICE)
        s, fit = judges.load_judge(path, data, contiguous=False)
        self.assertTrue(s.is_neural)
        ref = dm.load_model(path)
        for split in ("train", "test"):
            x, y = data[split]
            z = ref.apply(x)
            want = 10 * np.log10(np.sum(np.abs(z - y) ** 2) / np.sum(np.abs(y) ** 2))
            self.assertAlmostEqual(fit.nmse_db[split], want, places=9)
        self.assertLess(fit.nmse_db["test"], -35.0)

    def test_auto_takes_the_models_trained_on_this_dataset_only(self):
        with tempfile.TemporaryDirectory() as d:
            shutil.copy(_pa_files()[0], os.path.join(d, "mine.json"))
            shutil.copy(_pa_files()[0], os.path.join(d, "other.json"))
            for name, target in (("mine.json", SLICE), ("other.json", None)):
                p = os.path.join(d, name)
                with open(p) as f:
                    doc = json.load(f)
                rec = doc["training"]["data_sha256"]
                for csv_name in rec:
                    rec[csv_name] = judges.sha256(os.path.join(target, csv_name)) if target else "0" * 64
                with open(p, "w") as f:
                    json.dump(doc, f)
            with open(os.path.join(d, "SHA256SUMS"), "w") as f:
                for n in ("mine.json", "other.json"):
                    f.write(f"{judges.sha256(os.path.join(d, n))}  {n}\n")
            self.assertEqual([os.path.basename(p) for p in judges.auto_judges(SLICE, d)], ["mine.json"])
            # the trainer is the matching model that trainers.txt lists; no list or no match: none
            self.assertEqual(judges.auto_trainers(SLICE, d), [])
            for listed, want in (("mine.json", ["mine.json"]), ("other.json", [])):
                with open(os.path.join(d, judges.TRAINERS), "w") as f:
                    f.write(f"# trainers\n{listed}\n")
                self.assertEqual([os.path.basename(p) for p in judges.auto_trainers(SLICE, d)], want)
            # another split's models are not this split's judges
            self.assertEqual(judges.auto_judges(SLICE, d, split="arena"), [])
            # a preset names a file of this dataset and split, or nothing
            with open(os.path.join(d, judges.PRESETS_FILE), "w") as f:
                f.write("# presets\ncompact other.json\ncompact mine.json\nbest other.json\n")
            self.assertEqual(os.path.basename(judges.preset_file("compact", SLICE, "opendpd", d)), "mine.json")
            self.assertIsNone(judges.preset_file("best", SLICE, "opendpd", d))
            self.assertIsNone(judges.preset_file("compact", SLICE, "arena", d))
            # a shipped file edited after its sum was taken is refused, not used
            with open(os.path.join(d, "mine.json"), "a") as f:
                f.write(" ")
            with self.assertRaisesRegex(Exception, "differs from SHA256SUMS"):
                judges.verify_shipped(os.path.join(d, "mine.json"))

    def test_the_scoreboard_reports_the_neural_judge_by_kind_and_plan(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            rc, o, err = call([SLICE] + FAST + ["--judge", _pa_files()[0], "--json", out])
            self.assertEqual(rc, 0, err)
            with open(out) as f:
                rep = json.load(f)
            kinds = rep["dpd"]["held_out_by_kind"]
            self.assertEqual(sorted(kinds), ["neural", "polynomial"])
            self.assertEqual(kinds["neural"]["file"], os.path.basename(_pa_files()[0]))
            plans = {a["plan"] for a in kinds["neural"]["aclr_plans"]}
            self.assertEqual(plans, {"1x200", "5x40"})
            self.assertIn("through the neural judge", o)
            # every judge never trained through carries its out-of-band floor in each plan; the
            # surrogate trained through has none (it cannot disagree with itself)
            for r in rep["dpd"]["through"]:
                if r["trained_through"]:
                    self.assertIsNone(r["oob_floor_dbc"])
                else:
                    self.assertEqual([a["plan"] for a in r["oob_floor_dbc"]], ["1x200", "5x40"], r["name"])
            self.assertEqual(kinds["neural"]["oob_floor_dbc"][0]["plan"], "1x200")
            self.assertIn("oob floor", o)

    def test_small_signal_gain_of_a_linear_filter_is_its_frequency_response(self):
        # A causal FIR's response to any probe is the FIR: the Welch estimate of its gain equals
        # sum h[n] e^{-j 2 pi f n / fs}, up to the leakage of a 4-tap filter across 1024-point
        # segment edges (taps / nperseg of the cross-power: below 1 %).
        fs = 983.04e6
        rng = np.random.default_rng(3)
        x = (rng.standard_normal(60000) + 1j * rng.standard_normal(60000)) * 0.2
        h = np.array([1.0, 0.3 - 0.2j, -0.1j, 0.05])
        f, H = judges.small_signal_gain(lambda v: np.convolve(v, h)[:v.size], x, fs)
        want = np.exp(-2j * np.pi * np.outer(f / fs, np.arange(h.size))) @ h
        self.assertEqual(f.size, judges.OOB_NPERSEG)
        self.assertLess(np.max(np.abs(H - want) / np.abs(want)), 1e-2)

    def test_small_signal_gain_of_a_cubic_is_its_mean_derivative(self):
        # y = x (1 + a |x|^2): dy = (1 + 2 a |x|^2) p + a x^2 conj(p). A circular probe is uncorrelated
        # with its conjugate and with |x|^2, so the gain is 1 + 2 a mean|x|^2 at every frequency. The
        # rest, 2 a (|x|^2 - mean) p + a x^2 conj(p), is noise to the estimate: relative variance
        # |a|^2 (4 var|x|^2 + E|x|^4) / |want|^2 per segment, averaged over the ~116 half-overlapping
        # segments (counted as 58 independent ones); no bin of 1024 strays 5 sigma, the mean over all
        # bins 5 sigma / sqrt(1024 / 2).
        fs = 983.04e6
        rng = np.random.default_rng(4)
        x = (rng.standard_normal(60000) + 1j * rng.standard_normal(60000)) * 0.3
        a = -0.4 + 0.1j
        _, H = judges.small_signal_gain(lambda v: v * (1 + a * np.abs(v) ** 2), x, fs)
        m2 = np.abs(x) ** 2
        want = 1 + 2 * a * np.mean(m2)
        sigma = abs(a) * np.sqrt((4 * np.var(m2) + np.mean(m2 ** 2)) / (x.size / judges.OOB_NPERSEG)) / abs(want)
        self.assertLess(np.max(np.abs(H - want)) / abs(want), 5 * sigma)
        self.assertLess(abs(np.mean(H) - want) / abs(want), 5 * sigma / np.sqrt(judges.OOB_NPERSEG / 2))

    def test_a_judge_whose_gain_is_a_times_the_trainers_leaves_1_minus_a(self):
        # Where the judge's gain is a times the trainer's at every frequency, the floor is
        # 20 log10 |1 - a| plus y's own ACLR in that plan (arena.aclr: the module's other Welch, in
        # numpy, over the same 1024-point segments).
        from gnuradio.gpuinterp import arena

        fs = 983.04e6
        spec, data = load_dataset(SLICE)
        y = data["test"][1]
        f = np.sort(np.fft.fftfreq(judges.OOB_NPERSEG, 1 / fs))
        h_t = np.exp(-2j * np.pi * f / fs * 2.5)  # any gain: the floor depends on the ratio only
        for a in (0.5, 0.9 + 0.1j, 1.25):
            for plan in ("1x200", "5x40"):
                got = judges.implied_floor(a * h_t, h_t, f, y, fs, plan)
                ref = arena.aclr(y, fs, judges.OOB_NPERSEG, plan)
                self.assertAlmostEqual(got["left"], 20 * np.log10(abs(1 - a)) + ref["left"], places=6)
                self.assertAlmostEqual(got["right"], 20 * np.log10(abs(1 - a)) + ref["right"], places=6)
        one = np.ones(f.size)
        self.assertIsNone(judges.implied_floor(one, one, f, y, fs, "1x200"))  # gains that agree: no floor

    def test_the_headline_is_the_worst_neural_held_out_judge(self):
        def row(kind, avg, role="held_out", trained=False):
            return {"judge_kind": kind, "role": role, "trained_through": trained,
                    "aclr_dbc": None if avg is None else {"avg": avg}}
        rows = [row("polynomial", -43.0), row("neural", -57.0), row("neural", -53.0),
                row("neural", -60.0, role="trainer", trained=True)]
        self.assertEqual(judges.held_out_headline(rows), -53.0)
        self.assertEqual(judges.held_out_headline(rows[:1]), -43.0)  # no neural judge: every held-out one
        self.assertIsNone(judges.held_out_headline(rows + [row("neural", None)]))  # one blew up: no figure
        self.assertIsNone(judges.held_out_headline(rows[3:]))

    def test_presets_are_the_arenas(self):
        for argv, text in (([SLICE, "--dpd-model", "compact"], "a preset of the Arena protocol"),
                           ([SLICE, "--dpd-model", "best", "--protocol", "arena"], "is not that capture"),
                           ([SLICE, "--dpd-model", "best", "--protocol", "arena", "--dpd-file", SLICE],
                            "give it or --dpd-file")):
            rc, o, err = call(argv)
            self.assertEqual(rc, 2, err)
            self.assertEqual(len(err.splitlines()), 1, err)
            self.assertIn(text, err)

    def test_a_preset_names_the_surrogates_it_was_trained_through(self):
        # The scoreboard labels a judge file "trainer" when its hash is in the predistorter's record:
        # the shipped best through s0 and s2..s9, never s1 (the Arena judge); compact through s0.
        h = {s: judges.sha256(os.path.join(MODELS, f"pa_apa200b_gru_s{s}.json")) for s in range(10)}
        for preset, trainers in (("best", (0, 2, 3, 4, 5, 6, 7, 8, 9)), ("compact", (0,))):
            name = dict(line.split() for line in open(os.path.join(MODELS, "presets.txt"))
                        if line.strip() and not line.startswith("#"))[preset]
            got = judges.trained_through(dm.load_model(os.path.join(MODELS, name)).training)
            self.assertEqual(got, {h[s] for s in trainers}, preset)
        self.assertEqual(judges.trained_through(None), set())
        self.assertEqual(judges.trained_through({"also_through": [{"file": "x.json"}]}), set())

    def test_bad_judge_files_are_one_line(self):
        with tempfile.TemporaryDirectory() as d:
            pre = os.path.join(d, "pre.json")
            dm.save_model(pre, dm.ModelFit("mp:K=1,M=1", np.ones(1), 0j, {}, kind="predistorter"))
            for args, text in (([os.path.join(d, "missing.json")], "not a file"),
                               ([pre], "a judge or trainer is a PA model"),
                               (["auto", pre], "cannot be combined")):
                for option in ("--judge", "--train-file"):
                    argv = [SLICE] + FAST + sum(([option, a] for a in args), [])
                    rc, o, err = call(argv)
                    self.assertEqual(rc, 2, (args, err))
                    self.assertEqual(len(err.splitlines()), 1, err)
                    self.assertIn(text, err)


if __name__ == "__main__":
    gr_unittest.run(qa_dpd_bench_judges)
