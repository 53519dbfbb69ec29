# SPDX-License-Identifier: GPL-3.0-or-later
"""Cases of probe_surfaces.py for the four DPD-loop blocks: every constructor keyword of
sdr_loopback_emulator_cc, pa_model_cc, dpd_predistorter_cc and dpd_estimator_cc, and their setters
(the tables: keyword, documented domain, values beyond GENERIC)."""

import functools
import math
import numbers

import numpy as np

from gnuradio import gpuinterp
from gnuradio.gpuinterp import dpd_model as dm
from gnuradio.gpuinterp import pa_models

from probe_surfaces_util import (INF, NAN, _num, as_int, boolean, choice, cplx, first, flow, fmt, integer, kw_cases,
                                 loop_xy, nonfinite, real, runtime_trouble, sc16, setter_cases, valid_in)


# -- sdr_loopback_emulator_cc ---------------------------------------------------------------------
FS = 122.88e6


def block_cases(cls, run, check, base, table, setters):
    """One block's two surfaces: its constructor keywords (``table``, each built on ``base`` and run
    by ``run``) and its setters (``setters``, each on a block built from ``base``, then ``check``)."""
    name = cls.__name__
    return (kw_cases(name, name, cls, run, base, table) +
            setter_cases(name + " setters", f"{name}({fmt(base)})", functools.partial(cls, **base), check, setters))


def run_emulator(factory, kw):
    return check_emulator(factory(**kw))


def check_emulator(emu):
    x = loop_xy()[0][:4000]
    y = flow(emu, [x])[0]
    runtime_trouble()
    counts = [emu.clipped(), emu.nonfinite(), emu.overflows(), emu.dropped()]
    bad = [c for c in counts if not (isinstance(c, numbers.Integral) and c >= 0)]
    return first(nonfinite("output", y), f"counters {counts}" if bad else None,
                 nonfinite("latency()", [emu.latency()]),
                 "no output for 4000 input samples" if y.size == 0 and not emu.dropped() else None)


EMU_BASE = {"latency": 20.0, "seed": 4}


def enob_ok(v):  # adc_enob with the default adc_bits 12: 0 (ideal), or 1 to 12
    return _num(v) and (float(v) == 0 or 1 <= float(v) <= 12)


def drops_ok(v):
    try:
        return all(as_int(p) is not None and as_int(c) is not None and as_int(p) >= 0 and as_int(c) >= 0
                   for p, c in v)
    except (TypeError, ValueError):
        return False


def pa_model_ok(v):  # a preset name, or a dict of pa_model_cc arguments (judged by pa_model_cc)
    if isinstance(v, str):
        return v in ("ding2004", "warp_v3", "rapp", "saleh")
    return None if isinstance(v, dict) else False


