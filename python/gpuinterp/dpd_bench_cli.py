# SPDX-License-Identifier: GPL-3.0-or-later
"""The command line of the scoreboard (``gpuinterp_dpd_bench``): options checked before the run,
one line and exit status 2 for anything wrong, the report and its files after it."""

import argparse
import json
import math
import os
import re
import sys

import numpy as np

from . import dpd, metrics
from .params import output_path_error
from . import dpd_model as dm
from .dpd_bench import (DEFAULT_DPD_MODEL, DEFAULT_ENSEMBLE, DEFAULT_HELD_OUT, DEFAULT_ITERATIONS,
                        DEFAULT_PA_MODEL, DEFAULT_TRAIN_THROUGH, TRAIN_THROUGH, run)
from .dpd_bench_data import _NON_FINITE, _NUMBER, MAX_ITERATIONS, BenchError, _show
from .dpd_bench_report import format_table, plot_psd
from .arena import ArenaError
from .dpd_bench_judges import PRESETS, preset_file
from . import dpd_bench as _bench

_bench_doc = _bench.__doc__  # --help explains the procedure, which dpd_bench documents


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
    msg = output_path_error(option, path)
    if msg:
        raise BenchError(msg)
    if option == "--psd-plot" and os.path.splitext(path)[1][1:].lower() not in PLOT_FORMATS:
        raise BenchError(f"{option}: {path}: expected a file name ending in "
                         f"{', '.join('.' + e for e in PLOT_FORMATS)}")


