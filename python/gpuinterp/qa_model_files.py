#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Broken model files (dpd_model.load_model, the PA model JSON that pa_model_cc(model="pa.json")
reads): each case breaks one field of a file saved from a real fit, and must raise ValueError naming
the file and the field, never a bare Python error, a wrong field, or a value taken silently.

A case is (name, field, how): ``how`` is a function of the parsed document (a dict) returning the
broken document, or a string, the file's new text (or bytes). ``field`` is the word the message
must contain after the path; None for the whole file (not JSON, empty, a directory)."""

import json
import os
import tempfile
import unittest

import numpy as np
from gnuradio import gr_unittest

from gnuradio.gpuinterp import dpd, dpd_model as dm
from gnuradio.gpuinterp.pa_models import pa_model_cc

MODEL = "gmp:Ka=3,La=2,Kb=2,Lb=2,Mb=1"


def setf(field, value):
    def how(doc):
        doc[field] = value
        return doc
    return how


def drop(field):
    def how(doc):
        del doc[field]
        return doc
    return how


def coef(i, value):
    def how(doc):
        doc["coefficients"][i] = value
        return doc
    return how


def first_pair(t, new):
    """The saved text with its first coefficient pair (alone on its line) replaced by ``new``."""
    lines = t.split("\n")
    i = next(i for i, l in enumerate(lines) if l.startswith('"coefficients"', 1)) + 1
    lines[i] = "  " + new + ","
    return "\n".join(lines)


def text(transform):
    """A case on the saved file's text rather than the parsed document."""
    return ("text", transform)


