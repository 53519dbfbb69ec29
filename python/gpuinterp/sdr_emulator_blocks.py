# SPDX-License-Identifier: GPL-3.0-or-later
"""The stages of :class:`gnuradio.gpuinterp.sdr_emulator.sdr_loopback_emulator_cc` that no GNU Radio
block provides: the fractional-delay taps, the LO (phase, frequency offset, a linear drift), the delay
line with run-time changes, the ADC (clipping counted, two's-complement codes) and the host side of
gr-uhd's usrp_source (rx_time/rx_rate/rx_freq tags, dropped samples re-tagged as after an overflow)."""

import math
import threading

import numpy as np
import pmt
from gnuradio import gr

# The fractional-delay FIR is a Kaiser-windowed sinc of 2*FD_DELAY + 2 taps centred on FD_DELAY + frac.
# Chosen over a Farrow/Lagrange interpolator because a windowed sinc reaches the accuracy with few taps
# and its error is flat over the band: with FD_DELAY = 16 and beta = 10 the error |H(f) - e^{-j2 pi f d}|
# stays below -93 dB for |f| <= 0.4 fs at every fraction (qa_sdr_emulator checks -70 dB), and a
# fraction of 0 gives a pure delay (the sinc is zero at every other integer), so an integer latency is
# exact. beta = 10 is the optimum for this length: a larger beta widens the transition band into
# +-0.4 fs, a smaller one raises the ripple.
FD_DELAY = 16
FD_BETA = 10.0

# The phase-noise filter of channels.phase_noise_gen: Gaussian noise through a one-pole IIR. alpha =
# 0.01 puts its corner at alpha/(2 pi) fs (about 200 kHz at 122.88 Msample/s), where a PLL's phase
# noise rolls off, instead of gr-channels' 0.1; the rms phase is noise_mag * sqrt(alpha / (2 - alpha)).
PHASE_NOISE_ALPHA = 0.01

_TIME_KEY = pmt.intern("rx_time")
_RATE_KEY = pmt.intern("rx_rate")
_FREQ_KEY = pmt.intern("rx_freq")

# Keys of gr-uhd's own tags: a USRP source makes these, so copies arriving from the input would only
# contradict the ones the emulator adds.
_UHD_KEYS = ("rx_time", "rx_rate", "rx_freq")


def fractional_delay_taps(frac):
    """Taps of the FIR delaying by FD_DELAY + frac samples (0 <= frac < 1), unity gain at DC."""
    n = np.arange(2 * FD_DELAY + 2)
    if frac == 0:
        return (n == FD_DELAY).astype(np.float64)  # np.sinc leaves ~1e-17 at the other integers
    t = n - FD_DELAY - frac
    window = np.i0(FD_BETA * np.sqrt(np.clip(1 - (t / (FD_DELAY + 1)) ** 2, 0, None))) / np.i0(FD_BETA)
    return np.sinc(t) * window


def uhd_time_pmt(seconds_whole, seconds_frac):
    """rx_time value as gr-uhd writes it: tuple (uint64 full seconds, double fractional seconds)."""
    return pmt.make_tuple(pmt.from_uint64(int(seconds_whole)), pmt.from_double(float(seconds_frac)))


def _gr_seed(seed, source):
    # Each random source gets its own seed: equal seeds would make thermal and ADC noise the same
    # sequence, correlated instead of adding in power.
    return 4 * seed + source + 1


class _lo_cc(gr.sync_block):
    """x * exp(j (lo_phase + 2 pi theta(n))), theta' = f(t) = f0 + drift * t.

    A Python block rather than analog.sig_source_c + multiply: the drift needs a quadratic phase no GNU
    Radio source makes, and keeping phase, frequency and drift in one double-precision accumulator makes
    a runtime change of any of them phase-continuous (a real synthesiser retune is not, but a test
    that sees a phase step then knows the step is the one it asked for)."""

    def __init__(self, sample_rate, freq_offset_hz, lo_phase_deg, drift_hz_per_s):
        gr.sync_block.__init__(self, name="sdr_emulator_lo", in_sig=[np.complex64], out_sig=[np.complex64])
        self._lock = threading.Lock()
        self._fs = sample_rate
        self._f = freq_offset_hz          # frequency at the next sample, Hz
        self._drift = drift_hz_per_s
        self._phi = math.radians(lo_phase_deg)
        self._theta = 0.0                 # phase at the next sample, cycles in [0, 1)

    def set_freq_offset_hz(self, f):
        with self._lock:
            self._f = f

    def set_lo_phase_deg(self, deg):
        with self._lock:
            self._phi = math.radians(deg)

    def set_drift_hz_per_s(self, d):
        with self._lock:
            self._drift = d

    def work(self, input_items, output_items):
        x = input_items[0]
        n = len(output_items[0])
        with self._lock:
            if self._f == 0 and self._drift == 0 and self._theta == 0:
                output_items[0][:] = x[:n] * np.complex64(np.exp(1j * self._phi))
                return n
            k = np.arange(n, dtype=np.float64)
            tk = k / self._fs
            theta = self._theta + self._f * tk + 0.5 * self._drift * tk * tk
            output_items[0][:] = x[:n] * np.exp(1j * (self._phi + 2 * math.pi * (theta % 1.0)))
            t = n / self._fs
            self._theta = (self._theta + self._f * t + 0.5 * self._drift * t * t) % 1.0
            self._f += self._drift * t
        return n


