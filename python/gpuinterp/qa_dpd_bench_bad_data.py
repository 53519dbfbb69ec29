#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA for gpuinterp_dpd_bench's input checks: broken variants of the APA_200MHz slice (tests/data), each
with one thing broken, and bad command-line options. Every one must end with exit code 2 and exactly
one line on stderr that names the file and the field (or the option), blaming the right side: the PA
input or the PA output. The clean slice must still run."""

import json
import os
import shutil
import tempfile

import numpy as np
from gnuradio import gr_unittest

from gnuradio.gpuinterp.qa_util import bench_call


SRC = os.environ.get("GPUINTERP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SLICE = os.path.join(SRC, "tests", "data", "APA_200MHz_slice")
# Small models: a case that gets past the dataset checks runs the PA fits (a second or so), not the
# default models' minutes; the ensemble and held-out surrogates are small too.
FAST = ["--pa-model", "mp:K=3,M=2", "--dpd-model", "mp:K=3,M=2", "--iterations", "1",
        "--ensemble", "gmp:Ka=3,La=2,Kb=1,Lb=1,Mb=1", "--held-out", "mp:K=3,M=3"]
FILES = [f"{s}_{side}.csv" for s in ("train", "val", "test") for side in ("input", "output")] + ["spec.json"]


call = bench_call


# --- edits of a copy of the slice (each takes the dataset folder) ---------------------------------

def _path(ds, name):
    return os.path.join(ds, name)


def _read(path):
    with open(path) as f:
        return f.read()


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def rm(name):
    return lambda ds: os.remove(_path(ds, name))


def to_dir(name):
    def edit(ds):
        os.remove(_path(ds, name))
        os.mkdir(_path(ds, name))
    return edit


def raw(name, data):
    """Replace the file's content (bytes or text)."""
    def edit(ds):
        with open(_path(ds, name), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
    return edit


def lines(name, fn):
    """Rewrite the file's lines (header included) with fn(list of lines)."""
    def edit(ds):
        ls = _read(_path(ds, name)).splitlines()
        _write(_path(ds, name), "\n".join(fn(ls)) + "\n")
    return edit


def line(name, n, text):
    """Set file line n (1-based; the header is line 1) to text."""
    def fn(ls):
        ls[n - 1] = text
        return ls
    return lines(name, fn)


def samples(name, fn):
    """Rewrite the samples with fn(complex array) -> complex array."""
    def edit(ds):
        a = np.loadtxt(_path(ds, name), delimiter=",", skiprows=1)
        z = fn(a[:, 0] + 1j * a[:, 1])
        with open(_path(ds, name), "w") as f:
            f.write("I,Q\n" + "".join(f"{v.real!r},{v.imag!r}\n" for v in z))
    return edit


def spec(**changes):
    """Set keys of spec.json to the given values."""
    def edit(ds):
        p = _path(ds, "spec.json")
        s = json.loads(_read(p))
        s.update(changes)
        _write(p, json.dumps(s))
    return edit


def spec_del(key):
    def edit(ds):
        p = _path(ds, "spec.json")
        s = json.loads(_read(p))
        del s[key]
        _write(p, json.dumps(s))
    return edit


def spec_raw(key, text):
    """Set a key to a raw JSON token (1e400, NaN, a 5000-digit integer), which json.dumps cannot write."""
    def edit(ds):
        p = _path(ds, "spec.json")
        s = json.loads(_read(p))
        s[key] = "@@"
        _write(p, json.dumps(s).replace('"@@"', text))
    return edit


def spike(name, k, value):
    def fn(z):
        z = z.copy()
        z[k] = value
        return z
    return samples(name, fn)


def noise_like(z, seed=1):
    rng = np.random.default_rng(seed)
    r = np.sqrt(np.mean(np.abs(z) ** 2) / 2)
    return r * (rng.standard_normal(z.size) + 1j * rng.standard_normal(z.size))


# (label, edit of the dataset or None, extra argv, the file or option to be named, text the line must
#  contain). For a dataset file, the line must name that file before any other file of the dataset
#  (the side blamed); None as the edit runs the clean slice with the extra argv.
def _cases():
    c = []
    add = c.append
    # files missing, or directories in their place
    for name in FILES:
        add((f"{name} missing", rm(name), [], name, "file not found"))
    add(("train_output.csv a directory", to_dir("train_output.csv"), [], "train_output.csv", "is a directory"))
    add(("spec.json a directory", to_dir("spec.json"), [], "spec.json", "is a directory"))
    # CSV structure
    add(("empty file", raw("train_input.csv", b""), [], "train_input.csv", "empty file"))
    add(("header only", raw("val_output.csv", "I,Q\n"), [], "val_output.csv", "no samples"))
    add(("header Q,I", line("train_input.csv", 1, "Q,I"), [], "train_input.csv", "header"))
    add(("header lower case", line("test_input.csv", 1, "i,q"), [], "test_input.csv", "header"))
    add(("no header", lines("val_input.csv", lambda ls: ls[1:]), [], "val_input.csv", "header"))
    add(("header with a third column", line("train_output.csv", 1, "I,Q,X"), [], "train_output.csv", "header"))
    add(("three columns", lines("test_output.csv", lambda ls: ls[:5] + [ls[5] + ",0.1"] + ls[6:]),
         [], "test_output.csv", "line 6: expected 2 columns"))
    add(("one column", line("val_input.csv", 40, "0.25"), [], "val_input.csv", "line 40: expected 2 columns"))
    add(("semicolon separated", line("train_input.csv", 7, "0.1;0.2"), [], "train_input.csv", "line 7"))
    # non-finite values
    add(("NaN", line("val_input.csv", 10, "nan,0.5"), [], "val_input.csv", "line 10, column I: not finite"))
    add(("inf", line("train_output.csv", 30, "0.1,inf"), [], "train_output.csv", "line 30, column Q: not finite"))
    add(("-Infinity", line("test_input.csv", 3, "-Infinity,0"), [], "test_input.csv", "line 3, column I"))
    add(("1e400 overflows", line("test_output.csv", 99, "1e400,0"), [], "test_output.csv", "line 99, column I"))
    add(("100000 digits overflow", line("val_output.csv", 5, "1" * 100000 + ",0"), [], "val_output.csv",
         "line 5, column I: not finite"))
    # not numbers
    for label, text in (("word", "abc"), ("empty field", ""), ("underscore 1_000", "1_000"), ("hex", "0x10"),
                        ("Arabic-Indic digits", "\u0661\u0662"), ("full-width digits", "\uff10.\uff15"),
                        ("two dots", "1.0.0"), ("double sign", "--1"), ("comma decimal", '"0,5"'),
                        ("unicode junk", "\u00e9\u2603"), ("trailing unit", "0.5V"), ("complex literal", "1j")):
        add((f"not a number: {label}", line("train_input.csv", 101, f"{text},0.1"), [], "train_input.csv",
             "line 101, column I: not a number"))
    add(("underscore in Q", line("train_output.csv", 1001, "0.1,1_000"), [], "train_output.csv",
         "line 1001, column Q: not a number"))
    # not a CSV of text at all
    add(("NUL byte", lines("val_output.csv", lambda ls: ls[:20] + ["0.1,\x000.2"] + ls[21:]), [],
         "val_output.csv", "line 21"))
    add(("field over csv's field size limit", line("train_input.csv", 12, '"' + "1" * 200000 + '",0'), [],
         "train_input.csv", "line 12"))
    add(("invalid UTF-8", raw("test_input.csv", b"I,Q\n0.1,0.2\n\xff\xfe,0\n"), [], "test_input.csv", "cannot read"))
    add(("binary junk", raw("train_output.csv", bytes(range(256)) * 4), [], "train_output.csv", ""))
    # lengths
    add(("output shorter", lines("train_output.csv", lambda ls: ls[:-3]), [], "train_output.csv", "differs"))
    add(("input shorter", lines("test_input.csv", lambda ls: ls[:-1]), [], "test_output.csv", "differs"))
    add(("val split of one sample",
         lambda ds: (lines("val_input.csv", lambda ls: ls[:2])(ds), lines("val_output.csv", lambda ls: ls[:2])(ds)),
         [], "val_input.csv", "too short"))
    add(("val split too short for any Welch segment (100 samples: 32-point segments leave 7 bins)",
         lambda ds: (lines("val_input.csv", lambda ls: ls[:101])(ds), lines("val_output.csv", lambda ls: ls[:101])(ds)),
         [], "spec.json", "val split (100 samples) is too short"))
    add(("nperseg longer than the test split",
         lambda ds: (lines("test_input.csv", lambda ls: ls[:1001])(ds),
                     lines("test_output.csv", lambda ls: ls[:1001])(ds)), [], "spec.json", "nperseg"))
    add(("nperseg longer than the train split",
         lambda ds: (lines("train_input.csv", lambda ls: ls[:1001])(ds),
                     lines("train_output.csv", lambda ls: ls[:1001])(ds)), [], "spec.json", "nperseg"))
    # glitches: outliers far beyond the robust RMS, and isolated peaks below that
    add(("1e30 in the train output (the probe's row)", line("train_output.csv", 2001, "1e30,0"), [],
         "train_output.csv", "line 2001, column I"))
    add(("-1e30 in Q of the train input", line("train_input.csv", 501, "0.1,-1e30"), [], "train_input.csv",
         "line 501, column Q"))
    add(("1e6 in the test input", spike("test_input.csv", 100, 1e6), [], "test_input.csv", "line 102, column I"))
    add(("50 x RMS in the val output", spike("val_output.csv", 7, 0.3j * 50), [], "val_output.csv",
         "line 9, column Q"))
    add(("1000 in the test output", line("test_output.csv", 4000, "1000,0"), [], "test_output.csv",
         "line 4000, column I"))
    add(("isolated peak 8 x RMS in the train input", spike("train_input.csv", 333, 2.4), [], "train_input.csv",
         "line 335, column I: 2.4 is an isolated peak"))
    add(("isolated peak in the train output", spike("train_output.csv", 4444, -2.5j), [], "train_output.csv",
         "line 4446, column Q"))
    # not signals
    add(("all-zero train output", samples("train_output.csv", lambda z: 0 * z), [], "train_output.csv",
         "all zeros (no PA output"))
    add(("all-zero train input", samples("train_input.csv", lambda z: 0 * z), [], "train_input.csv",
         "all zeros (no PA input"))
    add(("constant train input", samples("train_input.csv", lambda z: 0 * z + (0.3 + 0.1j)), [],
         "train_input.csv", "constant"))
    add(("constant test output", samples("test_output.csv", lambda z: 0 * z + 0.2), [], "test_output.csv",
         "constant"))
    add(("constant-envelope train input (a tone)", samples("train_input.csv",
                                                          lambda z: 0.3 * np.exp(0.1j * np.arange(z.size))), [],
         "train_input.csv", "constant envelope"))
    add(("mostly zeros", samples("val_input.csv", lambda z: np.where(np.arange(z.size) % 3 == 0, z, 0)), [],
         "val_input.csv", "samples are 0"))
    # levels and pairing
    add(("train output x 1e200", samples("train_output.csv", lambda z: z * 1e200), [], "train_output.csv",
         "robust RMS"))
    add(("train input x 1e-20", samples("train_input.csv", lambda z: z * 1e-20), [], "train_input.csv",
         "robust RMS"))
    add(("test output x 10 (another RX gain)", samples("test_output.csv", lambda z: z * 10), [],
         "test_output.csv", "median gain"))
    add(("val input x 0.1", samples("val_input.csv", lambda z: z * 0.1), [], "val_input.csv", "median gain"))
    add(("train output unrelated noise", samples("train_output.csv", noise_like), [], "train_output.csv",
         "NMSE"))
    add(("test output from another capture", samples("test_output.csv", lambda z: np.roll(z, 1500)), [],
         "test_output.csv", "NMSE"))
    # spec.json
    add(("spec not JSON", raw("spec.json", "{nperseg: 2048"), [], "spec.json", "not valid JSON"))
    add(("spec a list", raw("spec.json", "[1, 2]"), [], "spec.json", "JSON object"))
    add(("spec empty object", raw("spec.json", "{}"), [], "spec.json", "input_signal_fs: missing"))
    add(("spec invalid UTF-8", raw("spec.json", b'{"input_signal_fs": 1e9, "\xff": 1}'), [], "spec.json",
         "not valid JSON"))
    for key in ("input_signal_fs", "nperseg", "n_sub_ch", "bw_main_ch"):
        add((f"spec without {key}", spec_del(key), [], "spec.json", f"{key}: missing"))
    for label, key, v in (("fs a string", "input_signal_fs", "983.04e6"), ("nperseg true", "nperseg", True),
                          ("bw null", "bw_main_ch", None), ("n_sub_ch a list", "n_sub_ch", [1]),
                          ("nperseg 2048.5", "nperseg", 2048.5), ("nperseg a full-width string", "nperseg",
                                                                  "\uff12\uff10\uff14\uff18"),
                          ("fs negative", "input_signal_fs", -983.04e6), ("fs zero", "input_signal_fs", 0),
                          ("bw zero", "bw_main_ch", 0), ("bw negative", "bw_main_ch", -2e8),
                          ("bw the sample rate", "bw_main_ch", 983.04e6), ("bw above fs/3", "bw_main_ch", 4e8),
                          ("bw_main_ch 1 (the probe's)", "bw_main_ch", 1), ("bw a few bins", "bw_main_ch", 1e6),
                          ("nperseg 1", "nperseg", 1), ("nperseg 2", "nperseg", 2), ("nperseg 0", "nperseg", 0),
                          ("nperseg -2048", "nperseg", -2048), ("nperseg 10**30", "nperseg", 10 ** 30),
                          ("n_sub_ch 0", "n_sub_ch", 0), ("n_sub_ch -1", "n_sub_ch", -1),
                          ("n_sub_ch 1000000 (the probe's)", "n_sub_ch", 1000000),
                          ("n_sub_ch 100: 4 bins each", "n_sub_ch", 100), ("n_sub_ch 1.5", "n_sub_ch", 1.5),
                          ("fs 1e300", "input_signal_fs", 1e300), ("fs 1e-300", "input_signal_fs", 1e-300),
                          ("split_ratios a string", "split_ratios", "yes")):
        add((f"spec {label}", spec(**{key: v}), [], "spec.json", key))
    add(("spec nperseg 1e400 (the probe's)", spec_raw("nperseg", "1e400"), [], "spec.json", "nperseg"))
    add(("spec fs NaN", spec_raw("input_signal_fs", "NaN"), [], "spec.json", "input_signal_fs"))
    add(("spec nperseg 5000 digits", spec_raw("nperseg", "9" * 5000), [], "spec.json", ""))
    add(("spec fs 400 digits", spec_raw("input_signal_fs", "9" * 400), [], "spec.json", "input_signal_fs"))
    add(("spec input_signal_bw bad", lambda ds: (spec_del("bw_main_ch")(ds), spec(input_signal_bw=-1)(ds)), [],
         "spec.json", "input_signal_bw"))
    # options
    add(("--pa-model 5000 digits (the probe's)", None, ["--pa-model", "mp:K=" + "9" * 5000 + ",M=2"], "--pa-model",
         "model"))
    add(("--pa-model unknown key", None, ["--pa-model", "gmp:Ka=3,La=2,Qx=1"], "--pa-model", "Qx: unknown key"))
    add(("--pa-model garbage", None, ["--pa-model", "\u2603"], "--pa-model", "model"))
    add(("--dpd-model K=0", None, ["--dpd-model", "mp:K=0,M=2"], "--dpd-model", "K"))
    add(("--pa-model too large for the slice", None, ["--pa-model", "mp:K=15,M=200"], "--pa-model", "too large"))
    add(("--dpd-model too large for the slice", None, ["--dpd-model", "mp:K=15,M=200"], "--dpd-model",
         "too large"))
    for v in ("0", "-1", "1_0", "1000000000", "abc", "9" * 5000, "2.5"):
        add((f"--iterations {v[:12]}", None, ["--iterations", v], "--iterations", ""))
    for v in ("nan", "2", "-0.1", "1_0", "x"):
        add((f"--perturbation {v}", None, ["--perturbation", v], "--perturbation", ""))
    for v in ("-1", "nan", "inf", "1_0", "xyz", "1e10"):
        add((f"--regularization {v}", None, ["--regularization", v], "--regularization", ""))
    add(("--gain foo", None, ["--gain", "foo"], "--gain", "invalid choice"))
    add(("unknown option", None, ["--foo"], "--foo", "unrecognized"))
    c_dir = "@TMP@"  # replaced by the case's temporary folder
    for opt in ("--json", "--save-pa-model", "--psd-plot"):
        add((f"{opt} an existing directory (the probe's)", None, [opt, c_dir], opt, "is a directory"))
        add((f"{opt} in a missing folder", None, [opt, os.path.join(c_dir, "missing", "r.out")], opt,
             "does not exist"))
        add((f"{opt} empty", None, [opt, ""], opt, "empty"))
    add(("--psd-plot without an extension", None, ["--psd-plot", os.path.join(c_dir, "plot")], "--psd-plot",
         ".png"))
    add(("--psd-plot unknown extension", None, ["--psd-plot", os.path.join(c_dir, "plot.xyz")], "--psd-plot",
         ".png"))
    add(("--json and --save-pa-model one file", None, ["--json", os.path.join(c_dir, "r.json"), "--save-pa-model",
                                                      os.path.join(c_dir, "r.json")], "--save-pa-model", "also"))
    # --protocol arena and its options (the slice is not APA_200MHz_b: refused at the split)
    add(("--protocol arena on another capture", None, ["--protocol", "arena"], "--protocol arena", "98304 samples"))
    add(("--protocol foo", None, ["--protocol", "foo"], "--protocol", "invalid choice"))
    add(("--score-signal without --protocol arena", None, ["--score-signal", os.path.join(c_dir, "s.npy")],
         "--score-signal", "needs --protocol arena"))
    add(("--score-signal missing", None, ["--protocol", "arena", "--score-signal", os.path.join(c_dir, "no.npy")],
         "--score-signal", "file not found"))
    add(("--save-predistorted a directory", None, ["--protocol", "arena", "--save-predistorted", c_dir],
         "--save-predistorted", "is a directory"))
    add(("dataset folder missing", lambda ds: shutil.rmtree(ds), [], "ds", "not a directory"))
    add(("dataset a file", lambda ds: (shutil.rmtree(ds), _write(ds, "")), [], "ds", "not a directory"))
    return c


CASES = _cases()


class qa_dpd_bench_bad_data(gr_unittest.TestCase):
    def test_every_broken_variant_is_one_named_line(self):
        handled, failures = 0, []
        with tempfile.TemporaryDirectory() as d:
            for i, (label, edit, extra, named, text) in enumerate(CASES):
                case = os.path.join(d, f"c{i}")
                os.mkdir(case)
                ds = os.path.join(case, "ds")
                shutil.copytree(SLICE, ds)
                if edit is not None:
                    edit(ds)
                argv = [ds] + FAST + [a.replace("@TMP@", case) for a in extra]
                try:
                    rc, out, err = call(argv)
                except Exception as e:  # a traceback: the promise broken
                    failures.append(f"{label}: raised {type(e).__name__}: {str(e)[:200]}")
                    continue
                errl = err.splitlines()
                problem = None
                if rc != 2:
                    problem = f"exit code {rc}"
                elif len(errl) != 1:
                    problem = f"{len(errl)} stderr lines"
                elif named not in errl[0] or text not in errl[0]:
                    problem = f"does not name {named!r} / {text!r}"
                elif named in FILES:
                    # the right side: the first dataset file the line names is the one broken
                    first = min((errl[0].find(f), f) for f in FILES if f in errl[0])[1]
                    if first != named:
                        problem = f"blames {first}, not {named}"
                if problem:
                    failures.append(f"{label}: {problem}: {err[:300]!r}")
                else:
                    handled += 1
                shutil.rmtree(case)
        print(f"\n{handled} of {len(CASES)} broken variants handled")
        self.assertEqual(failures, [], "\n".join(failures))

    def test_the_clean_slice_still_runs(self):
        with tempfile.TemporaryDirectory() as d:
            files = [os.path.join(d, n) for n in ("r.json", "pa.json", "psd.png")]
            rc, out, err = call([SLICE] + FAST + ["--json", files[0], "--save-pa-model", files[1],
                                                  "--psd-plot", files[2]])
            self.assertEqual(rc, 0, err)
            self.assertEqual(err, "")
            for f in files:
                self.assertTrue(os.path.isfile(f), f)
            rep = json.loads(_read(files[0]))
            self.assertLess(rep["pa_model"]["nmse_db"]["test"], -25.0)
            self.assertIsNotNone(rep["dpd"]["aclr_dbc"])

    def test_val_split_shorter_than_nperseg(self):
        # A legitimate layout (OpenDPD's DPD Arena: a 6327-sample val split, nperseg 19662): the val
        # split's ACLR uses shorter Welch segments, and the report says which.
        with tempfile.TemporaryDirectory() as d:
            ds = os.path.join(d, "ds")
            shutil.copytree(SLICE, ds)
            for side in ("input", "output"):
                lines(f"val_{side}.csv", lambda ls: ls[:1501])(ds)  # 1500 samples < nperseg 2048
            rc, out, err = call([ds] + FAST + ["--json", os.path.join(d, "r.json")])
            self.assertEqual(rc, 0, err)
            self.assertIn("uses 512-point Welch segments", out)
            rep = json.loads(_read(os.path.join(d, "r.json")))
            self.assertEqual(rep["val_nperseg"], 512)  # 2^floor(log2(1500 * 2 / 5)): four segments
            self.assertIsNotNone(rep["dpd"]["aclr_dbc"])

    def test_outputs_are_checked_before_the_run(self):
        # an existing directory as --json used to fail only after the whole run: no progress line now
        with tempfile.TemporaryDirectory() as d:
            rc, out, err = call([SLICE] + FAST + ["--json", d])
            self.assertEqual(rc, 2)
            self.assertEqual(out, "")

    @staticmethod
    def _writable_check_possible():
        return os.geteuid() != 0  # root writes anywhere: the check cannot be seen failing

    def test_unwritable_output_folder(self):
        if not self._writable_check_possible():
            self.skipTest("running as root")
        with tempfile.TemporaryDirectory() as d:
            ro = os.path.join(d, "ro")
            os.mkdir(ro, 0o555)
            rc, out, err = call([SLICE] + FAST + ["--json", os.path.join(ro, "r.json")])
            self.assertEqual(rc, 2)
            self.assertIn("not writable", err)


if __name__ == "__main__":
    gr_unittest.run(qa_dpd_bench_bad_data)
