# SPDX-License-Identifier: GPL-3.0-or-later
"""``gpuinterp_dpd_bench --protocol arena``: the scoreboard under OpenDPD's DPD Arena v6 (arena.py).

The capture (APA_200MHz_b in OpenDPD's split-CSV layout) is read and checked as for the default
protocol, its three CSV splits concatenated and cut at the Arena's boundaries (train [0, 25307),
val [25507, 31834), test [32034, 98304)). The surrogate PA models are fitted on that train split,
regularisation chosen on that val split, each split from a zero state (the splits are no longer
consecutive: 200 unused samples lie between them, and the test record's 200-sample context at each
end absorbs the start-up). The DPD is learnt through the trained-through surrogates with the Arena's
target gain G (peak gain of its train split) and its output limited at |x| <= 1 (the largest train
input), and scored on the test record through every surrogate (the judges): symbol EVM, ACLR in both
band plans (5x40 is the Arena's), output power against G x within +-0.5 dB, and Q against the same
judge's no-DPD baseline (the judge driven with the Arena's calibrated linear gain alpha x).

The Arena's own judge is a frozen TRes-GRU; here every judge is a surrogate of the scoreboard's, named
with its family and whether the DPD was trained through it. ``arena`` in the report is the figure
through the first (--pa-model) surrogate, which the DPD is trained through, as the Arena's DPDs are
trained through the PA that judges them; the held-out judges' figures stand beside it.
"""

import os
import time

import numpy as np

from . import arena
from . import dpd_model as dm
from .arena_ledger import LedgerUnavailable, ledger
from .dpd_bench import (DEFAULT_ENSEMBLE, DEFAULT_HELD_OUT, _fit_surrogate, limit, parse_model, run_model,
                        train_dpd)
from . import dpd_bench_judges as judges_mod
from .dpd_bench_data import SPLITS, BenchError, load_dataset

POLYNOMIAL = ("ph", "mp", "gmp")


def read_signal(option, path, n):
    """A predistorted test input: a 1-D complex .npy of n finite samples, or BenchError naming it."""
    try:
        v = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise BenchError(f"{option}: {path}: file not found") from None
    except (OSError, ValueError) as e:
        raise BenchError(f"{option}: {path}: not a .npy array ({str(e).splitlines()[0] if str(e) else e})") from None
    if not isinstance(v, np.ndarray) or v.ndim != 1 or not np.iscomplexobj(v):
        raise BenchError(f"{option}: {path}: expected a 1-D complex array (complex64), got "
                         f"{getattr(v, 'dtype', type(v).__name__)} of shape {getattr(v, 'shape', '?')}")
    if v.size != n:
        raise BenchError(f"{option}: {path}: {v.size} samples, the test split's input has {n}")
    if not np.all(np.isfinite(v)):
        i = int(np.flatnonzero(~np.isfinite(v))[0])
        raise BenchError(f"{option}: {path}: sample {i} is not finite")
    return v.astype(np.complex128)


def _judge_label(s):
    fam = dm.parse(s["spec"]).family
    return {"name": str(s["spec"]), "family": "polynomial" if fam in POLYNOMIAL else "neural",
            "model_family": fam, "role": s["role"], "trained_through": s["trained_through"]}


def _labelled(scores, label):
    return [dict(a, judge=label) for a in scores["aclr_plans"]]


