# SPDX-License-Identifier: GPL-3.0-or-later
"""Behavioural power-amplifier models for simulating a DPD loop, and the block ``pa_model_cc``.

Signal path of every model::

    v = x * 10^(-backoff_db/20)          input back-off (drive level)
    w = core(v)                           memory polynomial, Rapp or Saleh
    y = gain * w + noise                  output gain; AWGN at snr_db relative to the mean power of
                                          gain*w (running mean over everything processed so far,
                                          leaving out non-finite and outlier samples, see below)

One bad input sample (NaN, Inf, 1e30: a glitch upstream) gives a bad output for that sample and, with a
memory polynomial, the M-1 samples its memory reaches; it does not enter the running power, so the
noise level of every later sample is unchanged. A sample whose power exceeds OUTLIER_POWER_FACTOR x the
power level (the running mean, or the chunk's median power before there is one) counts as an outlier.

Memory polynomial: y[n] = sum_{k in 1,3,..,P} sum_{m<M} a[k,m] x[n-m] |x[n-m]|^(k-1), which is exactly
the predistorter model with Q = 0, Lp = M and the flat layout [a[1,0..M-1], a[3,0..M-1], ...]; it runs
on the predistorter engine (``gpuinterp.dpd.make_engine``: the C++ kernel, CPU or CUDA, when built, numpy
otherwise). Presets (published coefficients, see docs/dpd_loop.md):

* ``ding2004``: Ding et al., IEEE Trans. Commun. 52(1) 2004, class-AB PA, k in {1,3,5}, 3 taps.
  Small-signal gain 1.016, -1.7 dB and -15 deg at |x| = 0.7; the polynomial turns back up above
  |x| ~ 0.8, keep the peak below that.
* ``warp_v3``: WARP v3 board PA (Tarver, ILA-DPD), k in {1,3,5,7}, 4 taps, 122.88 Msample/s.
  Small-signal gain 1.170, 1 dB compression near |x| = 0.72.

Memoryless: ``rapp`` |y| = |x| / (1 + (|x|/A_sat)^(2p))^(1/(2p)) (phase unchanged; small-signal gain 1,
scale with ``gain``), ``saleh`` A(r) = a_a r/(1 + b_a r^2), Phi(r) = a_p r^2/(1 + b_p r^2).
"""

import math
import threading

import numpy as np
from gnuradio import gr

from . import dpd, dpd_model
from .gpuinterp_python import dpd_capture_kernel
from .params import complex_param, float_param, int_param

__all__ = ["PRESETS", "preset_coefficients", "PAModel", "pa_model_cc", "MODELS", "SALEH_DEFAULT"]

# Rows: order k = 1, 3, 5, ...; columns: tap m = 0, 1, ... (docs/dpd_loop.md cites the sources).
PRESETS = {
    "ding2004": np.array([
        [1.0513 + 0.0904j, -0.0680 - 0.0023j, 0.0289 - 0.0054j],
        [-0.0542 - 0.2900j, 0.2234 + 0.2317j, -0.0621 - 0.0932j],
        [-0.9657 - 0.7028j, -0.2451 - 0.3735j, 0.1229 + 0.1508j],
    ]),
    "warp_v3": np.array([
        [0.9295 - 0.0001j, 0.2939 + 0.0005j, -0.1270 + 0.0034j, 0.0741 - 0.0018j],
        [0.1419 - 0.0008j, -0.0735 + 0.0833j, -0.0535 + 0.0004j, 0.0908 - 0.0473j],
        [0.0084 - 0.0569j, -0.4610 + 0.0274j, -0.3011 - 0.1403j, -0.0623 - 0.0269j],
        [0.1774 + 0.0265j, 0.0848 + 0.0613j, -0.0362 - 0.0307j, 0.0415 + 0.0429j],
    ]),
}

MODELS = ("memory_polynomial", "ding2004", "warp_v3", "rapp", "saleh")

BACKENDS = ("automatic", "cpu", "cuda")

SALEH_DEFAULT = (2.1587, 1.1517, 4.0033, 9.1040)

