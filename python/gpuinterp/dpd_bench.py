# SPDX-License-Identifier: GPL-3.0-or-later
"""``gpuinterp_dpd_bench``: score a DPD model family on a measured PA dataset, with OpenDPD's metrics.

Procedure (every stage prints a progress line):

1. Read a dataset in OpenDPD's split-CSV layout: ``spec.json`` (``input_signal_fs``, ``nperseg``,
   ``n_sub_ch``, and the main-channel bandwidth as ``bw_main_ch`` or ``input_signal_bw``) and
   ``{train,val,test}_{input,output}.csv`` (header ``I,Q``, one complex sample a line).
2. Fit a PA behavioural model (``--pa-model``, any family of :mod:`gnuradio.gpuinterp.dpd_model`) on
   the train split, choosing the regularisation on the validation split; report its NMSE on all three.
3. Use that model as the PA surrogate and run indirect learning (``--dpd-model``), iterated: the
   predistorter output drives the surrogate, the post-inverse of the surrogate's output is fitted and
   copied into the predistorter.
4. Score on the test split: the measured output's ACLR, the surrogate's without DPD, and with DPD
   the ACLR, OpenDPD's spectral EVM and the NMSE against the linear target G u.

Extrapolation: a polynomial surrogate is only known inside the input amplitude range it was fitted on.
The predistorter output is limited to that range (as a DAC's full scale would), the number of samples
limited is reported, and a result whose surrogate output still leaves the plausible range is reported
as an extrapolation failure, not as figures.

Errors in the dataset (a missing file, a wrong CSV header, an odd column count, a NaN, mismatched
lengths, a spec without the keys it needs) end with one line naming the file and the field, exit code 2.
"""

import argparse
import csv
import json
import math
import os
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
SPLITS = ("train", "val", "test")


class BenchError(Exception):
    """A problem with the user's input: printed as one line, exit code 2."""


def read_iq_csv(path):
    """Complex samples of an ``I,Q`` CSV file (csv module; every row two finite numbers)."""
    if not os.path.isfile(path):
        raise BenchError(f"{path}: file not found")
    rows = []
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None or [h.strip() for h in header] != ["I", "Q"]:
                raise BenchError(f"{path}: header: expected 'I,Q', got {','.join(header or [])!r}")
            for row in reader:
                if not row:
                    continue
                if len(row) != 2:
                    raise BenchError(f"{path}: line {reader.line_num}: expected 2 columns (I,Q), got {len(row)}")
                try:
                    i, q = float(row[0]), float(row[1])
                except ValueError:
                    raise BenchError(f"{path}: line {reader.line_num}: not a number: {','.join(row)!r}") from None
                if not (math.isfinite(i) and math.isfinite(q)):
                    raise BenchError(f"{path}: line {reader.line_num}: I,Q: not finite ({row[0]},{row[1]})")
                rows.append((i, q))
    except (OSError, UnicodeDecodeError) as e:
        raise BenchError(f"{path}: cannot read: {e}") from None
    if not rows:
        raise BenchError(f"{path}: no samples")
    a = np.asarray(rows, dtype=np.float64)
    return a[:, 0] + 1j * a[:, 1]


def read_spec(directory):
    path = os.path.join(directory, "spec.json")
    if not os.path.isfile(path):
        raise BenchError(f"{path}: file not found")
    try:
        with open(path) as f:
            spec = json.load(f)
    except (OSError, ValueError) as e:
        raise BenchError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(spec, dict):
        raise BenchError(f"{path}: expected a JSON object")
    out = {}
    for key in ("input_signal_fs", "nperseg", "n_sub_ch"):
        if key not in spec:
            raise BenchError(f"{path}: {key}: missing")
        out[key] = spec[key]
    bw = spec.get("bw_main_ch", spec.get("input_signal_bw"))
    if bw is None:
        raise BenchError(f"{path}: bw_main_ch: missing (nor input_signal_bw)")
    out["bw"] = bw
    out["contiguous"] = "split_ratios" in spec
    for key, v in out.items():
        if key == "contiguous":
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise BenchError(f"{path}: {key}: must be a positive number, got {v!r}")
    for key in ("nperseg", "n_sub_ch"):
        if int(out[key]) != out[key]:
            raise BenchError(f"{path}: {key}: must be an integer, got {out[key]!r}")
        out[key] = int(out[key])
    if out["bw"] >= out["input_signal_fs"] / 3:
        raise BenchError(f"{path}: bw_main_ch: {out['bw']:g} Hz leaves no room for adjacent channels at "
                         f"input_signal_fs {out['input_signal_fs']:g} Hz")
    return out


