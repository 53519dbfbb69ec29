# SPDX-License-Identifier: GPL-3.0-or-later
"""The parallel-Hammerstein predistorter written the way a numpy or CuPy user would (the model
equation of docs/dpd_predistorter.md): the CPU peer (bench/dpd_numpy_bench.py) and the GPU peer
(bench/ph_cupy_peer.py) run this one function on their array module."""


def predistort(xp, x, coeffs, P, Q, L, c):
    """Main branches x|x|^(p-1), p = 1, 3, .., P, then conjugate branches conj(x)|x|^(q-1),
    q = 1, 3, .., Q, each through its own L-tap FIR (coeffs[b*L + k]), plus the constant c.
    xp: numpy or cupy."""
    a2 = x.real ** 2 + x.imag ** 2
    basis = []
    pw = xp.ones_like(a2)
    for _ in range(1, P + 1, 2):
        basis.append(x * pw)
        pw = pw * a2
    pw = xp.ones_like(a2)
    for _ in range(1, Q + 1, 2):
        basis.append(xp.conj(x) * pw)
        pw = pw * a2
    y = xp.full_like(x, c)
    for b, u in enumerate(basis):
        up = xp.concatenate([xp.zeros(L - 1, dtype=u.dtype), u])
        for k in range(L):
            y += coeffs[b * L + k] * up[L - 1 - k: L - 1 - k + u.size]
    return y
