# SPDX-License-Identifier: GPL-3.0-or-later
"""``gpuinterp_dpd_bench``: score a DPD model family on a measured PA dataset, with OpenDPD's metrics.

Procedure (every stage prints a progress line):

1. Read a dataset in OpenDPD's split-CSV layout: ``spec.json`` (``input_signal_fs``, ``nperseg``,
   ``n_sub_ch``, and the main-channel bandwidth as ``bw_main_ch`` or ``input_signal_bw``) and
   ``{train,val,test}_{input,output}.csv`` (header ``I,Q``, one complex sample a line).
2. Fit PA behavioural models (any family of :mod:`gnuradio.gpuinterp.dpd_model`) on the train split,
   each choosing its regularisation on the validation split, and report their NMSE on all three:
   ``--pa-model`` and the ``--ensemble`` models (the surrogates the DPD is trained through), the
   ``--held-out`` models (of another family; the DPD never sees them) and one model fitted without
   probe rows (``--no-probe-model``); and how closely each reproduces the measured test output in the
   adjacent channels (``test_adjacent_error_dbc``), below which a DPD figure is the model's answer alone.
3. Run indirect learning (``--dpd-model``), iterated, through the ensemble (``--train-through``):
   the predistorter output drives every trained-through surrogate, the post-inverse is fitted on
   their outputs stacked and copied into the predistorter.
4. Score on the test split: the measured output's ACLR and its floor (``floor_dbc``), each
   surrogate's ACLR without DPD, and with DPD the ACLR, OpenDPD's spectral EVM and the NMSE against
   the linear target G u through *every* surrogate. The headline is the figure through the held-out surrogate: a DPD can learn the
   quirks of the model it was inverted through, and a band-limited capture does not determine how
   any model answers the out-of-band content a predistorter adds. The probe noise (``--perturbation``)
   is an assumption about that answer, not a measurement; the no-probe surrogate shows what it is worth.

Extrapolation: a polynomial surrogate is only known inside the input amplitude range it was fitted on.
The predistorter output is limited to that range (as a DAC's full scale would), the number of samples
limited is reported, and a result whose surrogate output still leaves the plausible range is reported
as an extrapolation failure, not as figures.

Errors in the dataset or the options end with exit code 2 and one line on stderr naming the file and
the field (line and column of a CSV sample), or the option: a missing or unreadable file, a wrong CSV
header or column count, a field that is not a plain decimal number ("1_000", "0x10", Unicode digits)
or not finite, mismatched lengths, a file that is not a signal (all zeros, constant, a constant
envelope at the PA input, a level float64 polynomials cannot carry), a sample beyond 24 x the file's
robust RMS or an isolated peak above the bulk (the peak gain and the fitted input range are taken from
the maxima, so one glitch would set them), splits whose median gains disagree, a spec.json value
outside physical sense (bandwidths, nperseg, n_sub_ch) and output paths that cannot be written are all
refused before anything is fitted; a PA model that does not explain a split's output, after the PA fit.
"""

import math
import os
import time

import numpy as np

from . import dpd, metrics
from . import dpd_model as dm

