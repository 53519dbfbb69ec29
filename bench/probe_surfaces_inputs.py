# SPDX-License-Identifier: GPL-3.0-or-later
"""Cases of probe_surfaces.py for what the DPD loop is handed rather than configured with: the
estimation kernels' arguments (dpd_gram, dpd_capture_kernel), model and coefficients files, the
``coeffs`` message (and the ``dpd_coeffs`` tag of the same forms), and radio tags into the estimator."""

import functools
import json
import os

import numpy as np
import pmt
from gnuradio import gr

from gnuradio import gpuinterp
from gnuradio.gpuinterp import dpd_model as dm

from probe_surfaces_blocks import EMU_BASE, EST_BASE, GRU, PA_BASE, check_emulator, check_estimator, check_pa, \
    check_predistorter
from probe_surfaces_util import (GENERIC, INF, NAN, Case, Logged, boolean, choice, cplx, expectation, first, flow, fmt,
                                 integer, log_since, loop_xy, nonfinite, real, show, unique)


def _cases(surface, label, names, domain, run, values):
    """One case per value of GENERIC and ``values``: run(value), shown as ``label`` with {v} filled in."""
    return [Case(surface, label.format(v=show(v)), names, expectation(domain, v), functools.partial(run, v))
            for v in unique(GENERIC + tuple(values))]


# -- dpd_gram ---------------------------------------------------------------------------------------
def gram_data(n=2000):
    rng = np.random.default_rng(1)
    y = 0.3 * (rng.standard_normal(n) + 1j * rng.standard_normal(n))
    return y, y * (1 - 0.1 * np.abs(y) ** 2)


UNSET = object()  # None is one of the values probed


def run_gram(model="mp:K=3,M=2", init=None, add=None, solve=None, forget=UNSET, y=UNSET, x=UNSET):
    y0, x0 = gram_data()
    g = gpuinterp.dpd_gram(model, **dict({"backend": "cpu"}, **(init or {})))
    g.add(y0 if y is UNSET else y, x0 if x is UNSET else x, **(add or {}))
    if forget is not UNSET:
        g.forget(forget)
    s = g.solve(**(solve or {}))
    return first(nonfinite("w", s["w"]), nonfinite("regularization", [s["regularization"]]),
                 nonfinite("fit_nmse_db", [s["fit_nmse_db"]]))


def gram_set(method, v):
    g = gpuinterp.dpd_gram("mp:K=3,M=2", backend="cpu")
    g.add(*gram_data())
    return nonfinite(method, getattr(g, method)(v))


def mask_ok(v):
    a = np.asarray(v) if isinstance(v, (list, np.ndarray)) else None
    ok = a is not None and a.shape == (2000,) and (a.dtype == bool or
                                                   (a.dtype.kind in "iu" and set(np.unique(a)) <= {0, 1}))
    return None if ok and not a.any() else ok  # no row selected: solve() refuses, naming fit_mask


