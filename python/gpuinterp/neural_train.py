# SPDX-License-Identifier: GPL-3.0-or-later
"""Training of the neural families (``gru``, ``tdnn``, docs/neural_models.md) and gradient training of the
polynomial ones (``mp``, ``gmp``), with PyTorch: PA surrogates fitted to a capture, and predistorters
trained by direct learning through a frozen surrogate. The module's own kernels run what this writes.

Usable two ways: ``python3 python/gpuinterp/neural_train.py pa|dpd ...`` on a machine with PyTorch and no
GNU Radio (the GPU host), and ``gnuradio.gpuinterp.neural_train`` inside the package. It therefore imports
nothing of the package (whose spec parser is the compiled module) and reads and writes the model-file JSON
itself; numpy is the only import at load time, PyTorch is imported when a model is built, and its absence
is one line from :func:`require_torch`.
"""

import argparse
import hashlib
import json
import math
import os
import sys
import time

import numpy as np

__all__ = ["parse_spec", "neural_ops", "ops", "num_weights", "build", "export_weights", "import_weights",
           "load_split", "train_pa", "train_dpd", "save_file", "load_file", "nmse_db", "segment_nmse_db",
           "aclr_db", "require_torch", "TorchMissing"]

NEURAL = ("gru", "tdnn")
POLY = ("ph", "mp", "gmp")
# Keys in canonical order, with their bounds (docs/neural_models.md; the polynomial ones as the C++
# kernel's: orders <= 15). A key missing from a spec is an error except the gmp's b and c groups (0).
_KEYS = {
    "gru": (("H", 1, 256), ("C", 0, 64), ("D", 1, 1024)),
    "tdnn": (("M", 1, 1024), ("H", 1, 256), ("N", 1, 8)),
    "mp": (("K", 1, 15), ("M", 1, 1024)),
    "gmp": (("Ka", 1, 15), ("La", 1, 1024), ("Kb", 0, 15), ("Lb", 0, 1024), ("Mb", 0, 1024),
            ("Kc", 0, 15), ("Lc", 0, 1024), ("Mc", 0, 1024)),
    "ph": (("P", 1, 15), ("Q", 0, 15), ("Lp", 1, 1024), ("Lq", 0, 1024)),
}
_OPTIONAL = {"Kb", "Lb", "Mb", "Kc", "Lc", "Mc"}


class TorchMissing(RuntimeError):
    """PyTorch is not installed: training needs it, nothing else here does."""


def require_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        raise TorchMissing("neural_train: PyTorch is not installed; training the neural and gradient-trained "
                           "models needs it (python3-torch, or pip install torch)") from None
    return torch


# ----------------------------------------------------------------------------------------------
# Specs and the operations ledger
# ----------------------------------------------------------------------------------------------

def parse_spec(spec):
    """``family:key=value,...`` -> (family, {key: value}, canonical text). The neural families are
    parsed here (the compiled parser may not be present where training runs); mp/gmp/ph as the C++
    kernel spells them, for the gradient-trained polynomial models and the ledger."""
    if isinstance(spec, tuple):
        return spec
    fam, _, body = str(spec).partition(":")
    fam = fam.strip()
    if fam not in _KEYS:
        raise ValueError(f"model: unknown family {fam!r} (families: {', '.join(_KEYS)})")
    keys = _KEYS[fam]
    vals = {}
    for item in body.split(","):
        if not item.strip():
            continue
        k, eq, v = item.partition("=")
        k, v = k.strip(), v.strip()
        if not eq:
            raise ValueError(f"{k or 'key'}: expected key=value, got {item.strip()!r} in {spec!r}")
        if k not in [n for n, _, _ in keys]:
            raise ValueError(f"{k}: unknown key for {fam} (keys: {', '.join(n for n, _, _ in keys)})")
        if k in vals:
            raise ValueError(f"{k}: given twice in {spec!r}")
        if not (v.isascii() and v.isdigit() and len(v) <= 9):
            raise ValueError(f"{k}: expected a non-negative integer, got {v!r}")
        vals[k] = int(v)
    if fam == "gru" and "C" not in vals:
        vals["C"] = 0
    if fam == "gru" and "D" not in vals:
        vals["D"] = 1
    for k, lo, hi in keys:
        if k not in vals:
            if k in _OPTIONAL:
                vals[k] = 0
                continue
            raise ValueError(f"{k}: missing (a {fam} spec needs it)")
        if not lo <= vals[k] <= hi:
            raise ValueError(f"{k}: must be {lo} <= {k} <= {hi}, got {vals[k]}")
    if fam == "gru" and vals["C"] == 0:
        vals["D"] = 1  # the dilation of no skip path is meaningless; one spelling for one model
    parts = [f"{k}={vals[k]}" for k, _, _ in keys if not (k in _OPTIONAL and vals[k] == 0)]
    return fam, vals, f"{fam}:" + ",".join(parts)


