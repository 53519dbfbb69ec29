# SPDX-License-Identifier: GPL-3.0-or-later
"""Training of the neural families (``gru``, ``tdnn``, docs/neural_models.md) and gradient training of the
polynomial ones (``mp``, ``gmp``), with PyTorch: PA surrogates fitted to a capture, and predistorters
trained by direct learning through a frozen surrogate. The module's own kernels run what this writes.

Usable two ways: ``python3 python/gpuinterp/neural_train.py pa|dpd ...`` on a machine with PyTorch and no
GNU Radio (the GPU host: this file and its two siblings, neural_spec.py and neural_torch.py, with
arena_ledger.py, are all it needs), and ``gnuradio.gpuinterp.neural_train`` inside the package, where the
spec parser, metrics and ledger are the package's (neural_spec.py says which and how). numpy is the only
import at load time; PyTorch is imported when a model is built, and its absence is one line.
"""

import argparse
import hashlib
import json
import math
import os
import sys
import time

import numpy as np

if __package__:
    from .neural_spec import (NEURAL, aclr_db, history, lookahead, neural_ledger, neural_ops, nmse_db, num_weights,
                              ops, parse_spec, segment_nmse_db, term_list)
    from .neural_torch import (TorchMissing, _classes, _cx, _iq, build, export_weights, import_weights, load_file,
                               require_torch, run_stream, save_file)
else:  # run as a script from its folder (the GPU host)
    from neural_spec import (NEURAL, aclr_db, history, lookahead, neural_ledger, neural_ops, nmse_db, num_weights,
                             ops, parse_spec, segment_nmse_db, term_list)
    from neural_torch import (TorchMissing, _classes, _cx, _iq, build, export_weights, import_weights, load_file,
                              require_torch, run_stream, save_file)

__all__ = ["parse_spec", "term_list", "neural_ledger", "neural_ops", "ops", "num_weights", "lookahead", "history",
           "build", "export_weights", "import_weights", "load_split", "train_pa", "train_dpd", "fit_pa", "fit_dpd",
           "options", "save_file",
           "load_file", "nmse_db", "segment_nmse_db", "aclr_db", "require_torch", "TorchMissing"]


# DPD Arena v6's split of APA_200MHz_b: the concatenated train, val and test CSVs cut at these sample
# indices (gaps between the parts keep a model's memory from reaching across).
ARENA_SPLIT = {"train": (0, 25307), "val": (25507, 31834), "test": (32034, 98304)}


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def _read_iq(path):
    with open(path) as f:
        head = f.readline().strip().replace(" ", "")
    if head != "I,Q":
        raise ValueError(f"{path}: header must be 'I,Q', got {head!r}")
    v = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float64, ndmin=2)
    if v.shape[1] != 2 or not np.all(np.isfinite(v)):
        raise ValueError(f"{path}: expected two finite columns I,Q")
    return v[:, 0] + 1j * v[:, 1]


def load_split(directory, split="opendpd"):
    """{'train'|'val'|'test': (x, y)} complex128, the spec dict and {file: sha256}. ``split``:
    'opendpd' (the files' own split) or 'arena' (DPD Arena v6's cut of the concatenation)."""
    with open(os.path.join(directory, "spec.json")) as f:
        spec = json.load(f)
    data, hashes = {}, {}
    for s in ("train", "val", "test"):
        pair = []
        for side in ("input", "output"):
            p = os.path.join(directory, f"{s}_{side}.csv")
            pair.append(_read_iq(p))
            hashes[os.path.basename(p)] = sha256(p)
        if pair[0].size != pair[1].size:
            raise ValueError(f"{directory}: {s} input and output lengths differ")
        data[s] = tuple(pair)
    if split == "arena":
        x = np.concatenate([data[s][0] for s in ("train", "val", "test")])
        y = np.concatenate([data[s][1] for s in ("train", "val", "test")])
        if x.size < ARENA_SPLIT["test"][1]:
            raise ValueError(f"{directory}: {x.size} samples, the arena split needs {ARENA_SPLIT['test'][1]}")
        data = {s: (x[a:b], y[a:b]) for s, (a, b) in ARENA_SPLIT.items()}
    elif split != "opendpd":
        raise ValueError(f"split: 'opendpd' or 'arena', got {split!r}")
    return data, spec, hashes