def main(argv=None):
    p = _Parser(prog="gpuinterp_dpd_bench", description=_bench_doc,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", metavar="DATASET_DIR", help="folder in OpenDPD's split-CSV layout")
    p.add_argument("--json", metavar="FILE", help="write the report as JSON")
    p.add_argument("--pa-model", default=DEFAULT_PA_MODEL, metavar="SPEC",
                   help="PA model spec (default: %(default)s)")
    p.add_argument("--dpd-model", default=DEFAULT_DPD_MODEL, metavar="SPEC",
                   help="predistorter model spec, or a preset with --protocol arena: 'compact' (the shipped "
                        "predistorter of the best FoM the module reaches) or 'best' (its lowest ACLR), trained "
                        "through the shipped surrogate and chosen on the val split (data/models/presets.txt, "
                        "data/models/README.md say which) (default: %(default)s)")
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
    p.add_argument("--backend", choices=("automatic", "cpu", "cuda"), default="automatic",
                   help="where the fits run: the estimation engine, automatic taking the GPU when present, else the "
                        "CPU (default: %(default)s; the numpy estimator is the tests' reference, not an option)")
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
    p.add_argument("--judge", action="append", metavar="FILE",
                   help="a PA model file (neural or polynomial; the module's format) that judges the DPD beside the "
                        "held-out surrogates, never trained through; repeatable. Default 'auto': the neural PA "
                        "models shipped with the module that were trained on this very dataset (their recorded "
                        "sha256 of every CSV matches); 'none' for none")
    p.add_argument("--train-file", action="append", metavar="FILE",
                   help="train the DPD through this PA model file (e.g. a neural surrogate) instead of the fitted "
                        "surrogates; repeatable (an ensemble). Default 'auto': the shipped neural surrogate of "
                        "this dataset (data/models/trainers.txt) when there is one, else the fitted surrogates; "
                        "'none': the fitted surrogates (--pa-model, --ensemble)")
    p.add_argument("--dpd-file", metavar="FILE",
                   help="with --protocol arena: score this predistorter model file (e.g. one trained by "
                        "gnuradio.gpuinterp.neural_train through a neural surrogate) instead of fitting a DPD")
    p.add_argument("--protocol", choices=("default", "arena"), default="default",
                   help="'arena': OpenDPD's DPD Arena v6 on APA_200MHz_b (its split, gain, limit at 1.0, power "
                        "gate, symbol EVM, worse-side ACLR in the 5x40 plan and the 1x200 plan, Q and FoM); "
                        "DATASET_DIR is APA_200MHz_b in OpenDPD's layout (default: %(default)s)")
    p.add_argument("--score-signal", metavar="NPY",
                   help="with --protocol arena: score this predistorted test input (complex64 .npy, one sample "
                        "per test-split input sample) through the judges instead of fitting a DPD")
    p.add_argument("--save-predistorted", metavar="NPY",
                   help="write the DPD's output for the test split's input (complex64 .npy, one sample per test "
                        "input sample, limited as scored: the signal every reported figure was computed from)")
    a = p.parse_args(argv)
    if a.dpd_model in PRESETS:
        if a.protocol != "arena":
            return _fail(f"--dpd-model {a.dpd_model}: a preset of the Arena protocol (--protocol arena)")
        if a.dpd_file is not None:
            return _fail(f"--dpd-model {a.dpd_model}: a preset is a predistorter file; give it or --dpd-file")
        try:
            a.dpd_file = preset_file(a.dpd_model, a.dataset, "arena")
        except BenchError as e:
            return _fail(f"--dpd-model {a.dpd_model}: {e}")
        if a.dpd_file is None:
            return _fail(f"--dpd-model {a.dpd_model}: the module ships this preset for the Arena's APA_200MHz_b "
                         f"only; {a.dataset} is not that capture (its CSV hashes differ)")
    if a.protocol != "arena":
        for opt in ("score_signal", "dpd_file"):
            if getattr(a, opt) is not None:
                return _fail(f"--{opt.replace('_', '-')}: needs --protocol arena")

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
    outputs = [(f"--{opt.replace('_', '-')}", getattr(a, opt))
               for opt in ("json", "save_pa_model", "psd_plot", "save_predistorted")
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
        if a.protocol == "arena":
            return _main_arena(a, reg)
        with np.errstate(all="ignore"):
            rep = run(a.dataset, a.pa_model, a.dpd_model, a.iterations, a.gain, reg,
                      progress=lambda m: print(m, flush=True),
                      contiguous=False if a.independent_splits else None, perturbation=a.perturbation,
                      ensemble=a.ensemble, held_out=a.held_out,
                      no_probe="" if a.no_probe_model == "none" else a.no_probe_model,
                      train_through=a.train_through, backend=a.backend,
                      judge_files=_file_list("--judge", a.judge), train_files=_file_list("--train-file", a.train_file))
    except (BenchError, dm.ModelError, dpd.DPDError, ArenaError) as e:
        return _fail(e)
    print(format_table(rep))
    sig = rep.pop("_signals")
    pa_fit = rep.pop("_pa_fit")
    rep.pop("_limits")

    def more():
        if a.save_pa_model:
            dm.save_model(a.save_pa_model, pa_fit, dataset=rep["dataset"])
        if a.psd_plot:
            rep["_signals"] = sig
            plot_psd(rep, a.psd_plot)

    failed = _write(a, rep, sig["predistorted"].astype(np.complex64), more)
    return failed if failed is not None else 0 if rep["dpd"]["aclr_dbc"] is not None else 3


def _write(a, rep, predistorted, more=None):
    """--json and --save-predistorted (then ``more()``, the other outputs); None, or main's exit
    status when a file cannot be written (checked before the run: a full disk or a folder removed
    meanwhile remain)."""
    try:
        if a.json:
            with open(a.json, "w") as f:
                json.dump(rep, f, indent=1)
        if a.save_predistorted:
            with open(a.save_predistorted, "wb") as f:  # np.save would append .npy to another name
                np.save(f, predistorted)
        if more is not None:
            more()
    except OSError as e:
        return _fail(f"cannot write the results: {e}")
    return None


def _file_list(option, values):
    """--judge, --train-file: "auto" (the default), "none", or files, each refused in one line if missing."""
    if not values or values == ["auto"]:
        return "auto"
    if values == ["none"]:
        return []
    for v in values:
        if v in ("auto", "none"):
            raise BenchError(f"{option}: '{v}' cannot be combined with files")
    return _files(option, values)


def _files(option, values):
    for v in values:
        if not os.path.isfile(v):
            raise BenchError(f"{option}: {v}: not a file")
    return list(values)


def _main_arena(a, reg):
    """--protocol arena: run, print, write; BenchError and the model errors as in main."""
    from .dpd_bench_arena import format_arena, run_arena

    if a.psd_plot is not None or a.save_pa_model is not None:
        raise BenchError("--psd-plot and --save-pa-model: not available with --protocol arena")
    if a.score_signal is not None and os.path.realpath(a.score_signal) in {
            os.path.realpath(p) for p in (a.json, a.save_predistorted) if p}:
        raise BenchError(f"--score-signal: {a.score_signal} is also an output file")
    with np.errstate(all="ignore"):
        rep = run_arena(a.dataset, a.pa_model, a.dpd_model, a.iterations, reg,
                        progress=lambda m: print(m, flush=True), perturbation=a.perturbation,
                        ensemble=a.ensemble, held_out=a.held_out, train_through=a.train_through,
                        backend=a.backend,
                        score_signal=None if a.score_signal is None else ("--score-signal", a.score_signal),
                        judge_files=_file_list("--judge", a.judge), train_files=_file_list("--train-file", a.train_file),
                        dpd_file=_files("--dpd-file", [a.dpd_file])[0] if a.dpd_file else None)
    print(format_arena(rep))
    x_pd = rep.pop("_predistorted")
    rep.pop("_signals")
    failed = _write(a, rep, x_pd)
    return failed if failed is not None else 0 if rep["arena"]["q"] is not None else 3


if __name__ == "__main__":
    sys.exit(main())
