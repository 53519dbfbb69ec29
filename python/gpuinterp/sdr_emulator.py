# SPDX-License-Identifier: GPL-3.0-or-later
"""``sdr_loopback_emulator_cc``: a USRP sink/source pair with a PA and a loopback cable between them.

Input: the fc32 samples a flowgraph would send to ``UHD: USRP Sink`` (full scale 1.0). Output: what
``UHD: USRP Source`` would deliver from a coupler at the PA output, fc32, tagged like gr-uhd. Swap the
pair for this block to rehearse a hardware DPD flowgraph (alignment, gain normalisation, overflow
handling) before the radio is on the bench. Signal path, in order::

    TX sc16 wire format      round to 16 bit at full scale 1.0, saturating (tx_sc16)
    TX gain                  tx_gain_db, the drive into the PA
    PA                       pa_model_cc (pa_model, backend)
    RX gain                  rx_gain_db (coupler, attenuator and RX gain together)
    latency                  latency samples: a windowed-sinc FIR for the fraction, then a delay line
    RX sample clock          clock_offset_ppm (filter.mmse_resampler_cc)
    LO                       freq_offset_hz, lo_phase_deg, lo_drift_hz_per_s (frequency ramp)
    phase noise              phase_noise_deg rms (the chain of channels.phase_noise_gen, seeded)
    thermal noise            noise_dbfs, noise power relative to full-scale power (1.0)
    RX IQ imbalance          iq_imbalance_db, iq_imbalance_deg (channels.iqbal_gen, RX mode)
    DC offset                dc_offset (LO leakage / self-mixing at the RX mixer)
    ADC                      rx_full_scale clipping (counted), adc_enob noise, adc_bits quantisation
    host interface           sample drops (overflows) re-tagged with rx_time as gr-uhd does

The defaults describe a USRP-class radio (X310 / N3xx / X410 class) looped back through a coupler and
an attenuator, TX and RX running from one shared reference: the sample clocks are locked (0 ppm) and
there is no frequency offset, but the LO phase between TX and RX is arbitrary (137 deg) and the two
synthesisers add 1 deg rms of phase noise the shared reference does not make common (-35 dBc
integrated). The receiver has a 12-bit ADC (quantisation noise -74 dBFS) and -54 dBFS of thermal
noise: a signal at -9 dBFS rms sees 45 dB SNR, typical of a loopback capture taken for DPD (the phase
noise, at -35 dBc, limits the EVM before the thermal noise does). The IQ imbalance (0.5 dB, 3 deg:
image rejection about 28 dB) and the DC offset (0.0025 + 0.0025j, -49 dBFS) are those of an
uncalibrated direct-conversion receiver. The latency of 23456.37 samples stands for the FPGA, DMA and
host buffering of a loopback at 122.88 Msample/s; it is not an integer, since a real one is not.

A finite input of N samples gives N - dropped outputs (N - 16 - dropped when built with a latency
below 16, see ``latency``), of which GNU Radio may keep up to 7 at the very end: its SIMD-aligned
two-input blocks (the noise adders) stop on an alignment boundary once the input ends while their
other input, a noise source, never does. A radio's stream has no end, so only tests notice.

Stream tags of the input come out with the samples they were attached to (moved by the latency, and
removed where they fall into a gap; with a clock offset they drift from their samples by that offset,
as mmse_resampler_cc leaves tag offsets unscaled); the emulator adds rx_time, rx_rate and rx_freq on
the first output sample and on the first sample after every gap, and removes any it receives.
"""

import math

from gnuradio import analog, blocks, channels, filter, gr

from . import pa_models
from .params import bool_param, complex_param, float_param, int_param

__all__ = ["sdr_loopback_emulator_cc", "fractional_delay_taps", "FD_DELAY", "uhd_time_pmt"]