def run_arena(directory, pa_model, dpd_model, iterations, regularization=None, progress=print,
              perturbation=None, ensemble=None, held_out=None, train_through="ensemble", backend="automatic",
              score_signal=None, protocol=arena.APA_200MHZ_B, judge_files="auto", dpd_file=None, train_files="auto"):
    """The Arena procedure; returns the report dict. ``score_signal``: (option, path) of a
    predistorted test input to score instead of fitting a DPD; ``dpd_file``: a predistorter model
    file (trained elsewhere, e.g. by neural_train through a neural surrogate) to score instead;
    ``judge_files``: PA model files judging beside the fitted ones; ``train_files``: PA model files
    the DPD is trained through instead of the fitted ones ("auto", both: the shipped neural models
    trained on the Arena's split of this capture, the trainer listed in trainers.txt). The Arena
    judges through one neural PA model; with judge files, the ``arena`` block is through the first
    of them."""
    from . import dpd

    t0 = time.time()

    def say(msg):
        progress(f"[{time.time() - t0:7.1f} s] {msg}")

    if score_signal is not None and not os.path.isfile(score_signal[1]):
        raise BenchError(f"{score_signal[0]}: {score_signal[1]}: file not found")
    perturbation = dpd.DEFAULT_PERTURBATION if perturbation is None else perturbation
    dpm = parse_model("--dpd-model", dpd_model) if score_signal is None and dpd_file is None else None
    pam = parse_model("--pa-model", pa_model)
    ens = [] if train_through == "single" else \
        [parse_model("--ensemble", s) for s in (DEFAULT_ENSEMBLE if ensemble is None else ensemble)]
    held = [parse_model("--held-out", s) for s in (DEFAULT_HELD_OUT if held_out is None else held_out)]
    spec, data = load_dataset(directory)
    x = np.concatenate([data[s][0] for s in SPLITS])
    y = np.concatenate([data[s][1] for s in SPLITS])
    try:
        cut = arena.split_arena(x, y, protocol)
    except arena.ArenaError as e:
        raise BenchError(f"{directory}: --protocol arena: {e}") from None
    (xtr, ytr), (xte, yte) = cut["train"], cut["test"]
    fs, nper = protocol["fs"], protocol["nperseg"]
    if abs(spec["input_signal_fs"] - fs) > 1e-6 * fs:
        raise BenchError(f"{os.path.join(directory, 'spec.json')}: input_signal_fs: {spec['input_signal_fs']:g}, "
                         f"the Arena's {protocol['dataset']} is sampled at {fs:g}")
    # The gain and the limit are the protocol's constants, taken by the Arena from this train split:
    # a capture that gives others is not the one the Arena froze.
    G, peak = protocol["gain"], protocol["peak_limit"]
    g_here = float(np.max(np.abs(ytr)) / np.max(np.abs(xtr)))
    if abs(g_here - G) > 1e-6 or abs(float(np.max(np.abs(xtr))) - peak) > 1e-6:
        raise BenchError(f"{directory}: --protocol arena: the train split's peak gain {g_here:.7f} and peak input "
                         f"{np.max(np.abs(xtr)):.7f} are not the Arena's {G:.7f} and {peak:g}: not "
                         f"{protocol['dataset']} as the Arena froze it")
    spec_plan = arena.plan_from_spec(spec["bw"], spec["n_sub_ch"])
    # a bad signal file is refused before minutes of fitting
    given = None if score_signal is None else read_signal(score_signal[0], score_signal[1], xte.size)
    say(f"read {directory}: Arena splits train {xtr.size}, val {cut['val'][0].size}, test {xte.size} samples; "
        f"G {G:.6f}, limit |x| <= {peak:g}; plans {', '.join([spec_plan.name] + [p for p in arena.PLANS if p != spec_plan.name])}")
    fitdata = {s: cut[s] for s in SPLITS}
    shipped = {}
    if train_files == "auto":
        train_files = judges_mod.auto_trainers(directory, split="arena") if dpm is not None else []
        shipped.update(dict.fromkeys(train_files, True))
    if judge_files == "auto":
        judge_files = [p for p in judges_mod.auto_judges(directory, split="arena") if p not in train_files]
        shipped.update(dict.fromkeys(judge_files, True))

    plan = [("--pa-model", pam, "pa_model", True)] + [("--ensemble", s, "ensemble", True) for s in ens]
    plan += [("--held-out", s, "held_out", False) for s in held]
    judges = []
    for option, s, role, trained in plan:
        say(f"fitting the judge {s} ({role.replace('_', ' ')}) on the Arena train split")
        fit = _fit_surrogate(option, s, fitdata, regularization, nper, False, perturbation, directory, backend)
        say(f"  NMSE train {fit.nmse_db['train']:.2f} dB, val {fit.nmse_db['val']:.2f} dB, test {fit.nmse_db['test']:.2f} dB")
        judges.append({"spec": s, "role": role, "trained_through": trained and dpm is not None, "fit": fit})
    dfit = None
    if dpd_file is not None:
        try:
            dfit = dm.load_model(dpd_file)
        except (dm.ModelError, OSError) as e:
            raise BenchError(f"--dpd-file: {e}") from None
        if dfit.kind != "predistorter":
            raise BenchError(f"--dpd-file: {dpd_file}: kind: a predistorter is needed, this file holds a {dfit.kind}")
    through = judges_mod.trained_through(dfit.training if dfit is not None else None)
    for path in train_files if dpm is not None else ():
        s, fit = judges_mod.load_judge(path, fitdata, False, shipped=path in shipped, option="--train-file")
        say(f"trainer {os.path.basename(path)}: {s} ({judges_mod.family_kind(s)}), NMSE test {fit.nmse_db['test']:.2f} dB")
        judges.append({"spec": s, "role": "trainer", "trained_through": True, "fit": fit,
                       "file": os.path.basename(path)})
    if any(j["role"] == "trainer" for j in judges):  # the fitted surrogates then judge, untrained through
        for j in judges:
            j["trained_through"] = j["role"] == "trainer"
    for path in judge_files:
        s, fit = judges_mod.load_judge(path, fitdata, False, shipped=path in shipped)
        say(f"judge {os.path.basename(path)}: {s} ({judges_mod.family_kind(s)}), NMSE train {fit.nmse_db['train']:.2f} "
            f"dB, val {fit.nmse_db['val']:.2f} dB, test {fit.nmse_db['test']:.2f} dB through this module's kernels")
        trained = judges_mod.sha256(path) in through
        judges.append({"spec": s, "role": "trainer" if trained else "held_out", "trained_through": trained,
                       "fit": fit, "file": os.path.basename(path)})
    # The Arena's figure is through its neural judge: ours is the first judge file the DPD was not
    # trained through (the first judge file when it was trained through all of them).
    files = [i for i, j in enumerate(judges) if j.get("file") and j["role"] != "trainer"]
    if files:
        judges.insert(0, judges.pop(next((i for i in files if not judges[i]["trained_through"]), files[0])))

    def aclr5(v):
        a = arena.aclr(v, fs, min(nper, v.size), "5x40")
        return a["left"], a["right"], a["avg"]

    if dfit is not None:
        dspec = dm.parse(dfit.model)
        x_pd, nlim = limit(run_model(dfit, xte), peak)
        diverged, name = None, f"{dspec} ({os.path.basename(dpd_file)})"
        try:
            cost = ledger(dspec)
        except LedgerUnavailable:
            cost = None
    elif score_signal is None:
        members = [j["fit"] for j in judges if j["trained_through"]]
        say(f"DPD {dpm} ({dpm.num_coefficients} coefficients), indirect learning through "
            f"{' + '.join(str(j['spec']) for j in judges if j['trained_through'])}, {iterations} iterations")
        dpd_fit, diverged = train_dpd(dpm, members, xtr, G, peak, iterations, regularization, say, aclr5, backend)
        x_pd, nlim = limit(run_model(dpd_fit, xte), peak)
        try:
            cost = ledger(dpm)
        except LedgerUnavailable:
            cost = None
        name = str(dpm)
    else:
        option, path = score_signal
        x_pd, nlim = limit(given, peak)
        diverged, cost, name = None, None, f"{option} {os.path.basename(path)}"
    say(f"test input predistorted: {nlim} samples limited at |x| = {peak:g}")

    out_peak = float(np.max(np.abs(ytr)))
    start = protocol["splits"]["test"][0]
    rows = []
    for j in judges:
        label = dict(_judge_label(j), file=j.get("file"))
        run = lambda v, f=j["fit"]: run_model(f, v)
        alpha = arena.baseline_drive(run, xtr, G, peak, protocol["baseline_probe"])
        base = arena.score(run(limit(alpha * xte, peak)[0]), xte, start, protocol, spec_plan)
        yj = run(x_pd)
        row = {"judge": label, "nmse_db": {k: float(v) for k, v in j["fit"].nmse_db.items()},
               "baseline": dict({k: v for k, v in base.items() if k != "aclr_plans"},
                                alpha=[float(alpha.real), float(alpha.imag)],
                                aclr_plans=_labelled(base, label)),
               "dpd": None, "q": None, "fom": None}
        if diverged is None and np.all(np.isfinite(yj)) and np.max(np.abs(yj)) <= 1.5 * out_peak:
            sc = arena.score(yj, xte, start, protocol, spec_plan)
            q = arena.quality_db(sc["evm_db"], sc["aclr_worse_dbc"], base["evm_db"], base["aclr_worse_dbc"])
            row.update(dpd=dict({k: v for k, v in sc.items() if k != "aclr_plans"}, aclr_plans=_labelled(sc, label)),
                       q=q, fom=arena.fom_db(q, cost and cost["params"], cost and cost["ops"]))
            row["_y"] = yj
        rows.append(row)
        d = row["dpd"]
        say(f"  through {label['name']} ({label['role'].replace('_', ' ')}"
            f"{', trained through' if label['trained_through'] else ''}): baseline EVM {base['evm_db']:.2f} dB, "
            f"ACLR {base['aclr_worse_dbc']:.2f} dBc; "
            + ("DPD n/a (extrapolation)" if d is None else
               f"DPD EVM {d['evm_db']:.2f} dB, ACLR L/R {d['aclr_l_dbc']:.2f}/{d['aclr_r_dbc']:.2f} dBc (5x40), "
               f"power {d['power_error_db']:+.2f} dB{'' if d['power_ok'] else ' OUTSIDE +-0.5 dB'}, Q {row['q']:.2f} dB"))

    measured_label = {"name": "measured", "family": "measurement", "trained_through": False}
    meas = arena.score(yte, xte, start, protocol, spec_plan)
    first = rows[0]
    d = first["dpd"]
    summary = {"plan": protocol["plan"], "judge": first["judge"],
               "params": cost and cost["params"], "ops": cost and cost["ops"],
               "evm_db": d and d["evm_db"], "aclr_l_dbc": d and d["aclr_l_dbc"], "aclr_r_dbc": d and d["aclr_r_dbc"],
               "power_error_db": d and d["power_error_db"], "power_ok": bool(d and d["power_ok"]),
               "q": first["q"], "fom": first["fom"],
               "ranked": bool(d and d["power_ok"] and first["q"] is not None and first["q"] > 0)}
    say("done")
    report = {
        "protocol": {"name": protocol["protocol"], "source": "lab-emi/OpenDPD docs/protocols/dpd-arena-v6.md",
                     "splits": {k: list(v) for k, v in protocol["splits"].items()}, "context": protocol["context"],
                     "gain": G, "peak_limit": peak, "power_tolerance_db": protocol["power_tolerance_db"],
                     "plan": protocol["plan"], "plans": {p.name: p.note for p in arena.PLANS.values()},
                     "dataset_plan": spec_plan.name,
                     "evm": "symbol EVM, 5 carriers isolated, one complete 32768-point symbol each, +-600 bins"},
        "dataset": os.path.basename(os.path.normpath(directory)),
        "dpd": {"name": name, "limited_samples": nlim, "ledger": cost,
                "trained_through": [str(j["spec"]) for j in judges if j["trained_through"]]},
        "measured": dict({k: v for k, v in meas.items() if k != "aclr_plans"},
                         aclr_plans=_labelled(meas, measured_label)),
        "judges": [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows],
        "arena": summary,
        "_predistorted": x_pd.astype(np.complex64),
        "_signals": {"measured": yte, "dpd": first.get("_y"), "fs": fs, "nperseg": nper},
    }
    return report


