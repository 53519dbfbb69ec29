# SPDX-License-Identifier: GPL-3.0-or-later
"""The scoreboard's input: a measured PA capture in OpenDPD's split-CSV layout, read and checked
(every broken file or field is one line naming the file and the field, before anything is fitted)."""

import csv
import json
import math
import os
import re

import numpy as np

from .gpuinterp_python import dpd_capture_kernel

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
OUTLIER_FACTOR = dpd_capture_kernel.outlier_factor
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
    spec["val_nperseg"] = val_nperseg(spec_path, spec, data["val"][0].size)
    check_split_gains(directory, data)
    return spec, data


def val_nperseg(spec_path, spec, n):
    """The Welch segment of the val split's ACLR (what model choices look at). A val split shorter than
    ``nperseg`` is a legitimate layout (OpenDPD's DPD Arena cuts a 6327-sample val split from a capture
    whose spec says 19662): it is measured with the largest power of two that gives it at least four
    half-overlapping segments, as long as its main channel still spans MIN_CHANNEL_BINS bins per
    sub-channel; a split too short for that is refused here, before any fitting."""
    nper = spec["nperseg"]
    if n >= nper:
        return nper
    seg = 1 << max(0, int(math.floor(math.log2(max(n, 1) * 2 / 5))))  # 4 segments at 50 % overlap
    f = np.fft.fftfreq(seg, 1.0 / spec["input_signal_fs"])
    bins = int(np.sum((f >= -spec["bw"] / 2) & (f <= spec["bw"] / 2))) // spec["n_sub_ch"]
    if bins < MIN_CHANNEL_BINS:
        raise BenchError(f"{spec_path}: the val split ({n} samples) is too short to measure: even a {seg}-point "
                         f"Welch segment (nperseg {nper} exceeds it) leaves {bins} bins per sub-channel, fewer "
                         f"than {MIN_CHANNEL_BINS}")
    return seg


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
