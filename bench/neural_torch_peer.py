#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""PyTorch peer of BM_neural_cpu (bench_k_neural.cc) on the CPU: the same models, built by the package's
own PyTorch definitions (gnuradio.gpuinterp.neural_torch, the ones the neural files are trained with),
run over one stream of 2^18 complex samples in inference mode, on one thread and on all of them.

Each row also prints the arithmetic floor of one core: the model's multiply-adds per sample (the
gru's recursion runs on one core in both engines) at two 8-lane FMA instructions a cycle, the AVX2
peak, at the clock given by --ghz. Transcendental functions (3 H a gru step, H a tdnn layer) are not
counted, so the floor is optimistic. Run it on the machine that ran bench_kernels, right after it.
Prints one JSON line per row: the median of --repeat timings."""
import argparse
import json
import os
import time

import numpy as np
import torch

from gnuradio.gpuinterp import neural_torch

ROWS = ["tdnn:M=5,H=10,N=1", "gru:H=10,C=4,D=1", "gru:H=24,C=4,D=1", "gru:H=32,C=4,D=16"]


def macs(spec):
    fam, v, _ = neural_torch.parse_spec(spec)
    if fam == "gru":
        H, C = v["H"], v["C"]
        return 3 * H * (6 + H) + 2 * H + 8 * C
    M, H, N = v["M"], v["H"], v["N"]
    return H * 4 * M + (N - 1) * H * H + 2 * H


def median_seconds(f, repeat):
    f()
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        t.append(time.perf_counter() - t0)
    return float(np.median(t))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--log2n", type=int, default=18)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--ghz", type=float, default=2.6, help="the core clock for the floor (GHz)")
    a = ap.parse_args()
    n = 1 << a.log2n
    x = torch.from_numpy(np.random.default_rng(3).normal(0, 0.25, (1, n, 2)).astype(np.float32))
    threads = torch.get_num_threads()  # restored after each row
    for spec in ROWS:
        m = neural_torch.build(spec).eval()
        row = {"model": spec, "samples": n, "macs_per_sample": macs(spec),
               "floor_msps_one_core": round(2 * 8 * a.ghz * 1e3 / macs(spec), 1)}
        for t in sorted({1, os.cpu_count()}):
            torch.set_num_threads(t)
            with torch.inference_mode():
                s = median_seconds(lambda: m(x), a.repeat)
            row[f"torch_msps_{t}_threads"] = round(n / s / 1e6, 3)
        torch.set_num_threads(threads)
        print(json.dumps(row))


if __name__ == "__main__":
    main()
