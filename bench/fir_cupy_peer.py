#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""CuPy peer of the polyphase interpolation kernel benchmark (BM_interp_cuda_kernel_ccf), for the
GPU host: the same (L, taps) rows on 2^24 device-resident complex64 inputs with float32 taps,
through cupyx.scipy.signal.upfirdn (what a CuPy user calls), and the device-to-device copy
bandwidth that sets the memory floor (N * 8 * (1 + L) bytes per row). Prints one JSON line per
row: medians of GPU times (cupyx.profiler.benchmark)."""
import json

import cupy as cp
import numpy as np
from cupyx.profiler import benchmark
from cupyx.scipy import signal

ROWS = [(2, 12), (4, 64), (8, 128), (16, 256)]
N = 1 << 24


def gpu_ms(f, n_repeat=20):
    return float(np.median(benchmark(f, n_repeat=n_repeat, n_warmup=3).gpu_times)) * 1e3


def main():
    rng = np.random.default_rng(1)
    x = cp.asarray((rng.standard_normal(N) + 1j * rng.standard_normal(N)).astype(np.complex64))
    big = cp.empty(N * 8, cp.complex64)
    dst = cp.empty_like(big)
    copy_ms = gpu_ms(lambda: cp.copyto(dst, big))
    gbps = 2 * big.nbytes / (copy_ms * 1e-3) / 1e9  # read + write
    print(json.dumps({"d2d_copy_gbps": round(gbps, 1)}))
    for L, taps in ROWS:
        h = cp.asarray(np.hamming(taps).astype(np.float32))
        ms = gpu_ms(lambda: signal.upfirdn(h, x, up=L))
        floor_ms = N * 8 * (1 + L) / (gbps * 1e9) * 1e3
        print(json.dumps({"L": L, "taps": taps, "cupy_upfirdn_ms": round(ms, 3),
                          "floor_ms": round(floor_ms, 3)}))


if __name__ == "__main__":
    main()