# Gains the emulated radio accepts, dB. Beyond them the float32 signal path overflows (a PA model's
# polynomial at 200 dB of drive gives inf, and inf - inf NaN, behind it) instead of saturating as a
# radio does: +40 dB drives a full-scale input 100 x past the PA's full scale, deep into saturation,
# and +60 dB of RX gain takes a PA output far below the ADC's floor to full scale.
TX_GAIN_DB = (-150.0, 40.0)
RX_GAIN_DB = (-150.0, 60.0)
# The delay line holds `latency` samples (8 bytes each): 2^24 samples is 128 MiB, 137 ms at 122.88
# Msample/s; a loopback's FPGA, DMA and host buffering is well under a millisecond.
MAX_LATENCY = float(1 << 24)
# Rates, frequencies and drifts beyond any radio's (1 THz): a finite bound keeps the tag times, the
# rx_freq tag and the LO's frequency accumulator finite over any run (a 1e-300 Hz rate made the
# first rx_time overflow its uint64 seconds inside the tagger's thread).
MAX_HZ = 1e12

from .sdr_emulator_blocks import (FD_DELAY, PHASE_NOISE_ALPHA, _adc_cc, _delay_cc,  # noqa: F401
                                  _gr_seed, _lo_cc, _overflow_tagger_cc, fractional_delay_taps,
                                  uhd_time_pmt)


def _drops_param(drops):
    out = []
    try:
        items = list(drops)
    except TypeError:
        raise ValueError(f"drops: must be a list of (position, count) pairs, got {drops!r}") from None
    for d in items:
        try:
            pos, count = d
        except (TypeError, ValueError):
            raise ValueError(f"drops: each entry must be a (position, count) pair, got {d!r}") from None
        out.append((int_param("drops", pos, 0), int_param("drops", count, 0)))
    return out


def _pa_block(pa_model, backend, seed):
    """pa_model_cc from a model name, a fitted-model file or a dict of pa_model_cc arguments."""
    if isinstance(pa_model, dict):
        kwargs = dict(pa_model)
    elif isinstance(pa_model, str) and (pa_model.endswith(".json") or
                                        pa_model in pa_models.MODELS and pa_model != "memory_polynomial"):
        kwargs = {"model": pa_model}
    else:
        names = [m for m in pa_models.MODELS if m != "memory_polynomial"]
        raise ValueError(f"pa_model: must be one of {names}, a fitted PA model file (.json) or a dict of "
                         f"pa_model_cc arguments, got {pa_model!r}")
    kwargs.setdefault("backend", backend)
    kwargs.setdefault("seed", seed)  # used when the dict asks for PA noise (snr_db)
    try:
        return pa_models.pa_model_cc(**kwargs)
    except ValueError as e:
        if str(e).startswith("backend:"):
            raise
        raise ValueError(f"pa_model: {e}") from None
    except (OSError, TypeError) as e:
        raise ValueError(f"pa_model: {e}") from None


