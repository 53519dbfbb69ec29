# SPDX-License-Identifier: GPL-3.0-or-later
"""The scoreboard's report: the table and the PSD plot of :func:`gnuradio.gpuinterp.dpd_bench.run`'s
result."""

import os

import numpy as np

from . import dpd_model as dm
from . import metrics

_ROLE_LABEL = {"pa_model": "--pa-model", "ensemble": "ensemble", "held_out": "held out", "no_probe": "no probe", "trainer": "--train-file"}


def _dpd_lines(d, f):
    how = ("the ensemble " + " + ".join(d["trained_through"]) if d["training"] == "ensemble"
           else "the one surrogate " + d["trained_through"][0])
    lines = [f"DPD        {d['name']} ({len(d['coefficients']) - 1} coefficients + constant), trained through {how}",
             f"  {'through the surrogate':34s}{'ACLR left':>11s}{'right':>9s}{'avg':>9s}{'EVM':>9s}{'NMSE':>9s}"
             f"{'ACLR val':>10s}{'vs [1]':>9s}{'oob floor':>11s}"]
    for i, r in enumerate(d["through"], 1):
        label = f"[{i}] {_ROLE_LABEL[r['role']]}{', trained through' if r['trained_through'] else ''}"
        a = r["aclr_dbc"]
        if a is None:
            lines.append(f"  {label:34s}{'n/a (extrapolation)':>30s}")
        else:
            lines.append(f"  {label:34s}{a['left']:11.2f}{a['right']:9.2f}{a['avg']:9.2f}{r['evm_db']:9.2f}"
                         f"{r['nmse_db']:9.2f}{r['val_aclr_dbc'] if r['val_aclr_dbc'] is not None else float('nan'):10.2f}"
                         + (f"{r['disagreement_dbc']:9.2f}" if r["disagreement_dbc"] is not None else f"{'':9s}")
                         + (f"{r['oob_floor_dbc'][0]['worse']:11.2f}" if r.get("oob_floor_dbc") else ""))
    lines.append("  vs [1]: adjacent-channel power of this surrogate's output minus [1]'s, dBc (how far the two "
                 "answers differ where the ACLR is measured)")
    plan = next((r["oob_floor_dbc"][0]["plan"] for r in d["through"] if r.get("oob_floor_dbc")), None)
    if plan:
        lines.append(f"  oob floor: the worse-side ACLR ({plan} plan) that this judge's disagreement with the surrogates "
                     "trained through about the PA's small-signal gain outside the captured band implies on its own, "
                     "dBc: a quantity no band-limited capture measures, so a judge's figure near its floor is that "
                     "disagreement, not the DPD")
    lines.append(f"  ACLR through the held-out judges (worst; of the neural ones when there are any) "
                 f"{f(d['held_out_aclr_dbc'], 'dBc')}, through the "
                 f"surrogates trained through (worst) {f(d['trained_through_aclr_dbc'], 'dBc')}, gap "
                 f"{f(d['held_out_gap_db'], 'dB')}")
    for kind, h in sorted(d.get("held_out_by_kind", {}).items()):
        plans = ", ".join(f"{a['plan']} plan avg {a['avg']:.2f} (worse side {a['worse']:.2f})"
                          for a in h["aclr_plans"] or [])
        lines.append(f"  through the {kind} judge {h['judge']}{' (' + h['file'] + ')' if h.get('file') else ''}, "
                     f"never trained through: {plans or f(h['aclr_dbc']['avg'], 'dBc')} dBc"
                     + ("; its oob floor " + ", ".join(f"{a['plan']} {a['worse']:.2f}" for a in h["oob_floor_dbc"])
                        + " dBc" if h.get("oob_floor_dbc") else ""))
    return lines


def format_table(rep):
    def f(v, unit):
        return "n/a" if v is None else f"{v:.2f} {unit}"

    pa = rep["pa_model"]
    lim = rep["_limits"]
    lines = [
        f"dataset {rep['dataset']} (test split; dB, dBc)",
        f"PA models  (lambda chosen on val)   {'family':>7s}{'coef.':>7s}{'probe':>7s}{'NMSE train':>11s}{'val':>8s}"
        f"{'test':>8s}{'ACLR, no DPD':>14s}{'adj. error':>12s}",
    ]
    for i, s in enumerate(rep["surrogates"], 1):
        label = f"[{i}] {_ROLE_LABEL[s['role']]}"
        nm = s["nmse_db"]
        probe = f"{s['probe_noise']:7.3g}" if s["probe_noise"] is not None else f"{'file':>7s}"
        size = s["num_coefficients"] or dm.parse(s["name"]).num_weights
        lines.append(f"  {label:34s}{s['family']:>7s}{size:7d}{probe}"
                     f"{nm['train']:11.2f}{nm['val']:8.2f}{nm['test']:8.2f}{s['no_dpd_aclr_dbc']['avg']:14.2f}"
                     f"{s['test_adjacent_error_dbc']:12.2f}")
    for i, s in enumerate(rep["surrogates"], 1):
        lines.append(f"  [{i}] {s['name']}")
    lines.append("  adj. error: adjacent-channel power of the surrogate's test output minus the measured one, dBc (how "
                 "closely it reproduces the PA where the ACLR is measured, measurement noise included)")
    a = rep["measured"]["aclr_dbc"]
    fl = rep["measured"].get("floor_dbc")
    lines.append(f"  measured PA output: ACLR {a['left']:.2f} / {a['right']:.2f} dBc, avg {a['avg']:.2f} dBc; its floor "
                 f"beyond 2 x the channel bandwidth, over an adjacent channel's width: {f(fl, 'dBc')} (the capture "
                 "shows nothing below it)")
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