# The drive levels and output gains the float32 signal path carries without overflowing. backoff_db
# -40 drives a full-scale input 100 x past the PA's full scale (the emulator's largest TX gain): even
# a 15th-order memory polynomial stays finite there, while -300 dB gave NaN outputs. A gain beyond
# +-120 dB and an SNR below -100 dB (noise 10^10 x the signal) are no PA's; at -1e6 dB the noise level
# overflowed inside the block's thread and the flowgraph never ended.
BACKOFF_DB = (-40.0, 150.0)
MAX_GAIN = 1e6
MIN_SNR_DB = -100.0

# A sample whose output power exceeds this many times the power level is a glitch, not signal: the
# factor is 24^2, the outlier threshold of the estimator (the capture kernel's outlier_factor, 24 x RMS), far above the
# peak-to-average ratio of any communication signal.
OUTLIER_POWER_FACTOR = dpd_capture_kernel.outlier_factor ** 2


def preset_coefficients(name):
    """(P, M, flat coefficients) of a memory-polynomial preset, in the predistorter layout."""
    if name not in PRESETS:
        raise ValueError(f"model: unknown preset {name!r}; presets: {sorted(PRESETS)}")
    a = PRESETS[name]
    return 2 * a.shape[0] - 1, a.shape[1], a.ravel().copy()


