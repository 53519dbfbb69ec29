#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Time one dpd_gram add and solve of gmp:Ka=8,La=<arg> (8 x La columns) on the CPU, on white
noise: python3 bench/dpd_gram_large_solve.py 512 (4096 columns). docs/performance.md has the figures."""
import sys, time, numpy as np

from gnuradio.gpuinterp.gpuinterp_python import dpd_gram
La = int(sys.argv[1]); reg = sys.argv[2] if len(sys.argv) > 2 else None
spec = f"gmp:Ka=8,La={La}"
rng = np.random.default_rng(0)
n = 8 * La * 3 + La
y = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * 0.2
x = y + 0.01 * (rng.standard_normal(n) + 1j * rng.standard_normal(n))
g = dpd_gram(spec, False, backend="cpu")
t = time.time(); g.add(y, x); ta = time.time() - t
t = time.time()
try:
    s = g.solve(None if reg is None else float(reg)); msg = s["selected_by"]
except Exception as e:
    msg = "ERR " + str(e)
print(spec, g.num_columns(), "add %.1f s" % ta, "solve %.1f s" % (time.time() - t), msg)
