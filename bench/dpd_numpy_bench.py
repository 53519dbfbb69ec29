#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""CPU peers of the predistorter at (P, Q, L) rows: the straightforward numpy implementation (the
same algorithm as the CuPy peer bench/ph_cupy_peer.py, complex64) and gpuinterp's CPU
kernel through its Python API, on the same data. Best of `reps` runs, Msample/s.

    PYTHONPATH=build/test_modules /usr/bin/python3 bench/dpd_numpy_bench.py [log2n] [reps]
"""
import os
import sys
import time

import numpy as np
import gnuradio

for _p in reversed([p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]):
    _d = os.path.join(os.path.abspath(_p), "gnuradio")
    if os.path.isdir(os.path.join(_d, "gpuinterp")):  # the build tree, not an installed copy
        gnuradio.__path__[:] = [_d] + [q for q in gnuradio.__path__ if q != _d]
from gnuradio import gpuinterp  # noqa: E402
from ph_xp_peer import predistort  # noqa: E402


def dpd_numpy(x, coeffs, P, Q, L, c):
    return predistort(np, x, coeffs, P, Q, L, c)


def best(f, reps):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        t.append(time.perf_counter() - t0)
    return min(t)


n = 1 << (int(sys.argv[1]) if len(sys.argv) > 1 else 20)
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
rng = np.random.default_rng(1)
x = ((rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 0.3).astype(np.complex64)
for P, Q, L in [(5, 3, 5), (7, 7, 8), (9, 5, 16)]:
    R = (P + 1) // 2 + (Q + 1) // 2
    co = (rng.standard_normal(R * L) * 0.01 + 0j).astype(np.complex64)
    k = gpuinterp.dpd_predistorter(P, Q, L, L, co, 0.01, backend="cpu")
    yk = k.process(x)
    yn = dpd_numpy(x, co, P, Q, L, np.complex64(0.01))
    err = np.max(np.abs(yk - yn)) / np.max(np.abs(yn))
    tn = best(lambda: dpd_numpy(x, co, P, Q, L, np.complex64(0.01)), reps)
    tk = best(lambda: (k.reset(), k.process(x)), reps)
    print(f"P={P} Q={Q} L={L:2d} n=2^{n.bit_length() - 1}: numpy {n / tn / 1e6:7.1f} Msample/s | "
          f"gpuinterp cpu {n / tk / 1e6:7.1f} Msample/s ({tn / tk:5.1f}x) | max rel diff {err:.1e}")