EMULATOR = [
    ("sample_rate", real(1, 1e12), [1, 0.999, 1e12, 1.001e12, 30.72e6]),
    ("center_freq", real(0, 1e12), [-0.001, 1e12, 1.01e12, 2.4e9]),
    ("tx_sc16", boolean, [False, np.bool_(True), 1, "no"]),
    ("tx_gain_db", real(-150, 40), [-150, -150.01, 40, 40.01, 10]),
    ("rx_gain_db", real(-150, 60), [-150, -150.01, 60, 60.01]),
    ("latency", real(0, 2.0 ** 24), [0.5, 15.5, 16, 2.0 ** 24, 2.0 ** 24 + 1, 1e6]),
    ("clock_offset_ppm", real(-1e4, 1e4), [1e4, -1e4, 1.0001e4, 20]),
    ("freq_offset_hz", real(-FS / 2, FS / 2), [FS / 2, -FS / 2, FS / 2 * 1.001, 1e6]),
    ("lo_phase_deg", real(), [360, -720, 1e20]),  # any finite angle
    ("lo_drift_hz_per_s", real(-1e12, 1e12), [1e12, -1e12, 1.1e12, 1e3]),
    ("phase_noise_deg", real(0, 180), [180, 180.1, -0.1, 10]),
    ("noise_dbfs", real(-INF, 0, inf=True), [0.001, -200, -1e6]),
    ("iq_imbalance_db", real(-20, 20), [20, -20, 20.1]),
    ("iq_imbalance_deg", real(-90, 90, lo_open=True, hi_open=True), [89.9, 90, -90]),
    ("dc_offset", cplx(), [1 + 1j, complex(NAN, 0), complex(0, INF), 1e300j, "1+2j"]),
    ("rx_full_scale", real(0, lo_open=True), [1e-6, 1e6]),
    ("adc_bits", integer(0, 24), [24, 25, 1, 12.0, 12.5, np.int64(16)]),
    ("adc_enob", enob_ok, [0.5, 1, 12, 12.1, 24]),
    ("drops", drops_ok, [[(100, 10)], [(0, 4000)], [(-1, 5)], [(5,)], [(1e300, 1)], [(NAN, 1)], 5, [(10, 2 ** 64)]]),
    ("start_time", real(0, 2.0 ** 63 / FS), [2.0 ** 63 / FS, 2.0 ** 63 / FS * 1.01, 1.7e9]),
    ("seed", integer(0, 2 ** 28), [2 ** 28, 2 ** 28 + 1, 7]),
    ("backend", choice("automatic", "cpu", "cuda"), ["cpu", "automatic", "cuda", "gpu", ""], ("cuda",)),
    ("pa_model", pa_model_ok,
     ["ding2004", "warp_v3", "rapp", "saleh", "memory_polynomial", "fitted", "missing.json",
      {"model": "rapp", "rapp_saturation": 0.8}, {"model": "x"}, {"nonsense": 1}, {}, {"backend": "gpu"},
      {"seed": -1}, {"model": "rapp", "rapp_saturation": NAN}, {"backoff_db": -1e6}],
     ("backend",)),  # the dict's own keys are named as pa_model_cc names them (backend: ...)
]

EMULATOR_SETTERS = [
    ("set_tx_gain_db", "tx_gain_db", real(-150, 40), [40, 40.01, -150]),
    ("set_rx_gain_db", "rx_gain_db", real(-150, 60), [60, 60.01]),
    ("set_lo_phase_deg", "lo_phase_deg", real(), [720]),
    ("set_freq_offset_hz", "freq_offset_hz", real(-FS / 2, FS / 2), [FS / 2, FS]),
    ("set_lo_drift_hz_per_s", "lo_drift_hz_per_s", real(-1e12, 1e12), [1.1e12]),
    ("set_phase_noise_deg", "phase_noise_deg", real(0, 180), [180, 181]),
    ("set_noise_dbfs", "noise_dbfs", real(-INF, 0, inf=True), [0.5]),
    ("set_dc_offset", "dc_offset", cplx(), [0.1j, complex(NAN, 0)]),
    ("set_iq_imbalance", "iq_imbalance_db", real(-20, 20), [21], (), (3.0,)),
    ("set_iq_imbalance", "iq_imbalance_deg", real(-90, 90, True, True), [90], (0.5,)),
    ("set_latency", "latency", real(16, 2.0 ** 24), [15, 16, 2.0 ** 24, 2.0 ** 24 + 1, 100.5]),
    ("drop_samples", "count", lambda v: None if integer(2 ** 63, INF)(v) else integer(0, 2 ** 63)(v), [5, 4000, 1.5]),
]


def emulator_cases():
    return block_cases(gpuinterp.sdr_loopback_emulator_cc, run_emulator, check_emulator, EMU_BASE, EMULATOR,
                       EMULATOR_SETTERS)


# -- pa_model_cc ----------------------------------------------------------------------------------
PA_BASE = {"backend": "cpu"}
MP = {"model": "memory_polynomial", "coefficients": [1, 0, 0, -0.1, 0, 0]}  # P=3 with memory_depth 3


def run_pa(factory, kw):
    return check_pa(factory(**kw))


def check_pa(pa):
    y = flow(pa, [loop_xy()[0][:4000]])[0]
    runtime_trouble()
    return first(nonfinite("output", y), nonfinite("backoff_db()", [pa.backoff_db()]))


