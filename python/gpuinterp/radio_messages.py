# SPDX-License-Identifier: GPL-3.0-or-later
"""What radios and the predistorter put on streams and message ports, as the estimator reads them:
gr-uhd's rx_time/rx_rate/rx_freq and burst tags, usrp_sink's async events, the predistorter's
dpd_switch/dpd_coeffs tags and its ``coeffs`` message; the estimator's ``stats`` message and the sample
formats its inputs take (complex float, or gr-uhd's sc16)."""

import math

import numpy as np
import pmt

from .gpuinterp_python import decode_coeffs_message, encode_coeffs_message


def coefficients_message(coefficients, lo_leakage, channel=None):
    """The PMT the predistorter's ``coeffs`` port takes: pair (c32vector . complex c) for every
    channel; with ``channel`` the dict {"coefficients", "lo_leakage", "channel"}, which a
    multi-channel predistorter applies to that channel only (the C++ encoder)."""
    return encode_coeffs_message(np.asarray(coefficients).ravel(), complex(lo_leakage), channel)


def weights_message(weights, channel=None):
    """The PMT that switches a neural predistorter's weights: the dict {"weights": f32vector}, with
    "channel" for one channel of a multi-channel predistorter (the C++ encoder)."""
    return encode_coeffs_message(weights=np.real(np.asarray(weights)).ravel(), channel=channel)


def message_channel(msg):
    """The "channel" entry of a ``coeffs`` dict (None: the message is for every channel). The
    form is checked by decode_coeffs_message(); this only reads the entry it validated."""
    decode_coeffs_message(msg)
    # A dict is a list of (key . value) pairs; pmt.is_dict() is true of any pair, so the pair
    # (coefficients . c) is told apart as decode_coeffs_message() does, by its car.
    if pmt.is_pair(msg) and pmt.is_pair(pmt.car(msg)) and pmt.dict_has_key(msg, pmt.intern("channel")):
        # a long, a uint64 or an integral double, all of which decode_coeffs_message() accepts
        return int(pmt.to_python(pmt.dict_ref(msg, pmt.intern("channel"), pmt.PMT_NIL)))
    return None


def parse_coefficients_message(msg, expected_len):
    """(coefficients, lo_leakage or None) from any form decode_coeffs_message() accepts (the C++
    predistorter's definition); ValueError on anything else, a wrong length or non-finite values."""
    w, c = decode_coeffs_message(msg)
    w = w.astype(np.complex128)
    if w.size != expected_len:
        raise ValueError(f"coeffs: expected {expected_len} coefficients, got {w.size}")
    if not np.all(np.isfinite(w)) or (c is not None and not np.isfinite(c)):
        raise ValueError("coeffs: contains NaN or infinity")
    return w, c


# Tags a radio source or sink puts on the stream at a discontinuity of the sample clock's view of
# time: a capture spanning one is not one signal (gr-uhd tags rx_time after every overflow; a burst
# ends where tx_eob / rx_eob sit; a retune where rx_freq changes).
_RX_TIME, _RX_RATE, _RX_FREQ = pmt.intern("rx_time"), pmt.intern("rx_rate"), pmt.intern("rx_freq")
_BURST_KEYS = tuple(pmt.intern(k) for k in ("tx_sob", "tx_eob", "rx_sob", "rx_eob"))
# The predistorter marks where a new coefficient set starts (dpd_switch after a message or setter,
# its own dpd_coeffs tag otherwise): a capture holding two sets measures neither, so the capture
# starts again at the switch, without a warning (this is the loop working, not a fault).
_SWITCH_KEYS = (pmt.intern("dpd_switch"), pmt.intern("dpd_coeffs"))
# UHD's async event codes (uhd::async_metadata_t): underflow between packets, and inside one.
_UNDERFLOW_CODES = 0x2 | 0x10
_UNDERFLOW_NAMES = ("underflow", "underflow_in_packet")
# The largest rx_rate / rx_freq believed: beyond any converter's rate or any radio's tuning range, a
# value like 1e300 is a corrupted tag, not a rate.
_MAX_TAG_HZ = 1e12


