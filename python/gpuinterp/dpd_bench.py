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
   probe rows (``--no-probe-model``).
3. Run indirect learning (``--dpd-model``), iterated, through the ensemble (``--train-through``):
   the predistorter output drives every trained-through surrogate, the post-inverse is fitted on
   their outputs stacked and copied into the predistorter.
4. Score on the test split: the measured output's ACLR, each surrogate's without DPD, and with DPD
   the ACLR, OpenDPD's spectral EVM and the NMSE against the linear target G u through *every*
   surrogate. The headline is the figure through the held-out surrogate: a DPD can learn the
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

import argparse
import csv
import json
import math
import os
import re
import sys
import time

import numpy as np

from . import dpd, metrics
from . import dpd_model as dm

# Defaults sized on APA_200MHz (983 Msample/s, 200 MHz channel): the PA's linear memory spans about
# 40 samples, its envelope memory far fewer; the predistorter is OpenDPD's memory polynomial (K 5,
# 100 taps), whose long linear memory inverts the PA's. docs/dpd_loop.md has the sweep behind them.
DEFAULT_PA_MODEL = "gmp:Ka=8,La=40,Kb=5,Lb=12,Mb=4,Kc=5,Lc=12,Mc=4"
DEFAULT_DPD_MODEL = "mp:K=5,M=100"
DEFAULT_ITERATIONS = 6
# A DPD is judged through surrogates it never saw, of another family than those it was trained
# through: it can learn the quirks of the one model it is inverted through, and a band-limited
# capture does not say how any model answers the out-of-band content a predistorter adds. The
# ensemble's second member is a parallel Hammerstein (odd orders, 40 taps, and a conjugate branch):
# no cross terms, unlike the GMP, so the predistorter is fitted to what the two structures agree on.
# Chosen on the val split's ACLR through the held-out model, against the DPD trained through the
# GMP alone and through the GMP with a second, smaller GMP (docs/performance.md has the figures).
# The judge is an all-order memory polynomial: of neither family, though close to the
# Hammerstein's structure (the memory polynomial adds the even orders and drops the conjugate).
DEFAULT_ENSEMBLE = ("ph:P=9,Q=3,Lp=40,Lq=10",)
DEFAULT_HELD_OUT = ("mp:K=9,M=40",)
TRAIN_THROUGH = ("ensemble", "single", "both")
DEFAULT_TRAIN_THROUGH = "ensemble"
SPLITS = ("train", "val", "test")


class BenchError(Exception):
    """A problem with the user's input: printed as one line, exit code 2."""


# Numbers as a CSV writer prints them. Python's float() also takes "1_000", Unicode digits ("١٢")
# and "infinity"; none of those is a number another tool reading the dataset would accept, so
# a file that contains them is malformed, not a file to guess at.
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_NON_FINITE = {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}

# A sample this far above the file's robust RMS (the median magnitude over sqrt(ln 2), as the
# estimator measures it) is a glitch, not signal: the estimator's own limit, a 27.6 dB peak-to-average
# ratio. The estimator zeroes such samples; the scoreboard refuses the file instead, because a
# benchmark split with a sample patched out is no longer the published dataset, and every figure
# after it (peak gain, fitted input range, ACLR of the measured output) would silently depend on
# where the patch went.
OUTLIER_FACTOR = dpd.OUTLIER_FACTOR
# The largest sample may lie at most this far above the top of the bulk (the magnitude exceeded by
# 0.1 % of the samples, or by 5 of them in a short file). The peak gain and the predistorter's input
# range are both taken from the maximum, so a spike well below OUTLIER_FACTOR would still set them:
# measured captures have max/top ratios of 1.06-1.25 (APA_200MHz, every split), a Gaussian signal about
# 1.4 at 10^6 samples; 2 leaves 6 dB of room above either.
ISOLATED_PEAK_FACTOR = 2.0
# Robust RMS a file may have: polynomial terms up to order 15 and their squares (least squares) must
# stay finite in float64; 1e9 ** 30 = 1e270.
LEVEL_RANGE = (1e-9, 1e9)
# Splits of one dataset measured at one operating point: their median gain |y| / |x| agrees within a
# few percent (APA_200MHz: within 1 %). A factor of 2 apart is a split scaled differently (a wrong RX
# gain or a file from another capture).
SPLIT_GAIN_FACTOR = 2.0
# A PA model that explains less of a split's output than this is not modelling this PA: the output is
# not the PA response to that input (wrong file, unrelated capture, misalignment). Measured PA models
# of APA_200MHz reach -30 to -39 dB; even a linear model reaches about -20 dB.
MAX_PA_FIT_NMSE_DB = -10.0
# Spectral figures need a main channel of some width: below 8 bins per (sub-)channel the Hann window's
# leakage (4 bins wide) is the measurement.
MIN_CHANNEL_BINS = 8
NPERSEG_RANGE = (16, 1 << 24)
# The robust checks compare a sample with the bulk of its file (the median, the 5 largest): a file
# needs a bulk. Every OpenDPD split holds thousands of samples.
MIN_SAMPLES = 64
MAX_N_SUB_CH = 1024
MAX_ITERATIONS = 100