def load_dataset(directory):
    if not os.path.isdir(directory):
        raise BenchError(f"{directory}: not a directory")
    spec = read_spec(directory)
    data = {}
    for s in SPLITS:
        x = read_iq_csv(os.path.join(directory, f"{s}_input.csv"))
        y = read_iq_csv(os.path.join(directory, f"{s}_output.csv"))
        if x.size != y.size:
            raise BenchError(f"{os.path.join(directory, s + '_output.csv')}: length {y.size} differs from "
                             f"{s}_input.csv ({x.size})")
        data[s] = (x, y)
    n = data["test"][0].size
    if n < spec["nperseg"]:
        raise BenchError(f"{os.path.join(directory, 'spec.json')}: nperseg: {spec['nperseg']} exceeds the "
                         f"test split ({n} samples)")
    return spec, data


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


def run(directory, pa_model=DEFAULT_PA_MODEL, dpd_model=DEFAULT_DPD_MODEL, iterations=DEFAULT_ITERATIONS,
        gain="peak", regularization=None, progress=print, contiguous=None,
        perturbation=dpd.DEFAULT_PERTURBATION):
    """The whole procedure; returns the report dict (the JSON document)."""
    t0 = time.time()

    def say(msg):
        progress(f"[{time.time() - t0:7.1f} s] {msg}")

    spec, data = load_dataset(directory)
    fs, bw, nsub, nper = spec["input_signal_fs"], spec["bw"], spec["n_sub_ch"], spec["nperseg"]
    try:
        pam, dpm = dm.parse(pa_model), dm.parse(dpd_model)
    except dm.ModelError as e:
        raise BenchError(str(e)) from None
    (xtr, ytr), (xva, yva), (xte, yte) = data["train"], data["val"], data["test"]
    say(f"read {directory}: train {xtr.size}, val {xva.size}, test {xte.size} samples, fs {fs / 1e6:g} MHz, "
        f"channel {bw / 1e6:g} MHz")

    say(f"fitting the PA model {pam} ({pam.num_coefficients} coefficients) on train, regularisation "
        f"chosen on val, probe noise {perturbation:g} x RMS")
    # OpenDPD's split_csv datasets cut one capture into consecutive train, val and test parts (their
    # spec.json carries the split_ratios): then the end of one split is the history of the next, and
    # every model runs over the splits as one stream, as a block would, instead of starting each split
    # from a zero state (a start-up transient of the memory terms, visible in the spectra).
    if contiguous is None:
        contiguous = spec["contiguous"]
    pa = dpd.fit_forward(xtr, ytr, pam, xva, yva, xte, yte, regularization=regularization, nperseg=nper,
                        contiguous=contiguous, perturbation=perturbation)
    say(f"PA model NMSE train {pa.nmse_db['train']:.2f} dB, val {pa.nmse_db['val']:.2f} dB, test "
        f"{pa.nmse_db['test']:.2f} dB (regularisation {pa.regularization:.1e}, rank {pa.rank}, condition "
        f"{pa.condition:.2e})")

    aclr_meas = metrics.opendpd_aclr(yte, fs, bw, nsub, nper)
    def stream(model_fit, x, before):
        """model_fit over x, continuing the stream ``before`` when the splits are contiguous."""
        if not contiguous:
            return model_fit.apply(x)
        return model_fit.apply(np.concatenate([before, x]))[before.size:]

    y_sur = stream(pa, xte, xva)
    aclr_sur = metrics.opendpd_aclr(y_sur, fs, bw, nsub, nper)
    say(f"ACLR of the measured test output {aclr_meas[2]:.2f} dBc, of the surrogate without DPD "
        f"{aclr_sur[2]:.2f} dBc")

    # The linear target: "average" is the least-squares gain of the measured PA; "peak" maps the
    # largest input to the largest output the PA delivered, so the predistorter never has to drive the
    # PA beyond the range it was measured in.
    G = dpd.ls_gain(xtr, ytr)
    if gain == "peak":
        G *= np.max(np.abs(ytr)) / (abs(G) * np.max(np.abs(xtr)))
    peak = pa.input_range
    w = np.zeros(dpm.num_coefficients, dtype=np.complex128)
    w[0] = 1.0
    dpd_fit = dm.ModelFit(str(dpm), w, 0j, {}, kind="predistorter")
    say(f"DPD {dpm} ({dpm.num_coefficients} coefficients), indirect learning through the surrogate, "
        f"{iterations} iterations, target gain |G| {abs(G):.4f}, input limited to |x| <= {peak:.4f}")
    for it in range(1, iterations + 1):
        x, nlim = limit(dpd_fit.apply(xtr), peak)
        y = pa.apply(x)
        # Both models start from a zero state here: their start-up transient stays out of the fit.
        skip = dpm.history + pam.history
        r = dpd.estimate(x[skip:], y[skip:], model=dpm, target_gain=G, delay=0.0,
                         regularization=regularization, validation=None)
        dpd_fit = dm.ModelFit(str(dpm), r.coefficients, r.lo_leakage, {}, kind="predistorter",
                              regularization=r.regularization, condition=r.condition, rank=r.rank)
        say(f"  iteration {it}: train ACLR before this update {metrics.opendpd_aclr(y, fs, bw, nsub, nper)[2]:.2f} "
            f"dBc, {nlim} samples limited, post-inverse fit {r.fit_nmse_db:.2f} dB")

    n = xte.size
    x_in = np.concatenate([xva, xte]) if contiguous else xte
    x_raw = dpd_fit.apply(x_in)
    nlim = int(np.sum(np.abs(x_raw[-n:]) > peak))  # counted on the test split only
    x_all, _ = limit(x_raw, peak)
    y_t = pa.apply(x_all)[-n:]
    out_peak = float(np.max(np.abs(ytr)))
    blown = not np.all(np.isfinite(y_t)) or np.max(np.abs(y_t)) > 1.5 * out_peak
    report = {
        "dataset": os.path.basename(os.path.normpath(directory)),
        "pa_model": {"name": str(pam), "coefficients": _pairs(pa.coefficients, pa.lo_leakage),
                     "nmse_db": {k: float(v) for k, v in pa.nmse_db.items()}},
        "measured": {"aclr_dbc": _aclr_dict(aclr_meas)},
        "surrogate_no_dpd": {"aclr_dbc": _aclr_dict(aclr_sur)},
        "dpd": {"name": str(dpm), "coefficients": _pairs(dpd_fit.coefficients, dpd_fit.lo_leakage)},
    }
    if blown:
        say("DPD result discarded: the surrogate output left 1.5 x the measured output range "
            "(polynomial extrapolation), so no figure is reported")
        report["dpd"].update({"aclr_dbc": None, "evm_db": None, "nmse_db": None})
    else:
        aclr_dpd = metrics.opendpd_aclr(y_t, fs, bw, nsub, nper)
        ref = G * xte
        report["dpd"].update({
            "aclr_dbc": _aclr_dict(aclr_dpd),
            "evm_db": metrics.opendpd_evm_db(y_t, ref, fs, bw, nsub, nper),
            "nmse_db": metrics.opendpd_nmse_db(y_t, ref, nper),
        })
    report["_limits"] = {"samples": nlim, "fraction": nlim / xte.size, "input_range": peak}
    say("done")
    report["_pa_fit"] = pa
    report["_signals"] = {"measured": yte, "surrogate": y_sur, "dpd": y_t, "fs": fs, "nperseg": nper, "bw": bw}
    return report