def gram_cases():
    y, x = gram_data()
    spec = gpuinterp.dpd_model_spec.parse("mp:K=3,M=2")
    S = "dpd_gram"
    half = np.arange(2000) % 2 == 0
    ynan, xnan = y.copy(), x.copy()
    ynan[7], xnan[7] = np.nan, np.nan
    out = _cases(S, "dpd_gram({v}, backend='cpu')", ("model",),
                 lambda v: v is spec or (v in ("mp:K=3,M=2", "gmp:Ka=3,La=2", "ph:P=3,Q=0,Lp=2,Lq=1")
                                         if isinstance(v, str) else False),
                 lambda v: run_gram(model=v),
                 ["mp:K=3,M=2", "gmp:Ka=3,La=2", "ph:P=3,Q=0,Lp=2,Lq=1", spec, "", "bogus", "mp:K=0,M=2", GRU,
                  "mp:K=16,M=2"])
    for key, dom, vals, names in (("lo_leakage", boolean, [False, "yes", 1, np.bool_(True)], ("lo_leakage",)),
                                  ("backend", choice("automatic", "cpu", "cuda"), ["cpu", "automatic", "cuda", "gpu"],
                                   ("backend", "cuda")),
                                  ("device", integer(0, 2 ** 31 - 1), [1, 2 ** 31 - 1, 2 ** 31, 1.5], ("device",))):
        out += _cases(S, f"dpd_gram('mp:K=3,M=2', {key}={{v}}" + (", backend='cpu')" if key != "backend" else ")"),
                      names, dom, lambda v, key=key: run_gram(init={key: v}), vals)
    capture = lambda a: (isinstance(a, (np.ndarray, list)) and np.shape(a) == (2000,) and
                         np.asarray(a).dtype.kind == "c" and bool(np.all(np.isfinite(a))))
    # y: a capture; a real array of the right length is converted (all zeros: a singular fit; either)
    real_y = lambda a: isinstance(a, np.ndarray) and a.shape == (2000,) and a.dtype.kind in "fiu"
    out += _cases(S, "g.add(y={v}, x)", ("y", "x"), lambda a: True if capture(a) else None if real_y(a) else False,
                  lambda v: run_gram(y=v), [y, y[:10], y.reshape(40, 50), ynan, list(y), np.zeros(2000), ["a"] * 2000])
    out += _cases(S, "g.add(y, x={v})", ("x",), capture, lambda v: run_gram(x=v),
                  [x, x[:-1], xnan, x.astype(np.complex64)])
    masks = [half, half.astype(int), (np.arange(2000) % 3), half.astype(float), np.array(["a"] * 2000), half[:-1],
             half.reshape(40, 50), np.bool_(True), np.zeros(2000, bool), list(half)]
    for key in ("fit_mask", "val_mask"):
        out += _cases(S, f"g.add(y, x, {key}={{v}})", (key,), lambda v: v is None or mask_ok(v),
                      lambda v, key=key: run_gram(add={key: v}), masks)
    out += _cases(S, "g.add(y, x, history={v})", ("history",), integer(0, 1990), lambda v: run_gram(add={"history": v}),
                  [5, 1990, 2000, 2001, 1.5, 3.0])
    out += _cases(S, "g.solve(regularization={v})", ("regularization", "val_mask"),
                  lambda v: v is None or v in ("gcv",) or (real(0)(v) if not isinstance(v, str) else False),
                  lambda v: run_gram(solve={"regularization": v}),
                  [None, "gcv", "validation", "ridge", 1e-3, 1j, [1e-3], np.float32(1e-3)])
    out += _cases(S, "g.solve(grid={v})", ("grid",),
                  lambda v: v is None or (isinstance(v, (list, tuple, np.ndarray)) and len(v) > 0 and
                                          all(real(0, lo_open=True)(e) for e in v)
                                          and not any(isinstance(e, str) for e in v)),
                  lambda v: run_gram(solve={"grid": v}),
                  [None, [1e-3], [0], [-1], [NAN], [INF], [1e300], ["a"], "1e-3", 5, np.logspace(-6, 0, 5),
                   (1e-3, 1e-2)])
    out += _cases(S, "g.forget({v}) before solve()", ("factor",), real(0, 1, lo_open=True),
                  lambda v: run_gram(forget=v), [0.5, 1, 2, 1e-30])
    for method in ("gram", "rhs"):
        out += _cases(S, f"g.{method}({{v}})", ("set",), integer(0, 1), functools.partial(gram_set, method),
                      [1, 2, 1.0])
    return out


# -- dpd_capture_kernel -----------------------------------------------------------------------------
def run_align(kw, x=UNSET, y=UNSET, init=None):
    x0, y0 = loop_xy()
    cap = gpuinterp.dpd_capture_kernel(**dict({"backend": "cpu"}, **(init or {})))
    xa, yn, delay, gain, bad, rep = cap.align(x0[:4096] if x is UNSET else x, y0[:4096] if y is UNSET else y, **kw)
    return first(nonfinite("xa", xa), nonfinite("yn", yn), nonfinite("delay", [delay]), nonfinite("gain", [gain]),
                 "gain 0" if gain == 0 else None, None if np.asarray(bad).dtype == bool else "bad is not boolean")