CASES = [
    # missing fields
    ("missing model", "model", drop("model")),
    ("missing coefficients", "coefficients", drop("coefficients")),
    # extra: elements, and misspelt fields that would otherwise be ignored
    ("one coefficient too many", "coefficients", lambda d: dict(d, coefficients=d["coefficients"] + [[0, 0]])),
    ("one coefficient too few", "coefficients", lambda d: dict(d, coefficients=d["coefficients"][:-1])),
    ("no coefficients", "coefficients", setf("coefficients", [])),
    ("triple in coefficients", "coefficients", coef(2, [1.0, 0.0, 0.0])),
    ("single in coefficients", "coefficients", coef(1, [1.0])),
    ("lo_leakage [1.0]", "lo_leakage", setf("lo_leakage", [1.0])),
    ("lo_leakage triple", "lo_leakage", setf("lo_leakage", [1.0, 0.0, 0.0])),
    ("misspelt lo_leakage", "lo_leakge", lambda d: dict({k: v for k, v in d.items() if k != "lo_leakage"},
                                                      lo_leakge=[0.1, 0])),
    ("duplicate key", "rank", text(lambda t: t.replace('"rank": ', '"rank": 1, "rank": '))),
    # wrong types
    ("model a number", "model", setf("model", 5)),
    ("model unknown family", "model", setf("model", "volterra:K=3")),
    ("model too few coefficients for file", "coefficients", setf("model", "gmp:Ka=3,La=3")),
    ("model zero-width space", "model", setf("model", "gmp:Ka=3\u200b,La=2,Kb=2,Lb=2,Mb=1")),
    ("model unicode digits", "model", setf("model", "gmp:Ka=\uff13,La=2,Kb=2,Lb=2,Mb=1")),
    ("coefficients a dict", "coefficients", setf("coefficients", {"0": [1, 0]})),
    ("coefficients a string", "coefficients", setf("coefficients", "1,0,0,0")),
    ("coefficient as strings", "coefficients", coef(0, ["1.5", "0"])),
    ("coefficient as bools", "coefficients", coef(0, [True, False])),
    ("coefficient null", "coefficients", coef(0, None)),
    ("coefficient a number", "coefficients", coef(0, 1.0)),
    ("lo_leakage a string", "lo_leakage", setf("lo_leakage", "0.1+0j")),
    ("lo_leakage a number", "lo_leakage", setf("lo_leakage", 0.1)),
    ("input_range 'x'", "input_range", setf("input_range", "x")),
    ("input_range negative", "input_range", setf("input_range", -1.0)),
    ("input_range zero", "input_range", setf("input_range", 0)),
    ("regularization 'x'", "regularization", setf("regularization", "x")),
    ("regularization negative", "regularization", setf("regularization", -1e-3)),
    ("condition below 1", "condition", setf("condition", 0.5)),
    ("condition a list", "condition", setf("condition", [1, 2])),
    ("rank 'x'", "rank", setf("rank", "x")),
    ("rank 2.5", "rank", setf("rank", 2.5)),
    ("rank negative", "rank", setf("rank", -1)),
    ("rank true", "rank", setf("rank", True)),
    ("rank beyond the columns", "rank", setf("rank", 10 ** 6)),
    ("nmse_db list", "nmse_db", setf("nmse_db", [1, 2])),
    ("nmse_db string value", "nmse_db", setf("nmse_db", {"train": "-40"})),
    ("nmse_db unknown key", "nmse_db", setf("nmse_db", {"trian": -40.0})),
    ("kind a number", "kind", setf("kind", 1)),
    ("kind unknown", "kind", setf("kind", "pa_modle")),
    # non-finite (Python's json reads NaN and Infinity, which save_model never writes)
    ("coefficient NaN", "coefficients", coef(0, [float("nan"), 0.0])),
    ("coefficient -Infinity", "coefficients", coef(4, [0.0, float("-inf")])),
    ("lo_leakage [NaN, 0]", "lo_leakage", setf("lo_leakage", [float("nan"), 0])),
    ("lo_leakage infinite", "lo_leakage", setf("lo_leakage", [0, float("inf")])),
    ("input_range NaN", "input_range", setf("input_range", float("nan"))),
    ("regularization infinite", "regularization", setf("regularization", float("inf"))),
    ("nmse_db NaN", "nmse_db", setf("nmse_db", {"train": float("nan")})),
    ("condition NaN", "condition", setf("condition", float("nan"))),
    # huge: beyond the float32 the engines compute in, or beyond any float
    ("coefficient 1e39", "coefficients", coef(3, [1e39, 0.0])),
    ("coefficient -1e39 imag", "coefficients", coef(3, [0.0, -1e39])),
    ("coefficient 1e400", "coefficients", text(lambda t: first_pair(t, "[1e400, 0]"))),
    ("coefficient 400-digit int", "coefficients", coef(0, [10 ** 400, 0])),
    ("lo_leakage 1e39", "lo_leakage", setf("lo_leakage", [1e39, 0.0])),
    ("nmse_db 400-digit int", "nmse_db", setf("nmse_db", {"train": 10 ** 400})),
    ("rank 400-digit int", "rank", setf("rank", 10 ** 400)),
    # whole-file damage
    ("truncated JSON", None, text(lambda t: t[:len(t) // 2])),
    ("empty file", None, text(lambda t: "")),
    ("whitespace only", None, text(lambda t: " \n\t\n")),
    ("a JSON list", None, text(lambda t: "[1, 2, 3]")),
    ("a JSON string", None, text(lambda t: '"gmp:Ka=3,La=2"')),
    ("not UTF-8", None, text(lambda t: b"\xff\xfe" + t.encode("utf-16-le"))),
    ("unicode junk", None, text(lambda t: "\u2603\u00e9\u4e2d" + t)),
    ("binary junk", None, text(lambda t: bytes(range(256)))),
    ("nested too deeply", None, text(lambda t: "[" * 100000 + "]" * 100000)),
    ("a directory", None, "directory"),
    ("no such file", None, "missing"),
]


class qa_model_files(gr_unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rng = np.random.default_rng(7)
        x = 0.5 * (rng.standard_normal(6000) + 1j * rng.standard_normal(6000)) / np.sqrt(2)
        y = (0.9 + 0.1j) * x - 0.05 * x * np.abs(x) ** 2 + 0.01 * np.roll(x, 1)
        cls.fit = dpd.fit_forward(x[:4000], y[:4000], MODEL, x[4000:5000], y[4000:5000], x[5000:], y[5000:])
        cls.tmp = tempfile.TemporaryDirectory()
        cls.good = os.path.join(cls.tmp.name, "good.json")
        dm.save_model(cls.good, cls.fit, dataset="synthetic")
        with open(cls.good) as f:
            cls.good_text = f.read()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_good_file_loads(self):
        g = dm.load_model(self.good)
        np.testing.assert_array_equal(g.coefficients, self.fit.coefficients)
        self.assertEqual(g.rank, self.fit.rank)
        self.assertEqual(set(g.nmse_db), {"train", "val", "test"})
        # Optional fields may be absent or null, extra fields are kept out of the fit.
        doc = json.loads(self.good_text)
        for k in ("kind", "lo_leakage", "input_range", "nmse_db", "regularization", "condition", "rank"):
            path = os.path.join(self.tmp.name, f"without_{k}.json")
            with open(path, "w") as f:
                json.dump({kk: v for kk, v in doc.items() if kk != k}, f)
            dm.load_model(path)
            if k not in ("kind", "lo_leakage"):
                with open(path, "w") as f:
                    json.dump(dict(doc, **{k: None}), f)
                dm.load_model(path)
        # A singular basis: the condition number is infinite, which older files wrote as Infinity.
        path = os.path.join(self.tmp.name, "inf_condition.json")
        with open(path, "w") as f:
            f.write(self.good_text.replace('"condition": ', '"condition": Infinity, "x_cond": '))
        self.assertEqual(dm.load_model(path).condition, float("inf"))

    def _broken(self, i, how):
        path = os.path.join(self.tmp.name, f"case{i:02d}.json")
        if how == "directory":
            os.makedirs(path, exist_ok=True)
        elif how == "missing":
            path = os.path.join(self.tmp.name, "nowhere", "pa.json")
        elif isinstance(how, tuple):
            t = how[1](self.good_text)
            with open(path, "wb") as f:
                f.write(t if isinstance(t, bytes) else t.encode("utf-8"))
        else:
            with open(path, "w") as f:
                json.dump(how(json.loads(self.good_text)), f)
        return path

    def test_broken_files(self):
        self.assertGreaterEqual(len(CASES), 40)
        for i, (name, field, how) in enumerate(CASES):
            with self.subTest(name):
                path = self._broken(i, how)
                with self.assertRaises(ValueError) as cm:
                    dm.load_model(path)
                msg = str(cm.exception)
                self.assertTrue(msg.startswith(path + ": "), msg)
                if field is not None:
                    self.assertTrue(msg.startswith(f"{path}: {field}: "), msg)
                self.assertNotIn("\n", msg)
                self.assertLess(len(msg), len(path) + 240, msg)

    def test_pa_model_cc_names_the_file(self):
        # Through the block: "model:" (its parameter), then the file and the field; a coefficient
        # beyond float32 is refused at load, not as a non-finite element inside the engine.
        for name, field in (("coefficient 1e39", "coefficients"), ("lo_leakage [1.0]", "lo_leakage"),
                            ("rank 'x'", "rank")):
            i, how = next((i, c[2]) for i, c in enumerate(CASES) if c[0] == name)
            path = self._broken(i, how)
            with self.subTest(name), self.assertRaises(ValueError) as cm:
                pa_model_cc(model=path)
            self.assertTrue(str(cm.exception).startswith(f"model: {path}: {field}: "), str(cm.exception))
        # A ModelFit object (no file) with a coefficient beyond float32 is refused by the engine's front end.
        f = dm.load_model(self.good)
        f.coefficients = f.coefficients.copy()
        f.coefficients[3] = 1e39
        with self.assertRaises(ValueError) as cm:
            pa_model_cc(model=f)
        self.assertTrue(str(cm.exception).startswith("coefficients: element 3"), str(cm.exception))

    def test_save_model_writes_standard_json(self):
        # Non-finite extras (a singular basis' condition) are written as null, not NaN/Infinity.
        path = os.path.join(self.tmp.name, "extras.json")
        dm.save_model(path, self.fit, condition=float("inf"), fit_nmse_db=float("nan"))
        with open(path) as f:
            t = f.read()
        self.assertNotIn("Infinity", t)
        self.assertNotIn("NaN", t)
        json.loads(t, parse_constant=lambda c: self.fail(f"non-standard constant {c}"))
        dm.load_model(path)


if __name__ == "__main__":
    gr_unittest.run(qa_model_files)
