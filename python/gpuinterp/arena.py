# SPDX-License-Identifier: GPL-3.0-or-later
"""OpenDPD's DPD Arena v6 (lab-emi/OpenDPD, ``docs/protocols/dpd-arena-v6.md``) as the scoreboard
measures it: band plans, demodulated EVM, worse-side ACLR, the output-power gate, Q and FoM.

Everything that changes a number is data here (:data:`PLANS`, :data:`APA_200MHZ_B`), so a figure can
carry the plan and the protocol it was measured under. Implemented from the protocol's text and its
published calibration record; no code of theirs.

Band plans. A plan is a main channel of ``bandwidth_hz`` split into ``carriers`` equal bands of width
W; the adjacent bands are [-B/2 - W, -B/2) and [B/2, B/2 + W); ACLR = adjacent power over the power
of the strongest carrier band, in dBc (negative, lower is better). The bands are half-open and a bin
belongs to a band when its centre frequency does. One capture gives different figures in different
plans (APA_200MHz's measured test output: -30.9 dBc in ``1x200``, -27.7 dBc in ``5x40``), so no ACLR
leaves this module without its plan's name.

PSD: Welch, periodic Hann window, ``nperseg`` samples, ``nperseg // 2`` overlap, no detrending,
two-sided, density scaling; the band power is the sum of the bins inside times fs / nperseg.

EVM (the Arena's reference-aided symbol EVM). For each carrier: shift it to 0 Hz, isolate it with an
ideal low-pass of +-``filter_half_bandwidth_hz`` applied by one FFT over the whole record (context
included: the filter's ringing stays out of the symbol), cut the useful part of its complete OFDM
symbol at the frozen, input-synchronised FFT start (the cyclic prefix before it is not read), take
its ``useful_samples``-point FFT and keep the occupied subcarriers (+-600, DC excluded: LTE 20 MHz at
twice its 30.72 MHz clock, 30 kHz bins of a 32768-point FFT at 983.04 MHz). The reference
R = G x goes through the same steps. Over every kept bin of every carrier, one common complex gain
c = <R, Y> / <R, R> is removed: EVM = ||Y - cR|| / ||cR||, in dB 20 log10. No per-subcarrier
equaliser, no timing taken from the output.
"""

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["BandPlan", "PLANS", "plan_from_spec", "psd", "aclr", "aclr_all_plans", "evm_db",
           "APA_200MHZ_B", "split_arena", "power_error_db", "power_gate", "quality_db", "fom_db",
           "baseline_drive", "score", "ArenaError"]


class ArenaError(ValueError):
    """Data or a signal the protocol cannot score (a record too short, a symbol outside the window)."""


@dataclass(frozen=True)
class BandPlan:
    name: str
    bandwidth_hz: float
    carriers: int
    note: str = ""

    @property
    def carrier_hz(self):
        return self.bandwidth_hz / self.carriers

    def bands(self):
        """(carrier bands, left adjacent, right adjacent) as half-open (lo, hi) in Hz."""
        b, w = self.bandwidth_hz, self.carrier_hz
        carriers = [(-b / 2 + i * w, -b / 2 + (i + 1) * w) for i in range(self.carriers)]
        return carriers, (-b / 2 - w, -b / 2), (b / 2, b / 2 + w)


PLANS = {
    "1x200": BandPlan("1x200", 200e6, 1, "APA_200MHz's spec.json (OpenDPD, December 2025): one 200 MHz "
                      "channel, 200 MHz adjacent bands"),
    "5x40": BandPlan("5x40", 200e6, 5, "the TM3.1a capture as five 40 MHz carriers, 40 MHz adjacent "
                     "bands over the strongest carrier: OpenDPD's golden metric tests and DPD Arena v6"),
}


def plan_from_spec(bandwidth_hz, n_sub_ch):
    """The plan a dataset's spec.json declares; a known plan keeps its name."""
    for p in PLANS.values():
        if p.carriers == int(n_sub_ch) and math.isclose(p.bandwidth_hz, bandwidth_hz, rel_tol=1e-9):
            return p
    n = int(n_sub_ch)
    return BandPlan(f"{n}x{bandwidth_hz / n / 1e6:g}", float(bandwidth_hz), n, "the dataset's spec.json")


def psd(z, fs, nperseg):
    """(f ascending, density) of complex z: Welch as in the module docstring, in numpy (the test
    compares it with scipy.signal.welch)."""
    z = np.asarray(z, dtype=np.complex128).ravel()
    if z.size < nperseg:
        raise ArenaError(f"{z.size} samples is fewer than one Welch segment of {nperseg}")
    step = nperseg - nperseg // 2
    count = (z.size - nperseg) // step + 1
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(nperseg) / nperseg)  # periodic Hann
    acc = np.zeros(nperseg)
    # segment by segment: a 65 000-sample record in 19 662-point segments is a handful of FFTs,
    # and a stacked array of them would be the record three times over
    for i in range(count):
        acc += np.abs(np.fft.fft(z[i * step:i * step + nperseg] * w)) ** 2
    p = acc / count / (fs * np.sum(w ** 2))
    f = np.fft.fftfreq(nperseg, 1.0 / fs)
    order = np.argsort(f, kind="stable")
    return f[order], p[order]