def term_list(spec):
    """Polynomial terms (signal lag l, envelope lag j, power k, conjugate) in coefficient order, as
    the C++ kernel's dpd_model::terms(): the term is x[n-l] |x[n-j]|^k."""
    fam, v, _ = parse_spec(spec)
    t = []
    if fam == "ph":
        t += [(k, k, p - 1, False) for p in range(1, v["P"] + 1, 2) for k in range(v["Lp"])]
        if v["Q"]:
            t += [(k, k, q - 1, True) for q in range(1, v["Q"] + 1, 2) for k in range(v["Lq"])]
        return t
    if fam == "mp":
        v = dict(Ka=v["K"], La=v["M"], Kb=0, Lb=0, Mb=0, Kc=0, Lc=0, Mc=0)
    elif fam != "gmp":
        raise ValueError(f"model: {fam} is not a polynomial family")
    t += [(l, l, k, False) for k in range(v["Ka"]) for l in range(v["La"])]
    t += [(l, l + m, k, False) for k in range(1, v["Kb"] + 1) for l in range(v["Lb"])
          for m in range(1, v["Mb"] + 1)]
    t += [(l, l - m, k, False) for k in range(1, v["Kc"] + 1) for l in range(v["Lc"])
          for m in range(1, v["Mc"] + 1)]
    return t


def num_weights(spec):
    """Real weights of a neural spec (docs/neural_models.md), complex coefficients of a polynomial one."""
    fam, v, _ = parse_spec(spec)
    if fam == "gru":
        H, C = v["H"], v["C"]
        return 3 * H * 6 + 3 * H * H + 6 * H + 2 * H + 2 + 8 * C
    if fam == "tdnn":
        M, H, N = v["M"], v["H"], v["N"]
        return 4 * M * H + H + (N - 1) * (H * H + H) + 2 * H + 2
    return len(term_list(spec))


def lookahead(spec):
    fam, v, _ = parse_spec(spec)
    if fam == "gru":
        return max(1, v["D"] if v["C"] else 0)
    if fam == "tdnn":
        return 0
    return max([-j for _, j, _, _ in term_list(spec)] + [0])


def history(spec):
    """Past samples the output depends on directly (the recurrent state aside)."""
    fam, v, _ = parse_spec(spec)
    if fam == "gru":
        return v["D"] if v["C"] else 0
    if fam == "tdnn":
        return v["M"] - 1
    return max([max(l, j) for l, j, _, _ in term_list(spec)] + [0])


# The ledger: real multiplies and adds per output sample of a direct implementation, a multiply-add
# counting 2, a dot product of length n with its bias 2n (the bias starts the accumulator). A square
# root, sigmoid or tanh counts 1; hardswish t * clamp(t + 3, 0, 6) / 6 counts 5 (add, two compares, two
# multiplies). Features of each new input sample are computed once and kept in a delay line, as a
# streaming kernel does.
_AMP = 4          # |x| = sqrt(I^2 + Q^2): multiply, multiply-add, sqrt
_HARDSWISH = 5