def capture_cases():
    S = "dpd_capture_kernel"
    x, y = loop_xy()
    x, y = x[:4096], y[:4096]
    xnan = x.copy()
    xnan[100] = np.nan
    out = []
    for key, dom, vals, names in (("backend", choice("automatic", "cpu", "cuda"), ["automatic", "cuda", "gpu"],
                                   ("backend", "cuda")),
                                  ("device", integer(0, 2 ** 31 - 1), [1, 2 ** 31], ("device",))):
        out += _cases(S, f"dpd_capture_kernel({key}={{v}})", names, dom,
                      lambda v, key=key: run_align({}, init={key: v}), vals)
    opt = lambda d: lambda v: v is None or d(v)
    table = [
        ("full_scale", lambda v: None if real(0, 0.9, lo_open=True)(v) else opt(real(0, lo_open=True))(v),
         [None, 1.0, 2.0, 0.5], ("full_scale", "y")),  # a full scale below y's peak: y clips (refused, naming y)
        ("rx_correction", boolean, [False, "no", np.bool_(True)], ("rx_correction",)),
        ("track_frequency", boolean, [False, "no"], ("track_frequency",)),
        ("max_delay", lambda v: None if integer(4096, 2 ** 63)(v) else opt(integer(0, 4095))(v),
         [None, 64, 4095, 4096, 2 ** 62, 1.5], ("max_delay", "y")),  # beyond the capture: the whole capture
        ("delay", opt(real(-4096, 4096)), [None, 30, 30.4, 2000, -30], ("delay", "y")),
        ("condition", boolean, [False, "no"], ("condition",)),
        # below 1e-12: "zero" (refused, naming target_gain); beyond 1e12 the docs do not say
        ("gain", lambda v: None if cplx()(v) and not 1e-12 <= abs(v) <= 1e12 and v != 0 else opt(cplx(nonzero=True))(v),
         [None, 1, 1j, complex(NAN, 0), complex(INF, 0), 1e-30, "1"], ("gain",)),
        ("exclude", lambda v: v is None or (isinstance(v, np.ndarray) and v.shape == (4096,) and v.dtype.kind in "biu"
                                             and set(np.unique(v)) <= {0, 1} and not v.all()),
         [None, np.zeros(4096, bool), np.ones(4096, bool), np.zeros(10, bool), np.zeros(4096, int),
          np.full(4096, 0.5), np.array(["a"] * 4096)], ("exclude", "y")),
    ]
    for key, dom, vals, names in table:
        out += _cases(S, f"cap.align(x, y, {key}={{v}})", names, dom, lambda v, key=key: run_align({key: v}), vals)
    # without conditioning the delay is used as given, not as a hint
    out += _cases(S, "cap.align(x, y, condition=False, delay={v})", ("delay",), opt(real(-4096, 4096)),
                  lambda v: run_align({"condition": False, "delay": v}), [None, 30, 29.99, 5000, -30])
    ynan = y.copy()
    ynan[100] = np.nan
    # a capture: 4096 finite complex samples (all zeros: the docs do not say)
    ok = lambda a: (isinstance(a, (np.ndarray, list)) and np.shape(a) == (4096,) and np.asarray(a).dtype.kind == "c"
                    and bool(np.all(np.isfinite(a))) and (True if np.any(a) else None))
    for key, good, bad in (("x", x, xnan), ("y", y, ynan)):
        out += _cases(S, "cap.align(x={v}, y)" if key == "x" else "cap.align(x, y={v})", (key,), ok,
                      lambda v, key=key: run_align({}, **{key: v}),
                      [good, good[:10], good[:-1], bad, good.reshape(64, 64), np.zeros(4096, complex), list(good),
                       ["a"] * 4096])
    return out


