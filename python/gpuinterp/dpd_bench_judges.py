# SPDX-License-Identifier: GPL-3.0-or-later
"""The scoreboard's judges read from PA model files (``gpuinterp_dpd_bench --judge FILE``).

A DPD figure is only as good as the PA model it is measured through, and a DPD trained through
polynomial surrogates flatters itself when a polynomial judges it: the judge the field trusts for a
measured PA is a neural model trained on it independently. Such a model is trained once, with
PyTorch (``neural_train``), and read here as a model file that the module's own kernels run.

``--judge auto`` (the default) takes the models shipped with the module (``models/`` beside this
file, installed from the repository's ``data/models``) that were trained on exactly this dataset:
their file records the sha256 of every CSV they were trained on, and a dataset whose files hash the
same gets them as judges. Every shipped file is checked against ``models/SHA256SUMS`` before use, so a
judge that changed since it was trained and measured is refused instead of quietly giving other
figures.
"""

import json
import math
import os

import numpy as np

from . import dpd_model as dm
from . import metrics
from .dpd_bench_data import SPLITS, BenchError
from .neural_train import sha256  # noqa: F401 (the one file hash; torch is not imported by it)

NEURAL = ("gru", "tdnn")


def shipped_dir():
    """The shipped models: the installed package's ``models/``; in a source tree, ``data/models``."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
    if os.path.isdir(here):
        return here
    src = os.environ.get("GPUINTERP_SOURCE_DIR")
    return os.path.join(src, "data", "models") if src else here


def _sums(directory):
    path = os.path.join(directory, "SHA256SUMS")
    out = {}
    if os.path.isfile(path):
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    out[parts[1].lstrip("*")] = parts[0]
    return out


def verify_shipped(path):
    """A shipped model file whose bytes are those it was measured with, or BenchError."""
    d, name = os.path.split(os.path.abspath(path))
    want = _sums(d).get(name)
    if want is None:
        raise BenchError(f"--judge: {path}: not listed in {os.path.join(d, 'SHA256SUMS')}")
    got = sha256(path)
    if got != want:
        raise BenchError(f"--judge: {path}: sha256 {got[:16]}... differs from SHA256SUMS ({want[:16]}...): the "
                         "file changed since it was trained and measured")


def _trained_on(directory, d, split, kind):
    """The files (of ``kind``; None: any) listed in the models folder d's SHA256SUMS that were trained
    on this dataset's own files (every CSV's sha256 as recorded) and on its ``split``."""
    if not os.path.isdir(d):
        return []
    have = {}
    out = []
    for name in sorted(_sums(d)):
        p = os.path.join(d, name)
        if not name.endswith(".json") or not os.path.isfile(p):
            continue
        try:
            with open(p) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            continue
        rec = (doc.get("training") or {}).get("data_sha256") or {}
        if kind not in (None, doc.get("kind")) or not rec or (doc.get("training") or {}).get("split", "opendpd") != split:
            continue
        ok = True
        for csv_name, digest in rec.items():
            q = os.path.join(directory, csv_name)
            if q not in have:
                have[q] = sha256(q) if os.path.isfile(q) else None
            ok = ok and have[q] == digest
        if ok:
            out.append(p)
    return out


def _listed(d, name):
    """The non-comment lines of the models folder's list ``name``, split in words ([] without it)."""
    path = os.path.join(d, name)
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        return [ln.split() for ln in f if ln.strip() and not ln.lstrip().startswith("#")]


def auto_judges(directory, models_dir=None, split="opendpd"):
    """Shipped PA models trained on this dataset's own files (every CSV's sha256 as recorded) and on
    its ``split`` ("opendpd": the dataset's own train/val/test; "arena": the DPD Arena's)."""
    return _trained_on(directory, shipped_dir() if models_dir is None else models_dir, split, "pa_model")


TRAINERS = "trainers.txt"


def auto_trainers(directory, models_dir=None, split="opendpd"):
    """The shipped PA models the DPD trains through by default on this dataset: those of
    :func:`auto_judges` listed in the models folder's ``trainers.txt`` (one per dataset; its other
    models of the dataset judge)."""
    d = shipped_dir() if models_dir is None else models_dir
    names = {row[0] for row in _listed(d, TRAINERS)}
    return [p for p in auto_judges(directory, d, split) if os.path.basename(p) in names]


PRESETS_FILE = "presets.txt"
PRESETS = ("compact", "best")