def format_table(rep):
    def f(v, unit):
        return "n/a" if v is None else f"{v:8.2f} {unit}"

    pa = rep["pa_model"]
    d = rep["dpd"]
    lim = rep["_limits"]
    lines = [
        f"dataset {rep['dataset']} (test split)",
        f"PA model   {pa['name']} ({len(pa['coefficients']) - 1} coefficients + constant)",
        f"  NMSE train {f(pa['nmse_db']['train'], 'dB')}   val {f(pa['nmse_db']['val'], 'dB')}   "
        f"test {f(pa['nmse_db']['test'], 'dB')}",
        f"{'':28s}{'ACLR left':>14s}{'ACLR right':>14s}{'ACLR avg':>14s}",
    ]
    for label, a in (("measured PA output", rep["measured"]["aclr_dbc"]),
                     ("surrogate, no DPD", rep["surrogate_no_dpd"]["aclr_dbc"]),
                     (f"surrogate + DPD", d["aclr_dbc"])):
        if a is None:
            lines.append(f"{label:28s}{'n/a (extrapolation)':>42s}")
        else:
            lines.append(f"{label:28s}{a['left']:10.2f} dBc{a['right']:10.2f} dBc{a['avg']:10.2f} dBc")
    lines.append(f"DPD        {d['name']} ({len(d['coefficients']) - 1} coefficients + constant)")
    lines.append(f"  EVM {f(d['evm_db'], 'dB')}   NMSE {f(d['nmse_db'], 'dB')}   samples limited to the "
                 f"fitted range |x| <= {lim['input_range']:.4f}: {lim['samples']} "
                 f"({100 * lim['fraction']:.3f} %)")
    lines.append("DPD figures are through the fitted PA model (a surrogate), not the physical PA.")
    return "\n".join(lines)


