#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fit speed of the DPD/PA-model estimator: a ~500-coefficient GMP on 2^18 samples, on the CPU.

Times, on the same basis and the same host: building the basis, gpuinterp's regularised solve at a
fixed lambda (float64 SVD of the column-normalised basis), the full estimate with lambda chosen on a
held-out 20 % (two SVDs), and numpy's lstsq (LAPACK gelsd) on the same basis. Prints one line per
figure; the input is APA_200MHz's training split repeated to 2^18 samples (or a band-limited random
signal when the dataset is not found), through a known GMP so the fit has a truth to find.

    /usr/bin/python3 bench/dpd_fit_bench.py [--n 262144] [--model SPEC] [--repeat 1]
"""
import argparse
import os
import time

import numpy as np

from gnuradio.gpuinterp import dpd
from gnuradio.gpuinterp import dpd_model as dm

DEFAULT_MODEL = "gmp:Ka=8,La=16,Kb=4,Lb=12,Mb=4,Kc=4,Lc=12,Mc=3"   # 128 + 192 + 144 = 464 coefficients


def signal(n):
    path = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "datasets", "APA_200MHz", "train_input.csv")
    if os.path.exists(path):
        a = np.loadtxt(path, delimiter=",", skiprows=1)
        x = a[:, 0] + 1j * a[:, 1]
        return np.resize(x, n), "APA_200MHz train input, repeated"
    rng = np.random.default_rng(1)
    s = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    S = np.fft.fft(s)
    S[np.abs(np.fft.fftfreq(n)) > 0.1] = 0
    s = np.fft.ifft(S)
    return 0.3 * s / np.sqrt(np.mean(np.abs(s) ** 2)), "band-limited noise"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=1 << 18)
    p.add_argument("--model", default=DEFAULT_MODEL)
    p.add_argument("--repeat", type=int, default=1)
    a = p.parse_args()
    m = dm.parse(a.model)
    x, what = signal(a.n)
    rng = np.random.default_rng(2)
    w = 0.01 * (rng.standard_normal(m.num_coefficients) + 1j * rng.standard_normal(m.num_coefficients))
    w[0] = 1.0
    y = dm.apply(x, m, w) + 1e-4 * (rng.standard_normal(a.n) + 1j * rng.standard_normal(a.n))
    print(f"model {m}: {m.num_coefficients} coefficients, {a.n} samples ({what}), {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.2f}")

    def best(f):
        t = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            r = f()
            t.append(time.perf_counter() - t0)
        return min(t), r

    tb, phi = best(lambda: np.hstack([dm.basis(x, m), np.ones((a.n, 1))]))
    print(f"basis ({phi.shape[0]} x {phi.shape[1]} complex128): {tb:.2f} s")
    rows = slice(m.history, a.n - m.lookahead)
    ts, sol = best(lambda: dpd.solve_regularized(phi[rows], y[rows], 1e-9))
    err = np.linalg.norm(sol.w[:-1] - w) / np.linalg.norm(w)
    print(f"gpuinterp solve_regularized, fixed lambda (float64 SVD): {ts:.2f} s  (coefficient error {err:.1e}, "
          f"condition {sol.condition:.2e})")
    tl, ref = best(lambda: np.linalg.lstsq(phi[rows], y[rows], rcond=None))
    print(f"numpy.linalg.lstsq (gelsd) on the same basis: {tl:.2f} s  "
          f"(coefficient error {np.linalg.norm(ref[0][:-1] - w) / np.linalg.norm(w):.1e})")
    te, r = best(lambda: dpd.estimate(y, x, model=m, target_gain=1.0, delay=0.0))
    print(f"gpuinterp estimate, lambda chosen on a held-out 20 % (basis + two SVDs): {te:.2f} s  "
          f"(lambda {r.regularization:.1e}, fit {r.fit_nmse_db:.1f} dB)")


if __name__ == "__main__":
    main()