def _show(text, n=40):
    """A user's text for an error message: quoted, on one line, at most ~n characters."""
    r = repr(text)
    return r if len(r) <= n else r[:n] + f"... ({len(text)} characters)"


def _number(text):
    """The value of one CSV field; raises ValueError (not a number) or OverflowError (not finite)."""
    s = text.strip()
    if _NUMBER.fullmatch(s):
        v = float(s)
        if not math.isfinite(v):  # 1e400
            raise OverflowError
        return v
    if s.lower() in _NON_FINITE:
        raise OverflowError
    raise ValueError


def read_iq_csv(path, with_lines=False):
    """Complex samples of an ``I,Q`` CSV file (csv module; every row two finite numbers); with
    ``with_lines`` also the file line of each sample, for messages about a sample."""
    if os.path.isdir(path):
        raise BenchError(f"{path}: is a directory, expected a CSV file")
    if not os.path.isfile(path):
        raise BenchError(f"{path}: file not found")
    rows, lines = [], []
    try:
        # utf-8-sig: a spreadsheet's byte-order mark is not part of the header.
        with open(path, newline="", encoding="utf-8-sig") as f:
            consumed = 0

            def counted():
                # the csv module's line_num is one short or not, depending on where a line fails
                nonlocal consumed
                for text in f:
                    consumed += 1
                    yield text

            reader = csv.reader(counted())
            try:
                header = next(reader, None)
                if header is None:
                    raise BenchError(f"{path}: empty file (expected the header 'I,Q' and samples)")
                if [h.strip() for h in header] != ["I", "Q"]:
                    raise BenchError(f"{path}: header: expected 'I,Q', got {_show(','.join(header))}")
                for row in reader:
                    if not row:
                        continue
                    n = reader.line_num
                    if len(row) != 2:
                        raise BenchError(f"{path}: line {n}: expected 2 columns (I,Q), got {len(row)}")
                    vals = []
                    for col, text in zip("IQ", row):
                        try:
                            vals.append(_number(text))
                        except OverflowError:
                            raise BenchError(f"{path}: line {n}, column {col}: not finite: {_show(text)}") from None
                        except ValueError:
                            raise BenchError(f"{path}: line {n}, column {col}: not a number: {_show(text)}") from None
                    rows.append(vals)
                    lines.append(n)
            except csv.Error as e:
                # a field beyond csv.field_size_limit(), a NUL byte: the file is not a CSV of numbers
                raise BenchError(f"{path}: line {consumed}: not a CSV of numbers ({e})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise BenchError(f"{path}: cannot read: {e}") from None
    if not rows:
        raise BenchError(f"{path}: no samples (only the header)")
    a = np.asarray(rows, dtype=np.float64)
    x = a[:, 0] + 1j * a[:, 1]
    return (x, np.asarray(lines)) if with_lines else x


def check_signal(path, v, lines, side):
    """Refuse a capture that is not a signal: all zeros, constant, a glitch far beyond the file's robust
    level, an isolated peak above the bulk, or a level float64 polynomials cannot carry. ``side`` is
    "input" or "output" (of the PA), for the message."""
    if v.size < MIN_SAMPLES:
        raise BenchError(f"{path}: {v.size} samples, too short for a PA {side} capture (at least {MIN_SAMPLES})")
    mag = np.abs(v)
    if not mag.any():
        raise BenchError(f"{path}: all zeros (no PA {side} captured)")
    # spread measured on v / max|v|: squares of 1e200 would overflow
    u = v / mag.max()
    rms = float(np.sqrt(np.mean(np.abs(u) ** 2)))
    if np.std(u) <= 1e-9 * rms:
        raise BenchError(f"{path}: constant: all {v.size} samples are {v[0]:.6g} (no PA {side} signal)")
    med = float(np.median(mag))
    if med == 0:
        raise BenchError(f"{path}: {int(np.sum(mag == 0))} of {v.size} samples are 0: not a continuous "
                         f"PA {side} capture")
    robust = med / math.sqrt(math.log(2.0))

    def where(i):
        col = "I" if abs(v[i].real) >= abs(v[i].imag) else "Q"
        val = v[i].real if col == "I" else v[i].imag
        return f"line {lines[i]}, column {col}: {val:.6g}"

    over = np.flatnonzero(mag > OUTLIER_FACTOR * robust)
    if over.size:
        i = over[np.argmax(mag[over])]
        raise BenchError(f"{path}: {where(i)} is {mag[i] / robust:.3g} x the file's robust RMS {robust:.4g} "
                         f"(limit {OUTLIER_FACTOR:g}): a glitch, not PA {side} signal ({over.size} such "
                         f"sample{'s' if over.size > 1 else ''})")
    if not LEVEL_RANGE[0] <= robust <= LEVEL_RANGE[1]:
        raise BenchError(f"{path}: robust RMS {robust:.3g} outside [{LEVEL_RANGE[0]:g}, {LEVEL_RANGE[1]:g}]: "
                         f"the model's polynomial terms would leave float64's range; rescale the file")
    if side == "input" and np.std(np.abs(u)) <= 1e-6 * rms:
        raise BenchError(f"{path}: constant envelope (|x| = {mag[0]:.6g} throughout): the PA model's "
                         "nonlinear terms cannot be told apart on it; a DPD dataset needs a modulated input")
    top = float(np.quantile(mag, 1.0 - max(0.001, 5.0 / v.size)))
    i = int(np.argmax(mag))
    if mag[i] > ISOLATED_PEAK_FACTOR * top:
        raise BenchError(f"{path}: {where(i)} is an isolated peak: |I,Q| {mag[i]:.4g} is {mag[i] / top:.3g} x "
                         f"the top of the bulk ({top:.4g}, limit {ISOLATED_PEAK_FACTOR:g}); a glitch, not PA "
                         f"{side} signal")


def _spec_number(path, key, v, integer=False):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise BenchError(f"{path}: {key}: must be {'an integer' if integer else 'a number'}, got "
                         f"{type(v).__name__} {_show(v)}")
    if isinstance(v, int):
        if abs(v) > 1e300:
            raise BenchError(f"{path}: {key}: out of range ({len(str(abs(v)))} digits)")
        return v
    if not math.isfinite(v):
        raise BenchError(f"{path}: {key}: must be finite, got {v!r}")
    if integer:
        if v != int(v):
            raise BenchError(f"{path}: {key}: must be an integer, got {v!r}")
        return int(v)
    return v


def read_spec(directory):
    path = os.path.join(directory, "spec.json")
    if os.path.isdir(path):
        raise BenchError(f"{path}: is a directory, expected a JSON file")
    if not os.path.isfile(path):
        raise BenchError(f"{path}: file not found")
    try:
        with open(path, encoding="utf-8-sig") as f:
            spec = json.load(f)
    except (OSError, ValueError) as e:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise BenchError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(spec, dict):
        raise BenchError(f"{path}: expected a JSON object, got {type(spec).__name__}")
    out = {}
    for key in ("input_signal_fs", "nperseg", "n_sub_ch"):
        if key not in spec:
            raise BenchError(f"{path}: {key}: missing")
    bw_key = "bw_main_ch" if "bw_main_ch" in spec else "input_signal_bw" if "input_signal_bw" in spec else None
    if bw_key is None:
        raise BenchError(f"{path}: bw_main_ch: missing (nor input_signal_bw)")
    fs = _spec_number(path, "input_signal_fs", spec["input_signal_fs"])
    bw = _spec_number(path, bw_key, spec[bw_key])
    nper = _spec_number(path, "nperseg", spec["nperseg"], integer=True)
    nsub = _spec_number(path, "n_sub_ch", spec["n_sub_ch"], integer=True)
    if fs <= 0:
        raise BenchError(f"{path}: input_signal_fs: must be > 0 (Hz), got {fs!r}")
    if bw <= 0:
        raise BenchError(f"{path}: {bw_key}: must be > 0 (Hz), got {bw!r}")
    if not NPERSEG_RANGE[0] <= nper <= NPERSEG_RANGE[1]:
        raise BenchError(f"{path}: nperseg: must be in {NPERSEG_RANGE[0]}..{NPERSEG_RANGE[1]} (Welch segment "
                         f"length), got {nper}")
    if not 1 <= nsub <= MAX_N_SUB_CH:
        raise BenchError(f"{path}: n_sub_ch: must be in 1..{MAX_N_SUB_CH}, got {nsub}")
    fs, bw = float(fs), float(bw)
    if bw >= fs / 3:
        raise BenchError(f"{path}: {bw_key}: {bw:g} Hz leaves no room for adjacent channels at "
                         f"input_signal_fs {fs:g} Hz")
    # The main channel as the metrics select it: the bins of a two-sided nperseg-point grid in
    # [-bw/2, bw/2].
    f = np.fft.fftfreq(nper, 1.0 / fs)
    bins = int(np.sum((f >= -bw / 2) & (f <= bw / 2)))
    if bins < MIN_CHANNEL_BINS:
        raise BenchError(f"{path}: {bw_key}: {bw:g} Hz spans {bins} bins of nperseg {nper} at input_signal_fs "
                         f"{fs:g} Hz, fewer than {MIN_CHANNEL_BINS}: too narrow to measure a channel")
    if bins // nsub < MIN_CHANNEL_BINS:
        raise BenchError(f"{path}: n_sub_ch: {nsub} sub-channels leave {bins // nsub} bins each in the "
                         f"{bins}-bin main channel, fewer than {MIN_CHANNEL_BINS}")
    if "split_ratios" in spec and not isinstance(spec["split_ratios"], dict):
        raise BenchError(f"{path}: split_ratios: expected a JSON object, got {type(spec['split_ratios']).__name__}")
    out.update(input_signal_fs=fs, nperseg=nper, n_sub_ch=nsub, bw=bw,
               bw_key=bw_key, contiguous="split_ratios" in spec)
    return out


def load_dataset(directory):
    """(spec, {split: (x, y)}) of a dataset folder; raises BenchError naming the file and the field for
    anything that is not a usable measured PA dataset."""
    if not os.path.isdir(directory):
        raise BenchError(f"{directory}: not a directory")
    spec = read_spec(directory)
    spec_path = os.path.join(directory, "spec.json")
    data = {}
    for s in SPLITS:
        pair = []
        for side, name in (("input", f"{s}_input.csv"), ("output", f"{s}_output.csv")):
            p = os.path.join(directory, name)
            v, lines = read_iq_csv(p, with_lines=True)
            check_signal(p, v, lines, side)
            pair.append(v)
        x, y = pair
        if x.size != y.size:
            raise BenchError(f"{os.path.join(directory, s + '_output.csv')}: length {y.size} differs from "
                             f"{s}_input.csv ({x.size})")
        data[s] = (x, y)
    for s in ("train", "test"):  # both are scored with nperseg-long Welch segments
        n = data[s][0].size
        if n < spec["nperseg"]:
            raise BenchError(f"{spec_path}: nperseg: {spec['nperseg']} exceeds the {s} split ({n} samples)")
    check_split_gains(directory, data)
    return spec, data


def _robust_rms(v):
    return float(np.median(np.abs(v))) / math.sqrt(math.log(2.0))


def check_split_gains(directory, data):
    """The splits' median gains agree (one PA, one operating point); a split that does not is blamed on
    the side whose level moved."""
    xt, yt = data["train"]
    g0 = _robust_rms(yt) / _robust_rms(xt)
    for s in ("val", "test"):
        x, y = data[s]
        g = _robust_rms(y) / _robust_rms(x)
        if not 1 / SPLIT_GAIN_FACTOR <= g / g0 <= SPLIT_GAIN_FACTOR:
            r_in, r_out = _robust_rms(x) / _robust_rms(xt), _robust_rms(y) / _robust_rms(yt)
            side = "output" if abs(math.log(r_out)) >= abs(math.log(r_in)) else "input"
            level = r_out if side == "output" else r_in
            raise BenchError(f"{os.path.join(directory, f'{s}_{side}.csv')}: level {level:.3g} x that of "
                             f"train_{side}.csv, so the {s} split's median gain is {g / g0:.3g} x the train "
                             f"split's (limit {SPLIT_GAIN_FACTOR:g}): not the same PA and operating point")


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


def _fit_surrogate(option, spec, data, regularization, nper, contiguous, perturbation, directory):
    """One PA model fitted on train, lambda chosen on val, NMSE on every split; BenchError naming the
    option when it cannot be fitted or does not explain a split."""
    (xtr, ytr), (xva, yva), (xte, yte) = data["train"], data["val"], data["test"]
    train_files = f"{os.path.join(directory, 'train_input.csv')}, train_output.csv"
    try:
        fit = dpd.fit_forward(xtr, ytr, spec, xva, yva, xte, yte, regularization=regularization, nperseg=nper,
                              contiguous=contiguous, perturbation=perturbation)
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


def _family(spec):
    return dm.parse(spec).family


def train_dpd(dpm, members, xtr, G, peak, iterations, regularization, say, aclr):
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
        # lambda is chosen on the last 20 % of the stack (the last member's output), as it is on the
        # last 20 % of the one capture without an ensemble
        try:
            r = dpd.estimate(xs, yst, model=dpm, target_gain=G, delay=0.0, regularization=regularization,
                             validation=None, exclude=seam if len(ys) > 1 else None)
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
        train_through=DEFAULT_TRAIN_THROUGH):
    """The whole procedure; returns the report dict (the JSON document).

    ``ensemble``: further PA model specs the ensemble DPD is trained through besides ``pa_model``
    (None: DEFAULT_ENSEMBLE); ``held_out``: specs of the surrogates the DPD never sees, which judge
    it (None: DEFAULT_HELD_OUT); ``no_probe``: a spec fitted without probe rows, to show what the
    probe-noise assumption is worth (None: the first held-out spec; "" for none); ``train_through``:
    "ensemble", "single" (``pa_model`` alone) or "both" (the ensemble DPD is the result, the single
    one is reported beside it as "dpd_single")."""
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

    def aclr(v):
        return metrics.opendpd_aclr(v, fs, bw, nsub, nper)

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
        fit = _fit_surrogate(option, s, data, regularization, nper, contiguous, rho, directory)
        say(f"  NMSE train {fit.nmse_db['train']:.2f} dB, val {fit.nmse_db['val']:.2f} dB, test "
            f"{fit.nmse_db['test']:.2f} dB (regularisation {fit.regularization:.1e}, rank {fit.rank}, condition "
            f"{fit.condition:.2e})")
        surrogates.append({"option": option, "spec": s, "role": role, "probe_noise": rho, "fit": fit})
    pa = surrogates[0]["fit"]

    def through(fit, x_by_split):
        """fit over the (already predistorted) input of each split: {split: output}, one stream over
        consecutive splits, each split from a zero state otherwise."""
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
    trainers = [s for s in surrogates if s["role"] in ("pa_model", "ensemble")]
    runs = [("ensemble" if len(trainers) > 1 else "single", trainers)]
    if train_through == "both" and len(trainers) > 1:  # without an ensemble the two are one DPD
        runs.append(("single", trainers[:1]))

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
                   "probe_noise": s["probe_noise"], "trained_through": any(s is m for m in members)}
            if blown:
                row.update({"aclr_dbc": None, "evm_db": None, "nmse_db": None, "val_aclr_dbc": None,
                            "disagreement_dbc": None, "_y": None})
                if y_first is None:
                    y_first = np.full(y_t.size, np.nan)
            else:
                row.update({"aclr_dbc": _aclr_dict(aclr(y_t)),
                            "evm_db": metrics.opendpd_evm_db(y_t, ref, fs, bw, nsub, nper),
                            "nmse_db": metrics.opendpd_nmse_db(y_t, ref, nper),
                            "val_aclr_dbc": float(aclr(y["val"])[2]) if np.all(np.isfinite(y["val"])) else None,
                            "disagreement_dbc": (None if y_first is None or not np.all(np.isfinite(y_first))
                                                 else disagreement_dbc(y_t, y_first, fs, bw, nsub, nper)),
                            "_y": y_t})
            if y_first is None:
                y_first = y_t if not blown else np.full(y_t.size, np.nan)
            rows.append(row)
        return rows, nlim

    def summary(rows):
        def worst(roles, trained):
            v = [r["aclr_dbc"]["avg"] if r["aclr_dbc"] else None
                 for r in rows if r["role"] in roles and r["trained_through"] == trained]
            if not v:
                return None
            return None if None in v else max(v)
        held = worst(("held_out",), False)
        trained = worst(("pa_model", "ensemble"), True)
        nop_row = [r for r in rows if r["role"] == "no_probe"]
        return {"held_out_aclr_dbc": held, "trained_through_aclr_dbc": trained,
                "held_out_gap_db": None if held is None or trained is None else held - trained,
                "no_probe_aclr_dbc": nop_row[0]["aclr_dbc"]["avg"] if nop_row and nop_row[0]["aclr_dbc"] else None}

    results = []
    for kind, members in runs:
        say(f"DPD {dpm} ({dpm.num_coefficients} coefficients), indirect learning through "
            f"{' + '.join(str(m['spec']) for m in members)}, {iterations} iterations, target gain |G| {abs(G):.4f}, "
            f"input limited to |x| <= {peak:.4f}")
        dpd_fit, diverged = train_dpd(dpm, [m["fit"] for m in members], xtr, G, peak, iterations,
                                      regularization, say, aclr)
        if diverged is not None:
            say(f"  a surrogate output became non-finite in iteration {diverged} (polynomial extrapolation)")
        rows, nlim = judge(dpd_fit, diverged, members)
        sm = summary(rows)
        for r in rows:
            a = r["aclr_dbc"]
            say(f"  through {r['name']} ({r['role'].replace('_', ' ')}{', trained through' if r['trained_through'] else ''}"
                f", probe {r['probe_noise']:g}): ACLR "
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
        "pa_model": {"name": str(pam), "coefficients": _pairs(pa.coefficients, pa.lo_leakage),
                     "nmse_db": {k: float(v) for k, v in pa.nmse_db.items()}},
        "measured": {"aclr_dbc": _aclr_dict(aclr_meas)},
        "surrogate_no_dpd": {"aclr_dbc": _aclr_dict(aclr_sur)},
        "dpd": dpd_section(*main_res),
        "surrogates": [{"name": str(s["spec"]), "family": _family(s["spec"]), "role": s["role"],
                        "probe_noise": s["probe_noise"], "num_coefficients": s["spec"].num_coefficients,
                        "regularization": float(s["fit"].regularization),
                        "nmse_db": {k: float(v) for k, v in s["fit"].nmse_db.items()},
                        "no_dpd_aclr_dbc": _aclr_dict(s["no_dpd_aclr"])} for s in surrogates],
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
                          "fs": fs, "nperseg": nper, "bw": bw}
    return report


