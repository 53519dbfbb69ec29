#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Bad inputs to the offline estimator CLI (apps/gpuinterp_dpd_estimate.py) end with exit status 2 and
one "error: <option>: ..." line, never a traceback, and inputs that used to pass silently are refused:
unrelated noise as y (exit 3, nothing written), a file with trailing bytes or half a sample,
--damping -5, --target-gain 0. A good capture still gives the coefficients of dpd.estimate."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
from gnuradio import gr_unittest

from gnuradio.gpuinterp import dpd_model as dm
from gnuradio.gpuinterp import dpd, metrics, pa_models

SOURCE_DIR = os.environ.get("GPUINTERP_SOURCE_DIR",
                            os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
TOOL = os.path.join(SOURCE_DIR, "apps", "gpuinterp_dpd_estimate.py")
N = 20000


class qa_dpd_estimate_cli(gr_unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.tmp.name
        u = metrics.ofdm_test_signal(N, rms=0.2, papr_db=8.0, seed=12)
        y = pa_models.PAModel("ding2004").process(u)
        cls.u, cls.y = u.astype(np.complex64), y.astype(np.complex64)
        cls.x_path, cls.y_path = os.path.join(d, "x.cf32"), os.path.join(d, "y.cf32")
        cls.u.tofile(cls.x_path)
        cls.y.tofile(cls.y_path)
        rng = np.random.default_rng(3)
        cls.noise_path = os.path.join(d, "noise.cf32")
        (0.2 * (rng.standard_normal(N) + 1j * rng.standard_normal(N))).astype(np.complex64).tofile(cls.noise_path)
        cls.trailing = os.path.join(d, "trailing.cf32")
        with open(cls.trailing, "wb") as f:
            f.write(cls.y.tobytes() + b"\0\0\0")
        cls.half = os.path.join(d, "half.cf32")
        with open(cls.half, "wb") as f:
            f.write(b"\0\0\0\0")
        cls.good_json = os.path.join(d, "good.json")
        ident = dpd.identity_coefficients(5, 0, 3, 1)
        dpd.save_coefficients(cls.good_json, ident, 0j, 5, 0, 3, 1)
        with open(cls.good_json) as f:
            doc = json.load(f)
        files = {"garbage.json": "{not json", "garbage.csv": "index,branch\n1,2,3\n",
                 "nan.json": json.dumps(dict(doc, coefficients=[[float("nan"), 0]] * len(doc["coefficients"]))),
                 "short.json": json.dumps(dict(doc, coefficients=doc["coefficients"][:2])),
                 "nop.json": json.dumps({k: v for k, v in doc.items() if k != "model"})}  # no model spec
        cls.prev = {}
        for name, text in files.items():
            cls.prev[name] = os.path.join(d, name)
            with open(cls.prev[name], "w") as f:
                f.write(text)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_tool(self, *args, x=None, y=None):
        cmd = [sys.executable, TOOL, "--x", x or self.x_path, "--y", y or self.y_path, "-P", "5", "--Lp", "3"]
        return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=300)

    def assert_error(self, res, option, rc=2):
        self.assertEqual(res.returncode, rc, res.stdout + res.stderr)
        self.assertNotIn("Traceback", res.stderr)
        lines = [ln for ln in res.stderr.splitlines() if ln.startswith("error:")]
        self.assertEqual(len(lines), 1, res.stderr)
        self.assertTrue(lines[0].startswith(f"error: {option}"), lines[0])

    def test_good_capture(self):
        out = os.path.join(self.tmp.name, "c.json")
        res = self.run_tool("--json", out)
        self.assertEqual(res.returncode, 0, res.stderr)
        ref = dpd.estimate(self.u, self.y, 5, 0, 3, 1)  # lambda chosen on held-out data, as the CLI does
        np.testing.assert_allclose(dpd.load_coefficients(out)["coefficients"], ref.coefficients, atol=1e-9)
        # One damped step from a previous file: w = prev + damping (estimate - prev).
        res = self.run_tool("--json", out, "--previous", self.good_json, "--damping", "0.5")
        self.assertEqual(res.returncode, 0, res.stderr)
        ident = dpd.identity_coefficients(5, 0, 3, 1)
        np.testing.assert_allclose(dpd.load_coefficients(out)["coefficients"],
                                   ident + 0.5 * (ref.coefficients - ident), atol=1e-9)

    def test_model_spec(self):
        # --model: any family of the model grammar, written as a model file that dpd_model reads and
        # that --previous takes back for a damped step.
        spec = "gmp:Ka=3,La=3,Kb=2,Lb=2,Mb=1"
        out = os.path.join(self.tmp.name, "m.json")
        res = self.run_tool("--model", spec, "--json", out)
        self.assertEqual(res.returncode, 0, res.stderr)
        ref = dpd.estimate(self.u, self.y, model=spec)
        f = dm.load_model(out)
        self.assertEqual(f.model, str(dm.parse(spec)))
        self.assertEqual(f.kind, "predistorter")
        np.testing.assert_allclose(f.coefficients, ref.coefficients, atol=1e-9)
        self.assertAlmostEqual(f.lo_leakage, ref.lo_leakage, delta=1e-9)
        out2 = os.path.join(self.tmp.name, "m2.json")
        res = self.run_tool("--model", spec, "--json", out2, "--previous", out, "--damping", "0.5")
        self.assertEqual(res.returncode, 0, res.stderr)
        np.testing.assert_allclose(dm.load_model(out2).coefficients, ref.coefficients, atol=1e-9)
        self.assert_error(self.run_tool("--model", "gmp:Ka=3,Zz=1"), "--model")
        self.assert_error(self.run_tool("--model", spec, "--csv", os.path.join(self.tmp.name, "m.csv")), "--csv")
        self.assert_error(self.run_tool("--model", "mp:K=2,M=2", "--previous", out), "--previous")

    def test_tracebacks_before(self):
        d = self.tmp.name
        cases = [
            (dict(x=os.path.join(d, "missing.cf32")), (), "--x"),
            (dict(y=d), (), "--y"),
            ({}, ("--offset", str(N + 5)), "--offset"),
            ({}, ("--offset", "-1"), "--offset"),
            ({}, ("--delay", "nan"), "--delay"),
            ({}, ("--damping", "nan"), "--damping"),
            ({}, ("--previous", self.prev["garbage.json"]), "--previous"),
            ({}, ("--previous", self.prev["garbage.csv"]), "--previous"),
            ({}, ("--previous", self.prev["nan.json"]), "--previous"),
            ({}, ("--previous", self.prev["short.json"]), "--previous"),
            ({}, ("--previous", self.prev["nop.json"]), "--previous"),
            ({}, ("--previous", os.path.join(d, "nothing.json")), "--previous"),
            ({}, ("--json", os.path.join(d, "no_such_dir", "c.json")), "--json"),
            ({}, ("--csv", d), "--csv"),
            ({}, ("--Lp", "100000"), "--Lp"),
            ({}, ("--regularization", "nan"), "--regularization"),
            ({}, ("--regularization", "-1"), "--regularization"),
            ({}, ("--regularization", "lots"), "--regularization"),
            ({}, ("--count", "-3"), "--count"),
        ]
        for files, args, option in cases:
            with self.subTest(args=args, files=files):
                self.assert_error(self.run_tool(*args, **files), option)

    def test_silent_passes_before(self):
        out = os.path.join(self.tmp.name, "noise.json")
        res = self.run_tool("--json", out, y=self.noise_path)
        self.assert_error(res, "fit NMSE", rc=3)
        self.assertFalse(os.path.exists(out))
        self.assert_error(self.run_tool(y=self.trailing), "--y")
        self.assert_error(self.run_tool(x=self.half), "--x")
        self.assert_error(self.run_tool("--previous", self.good_json, "--damping", "-5"), "--damping")
        self.assert_error(self.run_tool("--target-gain", "0"), "--target-gain")


if __name__ == "__main__":
    gr_unittest.run(qa_dpd_estimate_cli)