class _Schedule:
    """Cosine decay from lr to lr_end over the epochs; the epoch count can be cut once the first
    epoch's time is known (--time-budget), and the count actually run goes in the file."""

    def __init__(self, opt, lr, lr_end, epochs):
        self.opt, self.lr, self.lr_end, self.epochs = opt, lr, lr_end, epochs

    def set(self, epoch):
        t = min(1.0, epoch / max(1, self.epochs - 1))
        lr = self.lr_end + 0.5 * (self.lr - self.lr_end) * (1 + math.cos(math.pi * t))
        for g in self.opt.param_groups:
            g["lr"] = lr
        return lr


def _fit(params, frame_loss, n_train, val_score, args, log, state_of, load_state):
    """The shared loop: AdamW on shuffled stride-1 frames, cosine lr, gradient clipping, the epoch
    with the best val score kept. frame_loss(starts) -> loss tensor; val_score() -> dB (lower better)."""
    torch = _classes()["torch"]
    g = torch.Generator().manual_seed(args.seed)
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=args.weight_decay)
    sched = _Schedule(opt, args.lr, args.lr_end, args.epochs)
    starts_all = np.arange(0, n_train - args.frame + 1, args.stride)
    t0 = time.time()
    best, best_state, best_epoch = math.inf, state_of(), -1
    epoch = 0
    stopped = ""
    while epoch < sched.epochs:
        lr = sched.set(epoch)
        te = time.time()
        perm = torch.randperm(starts_all.size, generator=g).numpy()
        total, nb, nt = 0.0, 0, 0
        for b in range(0, perm.size, args.batch):
            loss = frame_loss(starts_all[perm[b:b + args.batch]])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, args.clip)
            opt.step()
            if nb % 50 == 0:  # a sample of the training loss; reading every one would stall the GPU
                total, nt = total + float(loss.detach()), nt + 1
            nb += 1
        v = val_score()
        if v < best:
            best, best_state, best_epoch = v, state_of(), epoch
        now = time.time()
        log(f"epoch {epoch + 1}/{sched.epochs} lr {lr:.2e} train loss {total / max(nt, 1):.3e} val {v:.3f} dB best {best:.3f} "
            f"({now - te:.1f} s, {now - t0:.0f} s total)")
        epoch += 1
        if args.time_budget and epoch == min(2, sched.epochs - 1):
            # Cut the epoch count to what fits, so the cosine schedule still ends at lr_end; timed on
            # the second epoch, as the first includes the library's warm-up.
            fits = int((args.time_budget - (now - t0)) / max(now - te, 1e-3)) + 1
            if fits < sched.epochs:
                sched.epochs = max(1, fits)
                log(f"time budget {args.time_budget:.0f} s: {sched.epochs} epochs")
        if args.time_budget and now - t0 > args.time_budget * 1.1 and epoch < sched.epochs:
            stopped = f"stopped at the time budget after {epoch} epochs"
            log(stopped)
            break
    load_state(best_state)
    return {"epochs_run": epoch, "epochs_planned": sched.epochs, "best_epoch": best_epoch + 1,
            "seconds": round(time.time() - t0, 1), "stopped": stopped}


def _setup(args):
    torch = _classes()["torch"]
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    dev = torch.device(args.device)
    return torch, dev


def _frames(t, starts, L):
    torch = _classes()["torch"]
    idx = torch.as_tensor(starts, device=t.device).unsqueeze(1) + torch.arange(L, device=t.device)
    return t[idx]


def _command():
    return "python3 python/gpuinterp/neural_train.py " + " ".join(sys.argv[1:])