def neural_ops(spec):
    """Real operations per output sample of a neural model, with the counting rule above."""
    fam, v, _ = parse_spec(spec)
    if fam == "gru":
        H, C = v["H"], v["C"]
        feats = _AMP + 1                     # a, a^3 = a * a^2 (a^2 is the sqrt's argument)
        gates_in = 3 * H * 2 * 6             # W_i u + b_i
        gates_h = 3 * H * 2 * H              # W_h h + b_h
        # r, z: add the two halves and the sigmoid (2 each); n: r * (.) multiply-add with the input
        # half and tanh (3); h = g + z * (h - g): subtract, multiply-add (3).
        cell = H * (2 + 2 + 3 + 3)
        out = 2 * 2 * H
        skip = (C * 2 * 6 + C * _HARDSWISH + 2 * 2 * C + 2) if C else 0  # K, hardswish, P, the sum
        return feats + gates_in + gates_h + cell + out + skip
    if fam == "tdnn":
        M, H, N = v["M"], v["H"], v["N"]
        feats = _AMP + 1
        first = H * 2 * 4 * M + H            # W_1 u + b_1, tanh
        hidden = (N - 1) * (H * 2 * H + H)
        out = 2 * 2 * H + 2                  # W_out g + b_out, the identity skip
        return feats + first + hidden + out
    raise ValueError(f"model: {fam} is not a neural family (ops() counts the polynomial ones)")