# Defaults sized on APA_200MHz (983 Msample/s, 200 MHz channel): the PA's linear memory spans about
# 40 samples, its envelope memory far fewer. The predistorter keeps OpenDPD's memory polynomial (K 5,
# 100 taps), whose long linear memory inverts the PA's, and adds short envelope cross terms (orders
# 1-3, the envelope up to 3 samples behind or ahead, on the first 8 signal lags): the surrogates it is
# trained through disagree on envelope memory (the GMP has cross terms, the Hammerstein none), and a
# predistorter without them can only split the difference, one with them can invert both. Chosen by
# the worst val-split ACLR through the trained-through surrogates among predistorters trained through
# the same ensemble, no held-out surrogate consulted (docs/performance.md has the sweep). The leading
# terms make it look 3 samples ahead: a block running it delays its output by 3 samples.
DEFAULT_PA_MODEL = "gmp:Ka=8,La=40,Kb=5,Lb=12,Mb=4,Kc=5,Lc=12,Mc=4"
DEFAULT_DPD_MODEL = "gmp:Ka=5,La=100,Kb=3,Lb=8,Mb=3,Kc=3,Lc=8,Mc=3"
DEFAULT_ITERATIONS = 6
# A DPD is judged through surrogates it never saw, of another family than those it was trained
# through: it can learn the quirks of the one model it is inverted through, and a band-limited
# capture does not say how any model answers the out-of-band content a predistorter adds. The
# ensemble's second member is a parallel Hammerstein (odd orders, 40 taps, and a conjugate branch):
# no cross terms, unlike the GMP, so the predistorter is fitted to what the two structures agree on.
# Chosen on the val split's ACLR through the held-out model, against the DPD trained through the
# GMP alone and through the GMP with a second, smaller GMP, with the memory-polynomial predistorter of
# the time (docs/performance.md, 2026-12-01, has the figures).
# The judge is an all-order memory polynomial: of neither family, though close to the
# Hammerstein's structure (the memory polynomial adds the even orders and drops the conjugate).
DEFAULT_ENSEMBLE = ("ph:P=9,Q=3,Lp=40,Lq=10",)
DEFAULT_HELD_OUT = ("mp:K=9,M=40",)
TRAIN_THROUGH = ("ensemble", "single", "both")
DEFAULT_TRAIN_THROUGH = "ensemble"

from . import dpd_bench_judges as judges_mod  # noqa: E402 (after the defaults it documents)
from .dpd_bench_data import (MAX_PA_FIT_NMSE_DB, SPLITS, BenchError, _show, load_dataset,  # noqa: F401
                              read_iq_csv, read_spec)


def limit(x, peak):
    """x with magnitudes above ``peak`` scaled down to it (phase kept); and how many were."""
    mag = np.abs(x)
    over = mag > peak
    if not over.any():
        return x, 0
    y = x.copy()
    y[over] *= peak / mag[over]
    return y, int(over.sum())


def _pairs(w, c):
    """Coefficients as [[re, im], ...], the LO-leakage constant last (the layout of the model spec)."""
    return [[float(v.real), float(v.imag)] for v in np.append(np.asarray(w), complex(c))]


def _aclr_dict(t):
    return {"left": t[0], "right": t[1], "avg": t[2]}


def parse_model(option, text):
    """A model spec of the command line, or BenchError naming the option."""
    try:
        return dm.parse(text)
    except dm.ModelError as e:
        raise BenchError(f"{option}: {e}") from None
    except ValueError:  # int() of a value beyond Python's digit limit (4300)
        raise BenchError(f"{option}: model: a value in {_show(text)} has thousands of digits, not a model "
                         "parameter") from None


def _fit_surrogate(option, spec, data, regularization, nper, contiguous, perturbation, directory,
                   backend="automatic"):
    """One PA model fitted on train, lambda chosen on val, NMSE on every split; BenchError naming the
    option when it cannot be fitted or does not explain a split."""
    (xtr, ytr), (xva, yva), (xte, yte) = data["train"], data["val"], data["test"]
    train_files = f"{os.path.join(directory, 'train_input.csv')}, train_output.csv"
    try:
        fit = dpd.fit_forward(xtr, ytr, spec, xva, yva, xte, yte, regularization=regularization, nperseg=nper,
                              contiguous=contiguous, perturbation=perturbation, backend=backend)
    except dpd.DPDError as e:
        # fit_forward hands the estimator the pair swapped (x: the PA output, y: its input), so its
        # messages name the wrong side; say what was fitted on what instead.
        if "capture too short" in str(e):
            raise BenchError(f"{option}: {spec} ({spec.num_coefficients} coefficients) is too large for the "
                             f"{xtr.size} samples of {train_files}: {str(e).partition(': ')[2]}") from None
        raise BenchError(f"{train_files}: the PA model {spec} ({option}) cannot be fitted: {e}") from None
    for s in SPLITS:
        nm = fit.nmse_db[s]
        if not nm <= MAX_PA_FIT_NMSE_DB:
            raise BenchError(f"{os.path.join(directory, s + '_output.csv')}: the PA model {spec} ({option}) fits "
                             f"it to only {nm:.2f} dB NMSE (limit {MAX_PA_FIT_NMSE_DB:g} dB): not the PA output "
                             f"of {s}_input.csv, or not time-aligned with it")
    return fit