def train_pa(args, log=print):
    """Fit a PA model (output from input) on train, keep the best-val epoch, report test NMSE."""
    data, spec, hashes = load_split(args.data, args.split)
    model, info = fit_pa(args, data, log)
    dev = args.device
    figs, seg = {}, {}
    for s in ("train", "val", "test"):
        yh = run_stream(model, data[s][0], dev)
        figs[s] = nmse_db(data[s][1], yh)
        seg[s] = segment_nmse_db(data[s][1], yh, spec.get("nperseg", 19662))
    log(f"pa {model.spec} seed {args.seed}: NMSE dB train {figs['train']:.2f} val {figs['val']:.2f} "
        f"test {figs['test']:.2f} (segment-averaged test {seg['test']:.2f})")
    training = _training_record(args, hashes, info, figs, seg)
    _save(args.out, model, "pa_model", figs, training,
          input_range=float(np.max(np.abs(data["train"][0]))))
    return model, figs, seg


def fit_pa(args, data, log=print, model=None):
    """The PA fit on a data dict {"train": (x, y), "val": (x, y), ...} (y the PA output for x): AdamW on
    frames of the train pair, the best-val epoch kept. ``model``: a torch module to continue training
    (the estimator's loop refits its surrogate capture after capture); else ``args.model`` from scratch.
    Returns (model, the fit's info)."""
    torch, dev = _setup(args)
    model = (build(args.model) if model is None else model).to(dev)
    for p in model.parameters():  # a surrogate that fit_dpd froze is trained again
        p.requires_grad_(True)
    la, hist = lookahead(model.spec), history(model.spec)
    warm = max(args.warmup, hist)
    if args.frame <= warm + la:
        raise ValueError(f"frame: {args.frame} leaves no samples past a warm-up of {warm} and look-ahead {la}")
    xt, yt = _iq(data["train"][0], dev), _iq(data["train"][1], dev)
    log(f"pa {model.spec}: {num_weights(model.spec)} weights, {ops(model.spec)} ops/sample, "
        f"frames of {args.frame} (loss on [{warm}, {args.frame - la})), {args.split} split")

    def frame_loss(starts):
        y = model(_frames(xt, starts, args.frame))
        d = (y - _frames(yt, starts, args.frame))[:, warm:args.frame - la]
        return (d ** 2).mean()

    def val_score():
        return nmse_db(data["val"][1], run_stream(model, data["val"][0], dev))

    state = lambda: {k: v.detach().clone() for k, v in model.state_dict().items()}  # noqa: E731
    info = _fit(list(model.parameters()), frame_loss, xt.shape[0], val_score, args, log, state,
                model.load_state_dict)
    return model, info


def _training_record(args, hashes, info, figs, seg, extra=None):
    r = {"command": _command(), "seed": args.seed, "data": os.path.basename(os.path.normpath(args.data)),
         "split": args.split, "data_sha256": hashes,
         "recipe": {"frame": args.frame, "stride": args.stride, "batch": args.batch, "optimizer": "AdamW",
                    "lr": args.lr, "lr_end": args.lr_end, "schedule": "cosine", "weight_decay": args.weight_decay,
                    "grad_clip": args.clip, "warmup": args.warmup, "epochs": info["epochs_planned"],
                    "time_budget_s": args.time_budget},
         "epochs_run": info["epochs_run"], "best_epoch": info["best_epoch"], "seconds": info["seconds"],
         "nmse_db": {k: round(v, 3) for k, v in figs.items()},
         "nmse_db_segment_avg": {k: round(v, 3) for k, v in seg.items()}}
    if getattr(args, "oob_weight", 0.0):
        r["recipe"]["oob_weight"] = args.oob_weight
    if getattr(args, "select", "nmse") != "nmse":
        r["recipe"]["select"] = f"val worse-side ACLR, {args.plan} plan"
    if getattr(args, "init", None):
        r["recipe"]["init"] = {"file": os.path.basename(args.init), "sha256": sha256(args.init)}
    if info["stopped"]:
        r["stopped"] = info["stopped"]
    if extra:
        r.update(extra)
    return r