_ROLE_LABEL = {"pa_model": "--pa-model", "ensemble": "ensemble", "held_out": "held out", "no_probe": "no probe"}


def _dpd_lines(d, f):
    how = ("the ensemble " + " + ".join(d["trained_through"]) if d["training"] == "ensemble"
           else "the one surrogate " + d["trained_through"][0])
    lines = [f"DPD        {d['name']} ({len(d['coefficients']) - 1} coefficients + constant), trained through {how}",
             f"  {'through the surrogate':34s}{'ACLR left':>11s}{'right':>9s}{'avg':>9s}{'EVM':>9s}{'NMSE':>9s}"
             f"{'ACLR val':>10s}{'vs [1]':>9s}"]
    for i, r in enumerate(d["through"], 1):
        label = f"[{i}] {_ROLE_LABEL[r['role']]}{', trained through' if r['trained_through'] else ''}"
        a = r["aclr_dbc"]
        if a is None:
            lines.append(f"  {label:34s}{'n/a (extrapolation)':>30s}")
        else:
            lines.append(f"  {label:34s}{a['left']:11.2f}{a['right']:9.2f}{a['avg']:9.2f}{r['evm_db']:9.2f}"
                         f"{r['nmse_db']:9.2f}{r['val_aclr_dbc'] if r['val_aclr_dbc'] is not None else float('nan'):10.2f}"
                         + (f"{r['disagreement_dbc']:9.2f}" if r["disagreement_dbc"] is not None else f"{'':9s}"))
    lines.append("  vs [1]: adjacent-channel power of this surrogate's output minus [1]'s, dBc (how far the two "
                 "answers differ where the ACLR is measured)")
    lines.append(f"  ACLR through a held-out surrogate (worst) {f(d['held_out_aclr_dbc'], 'dBc')}, through the "
                 f"surrogates trained through (worst) {f(d['trained_through_aclr_dbc'], 'dBc')}, gap "
                 f"{f(d['held_out_gap_db'], 'dB')}")
    return lines