class sdr_loopback_emulator_cc(gr.hier_block2):
    """SDR loopback emulator: USRP sink -> PA -> coupler/attenuator -> USRP source (see the module
    docstring for the signal path and what the defaults stand for).

    Args:
        sample_rate: sample rate in Hz, 1 to 1e12 (rx_rate tag, frequency offset, drift, tag times).
        center_freq: RX centre frequency in Hz, 0 to 1e12 (rx_freq tag).
        tx_sc16: round the input to the sc16 wire format (16 bit, full scale 1.0, saturating).
        tx_gain_db: gain before the PA (drive level), -150 to +40 dB.
        pa_model: "ding2004", "warp_v3", "rapp", "saleh" (pa_model_cc presets with their default
            arguments), the path of a fitted PA model (.json), or a dict of pa_model_cc keyword
            arguments (e.g. {"model": "rapp", "rapp_saturation": 0.8}).
        backend: pa_model_cc backend ("automatic", "cpu", "cuda").
        rx_gain_db: gain from the PA output to the ADC (coupler, attenuator, RX gain), -150 to +60 dB.
        latency: loop delay in samples, 0 to 2^24 (MAX_LATENCY), any fraction. Built with a latency below FD_DELAY (16),
            the emulator skips the first FD_DELAY samples of the fractional-delay filter's output, so a
            finite input gives FD_DELAY fewer outputs; min_latency() is then 0, else FD_DELAY.
        clock_offset_ppm: RX sample clock relative to TX (> 0: RX faster, more samples out).
        freq_offset_hz: frequency offset of the received signal, y = x exp(+j 2 pi f t) (the sign
            convention of channels.channel_model), |f| <= sample_rate / 2.
        lo_phase_deg: LO phase, RX relative to TX, at the first sample.
        lo_drift_hz_per_s: rate of change of the frequency offset.
        phase_noise_deg: rms phase noise in degrees (one-pole low-pass, corner about 0.0016 fs).
        noise_dbfs: thermal noise power relative to full-scale power 1.0 (dB); -inf: none.
        iq_imbalance_db, iq_imbalance_deg: RX IQ amplitude and phase imbalance (channels.iqbal_gen
            RX mode: I' = 10^(dB/20) (cos(deg) I + sin(deg) Q), Q' = Q).
        dc_offset: complex DC added at the RX mixer, full-scale units.
        rx_full_scale: level at which the ADC clips I and Q (output is in the same units).
        adc_bits: ADC resolution (0: no quantisation; 1..24).
        adc_enob: effective number of bits (0: ideal for adc_bits): noise is added so that a full-scale
            sine has SNR 6.02 enob + 1.76 dB; must not exceed adc_bits.
        drops: [(position, count), ...] samples to drop, in RX sample positions (as if none dropped).
        start_time: rx_time of the first sample, seconds, 0 to 2^63 / sample_rate.
        seed: seed of every random source (also pa_model_cc's, unless the pa_model dict sets one).

    Keep a reference to the block while the flowgraph runs (GRC's generated code does): like every
    GNU Radio Python block, its Python blocks inside die with the Python object, and a flowgraph
    built as ``tb.connect(src, sdr_loopback_emulator_cc(), snk)`` crashes.

    Runtime setters: set_tx_gain_db, set_rx_gain_db, set_lo_phase_deg, set_freq_offset_hz,
    set_lo_drift_hz_per_s, set_phase_noise_deg, set_noise_dbfs, set_dc_offset, set_iq_imbalance,
    set_latency, drop_samples. Accessors: clipped(), nonfinite(), overflows(), dropped(), latency(),
    min_latency(), pa() (the pa_model_cc inside, for its own setters).
    """

    def __init__(self, sample_rate=122.88e6, center_freq=3.5e9, tx_sc16=True, tx_gain_db=0.0,
                 pa_model="ding2004", backend="automatic", rx_gain_db=0.0, latency=23456.37,
                 clock_offset_ppm=0.0, freq_offset_hz=0.0, lo_phase_deg=137.0, lo_drift_hz_per_s=0.0,
                 phase_noise_deg=1.0, noise_dbfs=-54.0, iq_imbalance_db=0.5, iq_imbalance_deg=3.0,
                 dc_offset=0.0025 + 0.0025j, rx_full_scale=1.0, adc_bits=12, adc_enob=0.0, drops=(),
                 start_time=0.0, seed=0):
        gr.hier_block2.__init__(self, "sdr_loopback_emulator_cc",
                                gr.io_signature(1, 1, gr.sizeof_gr_complex),
                                gr.io_signature(1, 1, gr.sizeof_gr_complex))
        # Validate everything before connecting anything, so a bad value never leaves half a graph.
        self._fs = float_param("sample_rate", sample_rate, 1.0, MAX_HZ)
        center_freq = float_param("center_freq", center_freq, 0, MAX_HZ)
        tx_sc16 = bool_param("tx_sc16", tx_sc16)  # 1 and 0 are not flags (as for the estimator's)
        tx_gain_db = float_param("tx_gain_db", tx_gain_db, *TX_GAIN_DB)
        rx_gain_db = float_param("rx_gain_db", rx_gain_db, *RX_GAIN_DB)
        latency = float_param("latency", latency, 0, MAX_LATENCY)
        ppm = float_param("clock_offset_ppm", clock_offset_ppm, -1e4, 1e4)
        freq_offset_hz = self._check_freq(freq_offset_hz)
        lo_phase_deg = math.fmod(float_param("lo_phase_deg", lo_phase_deg), 360.0)  # 1e300 deg is a phase too
        lo_drift_hz_per_s = float_param("lo_drift_hz_per_s", lo_drift_hz_per_s, -MAX_HZ, MAX_HZ)
        phase_noise_deg = float_param("phase_noise_deg", phase_noise_deg, 0, 180)
        noise_dbfs = float_param("noise_dbfs", noise_dbfs, hi=0, allow_inf=True)
        self._check_iq(iq_imbalance_db, iq_imbalance_deg)
        dc_offset = complex_param("dc_offset", dc_offset)
        rx_full_scale = float_param("rx_full_scale", rx_full_scale, 0, lo_open=True)
        adc_bits = int_param("adc_bits", adc_bits, 0, 24)
        adc_enob = float_param("adc_enob", adc_enob, 0, 24)
        if adc_bits and adc_enob > adc_bits:
            raise ValueError(f"adc_enob: must not exceed adc_bits ({adc_bits}), got {adc_enob}")
        if 0 < adc_enob < 1:
            raise ValueError(f"adc_enob: must be 0 (ideal) or >= 1, got {adc_enob}")
        drops = _drops_param(drops)
        # rx_time's whole seconds are a uint64 and uhd::time_spec_t counts ticks of the rate in 64
        # bits: beyond 2^63 / sample_rate seconds neither holds the time (pmt.from_uint64 fails
        # inside the tagger's thread, and the flowgraph never ends).
        start_time = float_param("start_time", start_time, 0, 2.0 ** 63 / self._fs)
        seed = int_param("seed", seed, 0, 2 ** 28)
        self._seed = seed

        # The FIR delays by FD_DELAY + frac; a shorter latency is made by skipping FD_DELAY samples at
        # the start (as if the filter looked ahead), which lets set_latency() go down to 0 later.
        self._head = FD_DELAY if math.floor(latency) < FD_DELAY else 0
        self._latency = latency

        # --- TX ---
        chain = []
        if tx_sc16:
            # interleaved_short saturates at +-32767 (volk's 32f->16i conversion clips), as the
            # FPGA's fc32->sc16 conversion in UHD does; qa_sdr_emulator checks it does not wrap.
            chain += [blocks.complex_to_interleaved_short(False, 32767.0),
                      blocks.interleaved_short_to_complex(False, False, 32767.0)]
        self._tx_gain = blocks.multiply_const_cc(self._db_to_amp(tx_gain_db))
        self._pa = _pa_block(pa_model, backend, seed)
        self._rx_gain = blocks.multiply_const_cc(self._db_to_amp(rx_gain_db))
        chain += [self._tx_gain, self._pa, self._rx_gain]

        # --- loop delay ---
        frac = latency - math.floor(latency)
        self._fd = filter.fir_filter_ccf(1, fractional_delay_taps(frac).tolist())
        chain.append(self._fd)
        self._delay = _delay_cc(math.floor(latency) - FD_DELAY + self._head, self._head)
        chain.append(self._delay)

        # --- RX analogue ---
        if ppm:
            # mmse_resampler_cc's ratio is input rate / output rate: a faster RX clock takes more samples.
            chain.append(filter.mmse_resampler_cc(0.0, 1.0 / (1.0 + ppm * 1e-6)))
        self._lo = _lo_cc(self._fs, freq_offset_hz, lo_phase_deg, lo_drift_hz_per_s)
        chain.append(self._lo)

        self._pn_source = analog.noise_source_f(analog.GR_GAUSSIAN, self._pn_mag(phase_noise_deg),
                                                _gr_seed(seed, 0))
        pn_iir = filter.single_pole_iir_filter_ff(PHASE_NOISE_ALPHA, 1)
        pn_cos = blocks.transcendental("cos", "float")
        pn_sin = blocks.transcendental("sin", "float")
        pn_f2c = blocks.float_to_complex(1)
        self._pn_mult = blocks.multiply_cc(1)
        self.connect(self._pn_source, pn_iir)
        self.connect(pn_iir, pn_cos, (pn_f2c, 0))
        self.connect(pn_iir, pn_sin, (pn_f2c, 1))
        self.connect(pn_f2c, (self._pn_mult, 1))
        chain.append(self._pn_mult)

        self._noise = analog.noise_source_c(analog.GR_GAUSSIAN, self._noise_amp(noise_dbfs),
                                            _gr_seed(seed, 1))
        self._noise_add = blocks.add_cc(1)
        self.connect(self._noise, (self._noise_add, 1))
        chain.append(self._noise_add)

        self._iqbal = channels.iqbal_gen(iq_imbalance_db, iq_imbalance_deg, 1)
        self._dc = blocks.add_const_cc(dc_offset)
        chain += [self._iqbal, self._dc]

        # --- ADC ---
        if adc_enob:
            # Input-referred noise making the SNR of a full-scale sine (power rx_full_scale^2 / 2 per
            # rail) 6.02 enob + 1.76 dB, less the quantisation noise step^2/12 the rounding adds itself.
            per_rail = rx_full_scale ** 2 / 2 * 10 ** (-(6.02 * adc_enob + 1.76) / 10)
            if adc_bits:
                per_rail -= (rx_full_scale / 2 ** (adc_bits - 1)) ** 2 / 12
            if per_rail > 0:
                adc_noise = analog.noise_source_c(analog.GR_GAUSSIAN, math.sqrt(2 * per_rail),
                                                  _gr_seed(seed, 2))
                adc_add = blocks.add_cc(1)
                self.connect(adc_noise, (adc_add, 1))
                chain.append(adc_add)
        self._adc = _adc_cc(rx_full_scale, adc_bits)
        chain.append(self._adc)

        # --- host ---
        self._tagger = _overflow_tagger_cc(self._fs, center_freq, start_time, drops)
        chain.append(self._tagger)

        self.connect(self, chain[0])
        for a, b in zip(chain[:-1], chain[1:]):
            self.connect(a, b)
        self.connect(chain[-1], self)

    # --- helpers ---
    @staticmethod
    def _db_to_amp(db):
        return 10 ** (db / 20)

    @staticmethod
    def _noise_amp(noise_dbfs):
        # noise_source_c's amplitude is the rms of the complex noise (power amplitude^2).
        return 0.0 if noise_dbfs == -math.inf else 10 ** (noise_dbfs / 20)

    @staticmethod
    def _pn_mag(deg):
        return math.radians(deg) / math.sqrt(PHASE_NOISE_ALPHA / (2 - PHASE_NOISE_ALPHA))

    def _check_freq(self, f):
        f = float_param("freq_offset_hz", f)
        if abs(f) > self._fs / 2:
            raise ValueError(f"freq_offset_hz: must be within +-sample_rate/2 ({self._fs / 2:g}), got {f}")
        return f

    @staticmethod
    def _check_iq(db, deg):
        float_param("iq_imbalance_db", db, -20, 20)
        deg = float_param("iq_imbalance_deg", deg)
        if not abs(deg) < 90:
            raise ValueError(f"iq_imbalance_deg: must be within (-90, 90), got {deg}")

    # --- runtime setters ---
    def set_tx_gain_db(self, tx_gain_db):
        self._tx_gain.set_k(self._db_to_amp(float_param("tx_gain_db", tx_gain_db, *TX_GAIN_DB)))

    def set_rx_gain_db(self, rx_gain_db):
        self._rx_gain.set_k(self._db_to_amp(float_param("rx_gain_db", rx_gain_db, *RX_GAIN_DB)))

    def set_lo_phase_deg(self, lo_phase_deg):
        self._lo.set_lo_phase_deg(math.fmod(float_param("lo_phase_deg", lo_phase_deg), 360.0))

    def set_freq_offset_hz(self, freq_offset_hz):
        self._lo.set_freq_offset_hz(self._check_freq(freq_offset_hz))

    def set_lo_drift_hz_per_s(self, lo_drift_hz_per_s):
        self._lo.set_drift_hz_per_s(float_param("lo_drift_hz_per_s", lo_drift_hz_per_s, -MAX_HZ, MAX_HZ))

    def set_phase_noise_deg(self, phase_noise_deg):
        self._pn_source.set_amplitude(self._pn_mag(float_param("phase_noise_deg", phase_noise_deg, 0, 180)))

    def set_noise_dbfs(self, noise_dbfs):
        noise_dbfs = float_param("noise_dbfs", noise_dbfs, hi=0, allow_inf=True)
        self._noise.set_amplitude(self._noise_amp(noise_dbfs))

    def set_dc_offset(self, dc_offset):
        self._dc.set_k(complex_param("dc_offset", dc_offset))

    def set_iq_imbalance(self, iq_imbalance_db, iq_imbalance_deg):
        self._check_iq(iq_imbalance_db, iq_imbalance_deg)
        self._iqbal.set_magnitude(float(iq_imbalance_db))
        self._iqbal.set_phase(float(iq_imbalance_deg))

    def set_latency(self, latency):
        """Change the loop delay (a radio restart with a new latency). Before the flowgraph starts it is
        as if built with it; while running, the delay line inserts zeros (longer) or drops held samples
        (shorter) and the FIR takes taps for the new fraction; the two land a few samples apart, so the
        switch is not a clean cut, as it is not on a radio restarting. Not below min_latency()."""
        latency = float_param("latency", latency, 0, MAX_LATENCY)
        if latency < self.min_latency():
            raise ValueError(f"latency: must be >= {self.min_latency()} for this instance (built with a "
                             f"latency >= {FD_DELAY}; build one with a shorter latency to go lower), "
                             f"got {latency}")
        frac = latency - math.floor(latency)
        self._fd.set_taps(fractional_delay_taps(frac).tolist())
        self._delay.set_delay(math.floor(latency) - FD_DELAY + self._head)
        self._latency = latency

    def drop_samples(self, count):
        """Drop `count` samples starting at the tagger's next work() call (an overflow now)."""
        self._tagger.drop_samples(int_param("count", count, 0))

    # --- accessors ---
    def clipped(self):
        """Samples (complex) whose I or Q exceeded rx_full_scale at the ADC."""
        return self._adc.clipped

    def nonfinite(self):
        """Samples (complex) that reached the ADC as NaN or infinity (an input sample that is, with
        tx_sc16=False, spread over the filters' length); the ADC outputs 0 for NaN and full scale
        for infinity (counted as clipped too), as a converter cannot output either."""
        return self._adc.nonfinite

    def overflows(self):
        """Gaps made so far (each run of dropped samples counts once)."""
        return self._tagger.overflows

    def dropped(self):
        """Samples dropped so far."""
        return self._tagger.dropped

    def latency(self):
        return self._latency

    def min_latency(self):
        """Lowest latency set_latency() accepts: 0 if built with a latency below FD_DELAY, else FD_DELAY."""
        return FD_DELAY - self._head

    def pa(self):
        """The pa_model_cc inside (set_backoff_db, set_gain, set_snr_db reach the PA directly)."""
        return self._pa