def preset_file(name, directory, split, models_dir=None):
    """The shipped predistorter a ``--dpd-model`` preset names for this dataset: presets.txt's line
    "<preset> <file>" whose file was trained on this dataset's own CSVs and ``split`` (its recorded
    hashes), checked against SHA256SUMS; None when the module ships none for it."""
    d = shipped_dir() if models_dir is None else models_dir
    named = [os.path.join(d, row[1]) for row in _listed(d, PRESETS_FILE) if len(row) == 2 and row[0] == name]
    if not named:
        return None
    # the file's kind is the scorer's to check (--dpd-file: a predistorter), with its own message
    ours = set(_trained_on(directory, d, split, None))
    for p in named:
        if p in ours:
            verify_shipped(p)
            return p
    return None


def trained_through(training):
    """The sha256 of every surrogate a predistorter file's ``training`` record says it was trained
    through (neural_train: ``surrogate_sha256``, and ``also_through`` for each further one); a judge
    file hashing to one of them is a trainer, never a held-out judge."""
    rec = training or {}
    through = {rec.get("surrogate_sha256")} | {a.get("sha256") for a in rec.get("also_through") or ()}
    through.discard(None)
    return through


def held_out_headline(rows):
    """The report's held-out figure: the worst average ACLR through the held-out judges of the neural
    kind when there are any (the kind the field judges through: a model of the measured PA trained
    independently, and here the most faithful ones), else through every held-out judge. The other
    kind's figure stays in ``held_out_by_kind`` beside it."""
    held = [r for r in rows if r["role"] == "held_out" and not r["trained_through"]]
    neural = [r for r in held if r["judge_kind"] == "neural"]
    v = [r["aclr_dbc"]["avg"] if r["aclr_dbc"] else None for r in (neural or held)]
    return None if not v or None in v else max(v)


def load_judge(path, data, contiguous, shipped=False, option="--judge"):
    """A PA model file as a judge: (spec, fit) with ``fit.nmse_db`` on every split, measured here
    through the module's kernels (not copied from the file), or BenchError naming the file."""
    if shipped:
        verify_shipped(path)
    try:
        fit = dm.load_model(path)
    except dm.ModelError as e:
        raise BenchError(f"{option}: {e}") from None
    except OSError as e:
        raise BenchError(f"{option}: {path}: {e.strerror or e}") from None
    if fit.kind != "pa_model":
        raise BenchError(f"{option}: {path}: kind: a judge or trainer is a PA model, this file holds a {fit.kind}")
    spec = dm.parse(fit.model)
    # Each split from a zero state, or the splits as one stream (a neural model's recursion carries
    # its whole past, so it runs over the stream in one call, never in overlapping chunks).
    if contiguous:
        y = fit.apply(np.concatenate([data[s][0] for s in SPLITS]))
        i, est = 0, {}
        for s in SPLITS:
            est[s] = y[i:i + data[s][0].size]
            i += data[s][0].size
    else:
        est = {s: fit.apply(data[s][0]) for s in SPLITS}
    fit.nmse_db = {s: float(metrics.nmse_db(data[s][1], est[s])) for s in SPLITS}
    if not np.isfinite(fit.nmse_db["test"]) or fit.nmse_db["test"] > -20:
        raise BenchError(f"{option}: {path}: the model {spec} explains this dataset's test output to only "
                         f"{fit.nmse_db['test']:.2f} dB NMSE: a model of another PA or capture")
    return spec, fit


def family_kind(spec):
    """"neural" or "polynomial": what kind of judge a figure is through (a report names it)."""
    return "neural" if dm.parse(str(spec)).family in NEURAL else "polynomial"


def finite_or_none(v):
    """A float for JSON (NaN and Infinity are not JSON): None where not finite."""
    v = float(v)
    return v if np.isfinite(v) else None


def plans(y, fs, nperseg, bw, n_sub_ch):
    """ACLR of y in every band plan the capture supports, each labelled with its plan (arena.PLANS:
    the dataset's own and OpenDPD's 5 x 40 MHz), or None where the capture is not a 200 MHz signal."""
    from . import arena

    try:
        return arena.aclr_all_plans(y, fs, nperseg, arena.plan_from_spec(bw, n_sub_ch))
    except arena.ArenaError:
        return None


def band_plans(bw, n_sub_ch):
    """The plans :func:`plans` measures in: arena.PLANS, and the dataset's own first if it is another."""
    from . import arena

    own = arena.plan_from_spec(bw, n_sub_ch)
    return ([] if own.name in arena.PLANS else [own]) + list(arena.PLANS.values())


def held_out_by_kind(rows):
    """The worst (highest) average ACLR among the held-out judges of each kind, with the judge's name:
    {"polynomial": {...}, "neural": {...}}; a kind without a held-out judge is left out."""
    out = {}
    for r in rows:
        if r["role"] != "held_out" or r["trained_through"] or r["aclr_dbc"] is None:
            continue
        k = r["judge_kind"]
        cur = out.get(k)
        if cur is None or r["aclr_dbc"]["avg"] > cur["aclr_dbc"]["avg"]:
            out[k] = {"judge": r["name"], "file": r.get("file"), "aclr_dbc": r["aclr_dbc"],
                      "aclr_plans": r.get("aclr_plans"), "oob_floor_dbc": r.get("oob_floor_dbc")}
    return out


