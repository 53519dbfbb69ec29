#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""CuPy peer of the GMP kernel benchmark (BM_gmp_cuda_kernel), for the GPU host: the same models on
2^24 device-resident complex64 samples, written the way a CuPy user would, in two forms:

- `straightforward`: envelope powers once, then per signal lag its g(n) summed from shifted power
  arrays times coefficients and y += x(n-l) g(n); a few CuPy elementwise kernels per coefficient.
- `fused`: the same sum as one cupy.ElementwiseKernel per model, generated from the model (every
  output reads its lags straight from global memory).

Both read |x| computed before the timed region (the module's kernel computes it inside its own).
Prints one JSON line per row with the median time (cupyx.profiler.benchmark, GPU times)."""
import json
import sys

import cupy as cp
import numpy as np
from cupyx.profiler import benchmark

ROWS = {
    "gmp:Ka=5,La=6": (5, 6, 0, 0, 0, 0, 0, 0),
    "gmp:Ka=5,La=10,Kb=3,Lb=5,Mb=2,Kc=3,Lc=5,Mc=1": (5, 10, 3, 5, 2, 3, 5, 1),
    "gmp:Ka=10,La=20,Kb=5,Lb=10,Mb=3,Kc=5,Lc=10,Mc=3": (10, 20, 5, 10, 3, 5, 10, 3),
    "mp:K=5,M=100": (5, 100, 0, 0, 0, 0, 0, 0),
}


def terms(Ka, La, Kb, Lb, Mb, Kc, Lc, Mc):
    """(signal lag, envelope lag, power) of every coefficient; lags are relative to the output,
    leading envelope terms look ahead (negative lag), as the module's look-ahead delay does."""
    t = [(l, l, k) for k in range(Ka) for l in range(La)]
    t += [(l, l + m, k) for k in range(1, Kb + 1) for l in range(Lb) for m in range(1, Mb + 1)]
    t += [(l, l - m, k) for k in range(1, Kc + 1) for l in range(Lc) for m in range(1, Mc + 1)]
    return t


def straightforward(x, env_pows, tl, co, H, D):
    n = x.size - H - D
    y = cp.zeros(n, cp.complex64)
    by_lag = {}
    for (l, e, k), c in zip(tl, co):
        by_lag.setdefault(l, []).append((e, k, c))
    for l, lst in by_lag.items():
        g = cp.zeros(n, cp.complex64)
        for e, k, c in lst:
            g += c * env_pows[k][H - e: H - e + n]
        y += x[H - l: H - l + n] * g
    return y


def fused_kernel(tl, co, H):
    body = ["float2 acc = make_float2(0.f, 0.f);"]
    by_lag = {}
    for (l, e, k), c in zip(tl, co):
        by_lag.setdefault(l, []).append((e, k, c))
    for l, lst in by_lag.items():
        body.append("{ float gr = 0.f, gi = 0.f;")
        for e, k, c in lst:
            body.append(f"  {{ float a = env[i + {H - e}]; float p = 1.f; for (int j = 0; j < {k}; j++) p *= a;"
                        f" gr += {float(c.real)!r}f * p; gi += {float(c.imag)!r}f * p; }}")
        body.append(f"  float2 v = xs[i + {H - l}]; acc.x += v.x * gr - v.y * gi; acc.y += v.x * gi + v.y * gr; }}")
    body.append("y = complex<float>(acc.x, acc.y);")
    return cp.ElementwiseKernel("raw float32 env, raw float32 xr", "complex64 y",
                                "const float2* xs = reinterpret_cast<const float2*>(&xr[0]);\n" + "\n".join(body),
                                "gmp_fused_peer")


def main():
    n = 1 << 24
    rng = np.random.default_rng(1)
    for name, dims in ROWS.items():
        tl = terms(*dims)
        co = (rng.standard_normal(len(tl)) + 1j * rng.standard_normal(len(tl))).astype(np.complex64) * 0.01
        H = max(max(l, e) for l, e, _ in tl)
        D = max(0, -min(e for _, e, _ in tl))
        xh = (rng.uniform(-0.5, 0.5, n + H + D) + 1j * rng.uniform(-0.5, 0.5, n + H + D)).astype(np.complex64)
        x = cp.asarray(xh)
        kmax = max(k for _, _, k in tl)
        env = cp.abs(x).astype(cp.float32)
        env_pows = [cp.ones_like(env)]
        for _ in range(kmax):
            env_pows.append(env_pows[-1] * env)
        r = benchmark(straightforward, (x, env_pows, tl, co, H, D), n_repeat=5, n_warmup=1)
        t_sf = float(np.median(r.gpu_times)) * 1e3
        k = fused_kernel(tl, co, H)
        y = cp.empty(n, cp.complex64)
        xr = x.view(cp.float32)
        r2 = benchmark(lambda: k(env, xr, y), (), n_repeat=10, n_warmup=2)
        t_fu = float(np.median(r2.gpu_times)) * 1e3
        # the two peers agree (the fused one is the check on the straightforward one's indexing)
        ys = straightforward(x, env_pows, tl, co, H, D)
        err = float(cp.max(cp.abs(ys - y)) / cp.max(cp.abs(ys)))
        print(json.dumps({"model": name, "coefficients": len(tl), "samples": n,
                          "cupy_straightforward_ms": round(t_sf, 3), "cupy_fused_ms": round(t_fu, 3),
                          "peers_rel_diff": err}))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