def mp_coeffs_ok(v):
    try:
        a = np.asarray(v, dtype=np.complex128)
    except (TypeError, ValueError):
        return False
    n = a.shape[1] if a.ndim == 2 else 3
    with np.errstate(over="ignore"):  # the engine runs float32
        return (a.size > 0 and a.size % n == 0 and a.size // n <= 8 and a.ndim <= 2 and
                bool(np.all(np.isfinite(a.astype(np.complex64)))))


def saleh_ok(v):
    try:
        t = [float(e) for e in v]
    except (TypeError, ValueError):
        return False
    return len(t) == 4 and all(math.isfinite(e) and e >= 0 for e in t) and not any(isinstance(e, bool) for e in v)


PA = [
    # memory_polynomial needs coefficients: either
    ("model", lambda v: None if v == "memory_polynomial" else valid_in(*pa_models.MODELS[1:])(v),
     list(pa_models.MODELS) + ["", "Rapp", "fitted", "pa.json", 5]),
    ("coefficients", mp_coeffs_ok, [[1], [1, 0, 0], [[1, 0, 0], [-0.1, 0, 0]], [NAN, 0, 0], [1e300, 0, 0],
                                    ["a", "b", "c"], [1] * 24, [1, 0], np.ones(3, np.complex64)], (), MP),
    ("memory_depth", integer(1, 1024, lambda m: 6 % m == 0), [1, 2, 3, 4, 6, 1024, 1025, 3.0, 2.5],
     ("coefficients",), MP),
    ("backoff_db", real(-40, 150), [-40, -40.01, 150, 150.01, 40, 300, -300, 1e6]),
    ("gain", cplx(nonzero=True, lo=1e-6, hi=1e6),
     [1j, complex(1, INF), complex(NAN, 0), 1e300j, "1+1j", 1e-30, 1e6, 1e-6]),
    ("snr_db", lambda v: _num(v) and (v >= -100 or False), [40, -40, -100, -100.01, -1e6]),
    ("rapp_saturation", real(0, lo_open=True), [0.8, 1e-6], (), {"model": "rapp"}),
    ("rapp_smoothness", real(0, lo_open=True), [0.5, 100, 1e6], (), {"model": "rapp"}),
    ("saleh", saleh_ok,
     [(2, 1, 4, 9), (2, 1, 4), (2, 1, 4, NAN), (2, 1, 4, -1), "abcd", (2, 1, 4, "x"), (True, 1, 4, 9)],
     (), {"model": "saleh"}),
    ("seed", integer(0, INF), [7, 2 ** 32, 1.5, 3.0]),
    ("backend", choice("automatic", "cpu", "cuda"), ["cpu", "automatic", "cuda", "gpu", ""], ("cuda",)),
]

PA_SETTERS = [
    ("set_backoff_db", "backoff_db", real(-40, 150), [3, -300]),
    ("set_gain", "gain", cplx(nonzero=True, lo=1e-6, hi=1e6), [0.5j, complex(NAN, 1), "1+1j"]),
    ("set_snr_db", "snr_db", lambda v: _num(v) and v >= -100, [30, -1e6]),
]


def pa_cases():
    return block_cases(gpuinterp.pa_model_cc, run_pa, check_pa, PA_BASE, PA, PA_SETTERS)


# -- dpd_predistorter_cc --------------------------------------------------------------------------
PD_BASE = {"P": 3, "Q": 0, "Lp": 2, "Lq": 1, "coefficients": [1, 0, 0.1, 0], "backend": "cpu"}
GRU = "gru:H=8,C=0,D=1"


def ph_identity(kw):
    """The identity coefficients for the P, Q, Lp, Lq in kw (the base's when they are not usable), so
    a probe of P alone is not refused for the coefficient count."""
    P, Q, Lp, Lq = (as_int(kw.get(k)) for k in ("P", "Q", "Lp", "Lq"))
    if None in (P, Q, Lp, Lq) or not (1 <= P <= 15 and P % 2 and 0 <= Q <= 15 and (Q == 0 or Q % 2)
                                      and 1 <= Lp <= 1024 and 1 <= Lq <= 1024):
        return kw["coefficients"]
    n = (P + 1) // 2 * Lp + ((Q + 1) // 2 * Lq if Q else 0)
    return [1] + [0] * (n - 1)