def _band(f, p, lo, hi, fs, nperseg):
    m = (f >= lo) & (f < hi)
    if not m.any():
        raise ArenaError(f"no PSD bin lies in [{lo / 1e6:g}, {hi / 1e6:g}) MHz")
    return float(p[m].sum() * fs / nperseg)


def aclr(y, fs, nperseg, plan):
    """{"plan", "left", "right", "avg", "worse"} in dBc of y under ``plan`` (a BandPlan or its name)."""
    plan = PLANS[plan] if isinstance(plan, str) else plan
    carriers, left, right = plan.bands()
    if right[1] > fs / 2 or left[0] < -fs / 2:
        raise ArenaError(f"plan {plan.name}: the adjacent bands leave the sampled band of {fs / 1e6:g} MHz")
    f, p = psd(y, fs, nperseg)
    ref = max(_band(f, p, lo, hi, fs, nperseg) for lo, hi in carriers)
    if not ref > 0:
        raise ArenaError(f"plan {plan.name}: no power in any carrier band")
    lo_db = 10 * math.log10(max(_band(f, p, *left, fs, nperseg), 1e-300) / ref)
    hi_db = 10 * math.log10(max(_band(f, p, *right, fs, nperseg), 1e-300) / ref)
    return {"plan": plan.name, "left": lo_db, "right": hi_db, "avg": (lo_db + hi_db) / 2,
            "worse": max(lo_db, hi_db)}


def aclr_all_plans(y, fs, nperseg, spec_plan=None):
    """ACLR of y in every plan of PLANS (and the dataset's own, if it is another one)."""
    plans = list(PLANS.values())
    if spec_plan is not None and spec_plan.name not in PLANS:
        plans.insert(0, spec_plan)
    return [aclr(y, fs, nperseg, p) for p in plans]


# ----------------------------------------------------------------------------------------------
# APA_200MHz_b under DPD Arena v6: OpenDPD's calibration record calibration-v6-apa-b.json
# (opendpd/arena_assets), the values that enter a number.
# ----------------------------------------------------------------------------------------------

_OCCUPIED = tuple(range(1, 601)) + tuple(range(32768 - 600, 32768))  # +-600, DC excluded

APA_200MHZ_B = {
    "protocol": "dpd-arena-v6-apa-b",
    "dataset": "APA_200MHz_b",
    "samples": 98304,  # train + val + test CSVs concatenated, in that order
    # half-open sample ranges of the concatenated capture; 200 unused samples at each boundary
    "splits": {"train": (0, 25307), "val": (25507, 31834), "test": (32034, 98304)},
    # spectral figures and the power gate use the test record less 200 samples at each end; EVM
    # uses complete symbols inside that window
    "context": 200,
    "fs": 983.04e6,
    "nperseg": 19662,
    "plan": "5x40",
    "gain": 0.992225170135498,  # peak |y| / peak |x| of the train split (float32 in their record)
    "peak_limit": 1.0,  # the largest |x| of the train split: the DPD output is limited to it
    "power_tolerance_db": 0.5,
    "baseline_probe": 4096,  # the no-DPD drive is calibrated on the first samples of train
    "grid": {
        "useful_samples": 32768, "prefix_samples": 2304, "occupied_bins": _OCCUPIED,
        "filter_half_bandwidth_hz": 20e6,
        # (shift applied to bring the carrier to 0 Hz, FFT start as a capture index): the last
        # complete symbol of each carrier, found on the input alone (cyclic-prefix correlation)
        "carriers": ((-80e6, 52000), (-40e6, 51993), (0.0, 48278), (40e6, 32234), (80e6, 56818)),
    },
    # published no-DPD baseline (reference-results-v6-apa-b.json), through their frozen TRes-GRU
    # judge driven with the calibrated linear gain alpha x
    "published_baseline": {"evm_db": -19.875198246816225, "aclr_worse_dbc": -28.741761028312315,
                           "alpha": complex(0.8505259346761213, 0.005647101444344951)},
}


def split_arena(x, y, protocol=APA_200MHZ_B):
    """{split: (x, y)} of the concatenated capture under the protocol's boundaries."""
    if x.size != protocol["samples"] or y.size != protocol["samples"]:
        raise ArenaError(f"{protocol['dataset']} has {protocol['samples']} samples (train, val and test "
                         f"concatenated); this capture has {x.size}")
    return {s: (x[a:b], y[a:b]) for s, (a, b) in protocol["splits"].items()}


