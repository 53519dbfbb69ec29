# SPDX-License-Identifier: GPL-3.0-or-later
"""What dpd_estimator_cc holds of its two input streams, and how long a capture this machine can
estimate."""

import os

import numpy as np

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


class _Window:
    """The samples of one input from stream position ``base`` on, appended in place: the array is
    compacted or grown (doubling) only when it is full, never copied whole per work() call."""

    def __init__(self, capacity=1 << 16):
        self._a = np.zeros(capacity, dtype=np.complex64)
        self._lo = self._hi = 0
        self.base = 0

    @property
    def end(self):
        return self.base + self._hi - self._lo

    def append(self, v):
        n, live = v.size, self._hi - self._lo
        if self._hi + n > self._a.size:
            a = self._a if live + n <= self._a.size else np.empty(max(2 * self._a.size, live + n), np.complex64)
            a[:live] = self._a[self._lo:self._hi]
            self._a, self._lo, self._hi = a, 0, live
        self._a[self._hi:self._hi + n] = v
        self._hi += n

    def drop_to(self, pos):
        """Forget the samples before ``pos`` (all of them if pos is past the end)."""
        k = min(max(pos - self.base, 0), self._hi - self._lo)
        self._lo += k
        self.base += k

    def restart(self, pos):
        """Empty, the next sample appended being at ``pos``."""
        self._lo = self._hi = 0
        self.base = pos

    def take(self, pos, n):
        i = self._lo + pos - self.base
        return self._a[i:i + n].copy()
