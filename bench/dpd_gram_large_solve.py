#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time one dpd_gram add and solve of gmp:Ka=8,La=<La> (8 x La columns) on the CPU, on white noise:

    python3 bench/dpd_gram_large_solve.py 512      # 4096 columns
    python3 bench/dpd_gram_large_solve.py 512 1e-6 # a fixed lambda instead of the default choice

docs/performance.md has the figures; GPUINTERP_MAX_SOLVE_SECONDS raises the up-front refusal's limit."""

import sys
import time

import numpy as np

from gnuradio.gpuinterp.gpuinterp_python import dpd_gram


def main():
    La = int(sys.argv[1])
    reg = float(sys.argv[2]) if len(sys.argv) > 2 else None
    spec = f"gmp:Ka=8,La={La}"
    rng = np.random.default_rng(0)
    n = 8 * La * 3 + La  # three rows per column
    y = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 0.2
    x = y + 0.01 * (rng.standard_normal(n) + 1j * rng.standard_normal(n))
    g = dpd_gram(spec, False, backend="cpu")
    t = time.time()
    g.add(y, x)
    ta = time.time() - t
    t = time.time()
    try:
        msg = g.solve(reg)["selected_by"]
    except RuntimeError as e:
        msg = f"refused: {e}"
    print(f"{spec}: {g.num_columns()} columns, add {ta:.1f} s, solve {time.time() - t:.1f} s, {msg}")


if __name__ == "__main__":
    main()
