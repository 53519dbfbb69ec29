# SPDX-License-Identifier: GPL-3.0-or-later
"""What a real observation receiver does to a loopback capture, measured and taken out before the fit.

A loopback through a radio is not the PA output: the receiver adds its own LO phase (different after
every retune), a frequency offset and drift when TX and RX do not share a reference, its DC offset
and IQ imbalance, and it clips at its ADC full scale. Indirect learning copies whatever the capture
holds into the predistorter, so each of these is either removed here or the capture is refused:

* clipping: samples whose I or Q reach the ADC full scale carry no information about the PA; a few
  are left out of the fit, more refuse the capture (:data:`MAX_CLIP_FRACTION`);
* delay: found on the envelopes |x|^2, |y|^2, which neither a phase nor a frequency offset changes,
  so the search works before the frequency is known; a lag whose envelope correlation is poor is
  no lag at all, and the search widens to the whole capture (a restart or an overflow moved it);
* frequency and phase: the phase of y x* along the capture (a coarse FFT line, then a quadratic fit
  of block phases: offset and linear drift) is removed, so the capture is handed on with a
  constant phase only, which the gain normalisation takes;
* receiver DC and IQ imbalance: y = mu s + nu conj(s) + d in the receiver's frame. A circular
  signal's distortion products are uncorrelated with conj(s) and with 1, so a three-column
  least-squares fit of y on [s0, conj(s0), 1] (s0 the delayed, rotated x) finds nu/conj(mu) and d
  without bias from the PA, and y is corrected before anything is fitted to it.

With a shared reference the transmitter's own carrier leakage and image land on the receiver's DC
and image, and cannot be told apart from them in one capture: the correction then removes both, so
the predistorter's LO-leakage and conjugate terms see neither (they can only make the TX better with
``rx_correction`` off and a calibrated receiver). With a frequency offset the two separate: the
receiver's terms are removed in the receiver's frame, before the rotation, and what is left at DC of
the corrected capture is the transmitter's.
"""

import math
from dataclasses import dataclass

import numpy as np

from .dpd_align import estimate_delay, fractional_shift
from .dpd_estimate import _outlier_mask
from .dpd_ph import DPDError

# A sample whose I or Q is within 1 % (0.09 dB) of the full scale is taken as clipped: an ADC
# saturates at its top code (2047/2048 of full scale for 12 bits, 127/128 for 8), so a sample there
# may stand for any larger value.
CLIP_LEVEL = 0.99
# Up to this fraction of clipped samples (a rare peak touching full scale) is left out of the fit;
# beyond it the receiver is overdriven and the capture is refused.
MAX_CLIP_FRACTION = 1e-4
# The peak a receiver should keep below full scale (dB): a margin for the PA's peaks moving as the
# DPD expands them.
CLIP_HEADROOM_DB = 1.0


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


# Envelope correlation below which a lag is not the loop's delay (the ding2004 PA at 45 dB SNR
# gives 0.97; unrelated signals give < 0.05).
MIN_ENVELOPE_CORRELATION = 0.5
# The complex correlation of x and the corrected y below which y is not x's PA output (a
# compressed, noisy PA still gives > 0.95).
MIN_CORRELATION = 0.8
PHASE_BLOCK = 1024
# The shortest capture taken (dpd_capture::min_capture_length): the fractional shift's two
# 24-sample windows and as many samples again. A shorter one would be refused as uncorrelated
# ("buried in noise") when it is only too short.
MIN_CAPTURE_LENGTH = 96


@dataclass
class CaptureReport:
    """What :func:`condition` found. ``rx_peak_dbfs``: peak |I|, |Q| of y against the full scale
    (nan without one); ``clipped``: samples at full scale; ``delay``: y lag in samples;
    ``envelope_correlation``: at that lag; ``widened``: the delay was found outside ``max_delay``;
    ``freq_offset``: cycles per sample at the capture's centre; ``freq_drift``: cycles per sample^2;
    ``phase``: the loop phase at the capture's centre (radians); ``rx_dc``: the receiver DC removed
    (units of y); ``rx_image_db``: the receiver image removed, |nu/conj(mu)| in dB."""
    rx_peak_dbfs: float = float("nan")
    clipped: int = 0
    delay: float = float("nan")
    envelope_correlation: float = float("nan")
    widened: bool = False
    freq_offset: float = 0.0
    freq_drift: float = 0.0
    phase: float = 0.0
    rx_dc: complex = 0j
    rx_image_db: float = -math.inf
    correlation: float = float("nan")


def clip_mask(y, full_scale):
    """Samples of y whose I or Q is at the ADC full scale (see :data:`CLIP_LEVEL`)."""
    lim = CLIP_LEVEL * full_scale
    return (np.abs(y.real) >= lim) | (np.abs(y.imag) >= lim)


def peak_dbfs(v, full_scale):
    """Largest |I| or |Q| of v against the full scale, in dB (what a radio's level meter shows)."""
    p = max(float(np.max(np.abs(v.real))), float(np.max(np.abs(v.imag)))) if v.size else 0.0
    return 20 * math.log10(p / full_scale) if p > 0 else -math.inf


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