def plot_psd(rep, path):
    s = rep["_signals"]
    plt = metrics._pyplot()
    fig, ax = plt.subplots(figsize=(9, 5))
    for label, sig, style in (("measured PA output", s["measured"], dict(lw=1.6, color="0.55")),
                              ("surrogate, no DPD", s["surrogate"], dict(lw=0.9, color="tab:orange")),
                              ("surrogate + DPD", s["dpd"], dict(lw=0.9, color="tab:green"))):
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
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(prog="gpuinterp_dpd_bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", metavar="DATASET_DIR", help="folder in OpenDPD's split-CSV layout")
    p.add_argument("--json", metavar="FILE", help="write the report as JSON")
    p.add_argument("--pa-model", default=DEFAULT_PA_MODEL, metavar="SPEC",
                   help="PA model spec (default: %(default)s)")
    p.add_argument("--dpd-model", default=DEFAULT_DPD_MODEL, metavar="SPEC",
                   help="predistorter model spec (default: %(default)s)")
    p.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS,
                   help="indirect-learning iterations (default: %(default)s)")
    p.add_argument("--perturbation", type=float, default=dpd.DEFAULT_PERTURBATION, metavar="RHO",
                   help="probe noise of the PA fit, relative to the input RMS: pins the model's answer to "
                        "inputs the capture never contained, so it stays a usable surrogate under DPD; "
                        "0 fits the capture alone (default: %(default)s)")
    p.add_argument("--gain", choices=("peak", "average"), default="peak",
                   help="linear target gain: 'peak' maps the largest input to the largest measured output "
                        "(the predistorter stays inside the measured range), 'average' is the PA's "
                        "least-squares gain (default: %(default)s)")
    p.add_argument("--regularization", default="auto", metavar="R",
                   help="ridge lambda relative to s_max^2, or 'auto' to choose it on held-out data "
                        "(default: %(default)s)")
    p.add_argument("--save-pa-model", metavar="FILE", help="write the fitted PA model as JSON (pa_model_cc "
                   "can run it)")
    p.add_argument("--psd-plot", metavar="PNG", help="plot the test-split spectra")
    p.add_argument("--independent-splits", action="store_true",
                   help="start every model from a zero state at each split (default when spec.json has no "
                        "split_ratios, i.e. the splits are not consecutive parts of one capture)")
    a = p.parse_args(argv)

    def fail(msg):
        print(f"gpuinterp_dpd_bench: error: {msg}", file=sys.stderr)
        return 2

    if a.iterations < 1:
        return fail(f"--iterations: must be >= 1, got {a.iterations}")
    if not (math.isfinite(a.perturbation) and 0 <= a.perturbation <= 1):
        return fail(f"--perturbation: must be in [0, 1], got {a.perturbation}")
    reg = None
    if a.regularization != "auto":
        try:
            reg = float(a.regularization)
        except ValueError:
            return fail(f"--regularization: expected a number or 'auto', got {a.regularization!r}")
        if not (math.isfinite(reg) and reg >= 0):
            return fail(f"--regularization: must be finite and >= 0, got {a.regularization}")
    for opt in ("json", "save_pa_model", "psd_plot"):
        path = getattr(a, opt)
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            return fail(f"--{opt.replace('_', '-')}: folder of {path} does not exist")
    try:
        rep = run(a.dataset, a.pa_model, a.dpd_model, a.iterations, a.gain, reg,
                  progress=lambda m: print(m, flush=True), contiguous=False if a.independent_splits else None,
                  perturbation=a.perturbation)
    except (BenchError, dm.ModelError, dpd.DPDError) as e:
        return fail(str(e))
    print(format_table(rep))
    sig = rep.pop("_signals")
    pa_fit = rep.pop("_pa_fit")
    rep.pop("_limits")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rep, f, indent=1)
    if a.save_pa_model:
        dm.save_model(a.save_pa_model, pa_fit, dataset=rep["dataset"])
    if a.psd_plot:
        rep["_signals"] = sig
        plot_psd(rep, a.psd_plot)
    return 0 if rep["dpd"]["aclr_dbc"] is not None else 3


if __name__ == "__main__":
    sys.exit(main())