# -- model and coefficients files -------------------------------------------------------------------
SPEC = "ph:P=5,Q=0,Lp=3,Lq=1"  # the estimator's base model


def make_fixtures(d):
    """The files the file cases read, in folder d (made once by the probe's main process)."""
    ident = np.zeros(9, complex)
    ident[0] = 1
    j = lambda *p: os.path.join(d, *p)
    os.mkfifo(j("fifo.json"))
    os.mkdir(j("folder.json"))
    open(j("empty.json"), "w").close()
    save = lambda name, spec, w, kind, c=0j: dm.save_model(j(name), dm.ModelFit(spec, np.asarray(w), c, kind=kind))
    save("pa.json", SPEC, ident * 0.9, "pa_model")
    save("good.json", SPEC, ident * 10 ** (1 / 20), "predistorter", 0.01j)
    save("loud.json", SPEC, ident * 10, "predistorter")
    save("huge.json", SPEC, np.where(np.arange(9) == 8, 1e30, ident), "predistorter")
    save("other.json", "mp:K=3,M=2", [1, 0, 0, 0, 0, 0], "predistorter")
    save("nan_null.json", SPEC, np.where(np.arange(9) == 4, np.nan, ident), "predistorter")
    w = np.random.default_rng(0).uniform(-0.1, 0.1, dm.parse(GRU).num_weights)
    dm.save_model(j("neural.json"), dm.ModelFit(GRU, np.zeros(0, complex), kind="predistorter", weights=w))
    doc = {"kind": "predistorter", "model": SPEC, "coefficients": [[1, 0]] + [[0, 0]] * 8, "lo_leakage": [0, 0]}
    for name, change in (("nan_literal.json", {"coefficients": [[NAN, 0]] + [[0, 0]] * 8}),
                         ("nan_lo.json", {"lo_leakage": [NAN, 0]}), ("short.json", {"coefficients": [[1, 0]] * 5}),
                         ("kind.json", {"kind": "bogus"}), ("unicode.json", {"model": "ph:P=\uff15,Q=0,Lp=3,Lq=1"}),
                         ("overflow.json", {"coefficients": [[1e39, 0]] + [[0, 0]] * 8})):
        with open(j(name), "w") as f:
            json.dump(dict(doc, **change), f)
    for name, text in (("text.json", "hello"), ("array.json", "[1, 2, 3]")):
        with open(j(name), "w") as f:
            f.write(text)
    with open(j("big.json"), "wb") as f:
        f.truncate(65 << 20)  # sparse: no disk used
    os.symlink(j("fifo.json"), j("fifo_link.json"))
    os.symlink(j("nowhere.json"), j("dangling.json"))


FILES = ["fifo.json", "fifo_link.json", "folder.json", "/dev/full", "/dev/zero", "/dev/null", "empty.json",
         "pa.json", "good.json", "loud.json", "huge.json", "other.json", "nan_null.json", "nan_literal.json",
         "nan_lo.json", "short.json", "kind.json", "unicode.json", "overflow.json", "neural.json", "text.json",
         "array.json", "big.json", "missing.json", "dangling.json", "new.json", "nodir/new.json"]
# The files each reader is documented to take (every other one must be refused); None: either.
# The estimator reads last: it writes its accepted updates to its file (good.json, new.json).
READERS = {
    "dpd_predistorter_from_file(...)": ({"good.json", "other.json", "neural.json", "loud.json"}, {"huge.json": None}),
    "pa_model_cc(model=...)": ({"pa.json"}, {}),
    "sdr_loopback_emulator_cc(pa_model=...)": ({"pa.json"}, {}),
    "dpd_model.load_model(...)": ({"pa.json", "good.json", "loud.json", "huge.json", "other.json", "neural.json"}, {}),
    "dpd_estimator_cc(coefficients_file=...)": ({"good.json", "new.json", "missing.json"}, {"nodir/new.json": None}),
}


