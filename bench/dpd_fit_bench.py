#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fit speed of a ~500-coefficient GMP on 2^18 samples: the CPU estimator against a GPU path (CuPy:
basis on the device, Gram matrix by cuBLAS ZGEMM, eigen-decomposition by cuSOLVER), same basis,
same host, with numpy's lstsq as the CPU peer.

The GPU path is float64 throughout and checks the conditioning: the Gram matrix of the
column-normalised basis is decomposed (G = V diag(e) V^H, e = s^2), so the condition number is
reported and every lambda of the held-out grid costs one small matrix product, exactly the ridge
solutions of the CPU estimator (equal up to rounding for lambda >= 1e-12 s_max^2; below that the
squared condition number of the normal equations is what the CPU path's QR + SVD avoids).

Runs where GNU Radio is not installed (the GPU host): the pure-Python model and estimator modules
are loaded from this checkout. One line per figure.

    python3 bench/dpd_fit_bench.py [--n 262144] [--model SPEC] [--repeat 3] [--no-gpu]
"""
import argparse
import importlib.util
import os
import sys
import time
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _modules():
    try:
        from gnuradio.gpuinterp import dpd, dpd_model
        return dpd, dpd_model
    except ImportError:
        pkg = types.ModuleType("gpuinterp_src")
        pkg.__path__ = [os.path.join(HERE, "..", "python", "gpuinterp")]
        sys.modules["gpuinterp_src"] = pkg
        mods = []
        for name in ("dpd_model", "dpd"):
            spec = importlib.util.spec_from_file_location(f"gpuinterp_src.{name}",
                                                          os.path.join(pkg.__path__[0], f"{name}.py"))
            mod = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = mod
            spec.loader.exec_module(mod)
            mods.append(mod)
        return mods[1], mods[0]


dpd, dm = _modules()
DEFAULT_MODEL = "gmp:Ka=8,La=16,Kb=4,Lb=12,Mb=4,Kc=4,Lc=12,Mc=3"   # 128 + 192 + 144 = 464 coefficients
GRID = np.logspace(-14, -1, 27)


def signal(n, rng):
    s = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    S = np.fft.fft(s)
    S[np.abs(np.fft.fftfreq(n)) > 0.1] = 0   # band-limited to a fifth of the band, as a 5x oversampled capture
    s = np.fft.ifft(S)
    return 0.3 * s / np.sqrt(np.mean(np.abs(s) ** 2))


def gpu_fit(cp, x, y, terms, back, ahead, holdout):
    """Basis on the device, Gram + eigh, lambda on the held-out tail; returns (w, lambda, cond)."""
    n = x.size
    xe = cp.concatenate([cp.zeros(back, cp.complex128), cp.asarray(x), cp.zeros(ahead, cp.complex128)])
    r = cp.abs(xe)
    kmax = max(t[2] for t in terms)
    pw = [cp.ones_like(r)]
    for _ in range(kmax):
        pw.append(pw[-1] * r)
    phi = cp.empty((n, len(terms) + 1), cp.complex128)
    for c, (l, j, k, conj) in enumerate(terms):
        v = xe[back - l:back - l + n] * pw[k][back - j:back - j + n]
        phi[:, c] = cp.conj(v) if conj else v
    phi[:, -1] = 1.0
    rows = slice(back, n - ahead)
    cut = back + int((n - back - ahead) * 0.8)
    yd = cp.asarray(y)
    norms = cp.linalg.norm(phi[rows], axis=0)
    A = phi / norms
    At, tt = A[back:cut], yd[back:cut]
    Av, tv = A[cut:n - ahead], yd[cut:n - ahead]
    G = At.conj().T @ At
    e, V = cp.linalg.eigh(G)
    e = cp.maximum(e, 0)
    b = V.conj().T @ (At.conj().T @ tt)
    Bv = Av @ V
    e0 = float(e[-1])
    best, lam_best = None, None
    for lam in GRID:
        z = b / (e + lam * e0)
        err = float(cp.linalg.norm(tv - Bv @ z) ** 2 / cp.linalg.norm(tv) ** 2)
        if best is None or err < best:
            best, lam_best = err, float(lam)
    # refit on all rows at the chosen lambda
    Aa, ta = A[rows], yd[rows]
    G = Aa.conj().T @ Aa
    e, V = cp.linalg.eigh(G)
    e = cp.maximum(e, 0)
    e0 = float(e[-1])
    w = V @ ((V.conj().T @ (Aa.conj().T @ ta)) / (e + lam_best * e0)) / norms
    # The Gram matrix squares the condition number: eigenvalues below ~1e-15 e_max are rounding.
    cond = (f"{np.sqrt(e0 / float(e[0])):.2e}" if float(e[0]) > 1e-15 * e0
            else "> 3e7 (smallest Gram eigenvalues at rounding level)")
    return cp.asnumpy(w), lam_best, cond


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=1 << 18)
    p.add_argument("--model", default=DEFAULT_MODEL)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--no-gpu", action="store_true")
    a = p.parse_args()
    m = dm.parse(a.model)
    rng = np.random.default_rng(2)
    x = signal(a.n, rng)
    w = 0.01 * (rng.standard_normal(m.num_coefficients) + 1j * rng.standard_normal(m.num_coefficients))
    w[0] = 1.0
    y = dm.apply(x, m, w) + 1e-4 * (rng.standard_normal(a.n) + 1j * rng.standard_normal(a.n))
    print(f"model {m}: {m.num_coefficients} coefficients, {a.n} samples, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.2f}", flush=True)

    def best(f):
        t, r = [], None
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            r = f()
            t.append(time.perf_counter() - t0)
        return min(t), r

    # An oversampled signal leaves many coefficient directions unidentified, so coefficients are
    # not compared: each fit is scored by its NMSE on a second signal through the same model.
    x2 = signal(a.n // 4, np.random.default_rng(3))
    y2 = dm.apply(x2, m, w)

    def err(v, c=0j):
        e = dm.apply(x2, m, v[:m.num_coefficients], c) - y2
        return f"{10 * np.log10(np.vdot(e, e).real / np.vdot(y2, y2).real):.1f} dB"

    te, r = best(lambda: dpd.estimate(y, x, model=m, target_gain=1.0, delay=0.0))
    print(f"cpu  gpuinterp estimate (basis, QR + SVD, lambda on a held-out 20 %, refit): {te:.3f} s, "
          f"lambda {r.regularization:.0e}, condition {r.condition:.2e}, held-out NMSE {err(r.coefficients, r.lo_leakage)}", flush=True)
    phi = np.hstack([dm.basis(x, m), np.ones((a.n, 1))])
    rows = slice(m.history, a.n - m.lookahead)
    tl, ref = best(lambda: np.linalg.lstsq(phi[rows], y[rows], rcond=None))
    print(f"cpu  numpy.linalg.lstsq (gelsd) on the same basis, one solve: {tl:.3f} s, held-out NMSE "
          f"{err(ref[0][:-1], ref[0][-1])}", flush=True)
    if a.no_gpu:
        return
    try:
        import cupy as cp
    except ImportError:
        print("gpu  skipped: CuPy not installed")
        return
    terms = dm.term_list(m)
    back = max(max(l, j) for l, j, _, _ in terms)
    ahead = max([-j for _, j, _, _ in terms] + [0])
    gpu_fit(cp, x, y, terms, back, ahead, 0.2)   # warm-up: CUDA context, cuBLAS/cuSOLVER handles

    def run():
        out = gpu_fit(cp, x, y, terms, back, ahead, 0.2)
        cp.cuda.Device().synchronize()
        return out

    tg, (wg, lam, cond) = best(run)
    print(f"gpu  {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}: basis + Gram (ZGEMM) + eigh, "
          f"lambda on the same held-out 20 %, refit: {tg:.3f} s incl. host->device copy, lambda {lam:.0e}, "
          f"condition {cond}, held-out NMSE {err(wg[:-1], wg[-1])}", flush=True)


if __name__ == "__main__":
    main()
