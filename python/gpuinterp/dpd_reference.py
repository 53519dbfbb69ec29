# SPDX-License-Identifier: GPL-3.0-or-later
"""The numpy estimator: the independent double-precision reference the tests compare the product's
estimator with, as CuPy keeps ``upfirdn_naive`` and MatX its reference resampler beside their tests.

The product aligns and conditions a capture on the C++ capture kernel (``dpd_capture_kernel``) and
fits it on the estimation engine (``dpd_gram``); no module of the product imports this one. The tests
import it, and ``backend=None`` of :func:`~.dpd_estimate.estimate` reaches it ("the numpy
reference"). The algorithms are written here anew, in numpy, from their
descriptions; the thresholds are the kernel's, read from its binding, so the reference and the
product refuse the same captures for the same reasons.

* alignment: :func:`estimate_delay` (integer and fractional delay), :func:`fractional_shift`
  (band-limited shift), :func:`align`;
* conditioning: :func:`condition` (clipping, the envelope delay, frequency and phase, the receiver's
  DC and image), the estimator's :func:`_prepare` (outliers, shift, gain);
* the fit: :func:`fit` (the N x K basis, lambda on held-out data, SVD: :func:`solve_regularized`).
"""

import math

import numpy as np

from . import dpd_folds as _folds
from . import dpd_model as _spec
from .dpd_capture import CLIP_HEADROOM_DB, MAX_CLIP_FRACTION, MIN_CAPTURE_LENGTH, MIN_GAIN, \
    MIN_CORRELATION, MIN_ENVELOPE_CORRELATION, PHASE_BLOCK, CaptureReport, clip_mask, peak_dbfs
from .dpd_estimate import _probe_rows, _require_rows, _window, ls_gain
from .dpd_ph import DPDError, _as_complex_vector, _check_pair
from .dpd_solve import REGULARIZATION_GRID, Solution
from .gpuinterp_python import dpd_capture_kernel as _kernel
from .metrics import nmse_db


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


def fractional_shift(y, delay, half_len=_kernel.shift_half_length):
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


def clip_gain_step_db(x, y, full_scale, peak_dbfs, clipped):
    """How far to lower the RX gain after a clipped capture (dB). The clipped peak says nothing of
    how far beyond full scale the signal went; the transmit signal does: the envelope quantile of y
    half-way through its unclipped samples lies below the clipping, so x's peak times the gain at
    that quantile (|y| over |x| at the same quantile: the PA's gain is monotone) is where y's peak
    would be without the ADC (a bound from above: a compressing PA holds its peaks lower).
    Then CLIP_HEADROOM_DB more, and never less than the clipped peak itself shows."""
    ax, ay = np.abs(x), np.abs(y)
    over = peak_dbfs
    q = 0.5 * (1 - clipped / ay.size)
    xm, ym = float(np.quantile(ax, q)), float(np.quantile(ay, q))
    if ax.max() > 0 and xm > 0 and ym > 0:
        over = max(over, 20 * np.log10(ax.max() * (ym / xm) / full_scale))
    return max(0.0, over) + CLIP_HEADROOM_DB


