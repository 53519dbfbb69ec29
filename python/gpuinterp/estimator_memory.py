# SPDX-License-Identifier: GPL-3.0-or-later
"""How long a capture this machine can estimate, and whether a capture is long enough for a model."""

import os

from .params import int_param

# One Adaptation step peaks at about this many bytes per capture sample: the capture, its
# conditioned and aligned copies and the envelope correlation's FFTs (the fit accumulates a K x K
# Gram and the model is applied a chunk of rows at a time, so the model's size does not add to it).
# Measured 206-250 bytes at 2^20 and 2^22 samples, mp and ph models, 2026-12-01; rounded up.
ESTIMATE_BYTES_PER_SAMPLE = 256


def _physical_memory():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 34  # unknown: assume 16 GiB


def max_capture_length():
    """The longest capture this machine can estimate (half its memory; at most 2^26 samples)."""
    return int(min(1 << 26, _physical_memory() // 2 // ESTIMATE_BYTES_PER_SAMPLE))


def capture_length_param(capture_length):
    """capture_length checked, as an int: one step of the estimator peaks at about
    ESTIMATE_BYTES_PER_SAMPLE per capture sample (the capture, its conditioned and aligned copies,
    the envelope correlation's FFTs; the fit's Gram is O(K^2)), so the capture this machine can
    estimate is bounded by its memory: half of it, leaving the rest to the flowgraph. Beyond that a
    step would fail as a bare MemoryError."""
    capture_length = int_param("capture_length", capture_length, 1, 1 << 26)
    limit = max_capture_length()
    if capture_length > limit:
        raise ValueError(f"capture_length: {capture_length} samples need about "
                         f"{capture_length * ESTIMATE_BYTES_PER_SAMPLE / 2**30:.1f} GiB to estimate "
                         f"(~{ESTIMATE_BYTES_PER_SAMPLE} bytes per sample); this machine has "
                         f"{_physical_memory() / 2**30:.1f} GiB, so at most {limit} samples")
    return capture_length


def check_capture_holds(capture_length, spec, lo_leakage):
    """ValueError naming capture_length when a capture is too short to fit the model ``spec`` (a
    dpd_model spec): it needs 10 samples per unknown after the edges the alignment trims."""
    need = spec.num_coefficients + (1 if lo_leakage else 0)
    span = spec.history + spec.lookahead + 1  # samples one basis row reads
    usable = capture_length - 2 * 24 - span
    if usable < 10 * need:
        raise ValueError(f"capture_length: {capture_length} samples leave ~{usable} for {need} unknowns; "
                         f"need at least {10 * need + 2 * 24 + span}")