def _tag_hz(value, positive):
    """An rx_rate (``positive``) or rx_freq tag's value in Hz as a float, or None when it is not a
    finite number within +-_MAX_TAG_HZ (> 0 for a rate). gr-uhd writes a double; a long or uint64
    holds the same number and is read as one."""
    try:
        if pmt.is_real(value) or pmt.is_integer(value):
            v = float(pmt.to_double(value)) if pmt.is_real(value) else float(pmt.to_long(value))
        elif pmt.is_uint64(value):
            v = float(pmt.to_uint64(value))
        else:
            return None
    except Exception:  # a malformed value is reported by the caller, not a crash
        return None
    if not (math.isfinite(v) and abs(v) <= _MAX_TAG_HZ) or (positive and not v > 0):
        return None
    return v


def _rx_time_parts(value):
    """(whole seconds, fraction) of a gr-uhd rx_time value (tuple of uint64 full seconds, double
    fraction), or None. Kept apart: at a wall-clock time (1.7e9 s) one double resolves only 0.24 us,
    several samples at radio rates, as uhd::time_spec_t knows."""
    try:
        if pmt.is_tuple(value) and pmt.length(value) == 2:
            full, frac = pmt.tuple_ref(value, 0), pmt.tuple_ref(value, 1)
            if pmt.is_uint64(full) and pmt.is_real(frac):
                f = float(pmt.to_double(frac))
                return (int(pmt.to_uint64(full)), f) if math.isfinite(f) else None
    except Exception:  # a malformed value is a discontinuity, not a crash
        pass
    return None


def is_underflow(msg):
    """True for a gr-uhd usrp_sink async message reporting an underflow: (uhd_async_msg . dict) or a
    dict, whose "event_code" is a list of symbols (underflow, underflow_in_packet, burst_ack, ...);
    a UHD integer code is taken too. Anything else is not an underflow (and never an error)."""
    try:
        d = pmt.cdr(msg) if pmt.is_pair(msg) and not pmt.is_dict(msg) else msg
        code = pmt.dict_ref(d, pmt.intern("event_code"), pmt.PMT_NIL) if pmt.is_dict(d) else pmt.PMT_NIL
        if pmt.is_integer(code):
            return bool(pmt.to_long(code) & _UNDERFLOW_CODES)
        if pmt.is_symbol(code) and not pmt.is_null(code):
            return pmt.symbol_to_string(code) in _UNDERFLOW_NAMES
        names = []
        while pmt.is_pair(code):
            if pmt.is_symbol(pmt.car(code)):
                names.append(pmt.symbol_to_string(pmt.car(code)))
            code = pmt.cdr(code)
        return any(v in _UNDERFLOW_NAMES for v in names)
    except Exception:
        return False


def stats_message(r, meters, channel=0):
    """The estimator's ``stats`` message: a dict of one step's result (a dpd_adapt.StepResult),
    the transmit channel it was measured on and the block's meters."""
    d = pmt.make_dict()
    items = [("channel", pmt.from_long(int(channel))), ("iteration", pmt.from_long(r.iteration)),
             ("status", pmt.intern(r.status)),
             ("loop_nmse_db", pmt.from_double(float(r.loop_nmse_db))),
             ("fit_nmse_db", pmt.from_double(float(r.fit_nmse_db))),
             ("delay", pmt.from_double(float(r.delay))), ("gain", pmt.from_complex(complex(r.gain))),
             ("condition", pmt.from_double(float(r.condition))),
             ("damping", pmt.from_double(float(r.damping))), ("reason", pmt.intern(r.reason)),
             ("coefficients", pmt.init_c32vector(len(r.coefficients), [complex(v) for v in r.coefficients])),
             ("lo_leakage", pmt.from_complex(complex(r.lo_leakage)))]
    items += [(k, pmt.from_double(float(v))) for k, v in meters.items() if k not in ("iteration", "delay")]
    for k, v in items:
        d = pmt.dict_add(d, pmt.intern(k), v)
    return d


# The item each input format arrives as: complex float, or I/Q int16 pairs (4 bytes).
SAMPLE_FORMATS = {"fc32": np.complex64, "sc16": np.dtype((np.int16, 2))}


def sc16_reader(fmt, full_scale):
    """Input items of `fmt` as complex64; sc16 maps 32767 to `full_scale` (the inverse of the
    predistorter's conversion; 1.0 for a USRP source)."""
    if fmt == "fc32":
        return lambda a: a
    k = np.float32(full_scale / 32767.0)

    def read(a):
        z = np.empty(len(a), np.complex64)
        z.real = a[:, 0] * k
        z.imag = a[:, 1] * k
        return z
    return read
