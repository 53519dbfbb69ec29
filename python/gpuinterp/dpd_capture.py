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

import numpy as np

from .gpuinterp_python import CaptureReport, dpd_capture_kernel as _kernel  # noqa: F401

# A sample whose I or Q is within 1 % (0.09 dB) of the full scale is taken as clipped: an ADC
# saturates at its top code (2047/2048 of full scale for 12 bits, 127/128 for 8), so a sample there
# may stand for any larger value.
CLIP_LEVEL = _kernel.clip_level
# Up to this fraction of clipped samples (a rare peak touching full scale) is left out of the fit;
# beyond it the receiver is overdriven and the capture is refused.
MAX_CLIP_FRACTION = _kernel.max_clip_fraction
# The peak a receiver should keep below full scale (dB): a margin for the PA's peaks moving as the
# DPD expands them.
CLIP_HEADROOM_DB = _kernel.clip_headroom_db


# Envelope correlation below which a lag is not the loop's delay (the ding2004 PA at 45 dB SNR
# gives 0.97; unrelated signals give < 0.05).
MIN_ENVELOPE_CORRELATION = _kernel.min_envelope_correlation
# The complex correlation of x and the corrected y below which y is not x's PA output (a
# compressed, noisy PA still gives > 0.95).
MIN_CORRELATION = _kernel.min_correlation
PHASE_BLOCK = _kernel.phase_block
# The shortest capture taken (dpd_capture::min_capture_length): the fractional shift's two
# 24-sample windows and as many samples again. A shorter one would be refused as uncorrelated
# ("buried in noise") when it is only too short.
MIN_CAPTURE_LENGTH = _kernel.min_capture_length
# The smallest loop gain |G| a capture is normalised by: a smaller one is no loopback.
MIN_GAIN = _kernel.min_gain


def clip_mask(y, full_scale):
    """Samples of y whose I or Q is at the ADC full scale (see :data:`CLIP_LEVEL`)."""
    lim = CLIP_LEVEL * full_scale
    return (np.abs(y.real) >= lim) | (np.abs(y.imag) >= lim)


def peak_dbfs(v, full_scale):
    """Largest |I| or |Q| of v against the full scale, in dB (what a radio's level meter shows)."""
    p = max(float(np.max(np.abs(v.real))), float(np.max(np.abs(v.imag)))) if v.size else 0.0
    return 20 * math.log10(p / full_scale) if p > 0 else -math.inf