# Chunk length of a model run over a long signal: the basis of an 800-coefficient model over a
# whole 60 000-sample split is 0.8 GB; chunks carry their history and look-ahead, so the output is
# the same as one call's.
_CHUNK = 8192


def run_model(fit, x):
    """fit over x from a zero state, in chunks (same output as ``fit.apply(x)``)."""
    m = dm.parse(fit.model)
    if m.is_neural:  # a recursion carries its whole past: one stream, not chunks with overlap
        return fit.apply(x)
    back, ahead = m.history, m.lookahead
    out = np.empty(x.size, dtype=np.complex128)
    for i in range(0, x.size, _CHUNK):
        j = min(i + _CHUNK, x.size)
        h = x[max(0, i - back):i] if back and i else None
        f = x[j:j + ahead] if ahead and j < x.size else None
        out[i:j] = fit.apply(x[i:j], history=h, future=f)
    return out


def disagreement_dbc(y, y_ref, fs, bw, n_sub_ch, nperseg):
    """Adjacent-channel power of y - y_ref over the main-channel power of y_ref, in dBc, averaged over
    left and right as the ACLR is: how far two surrogates' answers to one input differ where the ACLR
    is measured. Where it is as large as the DPD's ACLR through them, that ACLR says as much about
    which surrogate is asked as about the DPD."""
    f, p_ref = metrics.opendpd_psd(y_ref, fs, nperseg)
    _, p_d = metrics.opendpd_psd(np.asarray(y) - np.asarray(y_ref), fs, nperseg)
    subs, left, right = metrics._opendpd_channels(f, bw, n_sub_ch)
    ref = max(p_ref[s].sum() for s in subs)
    return float((10 * math.log10(p_d[left].sum() / ref) + 10 * math.log10(p_d[right].sum() / ref)) / 2)


def floor_dbc(y, fs, bw, n_sub_ch, nperseg):
    """The capture's floor where the ACLR is measured, in dBc: the median PSD of y beyond twice the
    main-channel bandwidth (where a third-order product of the channel has ended), carried over one
    adjacent channel's width, over the strongest sub-channel's power; None when the sampled band ends
    before that or the PSD there is zero. Noise (the receiver's or the PA's) or higher-order products: either way the capture
    shows nothing below it, so an ACLR beneath it is the models' answer alone."""
    f, p = metrics.opendpd_psd(y, fs, nperseg)
    subs, left, _ = metrics._opendpd_channels(f, bw, n_sub_ch)
    far = np.abs(f) > 2 * bw
    floor = float(np.median(p[far])) if far.any() else 0.0
    if not floor > 0:  # nothing sampled there, or a synthetic output exactly band-limited
        return None
    ref = max(p[s].sum() for s in subs)
    return float(10 * math.log10(floor * left.size / ref))


def _family(spec):
    return dm.parse(spec).family