def format_table(rep):
    def f(v, unit):
        return "n/a" if v is None else f"{v:.2f} {unit}"

    pa = rep["pa_model"]
    lim = rep["_limits"]
    lines = [
        f"dataset {rep['dataset']} (test split; dB, dBc)",
        f"PA models  (lambda chosen on val)   {'family':>7s}{'coef.':>7s}{'probe':>7s}{'NMSE train':>11s}{'val':>8s}"
        f"{'test':>8s}{'ACLR, no DPD':>14s}",
    ]
    for i, s in enumerate(rep["surrogates"], 1):
        label = f"[{i}] {_ROLE_LABEL[s['role']]}"
        nm = s["nmse_db"]
        lines.append(f"  {label:34s}{s['family']:>7s}{s['num_coefficients']:7d}{s['probe_noise']:7.3g}"
                     f"{nm['train']:11.2f}{nm['val']:8.2f}{nm['test']:8.2f}{s['no_dpd_aclr_dbc']['avg']:14.2f}")
    for i, s in enumerate(rep["surrogates"], 1):
        lines.append(f"  [{i}] {s['name']}")
    a = rep["measured"]["aclr_dbc"]
    lines.append(f"  measured PA output: ACLR {a['left']:.2f} / {a['right']:.2f} dBc, avg {a['avg']:.2f} dBc")
    lines += _dpd_lines(rep["dpd"], f)
    lines.append(f"  samples limited to the fitted range |x| <= {lim['input_range']:.4f}: {lim['samples']} "
                 f"({100 * lim['fraction']:.3f} %)")
    if "dpd_single" in rep:
        lines += _dpd_lines(rep["dpd_single"], f)
    o = rep["out_of_band_assumption"]
    lines.append(f"Out-of-band assumption: probe noise {o['probe_noise']:g} x the input RMS (the PA's answer to "
                 "inputs outside the captured band is taken as its linear gain);")
    if o["no_probe_surrogate"]:
        lines.append(f"  the same DPD through {o['no_probe_surrogate']} fitted without it: "
                     f"{f(o['dpd_aclr_dbc_through_no_probe'], 'dBc')}")
    lines.append("DPD figures are through fitted PA models (surrogates), not the physical PA; the held-out ones "
                 "were never seen in training.")
    return "\n".join(lines)