class _delay_cc(gr.basic_block):
    """The integer part of the latency, after the fractional-delay FIR: skips the FIR's first `skip`
    outputs (skip = FD_DELAY gives a latency below FD_DELAY), then delays by `delay` samples.
    set_delay() while running inserts zeros (longer) or drops the oldest samples held (shorter), so
    the stream restarts with the new delay.

    Not blocks.delay and blocks.skiphead: delay's set_dly() called before the flowgraph starts counts
    the change twice (the new history and the pending insertion both apply), at the end of a finite
    input it emits its held samples too (more outputs than inputs), and skiphead drops the tags of the
    samples it skips, although those samples carry the first FD_DELAY inputs' tags. Tags leave this
    block on their samples: the FIR passes them on without its delay, so they move by FD_DELAY more."""

    def __init__(self, delay, skip):
        gr.basic_block.__init__(self, name="sdr_emulator_delay", in_sig=[np.complex64],
                                out_sig=[np.complex64])
        self.set_tag_propagation_policy(gr.TPP_DONT)
        self._lock = threading.Lock()
        self._buf = np.zeros(delay, dtype=np.complex64)  # the next `delay` outputs
        self._next = delay
        self._skip_left = skip
        self._tag_shift = FD_DELAY - skip + delay  # input tag offset -> output offset
        self._tags = []  # (output offset, key, value, srcid) not yet written

    def set_delay(self, delay):
        with self._lock:
            self._next = delay

    def forecast(self, noutput_items, ninputs):
        return [noutput_items] * ninputs

    def _take_tags(self, r0, count):
        self._tags += [(t.offset + self._tag_shift, t.key, t.value, t.srcid)
                       for t in self.get_tags_in_range(0, r0, r0 + count)]

    def general_work(self, input_items, output_items):
        r0 = self.nitems_read(0)
        if self._skip_left:
            k = min(self._skip_left, len(input_items[0]))
            self._take_tags(r0, k)
            self._skip_left -= k
            self.consume(0, k)
            return 0
        n = min(len(input_items[0]), len(output_items[0]))
        w0 = self.nitems_written(0)
        with self._lock:
            change = self._next - self._buf.size
        if change > 0:
            self._buf = np.concatenate([np.zeros(change, dtype=np.complex64), self._buf])
        elif change < 0:
            self._buf = self._buf[-change:]
            # The dropped samples are the next -change outputs: their tags go with them.
            self._tags = [t for t in self._tags if t[0] >= w0 - change]
        # Every pending tag is for a sample still held, which now comes out `change` later.
        self._tags = [(o + change, k, v, src) for o, k, v, src in self._tags]
        self._tag_shift += change
        z = np.concatenate([self._buf, input_items[0][:n]])
        output_items[0][:n] = z[:n]
        self._buf = z[n:]
        self._take_tags(r0, n)
        now = [t for t in self._tags if t[0] < w0 + n]
        self._tags = [t for t in self._tags if t[0] >= w0 + n]
        for o, k, v, src in now:
            self.add_item_tag(0, max(o, w0), k, v, src)
        self.consume(0, n)
        return n


class _adc_cc(gr.sync_block):
    """ADC: I and Q clipped at +-full_scale (counted; NaN reads as 0, counted apart), then rounded to
    a mid-tread two's-complement code of `bits` bits (step full_scale / 2^(bits-1), codes
    -2^(bits-1) .. 2^(bits-1)-1); bits = 0 clips only. A Python block because the clip count is the point: analog.rail_ff saturates but
    cannot say how often it did."""

    def __init__(self, full_scale, bits):
        gr.sync_block.__init__(self, name="sdr_emulator_adc", in_sig=[np.complex64], out_sig=[np.complex64])
        self._fs = full_scale
        self._bits = bits
        self.clipped = 0
        self.nonfinite = 0

    def work(self, input_items, output_items):
        n = len(output_items[0])
        x = input_items[0][:n]
        i = x.real.astype(np.float64)
        q = x.imag.astype(np.float64)
        fs = self._fs
        bad = ~(np.isfinite(i) & np.isfinite(q))
        if bad.any():
            # A converter outputs a code, never NaN: NaN reads as 0, infinity clips (below). Counted
            # and logged once, since only a non-finite input (tx_sc16=False) gets here.
            k = int(np.count_nonzero(bad))
            if not self.nonfinite:
                self.logger.warn(f"{k} samples reached the ADC as NaN or infinity (a non-finite input sample "
                                 "with tx_sc16=False); output as 0 or full scale, counted by nonfinite() "
                                 "(logged once)")
            self.nonfinite += k
            i = np.where(np.isnan(i), 0.0, i)
            q = np.where(np.isnan(q), 0.0, q)
        over = (np.abs(i) > fs) | (np.abs(q) > fs)
        self.clipped += int(np.count_nonzero(over))
        i = np.clip(i, -fs, fs)
        q = np.clip(q, -fs, fs)
        if self._bits:
            half = 2 ** (self._bits - 1)
            step = fs / half
            i = np.clip(np.rint(i / step), -half, half - 1) * step
            q = np.clip(np.rint(q / step), -half, half - 1) * step
        output_items[0][:] = i + 1j * q
        return n


