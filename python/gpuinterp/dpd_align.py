# SPDX-License-Identifier: GPL-3.0-or-later
"""Time alignment of a PA output capture to the PA input: integer and fractional delay, band-limited
shift. (Frequency, phase and receiver impairments are removed before this: :mod:`.dpd_capture`.)"""

import math

import numpy as np

from .dpd_ph import DPDError, _as_complex_vector


def _check_pair(x, y):
    x = _as_complex_vector("x", x)
    y = _as_complex_vector("y", y)
    if x.size != y.size:
        raise DPDError(f"x, y: lengths differ ({x.size} vs {y.size}); pass the PA input and output "
                       "captures of equal length (trim them to the same span)")
    if x.size == 0:
        raise DPDError("x: empty capture")
    if not np.all(np.isfinite(x)):
        raise DPDError("x: contains NaN or infinity")
    if not np.all(np.isfinite(y)):
        raise DPDError("y: contains NaN or infinity")
    if not np.any(x):
        raise DPDError("x: all zeros (no PA input captured)")
    if not np.any(y):
        raise DPDError("y: all zeros (no PA output captured: check the loopback path and RX gain)")
    return x, y


def estimate_delay(x, y, max_delay=None, fractional=True):
    """Delay D of y relative to x (y[n] ~ G x[n-D]) in samples, possibly fractional.

    Integer part: peak of |cross-correlation| (FFT, zero-padded, lags within +-max_delay). Fractional
    part: the cross-correlation is band-limited like the signals, so band-limited (windowed-sinc)
    interpolation of it between the lags is exact up to the window; a golden-section search for the peak
    of that interpolant within +-1 sample of the integer peak gives the fraction (accurate to ~1e-4
    sample for band-limited captures)."""
    x, y = _check_pair(x, y)
    n = x.size
    if max_delay is None:
        max_delay = min(n // 4, 8192)
    max_delay = int(max_delay)
    if max_delay < 0 or max_delay >= n:
        raise DPDError(f"max_delay: must be in [0, {n - 1}] for a capture of {n} samples, got {max_delay}")
    m = 1 << int(math.ceil(math.log2(2 * n)))
    X = np.fft.fft(x, m)
    Y = np.fft.fft(y, m)
    R = Y * np.conj(X)
    r = np.fft.ifft(R)  # r[t] = sum_n y[n+t] conj(x[n]), negative lags wrap to the end
    lags = np.concatenate([np.arange(0, max_delay + 1), np.arange(-max_delay, 0)])
    vals = np.abs(np.concatenate([r[:max_delay + 1], r[m - max_delay:]]))
    d_int = int(lags[int(np.argmax(vals))])
    if not fractional:
        return float(d_int)
    # r(t) of band-limited signals is band-limited: a 129-term Kaiser-windowed sinc over the lags around
    # the peak interpolates it (agrees with the exact DTFT interpolant to ~1e-6 sample, and its cost
    # does not grow with the capture).
    j = np.arange(-64, 65)
    seg = r[(d_int + j) % m]

    def mag(t):
        tt = j - (t - d_int)
        w = np.i0(8.0 * np.sqrt(np.clip(1 - (tt / 65.0) ** 2, 0, None)))
        return abs(np.sum(seg * np.sinc(tt) * w))

    a, b = d_int - 1.0, d_int + 1.0
    g = (math.sqrt(5) - 1) / 2
    c1, c2 = b - g * (b - a), a + g * (b - a)
    f1, f2 = mag(c1), mag(c2)
    for _ in range(30):  # bracket 2 * 0.618^30 ~ 1e-6 sample
        if f1 > f2:
            b, c2, f2 = c2, c1, f1
            c1 = b - g * (b - a)
            f1 = mag(c1)
        else:
            a, c1, f1 = c1, c2, f2
            c2 = a + g * (b - a)
            f2 = mag(c2)
    return 0.5 * (a + b)


def _sinc_taps(frac, half_len):
    # Kaiser-windowed sinc centred on frac, 49 taps, beta 8: interpolation NMSE below -80 dB for
    # signals filling up to 90 % of the Nyquist band (measured; qa_dpd checks -75 dB at 60 %).
    k = np.arange(-half_len, half_len + 1, dtype=np.float64)
    t = k - frac
    # The window is evaluated on the shifted grid, so it stays symmetric about the interpolation point.
    w = np.i0(8.0 * np.sqrt(np.clip(1 - (t / (half_len + 1)) ** 2, 0, None))) / np.i0(8.0)
    h = np.sinc(t) * w
    return h / h.sum()


def fractional_shift(y, delay, half_len=24):
    """Return (ys, first) with ys[i] = y(first + i + delay) (band-limited interpolation), for every i
    whose interpolation window lies inside y. ``delay`` may be any real number."""
    y = _as_complex_vector("y", y)
    d_int = int(math.floor(delay))
    frac = delay - d_int
    if frac < 1e-9:
        first = max(0, -d_int)
        last = min(y.size, y.size - d_int)
        return y[first + d_int:last + d_int].copy(), first
    h = _sinc_taps(frac, half_len)
    # ys[n] = sum_k h[k] y[n + d_int + k], k = -half_len..half_len
    full = np.convolve(y, h[::-1], mode="valid")  # full[j] = sum_k h[k] y[j + half_len + k]
    first = max(0, half_len - d_int)
    last = min(y.size, y.size - half_len - d_int)
    if last <= first:
        return np.zeros(0, dtype=np.complex128), first
    return full[first + d_int - half_len:last + d_int - half_len], first


def align(x, y, delay=None, max_delay=None, fractional=True):
    """Align y to x. Returns (xa, ya, delay) with ya[i] ~ G xa[i]: the common span only, y shifted by
    the estimated (or the given) delay."""
    x, y = _check_pair(x, y)
    if delay is None:
        delay = estimate_delay(x, y, max_delay=max_delay, fractional=fractional)
    ys, first = fractional_shift(y, float(delay))
    xa = x[first:first + ys.size]
    return xa, ys, float(delay)