def _save(path, model, kind, figs, training, input_range=None):
    if not path:
        return
    if model.family in NEURAL:
        save_file(path, model.spec, kind, weights=export_weights(model), nmse=figs, training=training)
    else:
        c, lo = export_weights(model)
        save_file(path, model.spec, kind, coefficients=c, lo_leakage=lo, nmse=figs, training=training,
                  input_range=input_range)


def _limit(u, limit):
    torch = _classes()["torch"]
    if not limit:
        return u
    a = torch.sqrt(torch.clamp(u[..., 0] ** 2 + u[..., 1] ** 2, min=1e-30))
    return u * torch.clamp(limit / a, max=1.0).unsqueeze(-1)


def train_dpd(args, log=print):
    """Direct learning: train f so that PA(f(x)) = g x through the frozen surrogate PA, select on val."""
    data, spec, hashes = load_split(args.data, args.split)
    pa, pa_doc = load_file(args.pa)
    x_tr, y_tr = data["train"]
    if args.gain is not None:
        g = complex(args.gain)
        gsrc = "given"
    else:
        g = complex(np.vdot(x_tr, y_tr) / np.vdot(x_tr, x_tr))
        gsrc = "least-squares linear gain of the PA (train split)"
    fs, bw = float(spec.get("input_signal_fs", 1.0)), float(spec.get("bw_main_ch", spec.get("input_signal_bw", 0.25)))
    args.band = (fs, bw, int(spec.get("n_sub_ch", 1)))
    also = [load_file(f)[0] for f in getattr(args, "also_through", None) or ()]
    dpd, info, through = fit_dpd(args, data, pa, g, log, dpd=load_file(args.init)[0] if args.init else None,
                                 also=also)
    torch, dev = _classes()["torch"], args.device
    nper = int(spec.get("nperseg", 19662))
    figs, seg, res = {}, {}, {}
    for s in ("train", "val", "test"):
        x = data[s][0]
        u, y = through(x)
        figs[s], seg[s] = nmse_db(g * x, y), segment_nmse_db(g * x, y, nper)
        if s == "test":
            with torch.no_grad():
                y0 = _cx(pa(_iq(x, dev).unsqueeze(0))[0])
            res = {"nmse_db_without_dpd": round(nmse_db(g * x, y0), 3),
                   "aclr_dbc": {"spec_plan": [round(v, 2) for v in aclr_db(y, fs, bw, int(spec.get("n_sub_ch", 1)), nper)],
                                "5x40MHz_plan": [round(v, 2) for v in aclr_db(y, fs, bw, 5, nper)]},
                   "aclr_dbc_without_dpd": {
                       "spec_plan": [round(v, 2) for v in aclr_db(y0, fs, bw, int(spec.get("n_sub_ch", 1)), nper)],
                       "5x40MHz_plan": [round(v, 2) for v in aclr_db(y0, fs, bw, 5, nper)]},
                   "dpd_output_peak": round(float(np.max(np.abs(u))), 4),
                   "output_power_change_db": round(10 * math.log10(np.mean(np.abs(y) ** 2) / np.mean(np.abs(y0) ** 2)), 3)}
    log(f"dpd {dpd.spec} seed {args.seed} through {os.path.basename(args.pa)}: NMSE dB to g*x test {figs['test']:.2f} "
        f"(without DPD {res['nmse_db_without_dpd']:.2f}); ACLR test (left, right, mean) dBc {res['aclr_dbc']} "
        f"(without DPD {res['aclr_dbc_without_dpd']})")
    extra = {"surrogate": os.path.basename(args.pa), "surrogate_sha256": sha256(args.pa),
             "surrogate_model": pa.spec, "gain": [g.real, g.imag], "gain_source": gsrc,
             "output_limit": args.limit, "through_surrogate_test": res,
             "ops_per_sample": ops(dpd.spec)}
    if also:
        extra["also_through"] = [{"file": os.path.basename(f), "sha256": sha256(f)} for f in args.also_through]
    training = _training_record(args, hashes, info, figs, seg, extra)
    _save(args.out, dpd, "predistorter", figs, training, input_range=float(np.max(np.abs(x_tr))))
    return dpd, figs, res