# The PA's gain outside the captured band. A capture of a band-limited signal says nothing about how
# the PA answers input components outside that band, yet a DPD lowers the adjacent-channel power
# precisely by adding such components for the PA to amplify. Each model of the PA extrapolates its own
# answer there; a DPD trained through one model assumes that model's, and a judge whose gain differs
# leaves the share |1 - H_judge / H_trainer|^2 of the distortion uncancelled. The figures below
# measure that share, so a report can say how much of a judge's figure is this disagreement about an
# unmeasured quantity rather than the DPD's quality.

OOB_PROBE_DB = -40.0   # the probe's power relative to the input's: small enough to stay linear
OOB_NPERSEG = 1024     # the gain's frequency resolution (fs / 1024: under 1 MHz at 983 MHz)


def small_signal_gain(run, x, fs, seed=0):
    """(f ascending, H(f)): the small-signal gain of the model ``run`` (a function of the input signal
    giving the model's output) about the operating signal x, estimated as the
    cross-spectrum of its output's response to a white probe over the probe's spectrum (Welch, Hann,
    OOB_NPERSEG, no detrending, as arena.psd). The probe is seeded, so two models are measured with the same one."""
    from scipy.signal import csd, welch

    x = np.asarray(x, dtype=np.complex128)
    rng = np.random.default_rng(seed)
    p = (rng.standard_normal(x.size) + 1j * rng.standard_normal(x.size)) * (
        np.sqrt(np.mean(np.abs(x) ** 2) / 2) * 10 ** (OOB_PROBE_DB / 20))
    dy = run(x + p) - run(x)
    nper = min(OOB_NPERSEG, x.size)
    f, s_yp = csd(p, dy, fs=fs, nperseg=nper, detrend=False, return_onesided=False)  # conj(P) DY
    _, s_pp = welch(p, fs=fs, nperseg=nper, detrend=False, return_onesided=False)
    o = np.argsort(f, kind="stable")
    return f[o], s_yp[o] / s_pp[o]


def implied_floor(h_judge, h_trainer, f, y, fs, plan):
    """{"plan", "left", "right", "worse"} in dBc: the adjacent-channel power a DPD that cancels the
    distortion of y exactly through the trainer would leave through the judge, from their small-signal
    gains alone: sum over each adjacent band of |1 - H_j / H_t|^2 P_y over the strongest carrier's P_y
    (P_y: y's Welch density on the gains' frequency grid). None where the two gains agree exactly."""
    from scipy.signal import welch

    from . import arena

    plan = arena.PLANS[plan] if isinstance(plan, str) else plan
    carriers, left, right = plan.bands()
    fy, py = welch(np.asarray(y, dtype=np.complex128), fs=fs, nperseg=f.size, detrend=False,
                   return_onesided=False)
    py = py[np.argsort(fy, kind="stable")]
    r = np.abs(1 - h_judge / h_trainer) ** 2

    def band(v, lo, hi):
        return float(v[(f >= lo) & (f < hi)].sum())

    ref = max(band(py, lo, hi) for lo, hi in carriers)
    sides = [band(r * py, lo, hi) / ref for lo, hi in (left, right)]
    if not all(s > 0 for s in sides):
        return None
    lo_db, hi_db = (10 * math.log10(s) for s in sides)
    return {"plan": plan.name, "left": lo_db, "right": hi_db, "worse": max(lo_db, hi_db)}


class OutOfBandFloors:
    """floors(surrogate, members): the implied floor (:func:`implied_floor`) of a surrogate dict
    (``"fit"``) against the mean small-signal gain of the surrogates trained through, in every plan of
    :func:`band_plans`; None for a surrogate trained through. Each model's gain is measured once, about
    the test input x, with ``run(fit, x)`` giving a model's output."""

    def __init__(self, run, x, y, fs, bw, n_sub_ch):
        self.run, self.x, self.y, self.fs = run, x, y, fs
        self.plans = band_plans(bw, n_sub_ch)
        self.gains = {}

    def _gain(self, s):
        if id(s) not in self.gains:
            self.gains[id(s)] = small_signal_gain(lambda v: self.run(s["fit"], v), self.x, self.fs)
        return self.gains[id(s)]

    def __call__(self, s, members):
        if any(s is m for m in members):
            return None
        f, h = self._gain(s)
        h_t = np.mean([self._gain(m)[1] for m in members], axis=0)
        out = [implied_floor(h, h_t, f, self.y, self.fs, p) for p in self.plans]
        return [o for o in out if o is not None] or None