def read_file(reader, path):
    if reader.startswith("dpd_estimator_cc"):
        return check_estimator(gpuinterp.dpd_estimator_cc(**dict(EST_BASE, coefficients_file=path)))
    if reader.startswith("dpd_predistorter_from_file"):
        return check_predistorter(gpuinterp.dpd_predistorter_from_file(path, backend="cpu"))
    if reader.startswith("pa_model_cc"):
        return check_pa(gpuinterp.pa_model_cc(model=path, **PA_BASE))
    if reader.startswith("sdr_loopback_emulator_cc"):
        return check_emulator(gpuinterp.sdr_loopback_emulator_cc(pa_model=path, **EMU_BASE))
    fit = dm.load_model(path)
    return nonfinite("coefficients", fit.coefficients) or nonfinite("lo_leakage", [fit.lo_leakage])


def file_cases(d):
    out = []
    for reader, (good, either) in READERS.items():
        for name in FILES:
            path = name if name.startswith("/") else os.path.join(d, name)
            if name.endswith("new.json") and not reader.startswith("dpd_estimator_cc"):
                continue  # only the estimator takes a file that does not exist yet (it writes it)
            expect = either.get(name, name in good)
            base = {"dpd_estimator_cc": EST_BASE, "pa_model_cc": PA_BASE, "sdr_loopback_emulator_cc": EMU_BASE,
                    "dpd_predistorter_from_file": {"backend": "cpu"}}.get(reader.split("(")[0], {})
            arg = reader.split("(")[1].rstrip(".)")
            call = reader.split("(")[0] + "(" + (f"{arg}{path!r}" if arg.endswith("=") else repr(path)) + \
                (", " + fmt(base) if base else "") + ")"
            out.append(Case("coefficients / model files", call, (path, os.path.basename(path)), expect,
                            functools.partial(read_file, reader, path)))
    return out


# -- the coeffs message and the dpd_coeffs tag ------------------------------------------------------
A, B = [1, 0, 0.1, 0], [0.9, 0.05, -0.1j, 0]


def c32(v):
    return pmt.init_c32vector(len(v), [complex(e) for e in v])


def pdict(**kv):
    d = pmt.make_dict()
    for k, v in kv.items():
        d = pmt.dict_add(d, pmt.intern(k), v)
    return d


def pvec(items):
    v = pmt.make_vector(len(items), pmt.PMT_NIL)
    for i, e in enumerate(items):
        pmt.vector_set(v, i, e)
    return v