def envelope_delay(x, y, max_delay):
    """Integer lag t (y[n] ~ x[n - t]) maximising the correlation coefficient of the envelopes
    |x|^2 and |y|^2 over their overlap, for |t| <= max_delay; returns (t, coefficient). Neither a
    phase nor a frequency offset changes an envelope, so this works on any raw capture."""
    n = x.size
    ex = np.abs(x) ** 2
    ey = np.abs(y) ** 2
    ex = ex - ex.mean()
    ey = ey - ey.mean()
    m = 1 << int(math.ceil(math.log2(2 * n)))
    r = np.fft.irfft(np.fft.rfft(ey, m) * np.conj(np.fft.rfft(ex, m)), m)  # r[t] = sum ey[k+t] ex[k]
    cx = np.concatenate([[0.0], np.cumsum(ex * ex)])
    cy = np.concatenate([[0.0], np.cumsum(ey * ey)])
    lags = np.arange(-max_delay, max_delay + 1)
    # overlap of lag t >= 0: x[0 : n-t], y[t : n]; t < 0: x[-t : n], y[0 : n+t]
    ex_e = np.where(lags >= 0, cx[n - np.clip(lags, 0, None)], cx[n] - cx[np.clip(-lags, 0, None)])
    ey_e = np.where(lags >= 0, cy[n] - cy[np.clip(lags, 0, None)], cy[n + np.clip(lags, None, 0)])
    den = np.sqrt(np.maximum(ex_e * ey_e, 1e-300))
    rho = r[lags % m] / den
    # a lag whose overlap is under a quarter of the capture cannot be trusted (or fitted)
    rho[np.abs(lags) > 3 * n // 4] = 0
    i = int(np.argmax(rho))
    return int(lags[i]), float(rho[i])


def _phase_track(y, x, d_int, track_frequency):
    """Rotation r[m] (y's time index) with y[m] ~ g r[m] x[m - d]: offset, drift and phase from the
    phase of y x* along the capture. Returns (r, freq at centre, drift, phase at centre)."""
    n = y.size
    lo, hi = max(0, d_int), min(n, n + d_int)
    idx = np.arange(lo, hi)
    z = y[lo:hi] * np.conj(x[lo - d_int:hi - d_int])
    centre = 0.5 * (lo + hi - 1)
    if not track_frequency:
        ph = float(np.angle(np.sum(z)))
        return np.full(n, np.exp(1j * ph)), 0.0, 0.0, ph
    # Coarse: the strongest line of z (|x|^2 has a large mean, so g |x|^2 e^{j w m} is a line at w).
    nfft = 1 << int(math.ceil(math.log2(4 * z.size)))
    f0 = float(np.argmax(np.abs(np.fft.fft(z, nfft)))) / nfft
    if f0 >= 0.5:
        f0 -= 1.0
    t = idx - centre
    z = z * np.exp(-2j * np.pi * f0 * t)
    # Fine: a weighted quadratic fit to the unwrapped phases of block sums. The coarse line leaves
    # under half a bin, a small fraction of a turn per block, so unwrapping cannot slip.
    nb = z.size // PHASE_BLOCK
    if nb >= 4:
        zb = z[:nb * PHASE_BLOCK].reshape(nb, PHASE_BLOCK).sum(axis=1)
        tb = t[:nb * PHASE_BLOCK].reshape(nb, PHASE_BLOCK).mean(axis=1)
        phb = np.unwrap(np.angle(zb))
        wgt = np.abs(zb)
        A = np.stack([np.ones(nb), tb, tb * tb], axis=1) * wgt[:, None]
        c = np.linalg.lstsq(A, phb * wgt, rcond=None)[0]
        ph0, w1, w2 = float(c[0]), float(c[1]), float(c[2])
    else:
        ph0, w1, w2 = float(np.angle(np.sum(z))), 0.0, 0.0
    ta = np.arange(n) - centre
    r = np.exp(1j * (2 * np.pi * f0 * ta + ph0 + w1 * ta + w2 * ta * ta))
    freq = f0 + w1 / (2 * np.pi)
    drift = w2 / np.pi  # d(freq)/dm of the phase w2 t^2 / (2 pi)
    return r, freq, drift, ph0


def condition(x, y, full_scale=None, rx_correction=True, track_frequency=True, max_delay=None,
              delay=None):
    """Take a loopback capture y (PA output through a receiver) back to G x-delayed form.

    Returns (yc, bad, report): yc is y with the receiver's DC and image removed and the loop's
    frequency offset and phase taken out (same length and time grid as y); ``bad`` marks clipped
    samples of y, which no fit may use; ``report`` a :class:`CaptureReport` (report.delay is the
    delay to align with). ``delay``: a hint (a calibrated or the previous capture's delay): only its
    neighbourhood is searched while it still correlates, else the search widens to the whole capture
    (``report.widened``). Raises :class:`DPDError` naming the real cause for a
    clipped receiver or a capture that is not this x's PA output."""
    n = x.size
    if n < MIN_CAPTURE_LENGTH:
        raise DPDError(f"x: capture too short: {n} samples; aligning x and y needs at least {MIN_CAPTURE_LENGTH}")
    rep = CaptureReport()
    bad = np.zeros(n, dtype=bool)
    if full_scale is not None:
        rep.rx_peak_dbfs = peak_dbfs(y, full_scale)
        bad = clip_mask(y, full_scale)
        rep.clipped = int(bad.sum())
        if rep.clipped > MAX_CLIP_FRACTION * n:
            lower = clip_gain_step_db(x, y, full_scale, rep.rx_peak_dbfs, rep.clipped)
            raise DPDError(f"y: receiver clipping: {rep.clipped} of {n} samples "
                           f"({100.0 * rep.clipped / n:.2g} %) at the ADC full scale {full_scale:g} "
                           f"(peak {rep.rx_peak_dbfs:+.1f} dBFS); lower the RX gain by {lower:.1f} dB (or "
                           f"add that attenuation): x's peak at the loop's gain would reach "
                           f"{lower - CLIP_HEADROOM_DB:+.1f} dBFS, and the peak must stay below "
                           f"{-CLIP_HEADROOM_DB:g} dBFS")
    # Glitches (beyond the estimator's outlier level) would dominate every correlation below.
    bx, by = _outlier_mask("x", x), _outlier_mask("y", y) | bad
    x = np.where(bx, 0, x) if bx.any() else x
    ys = np.where(by, 0, y) if by.any() else y
    if max_delay is None:
        max_delay = min(n // 4, 8192)
    max_delay = int(min(max_delay, n - 1))
    if delay is not None:
        # A delay hint (the previous capture's): only its neighbourhood is searched while it still
        # correlates; the fraction is always measured again (a clock offset moves it).
        d_int = int(round(delay))
        t, rho = envelope_delay(x, ys, min(abs(d_int) + 2, n - 1))
        if abs(t - d_int) > 1 or rho < MIN_ENVELOPE_CORRELATION:
            t, rho = envelope_delay(x, ys, min(max(max_delay, 3 * n // 4), n - 1))
            rep.widened = True
        d_int = t
    else:
        d_int, rho = envelope_delay(x, ys, max_delay)
        if rho < MIN_ENVELOPE_CORRELATION and max_delay < 3 * n // 4:
            d_int, rho = envelope_delay(x, ys, 3 * n // 4)
            rep.widened = True
    rep.envelope_correlation = rho
    if rho < MIN_ENVELOPE_CORRELATION:
        raise DPDError(f"y: no lag of y within the capture matches the envelope of x (best correlation "
                       f"{rho:.2f} at lag {d_int}): the capture is not this PA input's output (no "
                       "loopback signal, the wrong RX channel, or a delay beyond 3/4 of the capture)")
    r, rep.freq_offset, rep.freq_drift, rep.phase = _phase_track(ys, x, d_int, track_frequency)
    yr = ys * np.conj(r)
    # Fractional part on the de-rotated capture (the complex correlation is coherent now).
    lo, hi = max(0, d_int), min(n, n + d_int)
    xs_int = np.zeros(n, dtype=np.complex128)
    xs_int[lo:hi] = x[lo - d_int:hi - d_int]
    rep.delay = d_int + estimate_delay(xs_int, yr, max_delay=1)
    xs, first = fractional_shift(x, -rep.delay)  # x on y's time grid: xs[i] = x(first + i - delay)
    if rx_correction:
        seg = slice(first, first + xs.size)
        s0 = r[seg] * xs
        ok = ~by[seg]
        A = np.stack([s0[ok], np.conj(s0[ok]), np.ones(int(ok.sum()))], axis=1)
        a, b, dc = np.linalg.lstsq(A, ys[seg][ok], rcond=None)[0]
        kappa = b / np.conj(a) if abs(a) > 0 else 0j
        v = ys - dc
        yc = (v - kappa * np.conj(v)) * np.conj(r)
        if by.any():
            yc[by] = 0
        rep.rx_dc = complex(dc)
        rep.rx_image_db = 20 * math.log10(abs(kappa)) if abs(kappa) > 0 else -math.inf
    else:
        yc = yr
    seg = yc[first:first + xs.size]
    den = math.sqrt(float(np.vdot(xs, xs).real) * float(np.vdot(seg, seg).real))
    rep.correlation = abs(complex(np.vdot(xs, seg))) / den if den > 0 else 0.0
    if rep.correlation < MIN_CORRELATION:
        raise DPDError(f"y: after alignment (delay {rep.delay:.2f}) and frequency correction "
                       f"({rep.freq_offset:+.3g} cycles/sample) y correlates with x only "
                       f"{rep.correlation:.2f}: the PA output is buried in noise or interference, or "
                       "the frequency offset changes faster than a linear drift")
    return yc, bad, rep


# A sample whose magnitude exceeds this many times the capture's robust RMS is a glitch (an ADC
# overload, a dropped packet patched with garbage), not signal: 24 x RMS is a 27.6 dB peak-to-average
# ratio, far above any communication signal's. Such samples are zeroed before alignment and the rows
# that touch them are left out of the fit, so one glitch cannot bias the delay, the gain or the
# coefficients. More than 1 % of them means the capture itself is bad.
OUTLIER_FACTOR = _kernel.outlier_factor


MAX_OUTLIER_FRACTION = _kernel.max_outlier_fraction


def _outlier_mask(name, v):
    mag = np.abs(v)
    # The RMS from the 90th percentile of |v| (sqrt(ln 10) x RMS for a complex Gaussian): robust to
    # the outliers themselves, and to a capture the signal fills only in part (the start of a
    # stream, before the loop's latency has passed, holds the receiver's noise alone).
    rms = np.quantile(mag, 0.9) / math.sqrt(math.log(10.0)) if mag.size else 0.0
    bad = mag > OUTLIER_FACTOR * rms if rms > 0 else np.zeros(v.size, dtype=bool)
    if bad.sum() > MAX_OUTLIER_FRACTION * v.size:
        raise DPDError(f"{name}: {int(bad.sum())} of {v.size} samples exceed {OUTLIER_FACTOR:g} x the "
                       "capture's robust RMS: the capture is clipped, corrupted or not a PA signal")
    return bad


def _prepare(x, y, model, target_gain, delay, max_delay, fractional, ybad=None):
    """Align y to x and normalise it by the gain. Returns (xa, yn, delay, G, bad) with ``bad`` the
    aligned rows that an outlier sample touches (excluded from every fit); ``ybad`` marks further
    samples of y no fit may use (clipped ones)."""
    bx, by = _outlier_mask("x", x), _outlier_mask("y", y)
    if ybad is not None:
        by = by | ybad
    if bx.any() or by.any():
        x, y = np.where(bx, 0, x), np.where(by, 0, y)
    xa, ya, d = align(x, y, delay=delay, max_delay=max_delay, fractional=fractional)
    if xa.size == 0 or not np.any(xa) or not np.any(ya):
        raise DPDError(f"x: capture too short: no usable overlap of x and y after aligning by {d:.3f} "
                       "samples")
    bad = np.zeros(xa.size, dtype=bool)
    if bx.any() or by.any():
        # Map the glitches onto the aligned grid, widened by the interpolation window of the shift.
        _, first = fractional_shift(np.zeros(x.size), float(d))
        idx = np.arange(xa.size) + first
        near = np.convolve(by.astype(float), np.ones(2 * _kernel.shift_half_length + 3), mode="same") > 0
        shift = int(math.floor(d))
        src = np.clip(idx + shift, 0, y.size - 1)
        bad = bx[idx] | near[src]
    good = ~bad
    if target_gain is None or target_gain == 0:
        G = ls_gain(xa, ya, good)
    else:
        G = complex(target_gain)
    if not np.isfinite(G) or abs(G) < MIN_GAIN:
        raise DPDError(f"target_gain: gain {G} is zero or not finite (y uncorrelated with x? "
                       "check the delay range and the loopback)")
    return xa, ya / G, d, complex(G), bad


def solve_regularized(phi, target, regularization=None, phi_val=None, target_val=None, grid=None):
    """Tikhonov-regularised least squares in float64 on the column-normalised basis, by SVD.

    Columns of different orders differ by orders of magnitude, so each is scaled to unit norm first:
    the regularisation and the condition number then do not depend on the signal level. The thin SVD
    phi_s = U S V^H (LAPACK gesdd, float64) gives w = V diag(s / (s^2 + lambda)) U^H target without
    ever forming the normal equations, whose condition number would be the square (tall bases go
    through a Householder QR first).

    ``regularization``: a number fixes lambda / s_max^2 (0: minimum-norm least squares, singular
    values below 1e-13 s_max dropped as LAPACK's gelsd does); None chooses it from
    :data:`REGULARIZATION_GRID` by the NMSE on held-out rows (``phi_val``, ``target_val``) when given,
    else by generalised cross-validation; "gcv" forces GCV."""
    norms = np.linalg.norm(phi, axis=0)
    if np.any(norms == 0) or not np.all(np.isfinite(norms)):
        raise DPDError("y: basis matrix is singular (a basis column is all zeros)")
    A = phi / norms
    if A.shape[0] > 2 * A.shape[1]:
        # Tall basis: Householder QR without forming Q (LAPACK geqrf + ormqr for Q^H target), then the
        # SVD of the K x K factor, A = Q R = (Q U_R) S V^H. Same singular values and U^H target as the
        # SVD of A, about three times faster, and never the normal equations.
        from scipy.linalg import qr_multiply

        cq, R = qr_multiply(A, target.conj()[None, :], mode="right")
        U_r, s, Vh = np.linalg.svd(R)
        b = U_r.conj().T @ cq.conj().ravel()
    else:
        U, s, Vh = np.linalg.svd(A, full_matrices=False)
        b = U.conj().T @ target
    s0 = s[0]
    cond = float(s0 / s[-1]) if s[-1] > 0 else float("inf")
    grid = np.asarray(grid if grid is not None else REGULARIZATION_GRID, dtype=np.float64)
    s2 = (s / s0) ** 2
    val_nmse = float("nan")
    if regularization is None and phi_val is not None and len(target_val):
        Bv = (phi_val / norms) @ Vh.conj().T
        scores = [nmse_db(target_val, Bv @ ((s / (s ** 2 + lam * s0 ** 2)) * b)) for lam in grid]
        i = int(np.nanargmin(scores))
        lam, how, val_nmse = float(grid[i]), "validation", float(scores[i])
    elif regularization is None or regularization == "gcv":
        # GCV(lambda) = N ||r||^2 / (N - dof)^2 with ||r||^2 = ||t||^2 - ||b||^2 + sum((1 - f)^2 |b|^2).
        n = A.shape[0]
        tt = np.vdot(target, target).real
        bb = np.abs(b) ** 2
        out = tt - bb.sum()
        scores = []
        for lam in grid:
            f = s2 / (s2 + lam)
            r2 = max(out + np.sum((1 - f) ** 2 * bb), 0.0)
            scores.append(n * r2 / max(n - f.sum(), 1e-9) ** 2)
        lam, how = float(grid[int(np.argmin(scores))]), "gcv"
    else:
        lam, how = float(regularization), "fixed"
    if lam > 0:
        g = s / (s ** 2 + lam * s0 ** 2)
        keep = s2 > lam
    else:
        keep = s > 1e-13 * s0
        g = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
    w = (Vh.conj().T @ (g * b)) / norms
    if not np.all(np.isfinite(w)):
        raise DPDError("y: estimation produced non-finite coefficients (ill-conditioned basis)")
    dof = float(np.sum(s2 / (s2 + lam))) if lam > 0 else float(np.sum(keep))
    fit = nmse_db(target, phi @ w)
    return Solution(w, lam, cond, int(np.sum(keep)), dof, fit, how, val_nmse)


def fit(xa, yn, m, ok, regularization, lo_leakage, min_samples_per_coefficient, bad, validation, perturbation):
    """dpd_estimate._fit in numpy: the N x K basis, lambda on the validation pair or by K-fold
    cross-validation over contiguous blocks (dpd_folds), SVD. Returns (Solution, rows fitted)."""
    def design(v, history=None):
        p = _spec.basis(v, m, history)
        if lo_leakage:
            p = np.hstack([p, np.ones((p.shape[0], 1), dtype=np.complex128)])
        return p

    full = design(yn)
    phi, target = full[ok], xa[ok]
    _require_rows(phi.shape[0], phi.shape[1], min_samples_per_coefficient)
    if perturbation:
        pphi, ptarget = _probe_rows(yn, xa, ok, design, perturbation)
    reg, how, val = regularization, None, float("nan")
    if reg is None:
        ahead = m.lookahead
        vhist = None
        if validation is not None:
            xv, yv = (np.asarray(v, dtype=np.complex128).ravel() for v in validation[:2])
            vhist = validation[2] if len(validation) > 2 else None
            fit_rows = ok
            okv = np.ones(xv.size, dtype=bool)
            if ahead:
                okv[-ahead:] = False
            phi_v, t_v = (design(yv, vhist)[okv], xv[okv]) if okv.any() else (None, None)
            if fit_rows.sum() >= phi.shape[1] and phi_v is not None:
                fphi, ftarget = full[fit_rows], xa[fit_rows]
                if perturbation:
                    fphi, ftarget = np.vstack([fphi, pphi]), np.concatenate([ftarget, ptarget])
                pre = solve_regularized(fphi, ftarget, None, phi_v, t_v)
                reg, val, how = pre.regularization, pre.validation_nmse_db, "validation"
        else:
            # lambda by K-fold cross-validation over contiguous blocks, each scored cold (dpd_folds).
            back, ahead = _window(m)
            folds = numpy_folds(full, yn, xa, ok, bad, lambda v: design(v), back, ahead,
                                       (pphi, ptarget) if perturbation else None)
            A, t = (np.vstack([phi, pphi]), np.concatenate([target, ptarget])) if perturbation else (phi, target)
            pick = None if folds is None else _folds.choose(A.conj().T @ A, A.conj().T @ t, folds,
                                                             REGULARIZATION_GRID)
            if pick is not None:
                reg, val, _ = pick
                how = "kfold"
    if how == "validation":
        sol = pre  # fitted on every row already: no refit
    else:
        if perturbation:
            phi, target = np.vstack([phi, pphi]), np.concatenate([target, ptarget])
        sol = solve_regularized(phi, target, reg)
    if perturbation:
        sol.fit_nmse_db = nmse_db(xa[ok], full[ok] @ sol.w)  # the capture's rows, not the probes
    if how:
        sol.selected_by, sol.validation_nmse_db = how, val
    return sol, phi.shape[0]


def numpy_folds(full, yn, xa, ok, bad, design, back, ahead, probes=None, folds=_folds.FOLDS):
    """The folds' sums from the basis itself (``full``: every row of the capture; ``design(v)`` the
    basis of v from a zero state; ``probes``: (basis, target) of the probe copies of the ok rows):
    the numpy reference of the folds of ``dpd_gram.fit_kfold``."""
    plan = _folds.fold_rows(xa.size, ok, back, ahead, full.shape[1], folds)
    if plan is None:
        return None
    out = []
    for a, b, x_rows, s_rows in plan:
        px, ps = full[x_rows], full[s_rows]
        Gx, bx = px.conj().T @ px, px.conj().T @ xa[x_rows]
        if probes is not None:
            keep = x_rows[ok]
            pp, pt = probes[0][keep], probes[1][keep]
            Gx, bx = Gx + pp.conj().T @ pp, bx + pp.conj().T @ pt
        c_rows = _folds.cold_rows(bad, a, b, back, ahead)
        pc, tc = design(yn[a:b])[c_rows], xa[a:b][c_rows]
        out.append({"Gx": Gx, "bx": bx, "Gs": ps.conj().T @ ps, "bs": ps.conj().T @ xa[s_rows],
                    "ts": float(np.sum(np.abs(xa[s_rows]) ** 2)), "Gc": pc.conj().T @ pc,
                    "bc": pc.conj().T @ tc, "tc": float(np.sum(np.abs(tc) ** 2))})
    return out