def plot_psd(rep, path):
    s = rep["_signals"]
    plt = metrics._pyplot()
    fig, ax = plt.subplots(figsize=(9, 5))
    traces = [("measured PA output", s["measured"], dict(lw=1.6, color="0.55")),
              ("surrogate, no DPD", s["surrogate"], dict(lw=0.9, color="tab:orange"))]
    if s["dpd"] is not None:
        traces.append(("surrogate + DPD (trained through it)", s["dpd"], dict(lw=0.9, color="tab:green")))
    if s.get("held_out") is not None:
        traces.append((f"held-out surrogate {s['held_out_name']} + DPD", s["held_out"],
                       dict(lw=0.9, color="tab:blue")))
    for label, sig, style in traces:
        f, p = metrics.opendpd_psd(sig, s["fs"], s["nperseg"])
        # Shown smoothed over ~1 % of the band (the metrics use the raw estimate): a Welch estimate
        # with OpenDPD's long segments fluctuates by +-10 dB from bin to bin.
        w = max(1, f.size // 100)
        p = np.convolve(p, np.ones(w) / w, mode="same")
        ax.plot(f / 1e6, 10 * np.log10(np.maximum(p, 1e-30)), label=label, **style)
    for e in (-1.5, -0.5, 0.5, 1.5):
        ax.axvline(e * s["bw"] / 1e6, color="gray", lw=0.5, ls=":")
    ax.set_xlabel("frequency (MHz)")
    ax.set_ylabel("PSD (dB, Welch, scaling 'spectrum', smoothed)")
    ax.set_title(f"{rep['dataset']} test split: PA model {rep['pa_model']['name']}, DPD {rep['dpd']['name']}",
                 fontsize=8)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    # the format named explicitly: matplotlib would otherwise append ".png" to a name without one
    fig.savefig(path, dpi=110, format=os.path.splitext(path)[1][1:].lower())
    plt.close(fig)


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        # one line, as every other error of the command (argparse prints the usage first)
        _fail(message)
        sys.exit(2)


def _fail(msg):
    # A message carries file names and values from the dataset: keep it to one line of bounded length.
    msg = str(msg).replace("\r", "\\r").replace("\n", "\\n")
    if len(msg) > 2000:
        msg = msg[:2000] + "..."
    print(f"gpuinterp_dpd_bench: error: {msg}", file=sys.stderr)
    return 2


def _strict_int(text):
    # int() takes "1_000" and thousands of digits; an iteration count is a few plain digits
    if not re.fullmatch(r"\s*[+-]?\d{1,18}\s*", text, re.ASCII):
        raise argparse.ArgumentTypeError(f"expected an integer, got {_show(text)}")
    return int(text)


def _strict_float(text):
    s = text.strip()
    if not _NUMBER.fullmatch(s) and s.lower() not in _NON_FINITE:
        raise argparse.ArgumentTypeError(f"expected a number, got {_show(text)}")
    return float(s)


PLOT_FORMATS = ("png", "pdf", "svg", "eps", "ps")


def check_output_path(option, path):
    """Refuse an output path the run could not write, before the run: a directory, a missing or
    unwritable folder, an empty name; --psd-plot also needs a known image extension."""
    if path == "":
        raise BenchError(f"{option}: empty file name")
    if os.path.isdir(path):
        raise BenchError(f"{option}: {path} is a directory; give a file name")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise BenchError(f"{option}: folder of {path} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise BenchError(f"{option}: {path} is not writable")
    if option == "--psd-plot" and os.path.splitext(path)[1][1:].lower() not in PLOT_FORMATS:
        raise BenchError(f"{option}: {path}: expected a file name ending in "
                         f"{', '.join('.' + e for e in PLOT_FORMATS)}")


def main(argv=None):
    p = _Parser(prog="gpuinterp_dpd_bench", description=__doc__,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", metavar="DATASET_DIR", help="folder in OpenDPD's split-CSV layout")
    p.add_argument("--json", metavar="FILE", help="write the report as JSON")
    p.add_argument("--pa-model", default=DEFAULT_PA_MODEL, metavar="SPEC",
                   help="PA model spec (default: %(default)s)")
    p.add_argument("--dpd-model", default=DEFAULT_DPD_MODEL, metavar="SPEC",
                   help="predistorter model spec (default: %(default)s)")
    p.add_argument("--iterations", type=_strict_int, default=DEFAULT_ITERATIONS,
                   help=f"indirect-learning iterations, 1..{MAX_ITERATIONS} (default: %(default)s)")
    p.add_argument("--train-through", choices=TRAIN_THROUGH, default=DEFAULT_TRAIN_THROUGH,
                   help="train the DPD through the ensemble (--pa-model and every --ensemble model, their "
                        "captures stacked), through --pa-model alone ('single'), or both, reporting the "
                        "single one beside the ensemble's (default: %(default)s)")
    p.add_argument("--ensemble", action="append", metavar="SPEC",
                   help="a further PA model the ensemble DPD is trained through; repeat for more "
                        f"(default: {'; '.join(DEFAULT_ENSEMBLE)})")
    p.add_argument("--held-out", action="append", metavar="SPEC",
                   help="a PA model the DPD never sees, fitted like the others, through which it is judged; "
                        "repeat for more; choose another family than the trained-through models "
                        f"(default: {'; '.join(DEFAULT_HELD_OUT)})")
    p.add_argument("--no-probe-model", metavar="SPEC",
                   help="a PA model fitted without probe rows, through which the DPD is also judged, to show "
                        "what the out-of-band assumption is worth; 'none' for none (default: the first "
                        "--held-out model)")
    p.add_argument("--perturbation", type=_strict_float, default=dpd.DEFAULT_PERTURBATION, metavar="RHO",
                   help="probe noise of the PA fit, relative to the input RMS: pins the model's answer to "
                        "inputs the capture never contained, so it stays a usable surrogate under DPD; "
                        "0 fits the capture alone (default: %(default)s)")
    p.add_argument("--gain", choices=("peak", "average"), default="peak",
                   help="linear target gain: 'peak' maps the largest input to the largest measured output "
                        "(the predistorter stays inside the measured range), 'average' is the PA's "
                        "least-squares gain (default: %(default)s)")
    p.add_argument("--regularization", default="auto", metavar="R",
                   help="ridge lambda relative to s_max^2, in [0, 1], or 'auto' to choose it on held-out "
                        "data (default: %(default)s)")
    p.add_argument("--save-pa-model", metavar="FILE", help="write the fitted PA model as JSON (pa_model_cc "
                   "can run it)")
    p.add_argument("--psd-plot", metavar="PNG", help="plot the test-split spectra (.png, .pdf, .svg, .eps, .ps)")
    p.add_argument("--independent-splits", action="store_true",
                   help="start every model from a zero state at each split (default when spec.json has no "
                        "split_ratios, i.e. the splits are not consecutive parts of one capture)")
    a = p.parse_args(argv)

    if not 1 <= a.iterations <= MAX_ITERATIONS:
        # indirect learning settles within a handful of iterations; thousands are a typo that runs for hours
        return _fail(f"--iterations: must be in 1..{MAX_ITERATIONS}, got {a.iterations}")
    if not (math.isfinite(a.perturbation) and 0 <= a.perturbation <= 1):
        return _fail(f"--perturbation: must be in [0, 1], got {a.perturbation}")
    reg = None
    if a.regularization != "auto":
        try:
            reg = _strict_float(a.regularization)
        except argparse.ArgumentTypeError:
            return _fail(f"--regularization: expected a number or 'auto', got {_show(a.regularization)}")
        # relative to the largest squared singular value: beyond 1 the ridge term is the whole fit
        if not (math.isfinite(reg) and 0 <= reg <= 1):
            return _fail(f"--regularization: must be in [0, 1] or 'auto', got {a.regularization}")
    outputs = [(f"--{opt.replace('_', '-')}", getattr(a, opt)) for opt in ("json", "save_pa_model", "psd_plot")
               if getattr(a, opt) is not None]
    try:
        seen = {}
        for opt, path in outputs:
            check_output_path(opt, path)
            key = os.path.realpath(path)
            if key in seen:
                raise BenchError(f"{opt}: {path} is also the file of {seen[key]}")
            seen[key] = opt
        if a.psd_plot is not None:
            try:
                metrics._pyplot()
            except ImportError as e:
                raise BenchError(f"--psd-plot: needs matplotlib ({e})") from None
        # Every figure is checked for finiteness where it matters (the extrapolation guard); numpy's
        # overflow warnings on the way would only add lines to a one-line error.
        with np.errstate(all="ignore"):
            rep = run(a.dataset, a.pa_model, a.dpd_model, a.iterations, a.gain, reg,
                      progress=lambda m: print(m, flush=True),
                      contiguous=False if a.independent_splits else None, perturbation=a.perturbation,
                      ensemble=a.ensemble, held_out=a.held_out,
                      no_probe="" if a.no_probe_model == "none" else a.no_probe_model,
                      train_through=a.train_through)
    except (BenchError, dm.ModelError, dpd.DPDError) as e:
        return _fail(e)
    print(format_table(rep))
    sig = rep.pop("_signals")
    pa_fit = rep.pop("_pa_fit")
    rep.pop("_limits")
    try:
        if a.json:
            with open(a.json, "w") as f:
                json.dump(rep, f, indent=1)
        if a.save_pa_model:
            dm.save_model(a.save_pa_model, pa_fit, dataset=rep["dataset"])
        if a.psd_plot:
            rep["_signals"] = sig
            plot_psd(rep, a.psd_plot)
    except OSError as e:  # checked before the run; a full disk or a folder removed meanwhile remain
        return _fail(f"cannot write the results: {e}")
    return 0 if rep["dpd"]["aclr_dbc"] is not None else 3


if __name__ == "__main__":
    sys.exit(main())