NW = dm.parse(GRU).num_weights
W = [0.01 * ((i % 7) - 3) for i in range(NW)]
f32 = lambda v: pmt.init_f32vector(len(v), [float(e) for e in v])
# (label, message, the field a refusal must name, {channel: set it must hold afterwards} or None: refused)
POLY = [
    ("c32vector B", c32(B), "coefficients", {0: B}),
    ("c32vector of 3", c32(B[:3]), "coefficients", None), ("c32vector of 5", c32(B + [0]), "coefficients", None),
    ("empty c32vector", c32([]), "coefficients", None),
    ("c32vector with NaN", c32([NAN] + B[1:]), "coefficients", None),
    ("c32vector with inf", c32([INF] + B[1:]), "coefficients", None),
    ("c32vector of 1e38", c32([1e38] * 4), "coefficients", "either"),
    ("c64vector B", pmt.init_c64vector(4, [complex(e) for e in B]), "coefficients", {0: B}),
    ("f32vector (real coefficients)", f32([0.9, 0.05, 0.1, 0]), "coefficients", {0: [0.9, 0.05, 0.1, 0]}),
    ("PMT vector of numbers", pvec([pmt.from_complex(complex(e)) for e in B]), "coefficients", {0: B}),
    ("PMT vector with a symbol", pvec([pmt.intern("a")] * 4), "coefficients", None),
    ("pair (B . 0.1)", pmt.cons(c32(B), pmt.from_complex(0.1)), "lo_leakage", {0: B}),
    ("pair (B . symbol)", pmt.cons(c32(B), pmt.intern("x")), "lo_leakage", None),
    ("pair (B . NaN)", pmt.cons(c32(B), pmt.from_double(NAN)), "lo_leakage", None),
    ("dict coefficients + lo_leakage", pdict(coefficients=c32(B), lo_leakage=pmt.from_complex(0.2j)), "coefficients",
     {0: B}),
    ("dict coeffs + c", pdict(coeffs=c32(B), c=pmt.from_double(0.2)), "coefficients", {0: B}),
    ("dict channel long 0", pdict(coefficients=c32(B), channel=pmt.from_long(0)), "channel", {0: B}),
    ("dict channel uint64 0", pdict(coefficients=c32(B), channel=pmt.from_uint64(0)), "channel", {0: B}),
    ("dict channel double 0.0", pdict(coefficients=c32(B), channel=pmt.from_double(0.0)), "channel", {0: B}),
    ("dict channel double 1.5", pdict(coefficients=c32(B), channel=pmt.from_double(1.5)), "channel", None),
    ("dict channel NaN", pdict(coefficients=c32(B), channel=pmt.from_double(NAN)), "channel", None),
    ("dict channel 1e300", pdict(coefficients=c32(B), channel=pmt.from_double(1e300)), "channel", None),
    ("dict channel -1", pdict(coefficients=c32(B), channel=pmt.from_long(-1)), "channel", None),
    ("dict channel 1 (no such channel)", pdict(coefficients=c32(B), channel=pmt.from_long(1)), "channel", None),
    ("dict channel uint64 2**63", pdict(coefficients=c32(B), channel=pmt.from_uint64(2 ** 63)), "channel", None),
    ("dict channel symbol", pdict(coefficients=c32(B), channel=pmt.intern("one")), "channel", None),
    ("dict channel complex", pdict(coefficients=c32(B), channel=pmt.from_complex(1j)), "channel", None),
    ("dict with lo_leakage only", pdict(lo_leakage=pmt.from_complex(0.1)), "coefficients", None),
    ("dict with channel only", pdict(channel=pmt.from_long(0)), "coefficients", None),
    ("dict with weights (polynomial model)", pdict(weights=f32([0.5] * 4)), "weights", None),
    ("dict coefficients + weights", pdict(coefficients=c32(B), weights=f32([0.5] * 4)), "weights", None),
    ("dict coefficients: a symbol", pdict(coefficients=pmt.intern("x")), "coefficients", None),
    ("dict coefficients + unknown key", pdict(coefficients=c32(B), gain=pmt.from_double(2.0)), "gain", {0: B}),
    ("symbol", pmt.intern("hello"), "coefficients", None), ("PMT_NIL", pmt.PMT_NIL, "coefficients", None),
    ("double 1.0", pmt.from_double(1.0), "coefficients", None), ("PMT_T", pmt.PMT_T, "coefficients", None),
]
MULTI = [  # the same block with channels=2
    ("2 channels: dict channel 1", pdict(coefficients=c32(B), channel=pmt.from_long(1)), "channel", {0: A, 1: B}),
    ("2 channels: dict channel uint64 1", pdict(coefficients=c32(B), channel=pmt.from_uint64(1)), "channel",
     {0: A, 1: B}),
    ("2 channels: dict channel double 1.0", pdict(coefficients=c32(B), channel=pmt.from_double(1.0)), "channel",
     {0: A, 1: B}),
    ("2 channels: dict channel 2", pdict(coefficients=c32(B), channel=pmt.from_long(2)), "channel", None),
    ("2 channels: dict without channel", pdict(coefficients=c32(B)), "channel", {0: B, 1: B}),
    ("2 channels: c32vector", c32(B), "channel", {0: B, 1: B}),
]
NEURAL = [  # dpd_predistorter_cc(model=GRU, weights=W)
    ("gru: dict weights", pdict(weights=f32([-w for w in W])), "weights", {0: [-w for w in W]}),
    ("gru: f32vector alone", f32([-w for w in W]), "weights", {0: [-w for w in W]}),
    ("gru: weights one short", pdict(weights=f32(W[:-1])), "weights", None),
    ("gru: weights with NaN", pdict(weights=f32([NAN] + W[1:])), "weights", None),
    ("gru: complex coefficients", c32([0.5j] * NW), "weights", None),
    ("gru: weights + lo_leakage", pdict(weights=f32(W), lo_leakage=pmt.from_double(0.1)), "lo_leakage", None),
]