def fit_dpd(args, data, pa, g, log=print, dpd=None, also=()):
    """Direct learning on a data dict: train the predistorter f (``dpd``, a torch module to continue
    from, else ``args.model`` from its identity start) so that pa(f(x)) = g x on the train inputs, the
    surrogate ``pa`` frozen, the best-val epoch kept. ``also``: more frozen surrogates of the same PA;
    the loss is the mean over all of them and the val score the worst, so the fit cannot win by
    exploiting where one surrogate is wrong. Returns (f, the fit's info, through) with through(x) ->
    (f's output, pa's output) as complex arrays."""
    torch, dev = _setup(args)
    pas = [m.to(dev) for m in [pa, *also]]
    pa = pas[0]
    for m in pas:
        for p in m.parameters():
            p.requires_grad_(False)
        # cuDNN's recurrent backward needs training mode; a GRU without dropout computes the same in both.
        m.train()
    if dpd is None:
        dpd = build(args.model)
        if dpd.family == "gru" and not dpd.identity():
            log(f"dpd {dpd.spec}: C < 4 skip channels cannot start as the identity; starting from random weights")
    dpd = dpd.to(dev)
    la = lookahead(dpd.spec) + max(lookahead(m.spec) for m in pas)
    warm = max(args.warmup, history(dpd.spec) + max(history(m.spec) for m in pas))
    xt = _iq(data["train"][0], dev)
    gt = torch.tensor([g.real, g.imag], dtype=torch.float32, device=dev)

    def target(x):
        return torch.stack([gt[0] * x[..., 0] - gt[1] * x[..., 1], gt[0] * x[..., 1] + gt[1] * x[..., 0]], -1)

    log(f"dpd {dpd.spec} through {pa.spec}: gain {g.real:.6f}{g.imag:+.6f}j, limit {args.limit or 'none'}, "
        f"loss on [{warm}, {args.frame - la})")

    # Out-of-channel weighting: the error's power outside the channel |f| <= bw / 2 (each frame's
    # loss window, Hann, FFT) added with weight oob_weight, so the fit spends its freedom on the
    # adjacent channels an ACLR measures instead of on the in-band error an NMSE is made of.
    fs, bw, n_sub = getattr(args, "band", (0.0, 0.0, 1))
    wn = args.frame - la - warm
    oob = None
    if getattr(args, "oob_weight", 0.0) and bw:
        f = torch.fft.fftfreq(wn, 1.0 / fs).to(dev)
        hann = (0.5 - 0.5 * torch.cos(2 * math.pi * torch.arange(wn, device=dev) / wn)).float()
        oob = ((f.abs() > bw / 2).float(), hann, float(wn * (hann ** 2).mean()))

    def frame_loss(starts):
        x = _frames(xt, starts, args.frame)
        u = _limit(dpd(x), args.limit)
        loss = 0.0
        for m in pas:
            d = (m(u) - target(x))[:, warm:args.frame - la]
            loss = loss + (d ** 2).mean()
            if oob is not None:
                mask, hann, norm = oob
                z = torch.fft.fft(torch.complex(d[..., 0], d[..., 1]) * hann, dim=1)
                loss = loss + args.oob_weight * ((z.real ** 2 + z.imag ** 2) * mask).mean() / norm
        return loss / len(pas)

    def through(xs):
        with torch.no_grad():
            u = _limit(dpd(_iq(xs, dev).unsqueeze(0)), args.limit)
            return _cx(u[0]), _cx(pa(u)[0])

    def val_score():
        x = data["val"][0]
        with torch.no_grad():
            u = _limit(dpd(_iq(x, dev).unsqueeze(0)), args.limit)
            ys = [_cx(m(u)[0]) for m in pas]
        if getattr(args, "select", "nmse") == "aclr":  # the worse side, the main channel as args.plan splits it
            subs = 5 if args.plan == "5x40" else n_sub
            nper = 1 << int(math.floor(math.log2(x.size * 2 / 5)))
            return max(max(aclr_db(y, fs, bw, subs, nper)[:2]) for y in ys)
        return max(nmse_db(g * x, y) for y in ys)

    state = lambda: {k: v.detach().clone() for k, v in dpd.state_dict().items()}  # noqa: E731
    info = _fit(list(dpd.parameters()), frame_loss, xt.shape[0], val_score, args, log, state, dpd.load_state_dict)
    return dpd, info, through