def run_predistorter(factory, kw):
    if kw.get("coefficients") is PD_BASE["coefficients"]:
        kw = dict(kw, coefficients=ph_identity(kw))
        if isinstance(kw.get("model"), str) and kw["model"]:
            try:  # the coefficient count of the model probed (when it parses)
                kw["coefficients"] = [1] + [0] * (dm.parse(kw["model"]).num_coefficients - 1)
            except ValueError:
                pass
    return check_predistorter(factory(**kw))


def check_predistorter(pd):
    n, fs = pd.channels(), pd.full_scale()
    x = loop_xy()[0][:4000]
    xin = sc16(x, fs) if pd.input_format() == "sc16" else x
    per = 2 if pd.output_format() == "sc16" else 1  # vector_sink_s(2) hands back I and Q as two values
    ys = flow(pd, [xin] * n, n_out=n, out_sc16=per == 2)
    runtime_trouble()
    return first(*(nonfinite(f"output {c}", y) for c, y in enumerate(ys)),
                 nonfinite("coefficients()", pd.coefficients()), nonfinite("lo_leakage()", [pd.lo_leakage()]),
                 None if all(len(y) == 4000 * per for y in ys) else f"output lengths {[len(y) // per for y in ys]}")


PREDISTORTER = [
    ("P", integer(1, 15, lambda p: p % 2 == 1), [1, 5, 15, 17, 2, 5.0, np.uint32(3)]),
    ("Q", integer(0, 15, lambda q: q == 0 or q % 2 == 1), [1, 15, 2, 17]),
    ("Lp", integer(1, 1024), [1, 1024, 1025, 2.0]),
    ("Lq", integer(1, 1024), [1, 1024, 1025]),
    ("coefficients", lambda v: isinstance(v, (list, np.ndarray)) and len(v) == 4 and all(cplx()(e) for e in v)
     and all(abs(e) < 3e38 for e in v),
     [[1, 0, 0.1, 0], [1, 0, 0.1], [NAN, 0, 0, 0], [INF, 0, 0, 0], [1e38, 0, 0, 1e38], [1e300, 0, 0, 0],
      ["a"] * 4, [[1, 0], [0.1, 0]], np.array([1, 0, 0.1, 0], np.complex64), "abcd"]),
    ("lo_leakage", cplx(hi=3e38), [0.1j, complex(NAN, 0), 1e300, "1j"]),  # complex float
    ("backend", choice("automatic", "cpu", "cuda"), ["automatic", "cuda", "gpu", ""], ("cuda",)),
    ("device", integer(0, 2 ** 31 - 1), [1, 2 ** 31 - 1, 2 ** 31, 1.5]),
    ("batch", integer(0, 2 ** 31 - 1), [1, 4096, 2 ** 31 - 1, 2 ** 31, 1.5]),
    ("mapped", boolean, [False, "no", 1]),
    ("device_buffers", boolean, [False, "no", 1]),
    ("model", lambda v: isinstance(v, str) and v in ("", "mp:K=3,M=2", "ph:P=3,Q=0,Lp=2,Lq=1"),
     ["", "mp:K=3,M=2", "ph:P=3,Q=0,Lp=2,Lq=1", "mp:K=0,M=2", "bogus", GRU, "gmp:Ka=99"], ("coefficients", "weights")),
    ("channels", integer(1, 64), [1, 2, 64, 65, 2.0]),
    ("output_format", choice("fc32", "sc16"), ["fc32", "sc16", "sc8", "FC32"]),
    ("input_format", choice("fc32", "sc16"), ["fc32", "sc16", "sc8"]),
    ("full_scale", real(1.2e-38, 3.4e38, lo_open=True), [0.5, 32767, 1e-30, 3e38, 1e39]),
    ("weights", lambda v: isinstance(v, list) and not v, [[], [0.5] * 4, [NAN]], ("model",)),
]