def _memory_polynomial_structure(coefficients, memory_depth):
    try:
        a = np.asarray(coefficients, dtype=np.complex128)
    except (TypeError, ValueError):  # "complex() arg is a malformed string" names nothing
        raise ValueError(f"coefficients: must be a sequence of numbers, got {coefficients!r:.60}") from None
    if a.ndim == 2:  # rows = orders, columns = taps
        memory_depth = a.shape[1]
        a = a.ravel()
    if a.size == 0:
        raise ValueError("coefficients: model 'memory_polynomial' needs coefficients "
                         "[a(1,0..M-1), a(3,0..M-1), ...]")
    M = int_param("memory_depth", memory_depth, 1, 1024)
    if a.size % M:
        raise ValueError(f"coefficients: {a.size} values is not a multiple of memory_depth {M} "
                         "(one block of memory_depth taps per odd order)")
    if not np.all(np.isfinite(a)):
        raise ValueError("coefficients: contain NaN or infinity")
    # One block of M taps per odd order 1, 3, .., P: the count sets P, which the engine bounds.
    # Checked here, where the count is the caller's: the engine's "P: must be odd" named a
    # parameter this block does not have.
    max_orders = (dpd_model.MAX_ORDER + 1) // 2
    if a.size // M > max_orders:
        raise ValueError(f"coefficients: {a.size} values with memory_depth {M} are {a.size // M} odd orders "
                         f"(P = {2 * (a.size // M) - 1}); at most {max_orders} orders (P <= "
                         f"{dpd_model.MAX_ORDER}), i.e. at most {max_orders * M} values")
    return 2 * (a.size // M) - 1, M, a


class PAModel:
    """Streaming PA model (numpy front end; the memory polynomial runs on the predistorter engine).

    process(x) -> complex64 ndarray; state (memory, noise generator, running power) carries across
    calls, so chunking does not change the noiseless output."""

    def __init__(self, model="ding2004", coefficients=(), memory_depth=3, backoff_db=0.0, gain=1.0,
                 snr_db=math.inf, rapp_saturation=1.0, rapp_smoothness=2.0, saleh=SALEH_DEFAULT,
                 seed=0, backend="cpu"):
        self._engine = None
        self.fit = None
        self.delay = 0
        # Checked for every model, although rapp and saleh run in numpy and ignore it: a misspelt
        # backend ("gpu") is a mistake whichever model it is given with.
        if backend not in BACKENDS:
            raise ValueError(f"backend: must be one of {BACKENDS}, got {backend!r}")
        seed = int_param("seed", seed, 0)
        if isinstance(model, dpd_model.ModelFit) or (isinstance(model, str) and model.endswith(".json")):
            # A model fitted from captures (dpd_model.fit_forward, gpuinterp_dpd_bench --save-pa-model):
            # any family, on the predistorter's engine; leading-envelope terms delay the output.
            if len(coefficients):
                raise ValueError("coefficients: must be empty for a fitted model file (they are in the file)")
            if isinstance(model, dpd_model.ModelFit):
                self.fit = model
            else:
                try:
                    self.fit = dpd_model.load_model(model)
                except ValueError as e:
                    raise ValueError(f"model: {e}") from None
            if self.fit.kind != "pa_model":
                # a predistorter is the PA's inverse: run as the PA, it would "linearise" nothing
                where = model if isinstance(model, str) else "the ModelFit"
                raise ValueError(f"model: {where}: kind: a {self.fit.kind!r} file, not a 'pa_model'; pa_model_cc "
                                 "runs PA models (dpd_predistorter_from_file runs predistorters)")
            if self.fit.weights is not None:  # a neural model (gru, tdnn): its weights, same kernel
                self._engine = dpd.make_neural_engine(self.fit.model, self.fit.weights, backend=backend)
            else:
                self._engine = dpd.make_model_engine(self.fit.model, self.fit.coefficients,
                                                     self.fit.lo_leakage, backend=backend)
            self.delay = dpd_model.parse(self.fit.model).lookahead
            model = "fitted"
        elif model not in MODELS:
            raise ValueError(f"model: must be one of {MODELS} or a fitted model file (.json), got {model!r}")
        self.model = model
        if model in PRESETS:
            if len(coefficients):
                raise ValueError(f"coefficients: must be empty for preset {model!r} "
                                 "(use model='memory_polynomial' for your own)")
            self.P, self.M, self.a = preset_coefficients(model)
        elif model == "memory_polynomial":
            self.P, self.M, self.a = _memory_polynomial_structure(coefficients, memory_depth)
        if model in PRESETS or model == "memory_polynomial":
            # A memory polynomial is the predistorter with Q = 0 and Lp = M: same engine, PA coefficients.
            self._engine = dpd.make_engine(self.P, 0, self.M, 1, self.a, 0j, backend=backend)
        self.set_backoff_db(backoff_db)
        self.set_gain(gain)
        self.rapp_saturation = float_param("rapp_saturation", rapp_saturation, 0, lo_open=True)
        self.rapp_smoothness = float_param("rapp_smoothness", rapp_smoothness, 0, lo_open=True)
        try:  # a number, a string or a NaN among the four named, not "'float' object is not iterable"
            values = tuple(float_param("saleh", v, 0) for v in saleh)
        except (TypeError, ValueError):
            values = ()
        if len(values) != 4:
            raise ValueError(f"saleh: must be four finite values >= 0 (a_a, b_a, a_p, b_p), got {saleh!r}")
        self.saleh = values
        self.set_snr_db(snr_db)
        self._rng = np.random.default_rng(seed)
        self._power_sum = 0.0
        self._power_n = 0
        self.outliers = 0  # samples left out of the running power (non-finite or outliers)

    def set_backoff_db(self, backoff_db):
        backoff_db = float_param("backoff_db", backoff_db, *BACKOFF_DB)
        self.backoff_db = backoff_db
        self._in_scale = 10 ** (-backoff_db / 20)

    def set_gain(self, gain):
        g = complex_param("gain", gain)
        if not 1 / MAX_GAIN <= abs(g) <= MAX_GAIN:
            raise ValueError(f"gain: must be finite and non-zero, of magnitude {1 / MAX_GAIN:g} to {MAX_GAIN:g} "
                             f"(+-120 dB), got {gain!r}")
        self.gain = g

    def set_snr_db(self, snr_db):
        try:
            v = float_param("snr_db", snr_db, allow_inf=True)
        except ValueError:
            v = math.nan
        if not v >= MIN_SNR_DB:  # NaN, -inf, not a number, or below the floor
            raise ValueError(f"snr_db: must be a number >= {MIN_SNR_DB:g} dB, or +inf (inf disables the noise), "
                             f"got {snr_db!r}")
        self.snr_db = v

    def core(self, v):
        """The model without back-off, gain and noise (double precision for memoryless models)."""
        if self._engine is not None:
            return np.asarray(self._engine.process(v.astype(np.complex64)), dtype=np.complex128)
        r = np.abs(v)
        if self.model == "rapp":
            p2 = 2 * self.rapp_smoothness
            return v / (1 + (r / self.rapp_saturation) ** p2) ** (1 / p2)
        aa, ba, ap, bp = self.saleh
        amp = aa * r / (1 + ba * r * r)
        phase = ap * r * r / (1 + bp * r * r)
        with np.errstate(invalid="ignore", divide="ignore"):
            unit = np.where(r > 0, v / np.where(r > 0, r, 1), 0)
        return amp * unit * np.exp(1j * phase)

    def process(self, x):
        x = np.asarray(x).astype(np.complex128, copy=False).ravel()
        if x.size == 0:
            return np.zeros(0, dtype=np.complex64)
        w = self.gain * self.core(x * self._in_scale)
        if math.isfinite(self.snr_db):
            self._add_power(w)
            p = self._power_sum / self._power_n if self._power_n else 0.0
            sigma = math.sqrt(p * 10 ** (-self.snr_db / 10) / 2)
            w = w + sigma * (self._rng.standard_normal(w.size) + 1j * self._rng.standard_normal(w.size))
        with np.errstate(over="ignore", invalid="ignore"):
            return w.astype(np.complex64)

    def _add_power(self, w):
        """Add the chunk's sample powers to the running mean, leaving out the bad ones: one NaN would
        make the mean NaN (every later output NaN), one 1e30 would drown every later sample in noise."""
        with np.errstate(over="ignore", invalid="ignore"):
            pw = w.real * w.real + w.imag * w.imag
        good = np.isfinite(pw)
        level = self._power_sum / self._power_n if self._power_n else 0.0
        if good.any():
            # The chunk's median is robust to its own outliers and follows a signal that starts
            # after silence; the running mean covers a chunk that is mostly zeros.
            level = max(level, float(np.median(pw[good])))
        if level > 0:
            good &= pw <= OUTLIER_POWER_FACTOR * level
        self.outliers += int(w.size - good.sum())
        self._power_sum += float(pw[good].sum())
        self._power_n += int(good.sum())


class pa_model_cc(gr.sync_block):
    """Behavioural PA model (Python block; the memory polynomial uses the predistorter engine).

    Args:
        model: "ding2004", "warp_v3" (memory-polynomial presets), "memory_polynomial" (your
            coefficients), "rapp", "saleh", or the path of a PA model fitted from captures (a .json
            file from gpuinterp_dpd_bench --save-pa-model or dpd_model.save_model; any model family,
            run on the predistorter engine; a GMP with leading-envelope terms delays the output by
            its look-ahead Mc samples, a neural gru by max(1, D if C > 0), its first outputs zero;
            a neural file carries "weights", docs/neural_models.md).
        coefficients: memory-polynomial coefficients in the predistorter layout
            [a(1,0..M-1), a(3,0..M-1), ...] (model "memory_polynomial" only).
        memory_depth: M, taps per order (model "memory_polynomial" only).
        backoff_db: input back-off in dB (x is scaled by 10^(-backoff_db/20) before the model),
            -40 to +150 (BACKOFF_DB).
        gain: complex output gain, magnitude 1e-6 to 1e6 (+-120 dB).
        snr_db: AWGN at this SNR relative to the mean output power, >= -100 dB; inf: no noise.
        rapp_saturation, rapp_smoothness: Rapp A_sat and p.
        saleh: (a_a, b_a, a_p, b_p) of the Saleh model.
        seed: noise generator seed.
        backend: engine backend for the memory polynomial ("automatic", "cpu", "cuda"); used
            once the C++ predistorter kernel is built into the module, ignored by the numpy model.
    """

    def __init__(self, model="ding2004", coefficients=(), memory_depth=3, backoff_db=0.0, gain=1.0,
                 snr_db=math.inf, rapp_saturation=1.0, rapp_smoothness=2.0, saleh=SALEH_DEFAULT,
                 seed=0, backend="automatic"):
        gr.sync_block.__init__(self, name="pa_model_cc", in_sig=[np.complex64],
                               out_sig=[np.complex64])
        self._lock = threading.Lock()
        self._pa = PAModel(model, coefficients, memory_depth, backoff_db, gain, snr_db,
                           rapp_saturation, rapp_smoothness, saleh, seed, backend)

    def set_backoff_db(self, backoff_db):
        with self._lock:
            self._pa.set_backoff_db(backoff_db)

    def set_gain(self, gain):
        with self._lock:
            self._pa.set_gain(gain)

    def set_snr_db(self, snr_db):
        with self._lock:
            self._pa.set_snr_db(snr_db)

    def backoff_db(self):
        return self._pa.backoff_db

    def model(self):
        return self._pa.model

    def work(self, input_items, output_items):
        n = len(output_items[0])
        with self._lock:
            output_items[0][:] = self._pa.process(input_items[0][:n])
        return n