def train_dpd(dpm, members, xtr, G, peak, iterations, regularization, say, aclr, backend="automatic"):
    """Indirect learning of the predistorter ``dpm`` through every surrogate of ``members`` at once.

    Each iteration drives every member with the same predistorted train input and fits one
    post-inverse on their outputs stacked (the captures concatenated, the start of each excluded, so
    no row spans two of them): a least-squares compromise over the members, so the predistorter
    follows what the surrogates agree on instead of inverting one model's quirks. With one member
    this is plain iterated indirect learning. Returns (predistorter fit, iteration that diverged or
    None)."""
    w = np.zeros(dpm.num_coefficients, dtype=np.complex128)
    w[0] = 1.0
    dpd_fit = dm.ModelFit(str(dpm), w, 0j, {}, kind="predistorter")
    # Both models start from a zero state here: their start-up transient stays out of the fit.
    skip = dpm.history + max(dm.parse(f.model).history for f in members)
    for it in range(1, iterations + 1):
        x, nlim = limit(run_model(dpd_fit, xtr), peak)
        ys = [run_model(f, x) for f in members]
        if not all(np.all(np.isfinite(y)) for y in ys):
            return dpd_fit, it
        seg = x.size - skip
        xs = np.concatenate([x[skip:]] * len(ys))
        yst = np.concatenate([y[skip:] for y in ys])
        seam = np.zeros(yst.size, dtype=bool)
        for k in range(1, len(ys)):
            seam[k * seg:k * seg + dpm.history + 1] = True
        # lambda is chosen by K-fold over contiguous blocks of the stack, as on the one capture
        # without an ensemble (the seams are excluded rows)
        try:
            r = dpd.estimate(xs, yst, model=dpm, target_gain=G, delay=0.0, regularization=regularization,
                             validation=None, exclude=seam if len(ys) > 1 else None, backend=backend)
        except dpd.DPDError as e:
            if "capture too short" in str(e):
                raise BenchError(f"--dpd-model: {dpm} ({dpm.num_coefficients} coefficients) is too large for "
                                 f"the {xtr.size} train samples: {str(e).partition(': ')[2]}") from None
            raise BenchError(f"--dpd-model: {dpm}: indirect learning failed in iteration {it}: {e}") from None
        dpd_fit = dm.ModelFit(str(dpm), r.coefficients, r.lo_leakage, {}, kind="predistorter",
                              regularization=r.regularization, condition=r.condition, rank=r.rank)
        trains = ", ".join(f"{aclr(y)[2]:.2f}" for y in ys)
        say(f"  iteration {it}: train ACLR before this update {trains} dBc, {nlim} samples limited, "
            f"post-inverse fit {r.fit_nmse_db:.2f} dB")
    return dpd_fit, None