PD_SETTERS = [
    ("set_coefficients", "coefficients", lambda v: isinstance(v, list) and len(v) == 4 and all(cplx()(e) for e in v),
     [[1, 0, 0.2, 0], [1, 0], [NAN, 0, 0, 0], ["a"] * 4], (), (0j,)),
    ("set_coefficients", "lo_leakage", lambda v: v is None or cplx(hi=3e38)(v), [0.1j, complex(NAN, 0)],
     ([1, 0, 0.2, 0],)),
    ("set_channel_coefficients", "channel", integer(0, 0), [1], (), ([1, 0, 0.2, 0], 0j)),
    ("set_batch", "batch", integer(0, 2 ** 31 - 1), [4096, 2 ** 31, 1.5]),
    ("set_cuda_variant", "variant", choice("automatic", "smem", "tiled", "compiled", "interpreted"),
     ["automatic", "smem", "tiled", "bogus"]),
    ("set_weights", "weights", lambda v: None if isinstance(v, list) and not v else False, [[0.5] * 4]),
    ("saturated", "channel", integer(0, 0), [1]),
    ("channel_coefficients", "channel", integer(0, 0), [1]),
]


def predistorter_cases():
    return block_cases(gpuinterp.dpd_predistorter_cc, run_predistorter, check_predistorter, PD_BASE,
                       PREDISTORTER, PD_SETTERS)


# -- dpd_estimator_cc -----------------------------------------------------------------------------
EST_BASE = {"P": 5, "Q": 0, "Lp": 3, "Lq": 1, "capture_length": 2048, "update_period": 2048, "max_delay": 64,
            "synchronous": True, "rx_timeout": 0, "backend": "cpu"}
STATUSES = {"calibrating", "updated", "rolled back", "refused"}


def run_estimator(factory, kw, tags=None):
    return check_estimator(factory(**kw), kw, tags)


def check_estimator(est, kw=EST_BASE, tags=None):
    if kw.get("learning") != "direct":  # a direct step takes seconds to minutes: built, not run
        x, y = loop_xy()
        ch = as_int(kw.get("channels", 1))
        xin = sc16(x, float(kw.get("tx_full_scale", 1.0))) if kw.get("tx_format") == "sc16" else x
        yin = sc16(y) if kw.get("rx_format") == "sc16" else y
        flow(est, [xin] * ch + [yin], n_out=0, tags={ch: tags} if tags else None)
        runtime_trouble()
    hist = est.history()
    odd = [r.status for r in hist if r.status not in STATUSES]
    stalled = kw.get("learning") != "direct" and est.status().startswith("no RX samples")
    return first(nonfinite("coefficients()", est.coefficients()), nonfinite("lo_leakage()", [est.lo_leakage()]),
                 f"statuses {odd}" if odd else None,
                 f"status() {est.status()!r} while both inputs flowed; steps {len(hist)}" if stalled else None)


def ident_ok(v):  # initial_coefficients: [] (identity) or the 9 coefficients of ph:P=5,Q=0,Lp=3,Lq=1, finite
    try:
        a = np.asarray(v, dtype=np.complex128)
    except (TypeError, ValueError):
        return False
    if isinstance(v, str) or a.ndim != 1 or a.size not in (0, 9) or not np.all(np.isfinite(a)):
        return False
    return True if a.size == 0 or abs(np.sum(np.abs(a) ** 2) - 1) < 1 else None  # gain within +-10 dB