def run_message(label, msg, want, how):
    multi, neural = label.startswith("2 channels"), label.startswith("gru")
    kw = {"model": GRU, "weights": W} if neural else dict(P=3, Q=0, Lp=2, Lq=1, coefficients=A)
    pd = gpuinterp.dpd_predistorter_cc(backend="cpu", channels=2 if multi else 1, **kw)
    x = loop_xy()[0][:4000]
    if how == "message":
        pd._post(pmt.intern("coeffs"), msg)
        ys = flow(pd, [x] * pd.channels(), n_out=pd.channels())
    else:
        t = gr.tag_utils.python_to_tag((1000, pmt.intern("dpd_coeffs"), msg, pmt.intern("probe")))
        ys = flow(pd, [x] * pd.channels(), n_out=pd.channels(), tags={0: [t]})
    text = log_since()
    i = text.find("ignoring coefficient update")
    if i >= 0:
        raise Logged(text[i:text.find("\n", i)])
    got = {c: (pd.channel_weights(c) if neural else pd.channel_coefficients(c)) for c in range(pd.channels())}
    bad = first(*(nonfinite(f"output {c}", y) for c, y in enumerate(ys)))
    if bad or want in (None, "either"):
        return bad
    for c, w in want.items():
        if not np.allclose(got[c], np.asarray(w, np.complex64), atol=1e-6):
            return (f"channel {c} holds {show(list(np.round(got[c], 4)))}, not the set the message carried; "
                    "nothing logged")
    return None


def decode(msg):
    gpuinterp.decode_coeffs_message(msg)  # a parser: the length and finiteness are the receiver's to check


# The forms decode_coeffs_message() itself must refuse (the others it passes on to the receiver).
DECODE_REFUSES = {"PMT vector with a symbol", "pair (B . symbol)", "dict channel double 1.5", "dict channel NaN",
                  "dict channel -1", "dict channel symbol", "dict channel complex",
                  "dict with lo_leakage only", "dict with channel only", "dict coefficients + weights",
                  "dict coefficients: a symbol", "symbol", "PMT_NIL", "double 1.0", "PMT_T"}


def message_cases():
    out = []
    for label, msg, field, want in POLY + MULTI + NEURAL:
        for how in ("message", "tag"):
            w = want
            if how == "tag" and label.startswith("2 channels"):
                # a dpd_coeffs tag on input 0 switches channel 0 only; naming another channel is refused
                w = None if ("channel" in label.split(":")[1] and "without" not in label) else {0: B, 1: A}
            block = "2 channels" if label.startswith("2") else "gru" if label.startswith("gru") else "ph"
            call = (f"dpd_predistorter_cc({block}) "
                    f"{'coeffs message' if how == 'message' else 'dpd_coeffs tag at sample 1000'}: {label}")
            out.append(Case("coeffs message / dpd_coeffs tag", call, (field,), None if w == "either" else w is not None,
                            functools.partial(run_message, label, msg, w, how)))
        if not label.startswith(("2 channels", "gru")):
            passed_on = any(w in label for w in ("2**63", "1e300", "(B . NaN)", "weights (p"))  # the receiver's call
            expect = False if label in DECODE_REFUSES else None if passed_on else True
            out.append(Case("decode_coeffs_message", f"decode_coeffs_message({label})", (field,), expect,
                            functools.partial(decode, msg)))
    return out