def run(directory, pa_model=DEFAULT_PA_MODEL, dpd_model=DEFAULT_DPD_MODEL, iterations=DEFAULT_ITERATIONS,
        gain="peak", regularization=None, progress=print, contiguous=None,
        perturbation=dpd.DEFAULT_PERTURBATION, ensemble=None, held_out=None, no_probe=None,
        train_through=DEFAULT_TRAIN_THROUGH, backend="automatic", judge_files="auto", train_files="auto"):
    """The whole procedure; returns the report dict (the JSON document).

    ``backend``: where every fit runs ("automatic", "cpu", "cuda": the estimation engine; None: the
    numpy reference).

    ``ensemble``: further PA model specs the ensemble DPD is trained through besides ``pa_model``
    (None: DEFAULT_ENSEMBLE); ``held_out``: specs of the surrogates the DPD never sees, which judge
    it (None: DEFAULT_HELD_OUT); ``no_probe``: a spec fitted without probe rows, to show what the
    probe-noise assumption is worth (None: the first held-out spec; "" for none); ``train_through``:
    "ensemble", "single" (``pa_model`` alone) or "both" (the ensemble DPD is the result, the single
    one is reported beside it as "dpd_single"); ``judge_files``, ``train_files``: PA model files that
    judge the DPD beside the held-out surrogates ("auto": the shipped ones trained on this dataset) or
    that it is trained through instead of the fitted ones ("auto": the shipped trainer of this dataset,
    else the fitted ones; dpd_bench_judges)."""
    t0 = time.time()

    def say(msg):
        progress(f"[{time.time() - t0:7.1f} s] {msg}")

    if train_through not in TRAIN_THROUGH:
        raise BenchError(f"--train-through: expected one of {', '.join(TRAIN_THROUGH)}, got {_show(train_through)}")
    # the options first: a typo in a model spec should not wait for a large dataset to be read
    pam, dpm = parse_model("--pa-model", pa_model), parse_model("--dpd-model", dpd_model)
    ens = [parse_model("--ensemble", s) for s in (DEFAULT_ENSEMBLE if ensemble is None else ensemble)]
    judges = [parse_model("--held-out", s) for s in (DEFAULT_HELD_OUT if held_out is None else held_out)]
    if no_probe is None:
        no_probe = str(judges[0]) if judges else ""
    nop = parse_model("--no-probe-model", no_probe) if no_probe else None
    if train_through == "single":
        ens = []
    spec, data = load_dataset(directory)
    fs, bw, nsub, nper = spec["input_signal_fs"], spec["bw"], spec["n_sub_ch"], spec["nperseg"]
    (xtr, ytr), (xva, yva), (xte, yte) = data["train"], data["val"], data["test"]
    for j in judges:
        if j.family in {m.family for m in [pam] + ens}:
            say(f"note: the held-out model {j} is of a family the DPD is trained through ({j.family}): it "
                "shares their structure, so it judges less independently")
    say(f"read {directory}: train {xtr.size}, val {xva.size}, test {xte.size} samples, fs {fs / 1e6:g} MHz, "
        f"channel {bw / 1e6:g} MHz")
    # OpenDPD's split_csv datasets cut one capture into consecutive train, val and test parts (their
    # spec.json carries the split_ratios): then the end of one split is the history of the next, and
    # every model runs over the splits as one stream, as a block would, instead of starting each split
    # from a zero state (a start-up transient of the memory terms, visible in the spectra).
    if contiguous is None:
        contiguous = spec["contiguous"]

    def aclr(v, seg=nper):
        return metrics.opendpd_aclr(v, fs, bw, nsub, seg)

    nper_val = spec["val_nperseg"]
    if nper_val != nper:
        say(f"note: the val split ({xva.size} samples) is shorter than nperseg {nper}: its ACLR (what model "
            f"choices look at) uses {nper_val}-point Welch segments; test figures use {nper}")

    # Every surrogate is fitted the same way (train, lambda chosen on val); they differ in family or
    # size, and the no-probe one in the assumption about out-of-band inputs.
    plan = [("--pa-model", pam, "pa_model", perturbation)]
    plan += [("--ensemble", s, "ensemble", perturbation) for s in ens]
    plan += [("--held-out", s, "held_out", perturbation) for s in judges]
    if nop is not None:
        plan.append(("--no-probe-model", nop, "no_probe", 0.0))
    surrogates = []
    for option, s, role, rho in plan:
        say(f"fitting the PA model {s} ({s.num_coefficients} coefficients, {role.replace('_', ' ')}) on train, "
            f"regularisation chosen on val, probe noise {rho:g} x RMS")
        fit = _fit_surrogate(option, s, data, regularization, nper, contiguous, rho, directory, backend)
        say(f"  NMSE train {fit.nmse_db['train']:.2f} dB, val {fit.nmse_db['val']:.2f} dB, test "
            f"{fit.nmse_db['test']:.2f} dB (regularisation {fit.regularization:.1e}, rank {fit.rank}, condition "
            f"{fit.condition:.2e})")
        surrogates.append({"option": option, "spec": s, "role": role, "probe_noise": rho, "fit": fit})
    pa = surrogates[0]["fit"]
    if train_files == "auto":
        train_files = judges_mod.auto_trainers(directory)
        say("no shipped neural surrogate of this dataset: the DPD trains through the fitted ones" if not train_files
            else f"training through the shipped neural surrogate of this dataset ({', '.join(map(os.path.basename, train_files))})")
    for path in train_files:
        s, fit = judges_mod.load_judge(path, data, contiguous, option="--train-file")
        say(f"trainer {os.path.basename(path)}: {s} ({judges_mod.family_kind(s)}), NMSE test {fit.nmse_db['test']:.2f} dB "
            "through this module's kernels")
        surrogates.append({"option": "--train-file", "spec": s, "role": "trainer", "probe_noise": None, "fit": fit,
                           "file": os.path.basename(path)})
    auto = judge_files == "auto"
    trained_files = {judges_mod.sha256(p) for p in train_files}
    for path in (judges_mod.auto_judges(directory) if auto else judge_files or []):
        if judges_mod.sha256(path) in trained_files:  # a trainer judges as a trained-through model, above
            say(f"judge {os.path.basename(path)}: trained through (--train-file), so not a held-out judge")
            continue
        s, fit = judges_mod.load_judge(path, data, contiguous, shipped=auto)
        say(f"judge {os.path.basename(path)}: {s} ({judges_mod.family_kind(s)}, trained elsewhere), NMSE train "
            f"{fit.nmse_db['train']:.2f} dB, val {fit.nmse_db['val']:.2f} dB, test {fit.nmse_db['test']:.2f} dB "
            "through this module's kernels")
        surrogates.append({"option": "--judge", "spec": s, "role": "held_out", "probe_noise": None, "fit": fit,
                           "file": os.path.basename(path)})

    def through(fit, x_by_split):
        """{split: fit's output} over consecutive splits as one stream, else each from a zero state."""
        if contiguous:
            y = run_model(fit, np.concatenate([x_by_split[s] for s in SPLITS]))
            out, i = {}, 0
            for s in SPLITS:
                out[s] = y[i:i + x_by_split[s].size]
                i += x_by_split[s].size
            return out
        return {s: run_model(fit, x_by_split[s]) for s in SPLITS}

    raw_in = {"train": xtr, "val": xva, "test": xte}
    aclr_meas = aclr(yte)
    for s in surrogates:
        s["no_dpd"] = through(s["fit"], raw_in)["test"]
        s["no_dpd_aclr"] = aclr(s["no_dpd"])
        # How closely the surrogate reproduces the measured output where the ACLR is measured
        # (measurement noise included): a DPD figure far below it rests on the model's answer, which
        # the capture no longer checks.
        s["adjacent_error"] = disagreement_dbc(s["no_dpd"], yte, fs, bw, nsub, nper)
    y_sur = surrogates[0]["no_dpd"]
    aclr_sur = surrogates[0]["no_dpd_aclr"]
    say(f"ACLR of the measured test output {aclr_meas[2]:.2f} dBc, of the surrogates without DPD "
        + ", ".join(f"{s['no_dpd_aclr'][2]:.2f}" for s in surrogates) + " dBc")

    # The linear target: "average" is the least-squares gain of the measured PA; "peak" maps the
    # largest input to the largest output the PA delivered, so the predistorter never has to drive the
    # PA beyond the range it was measured in.
    G = dpd.ls_gain(xtr, ytr)
    if gain == "peak":
        G *= np.max(np.abs(ytr)) / (abs(G) * np.max(np.abs(xtr)))
    peak = pa.input_range
    out_peak = float(np.max(np.abs(ytr)))
    trainers = ([s for s in surrogates if s["role"] == "trainer"]
                or [s for s in surrogates if s["role"] in ("pa_model", "ensemble")])
    runs = [("ensemble" if len(trainers) > 1 else "single", trainers)]
    if train_through == "both" and len(trainers) > 1:  # without an ensemble the two are one DPD
        runs.append(("single", trainers[:1]))

    # each judge's disagreement with the trainers about the PA's gain outside the captured band
    oob_floor = judges_mod.OutOfBandFloors(run_model, xte, yte, fs, bw, nsub)

    def judge(dpd_fit, diverged, members):
        """The predistorter through every surrogate: per surrogate, figures on the test split (None
        where its output left the plausible range) and the ACLR on val (what a choice may look at)."""
        x_pd, nlim = {}, 0
        if contiguous:
            pre = run_model(dpd_fit, np.concatenate([raw_in[s] for s in SPLITS]))
            raw, unl = limit(pre, peak)[0], pre[-xte.size:]
            i = 0
            for s in SPLITS:
                x_pd[s] = raw[i:i + raw_in[s].size]
                i += raw_in[s].size
        else:
            for s in SPLITS:
                x_pd[s] = limit(run_model(dpd_fit, raw_in[s]), peak)[0]
            unl = run_model(dpd_fit, xte)
        nlim = int(np.sum(np.abs(unl) > peak))  # counted on the test split only
        rows = []
        ref = G * xte
        y_first = None
        for s in surrogates:
            y = through(s["fit"], x_pd)
            y_t = y["test"]
            blown = (diverged is not None or not np.all(np.isfinite(y_t))
                     or np.max(np.abs(y_t)) > 1.5 * out_peak)
            row = {"name": str(s["spec"]), "family": _family(s["spec"]), "role": s["role"],
                   "judge_kind": judges_mod.family_kind(s["spec"]), "file": s.get("file"),
                   "probe_noise": s["probe_noise"], "trained_through": any(s is m for m in members), "_x_pd": x_pd["test"],
                   "oob_floor_dbc": oob_floor(s, members)}
            if blown:
                row.update({"aclr_dbc": None, "aclr_plans": None, "evm_db": None, "nmse_db": None, "val_aclr_dbc": None,
                            "disagreement_dbc": None, "_y": None})
                if y_first is None:
                    y_first = np.full(y_t.size, np.nan)
            else:
                row.update({"aclr_dbc": _aclr_dict(aclr(y_t)), "aclr_plans": judges_mod.plans(y_t, fs, nper, bw, nsub),
                            "evm_db": metrics.opendpd_evm_db(y_t, ref, fs, bw, nsub, nper),
                            "nmse_db": metrics.opendpd_nmse_db(y_t, ref, nper),
                            "val_aclr_dbc": float(aclr(y["val"], nper_val)[2]) if np.all(np.isfinite(y["val"])) else None,
                            "disagreement_dbc": (None if y_first is None or not np.all(np.isfinite(y_first))
                                                 else disagreement_dbc(y_t, y_first, fs, bw, nsub, nper)),
                            "_y": y_t})
            if y_first is None:
                y_first = y_t if not blown else np.full(y_t.size, np.nan)
            rows.append(row)
        return rows, nlim

    def summary(rows):
        held = judges_mod.held_out_headline(rows)
        v = [r["aclr_dbc"]["avg"] if r["aclr_dbc"] else None for r in rows if r["trained_through"]]
        trained = None if not v or None in v else max(v)
        nop_row = [r for r in rows if r["role"] == "no_probe"]
        return {"held_out_aclr_dbc": held, "trained_through_aclr_dbc": trained,
                "held_out_by_kind": judges_mod.held_out_by_kind(rows),
                "held_out_gap_db": None if held is None or trained is None else held - trained,
                "no_probe_aclr_dbc": nop_row[0]["aclr_dbc"]["avg"] if nop_row and nop_row[0]["aclr_dbc"] else None}

    results = []
    for kind, members in runs:
        say(f"DPD {dpm} ({dpm.num_coefficients} coefficients), indirect learning through "
            f"{' + '.join(str(m['spec']) for m in members)}, {iterations} iterations, target gain |G| {abs(G):.4f}, "
            f"input limited to |x| <= {peak:.4f}")
        dpd_fit, diverged = train_dpd(dpm, [m["fit"] for m in members], xtr, G, peak, iterations,
                                      regularization, say, aclr, backend)
        if diverged is not None:
            say(f"  a surrogate output became non-finite in iteration {diverged} (polynomial extrapolation)")
        rows, nlim = judge(dpd_fit, diverged, members)
        sm = summary(rows)
        for r in rows:
            a = r["aclr_dbc"]
            say(f"  through {r['name']} ({r['role'].replace('_', ' ')}{', trained through' if r['trained_through'] else ''}"
                + (f", probe {r['probe_noise']:g}" if r["probe_noise"] is not None else f", {r['judge_kind']} judge")
                + "): ACLR "
                + ("n/a (extrapolation)" if a is None else f"{a['avg']:.2f} dBc test, {r['val_aclr_dbc']:.2f} dBc val"))
        results.append((kind, members, dpd_fit, diverged, rows, nlim, sm))

    def dpd_section(kind, members, dpd_fit, diverged, rows, nlim, sm):
        first = rows[0]  # through the --pa-model surrogate: the "dpd" figures keep their meaning
        d = {"name": str(dpm), "coefficients": _pairs(dpd_fit.coefficients, dpd_fit.lo_leakage),
             "aclr_dbc": first["aclr_dbc"], "evm_db": first["evm_db"], "nmse_db": first["nmse_db"],
             "training": kind, "trained_through": [str(m["spec"]) for m in members],
             "through": [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]}
        d.update(sm)
        return d

    main_res = results[0]
    report = {
        "dataset": os.path.basename(os.path.normpath(directory)),
        "val_nperseg": nper_val,
        "pa_model": {"name": str(pam), "coefficients": _pairs(pa.coefficients, pa.lo_leakage),
                     "nmse_db": {k: float(v) for k, v in pa.nmse_db.items()}},
        "measured": {"aclr_dbc": _aclr_dict(aclr_meas), "floor_dbc": floor_dbc(yte, fs, bw, nsub, nper)},
        "surrogate_no_dpd": {"aclr_dbc": _aclr_dict(aclr_sur)},
        "dpd": dpd_section(*main_res),
        "surrogates": [{"name": str(s["spec"]), "family": _family(s["spec"]), "role": s["role"],
                        "judge_kind": judges_mod.family_kind(s["spec"]), "file": s.get("file"),
                        "probe_noise": s["probe_noise"], "num_coefficients": s["spec"].num_coefficients,
                        "regularization": judges_mod.finite_or_none(s["fit"].regularization),
                        "nmse_db": {k: float(v) for k, v in s["fit"].nmse_db.items()},
                        "no_dpd_aclr_dbc": _aclr_dict(s["no_dpd_aclr"]),
                        "test_adjacent_error_dbc": s["adjacent_error"]} for s in surrogates],
        "out_of_band_assumption": {
            "probe_noise": perturbation,
            "statement": (f"the PA answers input components outside the captured band with its linear gain, "
                          f"to first order: every surrogate except the no-probe one is fitted with probe rows of "
                          f"white noise at {perturbation:g} x the input RMS, which a band-limited capture cannot "
                          f"confirm or refute"),
            "no_probe_surrogate": None if nop is None else str(nop),
            "dpd_aclr_dbc_through_no_probe": main_res[6]["no_probe_aclr_dbc"],
        },
    }
    if len(results) > 1:
        report["dpd_single"] = dpd_section(*results[1])
    if main_res[4][0]["aclr_dbc"] is None:
        say("DPD result discarded: the output of the surrogate " + str(pam) + " left 1.5 x the measured output "
            "range or became non-finite (polynomial extrapolation), so no figure is reported")
    report["_limits"] = {"samples": main_res[5], "fraction": main_res[5] / xte.size, "input_range": peak}
    say("done")
    report["_pa_fit"] = pa
    held = [r for r in main_res[4] if r["role"] == "held_out" and not r["trained_through"] and r["_y"] is not None]
    report["_signals"] = {"measured": yte, "surrogate": y_sur, "dpd": main_res[4][0]["_y"],
                          "held_out": held[0]["_y"] if held else None,
                          "held_out_name": held[0]["name"] if held else None,
                          "fs": fs, "nperseg": nper, "bw": bw, "predistorted": main_res[4][0]["_x_pd"]}
    return report