ESTIMATOR = [
    ("P", integer(1, 15, lambda p: p % 2 == 1), [1, 3, 15, 17, 2, 5.0], ("capture_length",)),
    ("Q", integer(0, 15, lambda q: q == 0 or q % 2 == 1), [1, 15, 2, 17], ("capture_length",)),
    ("Lp", lambda v: True if integer(1, 64)(v) else None if integer(1, 1024)(v) else False, [1, 8, 1024, 1025],
     ("capture_length",)),
    ("Lq", integer(1, 1024), [1, 1024, 1025], ("capture_length",)),
    ("capture_length", integer(200, 2048), [1, 100, 200, 2048, 2049, 2 ** 26, 2 ** 26 + 1, 2048.0, 1000.5],
     ("update_period", "max_delay")),
    ("update_period", integer(2048, 2 ** 62), [2047, 2048, 2 ** 62, 2 ** 62 + 1, 4096.0]),
    ("damping", real(0, 1, lo_open=True), [1, 1.0001, 0.5, 1e-6]),
    ("target_gain", cplx(lo=1e-12, hi=1e12), [1, 1j, complex(NAN, 0), 1e-12, 1e12, 1e-30, 1e13, "1"]),
    ("regularization", lambda v: v is None or real(0)(v), [1e-3, 1e3, "gcv"]),
    ("lo_leakage", boolean, [False, "no", 1, np.bool_(False)]),
    ("max_delay", integer(0, 2047), [2047, 2048, 500]),
    ("rollback_tolerance_db", real(0), [100]),
    ("max_gain_db", real(0, lo_open=True), [0.01, 100]),
    ("max_updates", integer(0, 2 ** 62), [1, 2 ** 62, 2 ** 62 + 1, 2.5]),
    ("synchronous", boolean, [False, "no", 1]),
    ("initial_coefficients", ident_ok, [[1] + [0] * 8, [1] * 8, [NAN] * 9, [1e30] * 9, [0] * 9, ["a"] * 9,
                                        [[1] + [0] * 8], np.eye(1, 9)[0], "abc"]),
    ("initial_lo_leakage", cplx(), [0.01j, complex(0, NAN), 1e300j]),
    ("model", lambda v: isinstance(v, str) and v in ("", "mp:K=3,M=2", "ph:P=3,Q=0,Lp=2,Lq=1"),
     ["", "mp:K=3,M=2", "ph:P=3,Q=0,Lp=2,Lq=1", "bogus", "mp:K=0,M=2", GRU, "mp:K=15,M=200"], ("capture_length",)),
    ("rx_full_scale", real(0, lo_open=True), [0.01, 1e6]),
    ("rx_correction", boolean, [False, "no"]),
    ("track_frequency", boolean, [False, "no"]),
    ("sample_rate", real(0), [30.72e6, 1e12, 1e15]),
    ("signal_bandwidth", real(0), [18e6, 1e15], (), {"sample_rate": 30.72e6}),
    ("channel_spacing", real(0), [20e6, 1e15], (), {"sample_rate": 30.72e6, "signal_bandwidth": 18e6}),
    ("rx_timeout", real(0), [0.05, 5, 1e9]),
    ("backend", choice("automatic", "cpu", "cuda"), ["automatic", "cuda", "gpu"], ("cuda",)),
    ("device", integer(0, 1023), [1023, 1024]),
    ("tx_format", choice("fc32", "sc16"), ["fc32", "sc16", "sc8"]),
    ("rx_format", choice("fc32", "sc16"), ["fc32", "sc16", "sc8"]),
    ("tx_full_scale", real(0, lo_open=True), [0.5, 2]),
    ("channels", integer(1, 64), [2, 8, 64, 65]),
    ("settle", integer(0, 2 ** 62), [4096, 2 ** 62, 2 ** 62 + 1]),
    ("learning", choice("indirect", "direct"), ["indirect", "direct", "Direct"]),
    ("surrogate", lambda v: isinstance(v, str) and v in ("", GRU), ["", GRU, "bogus"], (), {"learning": "direct"}),
]

EST_SETTERS = [
    ("set_damping", "damping", real(0, 1, lo_open=True), [0.5, 1, 2]),
    ("set_update_period", "update_period", integer(2048, 2 ** 62), [2047, 4096, 2 ** 62 + 1, 4096.5]),
    ("coefficients", "channel", integer(0, 0), [1]),
    ("meter", "name", choice("rx_peak_dbfs", "loop_nmse_db"), ["rx_peak_dbfs", "loop_nmse_db", "bogus"]),
    ("meter", "channel", integer(0, 0), [1], ("rx_peak_dbfs",)),
]


def estimator_cases():
    return block_cases(gpuinterp.dpd_estimator_cc, run_estimator, check_estimator, EST_BASE, ESTIMATOR,
                       EST_SETTERS)