def options(step, **overrides):
    """The command line's defaults for ``step`` ("pa" or "dpd") as an argparse namespace, with
    ``overrides`` (option names with underscores): what fit_pa and fit_dpd take from a program."""
    required = {"data": "", "model": overrides.get("model", "")} if step == "pa" else \
        {"data": "", "model": overrides.get("model", ""), "pa": ""}
    argv = [step] + sum(([f"--{k}", str(v)] for k, v in required.items()), [])
    args = _parser().parse_args(argv)
    for k, v in overrides.items():
        if not hasattr(args, k):
            raise ValueError(f"{k}: not an option of neural_train {step}")
        setattr(args, k, v)
    return args


def _parser():
    p = argparse.ArgumentParser(prog="neural_train", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="step", required=True)
    for name, helptext in (("pa", "fit a PA surrogate"), ("dpd", "train a predistorter through a surrogate")):
        s = sub.add_parser(name, help=helptext)
        s.add_argument("--data", required=True, help="dataset directory (OpenDPD split-CSV layout)")
        s.add_argument("--model", required=True, help="spec, e.g. gru:H=32,C=4,D=16, tdnn:M=8,H=16,N=2, gmp:...")
        s.add_argument("--out", help="model file to write")
        s.add_argument("--split", default="opendpd", choices=("opendpd", "arena"))
        s.add_argument("--seed", type=int, default=0)
        s.add_argument("--device", default="cpu")
        s.add_argument("--epochs", type=int, default=100)
        s.add_argument("--time-budget", type=float, default=0.0, help="seconds; cuts the epoch count to fit")
        s.add_argument("--frame", type=int, default=200)
        s.add_argument("--stride", type=int, default=1)
        s.add_argument("--batch", type=int, default=64)
        s.add_argument("--lr", type=float, default=5e-3)
        s.add_argument("--lr-end", type=float, default=1e-4)
        s.add_argument("--weight-decay", type=float, default=0.0)
        s.add_argument("--clip", type=float, default=200.0)
        s.add_argument("--warmup", type=int, default=20, help="frame samples left out of the loss at its start")
        s.add_argument("--threads", type=int, default=0)
        if name == "dpd":
            s.add_argument("--pa", required=True, help="the frozen surrogate's model file")
            s.add_argument("--gain", type=float, default=None, help="target gain g (default: LS gain of the PA)")
            s.add_argument("--limit", type=float, default=0.0, help="limit |DPD output| to this (0: none)")
            s.add_argument("--also-through", action="append", metavar="FILE",
                           help="another frozen surrogate of the same PA (repeatable): the loss averages over "
                                "every surrogate, the kept epoch is the best of the worst val score")
            s.add_argument("--init", help="a predistorter file to continue from (default: the identity)")
            s.add_argument("--oob-weight", type=float, default=0.0,
                           help="weight of the error power outside the channel in the loss (0: NMSE alone)")
            s.add_argument("--select", default="nmse", choices=("nmse", "aclr"),
                           help="the epoch kept: best val NMSE, or best val worse-side ACLR in --plan")
            s.add_argument("--plan", default="5x40", choices=("5x40", "spec"),
                           help="--select aclr: five carriers over the channel (the Arena's), or the spec's plan")
    return p


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        require_torch()
        (train_pa if args.step == "pa" else train_dpd)(args, log=lambda m: print(m, flush=True))
    except (TorchMissing, ValueError, OSError) as e:
        print(e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