def evm_db(y, r, start, protocol=APA_200MHZ_B, window=None):
    """Symbol EVM in dB of the record y against the reference r (both the whole test record, which
    begins at capture index ``start``); ``window`` (first, last) record indices every scored symbol
    must lie in (default: the record less the protocol's context at each end)."""
    y = np.asarray(y, dtype=np.complex128).ravel()
    r = np.asarray(r, dtype=np.complex128).ravel()
    if y.shape != r.shape:
        raise ArenaError(f"EVM: the signal has {y.size} samples, its reference {r.size}")
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(r))):
        raise ArenaError("EVM: non-finite samples")
    g = protocol["grid"]
    n, size, fs = r.size, g["useful_samples"], protocol["fs"]
    first, last = window if window is not None else (protocol["context"], n - protocol["context"])
    t = (np.arange(n) + start) / fs
    f = np.fft.fftfreq(n, 1.0 / fs)
    keep = np.abs(f) <= g["filter_half_bandwidth_hz"]
    bins = np.asarray(g["occupied_bins"], dtype=int)
    got, want = [], []
    for shift, fft_start in g["carriers"]:
        off = fft_start - start
        if not (first <= off and off + size <= last):
            raise ArenaError(f"EVM: the symbol of the carrier at {-shift / 1e6:+g} MHz (capture samples "
                             f"{fft_start}..{fft_start + size}) is not inside the scored window")
        osc = np.exp(2j * np.pi * shift * t)
        for sig, out in ((y, got), (r, want)):
            iso = np.fft.ifft(np.fft.fft(sig * osc) * keep)
            out.append(np.fft.fft(iso[off:off + size])[bins])
    Y, R = np.concatenate(got), np.concatenate(want)
    pr = float(np.vdot(R, R).real)
    if not pr > 0:
        raise ArenaError("EVM: the reference has no power on the occupied subcarriers")
    c = np.vdot(R, Y) / pr
    ps = abs(c) ** 2 * pr
    if not ps > 1e-24 * pr:
        return 0.0  # nothing of the reference in the output: the error is all of it
    e = Y - c * R
    return 10 * math.log10(float(np.vdot(e, e).real) / ps)


def power_error_db(y, r):
    return 10 * math.log10(float(np.vdot(y, y).real) / float(np.vdot(r, r).real))


def power_gate(err_db, protocol=APA_200MHZ_B):
    """The Arena ranks an output only within +-0.5 dB of the target power; never renormalised."""
    return abs(err_db) <= protocol["power_tolerance_db"]


def quality_db(evm, aclr_worse, base_evm, base_aclr_worse):
    """Q: half the EVM gain plus half the worse-side ACLR gain over the no-DPD baseline, in dB."""
    return 0.5 * (base_evm - evm) + 0.5 * (base_aclr_worse - aclr_worse)


def fom_db(q, params, ops):
    """FoM = Q - 5 log10(P / 1000) - 5 log10(OPs / 2000): halving both costs is worth 3.01 dB."""
    if not params or not ops:
        return None
    return q - 5 * math.log10(params / 1000) - 5 * math.log10(ops / 2000)


def limit(x, peak):
    mag = np.abs(x)
    over = mag > peak
    out = x.copy()
    out[over] *= peak / mag[over]
    return out, int(over.sum())


def baseline_drive(judge, x_train, gain, peak, probe=4096, steps=18):
    """The Arena's no-DPD input rule alpha: the judge's phase at small signal removed, the magnitude
    bisected (18 steps in [0.01, 2]) until the judge's output power on the first ``probe`` train
    samples, limited at ``peak``, equals that of gain * x. Calibrated on train only."""
    p = np.asarray(x_train[:probe], dtype=np.complex128)
    y = judge(p)
    phase = np.exp(-1j * np.angle(np.vdot(p, y) / np.vdot(p, p)))
    target = np.mean(np.abs(gain * p) ** 2)
    lo, hi = 0.01, 2.0
    for _ in range(steps):
        mid = (lo + hi) / 2
        if np.mean(np.abs(judge(limit(p * mid * phase, peak)[0])) ** 2) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2 * phase


def score(y, x, start, protocol=APA_200MHZ_B, spec_plan=None):
    """Every Arena figure of the judge's output y for the test record input x (capture index start):
    symbol EVM, ACLR in every plan (the protocol's plan gives aclr_l/r), output power error, gate."""
    c = protocol["context"]
    r = protocol["gain"] * np.asarray(x, dtype=np.complex128)
    mid = slice(c, len(r) - c)
    plans = aclr_all_plans(np.asarray(y)[mid], protocol["fs"], protocol["nperseg"], spec_plan)
    main = next(a for a in plans if a["plan"] == protocol["plan"])
    err = power_error_db(np.asarray(y, dtype=np.complex128)[mid], r[mid])
    return {"evm_db": evm_db(y, r, start, protocol), "aclr_l_dbc": main["left"], "aclr_r_dbc": main["right"],
            "aclr_worse_dbc": main["worse"], "aclr_plans": plans, "power_error_db": err,
            "power_ok": power_gate(err, protocol)}