def format_arena(rep):
    """The printed table: every ACLR with its plan and judge."""
    a = rep["arena"]
    lines = [f"DPD Arena v6 ({rep['protocol']['name']}) on {rep['dataset']}: DPD {rep['dpd']['name']}"]
    cost = "P n/a, OPs n/a" if a["params"] is None else f"P {a['params']}, OPs {a['ops']}"
    lines.append(f"  {cost}; {rep['dpd']['limited_samples']} test samples limited")
    m = rep["measured"]
    lines.append(f"  measured test output: EVM {m['evm_db']:.2f} dB, "
                 + ", ".join(f"ACLR {p['plan']} L/R {p['left']:.2f}/{p['right']:.2f} dBc" for p in m["aclr_plans"]))
    for r in rep["judges"]:
        j, b, d = r["judge"], r["baseline"], r["dpd"]
        lines.append(f"  judge {j['name']} ({j['family']}, {j['role'].replace('_', ' ')}, "
                     f"{'trained through' if j['trained_through'] else 'not trained through'})")
        lines.append(f"    no DPD: EVM {b['evm_db']:.2f} dB, "
                     + ", ".join(f"ACLR {p['plan']} worse {p['worse']:.2f} dBc" for p in b["aclr_plans"]))
        if d is None:
            lines.append("    DPD: n/a (the judge's output left the plausible range)")
            continue
        fom = "n/a" if r["fom"] is None else f"{r['fom']:.2f}"
        lines.append(f"    DPD:    EVM {d['evm_db']:.2f} dB, "
                     + ", ".join(f"ACLR {p['plan']} L/R {p['left']:.2f}/{p['right']:.2f} dBc" for p in d["aclr_plans"])
                     + f", power {d['power_error_db']:+.2f} dB, Q {r['q']:.2f} dB, FoM {fom} dB")
    q = "n/a" if a["q"] is None else f"{a['q']:.2f}"
    fom = "n/a" if a["fom"] is None else f"{a['fom']:.2f}"
    lines.append(f"  arena (plan {a['plan']}, judge {a['judge']['name']}): Q {q} dB, FoM {fom} dB, "
                 f"{'ranked' if a['ranked'] else 'NOT ranked (power gate or Q <= 0)'}")
    return "\n".join(lines)