# -- rx tags into the estimator ---------------------------------------------------------------------
FSR = 30.72e6
T1 = 2 * 2048 + 50


def tag(offset, key, value):
    return gr.tag_utils.python_to_tag((offset, pmt.intern(key), value, pmt.intern("probe")))


def rx_time(whole, frac):
    return pmt.make_tuple(pmt.from_uint64(whole), pmt.from_double(frac))


def run_tags(key, value):
    if key == "rx_time":
        tags, kw = [tag(0, key, rx_time(3, 0.0)), tag(T1, key, value)], dict(EST_BASE, sample_rate=FSR)
    else:
        tags = [tag(0, key, value), tag(2048 + 100, key, value)]
        kw = dict(EST_BASE, sample_rate=0.0) if key == "rx_rate" else EST_BASE
    problem = check_estimator(gpuinterp.dpd_estimator_cc(**kw), kw, tags)
    text = log_since()
    i = text.find(key)
    if i >= 0:
        j = text.rfind("\n", 0, i) + 1
        raise Logged(text[j:text.find("\n", i)])
    return problem


def tag_cases():
    D = pmt.from_double
    common = [("nan", D(NAN)), ("-1e6", D(-1e6)), ("0", D(0.0)), ("symbol", pmt.intern("fast")), ("1e300", D(1e300)),
              ("inf", D(INF)), ("long -5", pmt.from_long(-5)), ("PMT_NIL", pmt.PMT_NIL),
              ("pair", pmt.cons(D(FSR), pmt.PMT_NIL)), ("f32vector", f32([FSR]))]
    table = {
        "rx_rate": [("double 30.72e6", D(FSR), True), ("long 30720000", pmt.from_long(int(FSR)), True),
                    ("uint64 30720000", pmt.from_uint64(int(FSR)), True), ("1e12", D(1e12), True),
                    ("1.1e12", D(1.1e12), False)] + [(n, v, False) for n, v in common],
        "rx_freq": [("double 3.5e9", D(3.5e9), True), ("long 2400000000", pmt.from_long(2400000000), True),
                    ("-1e6", D(-1e6), True), ("0", D(0.0), True), ("long -5", pmt.from_long(-5), True),
                    ("1.1e12", D(1.1e12), False)] +
                   [(n, v, False) for n, v in common if n not in ("-1e6", "0", "long -5")],
        "rx_time": [("(uint64 3, T1/fs) consistent", rx_time(3, T1 / FSR), True),
                    ("(uint64 3, nan)", rx_time(3, NAN), False), ("(uint64 3, inf)", rx_time(3, INF), False),
                    ("(uint64 3, 1e300)", rx_time(3, 1e300), False), ("(uint64 3, -0.5)", rx_time(3, -0.5), False),
                    ("(uint64 2**64-1, 0.0)", rx_time(2 ** 64 - 1, 0.0), False),
                    ("(long 3, 0.0)", pmt.make_tuple(pmt.from_long(3), D(0.0)), False),
                    ("3-tuple", pmt.make_tuple(pmt.from_uint64(3), D(0.0), D(0.0)), False),
                    ("double 3.0", D(3.0), False), ("symbol", pmt.intern("now"), False),
                    ("PMT_NIL", pmt.PMT_NIL, False),
                    ("long 5", pmt.from_long(5), False)],
    }
    out = []
    for key, rows in table.items():
        for label, value, expect in rows:
            out.append(Case("rx tags into dpd_estimator_cc", f"{key} tag = {label}", (key,), expect,
                            functools.partial(run_tags, key, value)))
    return out


def all_cases(fixtures):
    from probe_surfaces_blocks import emulator_cases, estimator_cases, pa_cases, predistorter_cases
    return (emulator_cases() + pa_cases() + predistorter_cases() + estimator_cases() + gram_cases() +
            capture_cases() + file_cases(fixtures) + message_cases() + tag_cases())