class _overflow_tagger_cc(gr.basic_block):
    """The host side of gr-uhd's usrp_source: tags the first sample with rx_time, rx_rate and
    rx_freq, drops the requested samples, and tags the first sample after each gap again with the
    true time of that sample, as usrp_source does after an overflow ('O').

    Positions are indices of this block's input, i.e. RX samples counted as if none were dropped.
    Tags of the input in a gap are dropped with the gap; others move with their samples."""

    def __init__(self, sample_rate, center_freq, start_time, drops):
        gr.basic_block.__init__(self, name="sdr_emulator_overflow", in_sig=[np.complex64],
                                out_sig=[np.complex64])
        self.set_tag_propagation_policy(gr.TPP_DONT)
        self._lock = threading.Lock()
        self._fs = sample_rate
        self._center = center_freq
        self._t0_whole = math.floor(start_time)
        self._t0_frac = start_time - self._t0_whole
        self._gaps = []        # merged, sorted [start, end) intervals still ahead
        self._pending = []     # counts from drop_samples(), placed at the next work()
        for pos, count in drops:
            self._add_gap(pos, count)
        self._tag_next = True  # the next kept sample gets the rx_* tags
        self._in_gap = False   # the last processed sample was dropped
        self.overflows = 0
        self.dropped = 0

    def _add_gap(self, start, count):
        if count == 0:
            return
        gaps = self._gaps + [[start, start + count]]
        gaps.sort()
        merged = [gaps[0]]
        for s, e in gaps[1:]:
            if s <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        self._gaps = merged

    def drop_samples(self, count):
        with self._lock:
            self._pending.append(count)

    def time_of(self, index):
        """(whole, frac) seconds of input sample `index`; split so that long runs keep the
        fractional part exact to the double's precision, as uhd::time_spec_t does."""
        q, r = divmod(index, self._fs)
        frac = self._t0_frac + r / self._fs
        whole = self._t0_whole + int(q)
        if frac >= 1.0:
            frac -= 1.0
            whole += 1
        return whole, frac

    def forecast(self, noutput_items, ninputs):
        # Dropping only removes samples: one input per output is enough to make progress.
        return [noutput_items] * ninputs

    def general_work(self, input_items, output_items):
        x = input_items[0]
        n = min(len(x), len(output_items[0]))
        r0 = self.nitems_read(0)
        w0 = self.nitems_written(0)
        with self._lock:
            for count in self._pending:
                self._add_gap(r0, count)
            self._pending = []
            keep = np.ones(n, dtype=bool)
            for s, e in self._gaps:
                if s >= r0 + n:
                    break
                keep[max(s - r0, 0):max(min(e - r0, n), 0)] = False
            self._gaps = [g for g in self._gaps if g[1] > r0 + n]
        if n == 0:
            return 0
        prev_keep = np.concatenate(([not self._in_gap], keep[:-1]))
        self.overflows += int(np.count_nonzero(~keep & prev_keep))
        self.dropped += int(n - np.count_nonzero(keep))
        starts = keep & ~prev_keep
        if self._tag_next:
            first = np.flatnonzero(keep)
            if first.size:
                starts[first[0]] = True
        kept_before = np.cumsum(keep) - keep  # outputs produced before input i in this call
        m = int(np.count_nonzero(keep))
        output_items[0][:m] = x[:n][keep]

        src = pmt.intern(self.alias())
        for i in np.flatnonzero(starts):
            off = w0 + int(kept_before[i])
            self.add_item_tag(0, off, _TIME_KEY, uhd_time_pmt(*self.time_of(r0 + int(i))), src)
            self.add_item_tag(0, off, _RATE_KEY, pmt.from_double(self._fs), src)
            self.add_item_tag(0, off, _FREQ_KEY, pmt.from_double(self._center), src)
        seen = set()
        for tag in self.get_tags_in_range(0, r0, r0 + n):
            i = tag.offset - r0
            if not keep[i] or pmt.symbol_to_string(tag.key) in _UHD_KEYS:
                continue
            # channels.iqbal_gen splits into I and Q and joins them again: each tag comes out of it
            # three times (both inputs of its adder and of its float_to_complex carry it).
            ident = (tag.offset, pmt.serialize_str(tag.key), pmt.serialize_str(tag.value))
            if ident in seen:
                continue
            seen.add(ident)
            self.add_item_tag(0, w0 + int(kept_before[i]), tag.key, tag.value, tag.srcid)

        self._in_gap = not keep[-1]
        if m:
            self._tag_next = False
        self.consume(0, n)
        return m
