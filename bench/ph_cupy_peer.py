#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""CuPy peer of the parallel-Hammerstein predistorter kernel benchmark (BM_dpd_cuda_kernel in
bench_k_dpd.cc), for the GPU host: the predistorter written the way a CuPy user would, basis
functions with elementwise operations and each branch's FIR as a loop of shifted multiply-adds,
on 2^26 device-resident complex64 samples at (P, Q, L) = (5, 3, 5) and (7, 7, 8). The same algorithm
in numpy is bench/dpd_numpy_bench.py's CPU peer; the model equation is docs/dpd_predistorter.md's.

floor_ms = samples * 16 B (read x, write y) / 4169 GB/s, the device-to-device copy rate measured on
the H200 (bench/fir_cupy_peer.py prints it). Run it in the same call as bench_kernels so the ratio
comes from one run. Prints one JSON line per row: medians of GPU times (cupyx.profiler.benchmark)."""
import json

import cupy as cp
import numpy as np
from cupyx.profiler import benchmark

from ph_xp_peer import predistort

ROWS = [(5, 3, 5), (7, 7, 8)]
N = 1 << 26
D2D_GBPS = 4169.0


def dpd_cupy(x, coeffs, P, Q, L, c):
    return predistort(cp, x, coeffs, P, Q, L, c)


def main():
    rng = np.random.default_rng(1)
    x = cp.asarray(((rng.standard_normal(N) + 1j * rng.standard_normal(N)) * 0.3).astype(np.complex64))
    for P, Q, L in ROWS:
        R = (P + 1) // 2 + (Q + 1) // 2
        co = (rng.standard_normal(R * L) * 0.01 + 0j).astype(np.complex64)
        r = benchmark(dpd_cupy, (x, co, P, Q, L, np.complex64(0.01)), n_repeat=5, n_warmup=1)
        ms = float(np.median(r.gpu_times)) * 1e3
        print(json.dumps({"P": P, "Q": Q, "L": L, "samples": N, "cupy_ms": round(ms, 3),
                          "Gsample_per_s": round(N / (ms * 1e-3) / 1e9, 2),
                          "floor_ms": round(N * 16 / (D2D_GBPS * 1e9) * 1e3, 3)}))


if __name__ == "__main__":
    main()
