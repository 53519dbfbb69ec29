# SPDX-License-Identifier: GPL-3.0-or-later
"""The torch modules of :mod:`.neural_train`: the neural families (``gru``, ``tdnn``) as the contract of
docs/neural_models.md writes them and the polynomial ones (``mp``, ``gmp``, ``ph``) as a trainable basis,
their flat weights to and from the model-file JSON, and a whole-stream run. PyTorch is imported when a
model is first built; without it :func:`require_torch` says so in one line."""

import json
import math

import numpy as np

if __package__:
    from .neural_spec import NEURAL, num_weights, parse_spec, term_list
else:  # run as a script from its folder (the GPU host)
    from neural_spec import NEURAL, num_weights, parse_spec, term_list

__all__ = ["TorchMissing", "require_torch", "build", "export_weights", "import_weights", "save_file", "load_file",
           "run_stream"]


class TorchMissing(RuntimeError):
    """PyTorch is not installed: training needs it, nothing else here does."""


def require_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        raise TorchMissing("neural_train: PyTorch is not installed; training the neural and gradient-trained "
                           "models needs it (python3-torch, or pip install torch)") from None
    return torch


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


def _iq(z, dev):
    torch = _classes()["torch"]
    z = np.asarray(z, dtype=np.complex128)
    return torch.from_numpy(np.stack([z.real, z.imag], -1).astype(np.float32)).to(dev)


def _cx(t):
    a = t.detach().cpu().double().numpy().reshape(-1, 2)
    return a[:, 0] + 1j * a[:, 1]


def run_stream(model, x, dev="cpu"):
    """The model over the whole of x as one stream (zero before and after), complex128 out."""
    torch = _classes()["torch"]
    with torch.no_grad():
        return _cx(model(_iq(x, dev).unsqueeze(0))[0])