def ops(spec):
    """Real operations per output sample of any family. Polynomial (ph/mp/gmp), a direct basis
    implementation: |x| once per sample (4, when an odd power is used; |x|^2 alone costs 3), each
    further power of it one multiply (kept in a delay line); per term the real basis value times the
    complex sample (2 multiplies, none for power 0; a conjugate is free) and the complex coefficient's
    multiply-accumulate (4 multiplies + 4 adds: 8); the LO-leakage constant 2 adds."""
    fam, _, _ = parse_spec(spec)
    if fam in NEURAL:
        return neural_ops(spec)
    t = term_list(spec)
    kmax = max(k for _, _, k, _ in t)
    if kmax == 0:
        env = 0
    elif all(k % 2 == 0 for _, _, k, _ in t):
        env = 3 + (kmax // 2 - 1)            # |x|^2, then |x|^4 ... by one multiply each
    else:
        env = _AMP + (kmax - 1)
    return env + sum(8 + (2 if k else 0) for _, _, k, _ in t) + 2


# ----------------------------------------------------------------------------------------------
# Torch modules (built on first use, so the module imports without torch)
# ----------------------------------------------------------------------------------------------

_T = {}


def _classes():
    if _T:
        return _T
    torch = require_torch()
    nn = torch.nn
    F = torch.nn.functional

    def amp_of(x):
        # The clamp keeps sqrt's gradient finite at x = 0 (zero padding, a DPD output of 0) and leaves
        # every |x| above 1e-15 exactly as the kernels compute it.
        return torch.sqrt(torch.clamp(x[..., 0] ** 2 + x[..., 1] ** 2, min=1e-30))

    class GRUNet(nn.Module):
        """gru:H,C,D on (B, T, 2) float32 I/Q; the whole frame is one stream (zero before and after)."""

        CHUNK = 16384

        def __init__(self, H, C, D):
            super().__init__()
            self.H, self.C, self.D = H, C, D
            self.rnn = nn.GRU(6, H, batch_first=True)
            self.out = nn.Linear(H, 2)
            if C:
                self.skip = nn.Conv1d(2, C, 3, dilation=D, padding=D, bias=False)
                self.skip_out = nn.Linear(C, 2, bias=False)
            self.reset()

        def reset(self):
            # OpenDPD's: orthogonal recurrent blocks, Xavier input blocks, zero biases.
            H = self.H
            with torch.no_grad():
                for g in range(3):
                    nn.init.xavier_uniform_(self.rnn.weight_ih_l0[g * H:(g + 1) * H])
                    nn.init.orthogonal_(self.rnn.weight_hh_l0[g * H:(g + 1) * H])
                self.rnn.bias_ih_l0.zero_()
                self.rnn.bias_hh_l0.zero_()
                nn.init.xavier_uniform_(self.out.weight)
                self.out.bias.zero_()
                if self.C:
                    nn.init.xavier_uniform_(self.skip.weight)
                    nn.init.xavier_uniform_(self.skip_out.weight)

        def identity(self):
            """Start as a wire (a predistorter's natural start): with C >= 4 the skip path is exactly
            the identity for |I|, |Q| <= 3, as hardswish(t) - hardswish(-t) = t there; the recurrent
            path's output starts small."""
            if self.C < 4:
                return False
            with torch.no_grad():
                self.skip.weight.zero_()
                self.skip_out.weight.zero_()
                for ch, (comp, sign) in enumerate(((0, 1.0), (0, -1.0), (1, 1.0), (1, -1.0))):
                    self.skip.weight[ch, comp, 1] = sign
                    self.skip_out.weight[comp, ch] = sign
                self.out.weight.mul_(0.01)
            return True

        def params_in_order(self):
            p = [self.rnn.weight_ih_l0, self.rnn.weight_hh_l0, self.rnn.bias_ih_l0, self.rnn.bias_hh_l0,
                 self.out.weight, self.out.bias]
            return p + ([self.skip.weight, self.skip_out.weight] if self.C else [])

        def forward(self, x):
            a = amp_of(x)
            nxt = F.pad(x[:, 1:, :], (0, 0, 0, 1))  # x[n+1]; zero past the end
            u = torch.cat([x, a.unsqueeze(-1), (a ** 3).unsqueeze(-1), nxt], dim=-1)
            # cuDNN refuses very long sequences (the 66k-sample arena test split): the recurrence runs
            # in chunks with its state carried, which is the same computation.
            hs, h0 = [], None
            for s0 in range(0, u.shape[1], self.CHUNK):
                o, h0 = self.rnn(u[:, s0:s0 + self.CHUNK], h0)
                hs.append(o)
            h = hs[0] if len(hs) == 1 else torch.cat(hs, dim=1)
            y = self.out(h)
            if self.C:
                v = F.hardswish(self.skip(x.transpose(1, 2))).transpose(1, 2)
                y = y + self.skip_out(v)
            return y

    class TDNN(nn.Module):
        def __init__(self, M, H, N):
            super().__init__()
            self.M, self.H, self.N = M, H, N
            self.layers = nn.ModuleList([nn.Linear(4 * M, H)] + [nn.Linear(H, H) for _ in range(N - 1)])
            self.out = nn.Linear(H, 2)
            with torch.no_grad():
                # Start at the identity skip alone: a predistorter starts as a wire, a PA model as a
                # linear gain of 1, both good places to start.
                self.out.weight.mul_(0.01)
                self.out.bias.zero_()

        def params_in_order(self):
            p = []
            for l in self.layers:
                p += [l.weight, l.bias]
            return p + [self.out.weight, self.out.bias]

        def forward(self, x):
            a = amp_of(x).unsqueeze(-1)
            f = torch.cat([x, a, a ** 3], dim=-1)          # (B, T, 4)
            fp = F.pad(f, (0, 0, self.M - 1, 0))
            T = x.shape[1]
            # u[n] = f[n], f[n-1], ..., f[n-M+1] (4 features per tap, newest first)
            u = torch.cat([fp[:, self.M - 1 - m:self.M - 1 - m + T, :] for m in range(self.M)], dim=-1)
            g = u
            for l in self.layers:
                g = torch.tanh(l(g))
            return self.out(g) + x

    class Poly(nn.Module):
        """mp/gmp/ph: y = sum_c w_c x[n-l]|x[n-j]|^k (conjugated where the term says) + c, with
        complex w and c held as real pairs; initialised at the identity (w = 1 on x[n], else 0)."""

        def __init__(self, spec):
            super().__init__()
            t = term_list(spec)
            self.back = max([max(l, j) for l, j, _, _ in t] + [0])
            self.ahead = max([-j for _, j, _, _ in t] + [0])
            self.register_buffer("sig", torch.tensor([self.back - l for l, _, _, _ in t]))
            self.register_buffer("env", torch.tensor([self.back - j for _, j, _, _ in t]))
            self.register_buffer("pw", torch.tensor([k for _, _, k, _ in t]))
            self.register_buffer("conj", torch.tensor([-1.0 if c else 1.0 for _, _, _, c in t]))
            self.kmax = max(k for _, _, k, _ in t)
            w = torch.zeros(len(t), 2)
            ident = [i for i, (l, j, k, c) in enumerate(t) if l == 0 and j == 0 and k == 0 and not c]
            if ident:
                w[ident[0], 0] = 1.0
            self.w = nn.Parameter(w)
            self.lo = nn.Parameter(torch.zeros(2))

        def forward(self, x):
            B, T, _ = x.shape
            xe = F.pad(x, (0, 0, self.back, self.ahead))
            a = amp_of(xe)
            powers = torch.stack([torch.ones_like(a)] + [a ** k for k in range(1, self.kmax + 1)], dim=-1)
            n = self.back + T + self.ahead
            # Lagged copies: L[:, t, s] = xe[:, t + s] for shift s in [0, back + ahead]
            span = self.back + self.ahead + 1
            idx = torch.arange(T, device=x.device).unsqueeze(1) + torch.arange(span, device=x.device)
            assert idx.max().item() < n
            xs = xe[:, idx, :]                       # (B, T, span, 2)
            ps = powers[:, idx, :]                   # (B, T, span, kmax+1)
            s = xs[:, :, self.sig, :]                # (B, T, terms, 2)
            e = ps[:, :, self.env, self.pw]          # (B, T, terms)
            br, bi = s[..., 0] * e, s[..., 1] * e * self.conj
            yr = br @ self.w[:, 0] - bi @ self.w[:, 1] + self.lo[0]
            yi = br @ self.w[:, 1] + bi @ self.w[:, 0] + self.lo[1]
            return torch.stack([yr, yi], dim=-1)

    _T.update(torch=torch, GRUNet=GRUNet, TDNN=TDNN, Poly=Poly)
    return _T


def build(spec):
    """A torch module for the spec (float32, CPU); weights initialised for training."""
    c = _classes()
    fam, v, text = parse_spec(spec)
    if fam == "gru":
        m = c["GRUNet"](v["H"], v["C"], v["D"])
    elif fam == "tdnn":
        m = c["TDNN"](v["M"], v["H"], v["N"])
    else:
        m = c["Poly"](text)
    m.spec = text
    m.family = fam
    return m


def export_weights(model):
    """Neural: the flat float32 list of docs/neural_models.md. Polynomial: (complex coefficients, LO
    leakage) as numpy complex128 in the layout of dpd_model.term_list."""
    torch = _classes()["torch"]
    with torch.no_grad():
        if model.family in NEURAL:
            return np.concatenate([p.detach().cpu().float().reshape(-1).numpy() for p in model.params_in_order()])
        w = model.w.detach().cpu().double().numpy()
        lo = model.lo.detach().cpu().double().numpy()
        return w[:, 0] + 1j * w[:, 1], complex(lo[0], lo[1])


def import_weights(model, weights, lo_leakage=0j):
    torch = _classes()["torch"]
    with torch.no_grad():
        if model.family in NEURAL:
            w = np.asarray(weights, dtype=np.float32).ravel()
            need = num_weights(model.spec)
            if w.size != need:
                raise ValueError(f"weights: expected {need} values for {model.spec}, got {w.size}")
            o = 0
            for p in model.params_in_order():
                p.copy_(torch.from_numpy(w[o:o + p.numel()].copy()).reshape(p.shape).to(p.device))
                o += p.numel()
            return model
        c = np.asarray(weights, dtype=np.complex128).ravel()
        if c.size != model.w.shape[0]:
            raise ValueError(f"coefficients: expected {model.w.shape[0]} values for {model.spec}, got {c.size}")
        model.w.copy_(torch.from_numpy(np.stack([c.real, c.imag], 1)).to(model.w))
        model.lo.copy_(torch.tensor([complex(lo_leakage).real, complex(lo_leakage).imag]).to(model.lo))
    return model


# ----------------------------------------------------------------------------------------------
# Data, metrics, files
# ----------------------------------------------------------------------------------------------

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


def nmse_db(ref, meas):
    d = np.asarray(ref) - np.asarray(meas)
    return float(10 * np.log10(np.vdot(d, d).real / np.vdot(ref, ref).real))


def segment_nmse_db(ref, meas, nperseg):
    """OpenDPD's figure: the dB NMSE of each nperseg-long segment, averaged (a shorter tail left out)."""
    ref, meas = np.asarray(ref), np.asarray(meas)
    L = min(int(nperseg), ref.size)
    n = max(1, ref.size // L)
    return float(np.mean([nmse_db(ref[i * L:(i + 1) * L], meas[i * L:(i + 1) * L]) for i in range(n)]))


def _welch(x, nperseg):
    # scipy.signal.welch(x, window='hann', nperseg, return_onesided=False, scaling='spectrum') with its
    # defaults (periodic Hann, 50 % overlap, per-segment mean removed), fftshifted; numpy only, as
    # scipy may be absent where training runs.
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(nperseg) / nperseg)
    step = nperseg - nperseg // 2
    segs = [x[s:s + nperseg] for s in range(0, x.size - nperseg + 1, step)]
    p = np.mean([np.abs(np.fft.fft(w * (s - s.mean()))) ** 2 for s in segs], axis=0) / w.sum() ** 2
    f = np.fft.fftfreq(nperseg)
    return np.fft.fftshift(f), np.fft.fftshift(p)


def aclr_db(x, fs, bw, n_sub_ch, nperseg):
    """(left, right, mean) ACLR in dBc, OpenDPD's definition (see the datasets' README)."""
    x = np.asarray(x, dtype=np.complex128)
    nperseg = min(int(nperseg), x.size)
    f, p = _welch(x, nperseg)
    f = f * fs
    main = np.flatnonzero((f >= -bw / 2) & (f <= bw / 2))
    w = main.size // n_sub_ch
    ref = max(p[main[i * w:(i + 1) * w]].sum() for i in range(n_sub_ch))
    lo = 10 * math.log10(p[main[0] - w:main[0]].sum() / ref)
    hi = 10 * math.log10(p[main[-1] + 1:main[-1] + 1 + w].sum() / ref)
    return lo, hi, (lo + hi) / 2


def _num(v):
    return None if isinstance(v, float) and not math.isfinite(v) else v


def save_file(path, spec, kind, weights=None, coefficients=None, lo_leakage=0j, nmse=None, training=None,
              input_range=None):
    """The module's model-file JSON (dpd_model.save_model's layout, one coefficient or weight a line).
    Neural: "weights" (flat reals), no "coefficients"/"lo_leakage". Polynomial: save_model's fields."""
    fam, _, text = parse_spec(spec)
    doc = {"kind": kind, "model": text}
    if fam in NEURAL:
        w = np.asarray(weights, dtype=np.float32).ravel()
        if w.size != num_weights(text) or not np.all(np.isfinite(w)):
            raise ValueError(f"weights: {w.size} values (need {num_weights(text)} finite ones) for {text}")
        doc["weights"] = [float(v) for v in w]
    else:
        c = np.asarray(coefficients, dtype=np.complex128).ravel()
        doc["coefficients"] = [[float(v.real), float(v.imag)] for v in c]
        doc["lo_leakage"] = [float(complex(lo_leakage).real), float(complex(lo_leakage).imag)]
        doc["input_range"] = _num(float(input_range)) if input_range is not None else None
        doc["regularization"] = None
        doc["condition"] = None
        doc["rank"] = 0
    doc["nmse_db"] = {k: _num(float(v)) for k, v in (nmse or {}).items()}
    if training is not None:
        doc["training"] = training
    lines = []
    for k, v in doc.items():
        if k in ("coefficients", "weights"):
            lines.append(f' "{k}": [\n  ' + ",\n  ".join(json.dumps(e) for e in v) + "\n ]")
        else:
            lines.append(f" {json.dumps(k)}: {json.dumps(v)}")
    with open(path, "w") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")


def load_file(path):
    """A model file (neural or polynomial) -> (torch module, document)."""
    with open(path) as f:
        doc = json.load(f)
    m = build(doc["model"])
    if m.family in NEURAL:
        if "weights" not in doc:
            raise ValueError(f"{path}: weights: missing (a {m.family} model file needs them)")
        w = np.asarray(doc["weights"], dtype=np.float64)
        if not np.all(np.isfinite(w)):
            raise ValueError(f"{path}: weights: must be finite")
        import_weights(m, w)
    else:
        c = np.asarray(doc["coefficients"], dtype=np.float64)
        lo = doc.get("lo_leakage", [0.0, 0.0])
        import_weights(m, c[:, 0] + 1j * c[:, 1], complex(lo[0], lo[1]))
    return m, doc


# ----------------------------------------------------------------------------------------------
# Training
# ----------------------------------------------------------------------------------------------

def _iq(z, dev):
    torch = _classes()["torch"]
    z = np.asarray(z, dtype=np.complex128)
    return torch.from_numpy(np.stack([z.real, z.imag], -1).astype(np.float32)).to(dev)


def _cx(t):
    a = t.detach().cpu().double().numpy().reshape(-1, 2)
    return a[:, 0] + 1j * a[:, 1]


def run_stream(model, x, dev="cpu", chunk=None):
    """The model over the whole of x as one stream (zero before and after), complex128 out."""
    torch = _classes()["torch"]
    with torch.no_grad():
        return _cx(model(_iq(x, dev).unsqueeze(0))[0])


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
    torch, dev = _setup(args)
    data, spec, hashes = load_split(args.data, args.split)
    model = build(args.model).to(dev)
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
    torch, dev = _setup(args)
    data, spec, hashes = load_split(args.data, args.split)
    pa, pa_doc = load_file(args.pa)
    pa = pa.to(dev)
    for p in pa.parameters():
        p.requires_grad_(False)
    # cuDNN's recurrent backward needs training mode; a GRU without dropout computes the same in both.
    pa.train()
    x_tr, y_tr = data["train"]
    if args.gain is not None:
        g = complex(args.gain)
        gsrc = "given"
    else:
        g = complex(np.vdot(x_tr, y_tr) / np.vdot(x_tr, x_tr))
        gsrc = "least-squares linear gain of the PA (train split)"
    dpd = build(args.model)
    if dpd.family == "gru" and not dpd.identity():
        log(f"dpd {dpd.spec}: C < 4 skip channels cannot start as the identity; starting from random weights")
    dpd = dpd.to(dev)
    la = lookahead(dpd.spec) + lookahead(pa.spec)
    warm = max(args.warmup, history(dpd.spec) + history(pa.spec))
    xt = _iq(x_tr, dev)
    gt = torch.tensor([g.real, g.imag], dtype=torch.float32, device=dev)

    def target(x):
        return torch.stack([gt[0] * x[..., 0] - gt[1] * x[..., 1], gt[0] * x[..., 1] + gt[1] * x[..., 0]], -1)

    log(f"dpd {dpd.spec} through {pa.spec} ({os.path.basename(args.pa)}): gain {g.real:.6f}{g.imag:+.6f}j ({gsrc}), "
        f"limit {args.limit or 'none'}, loss on [{warm}, {args.frame - la})")

    def frame_loss(starts):
        x = _frames(xt, starts, args.frame)
        y = pa(_limit(dpd(x), args.limit))
        d = (y - target(x))[:, warm:args.frame - la]
        return (d ** 2).mean()

    def through(xs):
        with torch.no_grad():
            u = _limit(dpd(_iq(xs, dev).unsqueeze(0)), args.limit)
            return _cx(u[0]), _cx(pa(u)[0])

    def val_score():
        return nmse_db(g * data["val"][0], through(data["val"][0])[1])

    state = lambda: {k: v.detach().clone() for k, v in dpd.state_dict().items()}  # noqa: E731
    info = _fit(list(dpd.parameters()), frame_loss, xt.shape[0], val_score, args, log, state, dpd.load_state_dict)
    fs, bw = float(spec.get("input_signal_fs", 1.0)), float(spec.get("bw_main_ch", spec.get("input_signal_bw", 0.25)))
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
    training = _training_record(args, hashes, info, figs, seg, extra)
    _save(args.out, dpd, "predistorter", figs, training, input_range=float(np.max(np.abs(x_tr))))
    return dpd, figs, res


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
