#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA of the resize_2d kernels and blocks against cv2.resize (float32, half_pixel, replicate) and an
independent numpy reference (dense per-axis interpolation matrices over an np.pad-ed frame) for the
other conventions and borders. CUDA cases run when a device is present."""

import time
import unittest

import os

import numpy as np
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp.qa_util import start_throttled

try:
    import cv2
except ImportError:  # Debian python3-opencv
    cv2 = None

BACKENDS = ["cpu"] + (["cuda"] if gpuinterp.cuda_device_count() > 0 else [])
METHODS = ["nearest", "bilinear", "bicubic"]
COORDS = ["half_pixel", "align_corners", "asymmetric"]
BORDERS = ["replicate", "reflect", "reflect_101", "constant"]
NP_PAD = {"replicate": "edge", "reflect": "symmetric", "reflect_101": "reflect", "constant": "constant"}
P = 4  # padding of the reference: every tap of every convention lies within 2 pixels of the frame


def keys(t, a=-0.75):
    t = np.abs(t)
    return np.where(t <= 1, (a + 2) * t**3 - (a + 3) * t**2 + 1,
                    np.where(t < 2, a * t**3 - 5 * a * t**2 + 8 * a * t - 4 * a, 0.0))


def axis_matrix(n_in, n_out, method, coord):
    """Dense (n_out, n_in + 2P) matrix: output o = sum of weights times the padded axis."""
    o = np.arange(n_out, dtype=np.float64)
    if coord == "half_pixel":
        s = (o + 0.5) * n_in / n_out - 0.5
    elif coord == "align_corners":
        s = o * (n_in - 1) / (n_out - 1) if n_out > 1 else np.zeros(n_out)
    else:
        s = o * n_in / n_out
    m = np.zeros((n_out, n_in + 2 * P))
    r = np.arange(n_out)
    if method == "nearest":
        if coord == "half_pixel":  # cv2 INTER_NEAREST, as OpenCV evaluates it
            i = np.minimum(np.floor(o * (1.0 / (n_out / n_in))).astype(int), n_in - 1)
        else:
            i = np.rint(s).astype(int)  # half to even
        m[r, i + P] = 1
        return m
    i0 = np.floor(s).astype(int)
    f = s - i0
    if method == "bilinear":
        np.add.at(m, (r, i0 + P), 1 - f)
        np.add.at(m, (r, i0 + 1 + P), f)
    else:
        for k in range(-1, 3):
            np.add.at(m, (r, i0 + k + P), keys(f - k))
    return m


def ref_resize(x, oh, ow, method="bilinear", coord="half_pixel", border="replicate", bv=0.0):
    """x: (H, W, C) -> (oh, ow, C) float64, the border-extended frame interpolated."""
    x = np.asarray(x, dtype=np.float64)
    kw = {"constant_values": bv} if border == "constant" else {}
    xp = np.pad(x, ((P, P), (P, P), (0, 0)), mode=NP_PAD[border], **kw)
    my = axis_matrix(x.shape[0], oh, method, coord)
    mx = axis_matrix(x.shape[1], ow, method, coord)
    return np.einsum("ab,bcz,dc->adz", my, xp, mx)


def ref_transform(v, mean, std, scale=1.0, clip=False, lo=0.0, hi=1.0):
    u = v * scale
    if clip:
        u = np.clip(u, lo, hi)
    return (u - np.asarray(mean if len(mean) else [0.0])) / np.asarray(std if len(std) else [1.0])


def frames3(x, c):
    """(H, W) or (H, W, C) view as (H, W, C)."""
    return x.reshape(x.shape[0], x.shape[1], c)


class qa_resize_2d(gr_unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(2026)

    def rand(self, *shape):
        return self.rng.uniform(0.05, 1.0, shape).astype(np.float32)  # never zero

    # ---- kernel vs cv2 ----
    @unittest.skipIf(cv2 is None, "python3-opencv not installed")
    def test_001_cv2_half_pixel_replicate_float32(self):
        interp = {"nearest": cv2.INTER_NEAREST if cv2 else 0, "bilinear": cv2.INTER_LINEAR if cv2 else 0,
                  "bicubic": cv2.INTER_CUBIC if cv2 else 0}
        sizes = [((37, 53), (80, 111)),  # up
                 ((80, 111), (37, 53)),  # down
                 ((17, 9), (25, 31)),    # odd, mixed
                 ((64, 48), (32, 24)),   # exact 2x down (cv2 switches to INTER_AREA: same values)
                 ((1, 29), (1, 64)),     # 1xN
                 ((29, 1), (64, 1)),     # Nx1
                 ((1, 40), (3, 17)),
                 ((45, 1), (12, 5))]
        for b in BACKENDS:
            for method in METHODS:
                for (ih, iw), (oh, ow) in sizes:
                    for c in (1, 3):
                        x = self.rand(ih, iw, c) if c > 1 else self.rand(ih, iw)
                        k = gpuinterp.resize_2d_kernel_f(ih, iw, oh, ow, c, method, backend=b)
                        got = k.resize(x)
                        want = cv2.resize(x, (ow, oh), interpolation=interp[method])
                        want = want.reshape(got.shape)
                        # cv2 rounds the source coordinate to float32 (we keep it in double): the
                        # weights differ by up to ulp(coordinate) ~ 1e-5 at these sizes.
                        tol = 0 if method == "nearest" else 5e-5
                        err = np.max(np.abs(got - want))
                        self.assertLessEqual(err, tol, f"{b} {method} {ih}x{iw}->{oh}x{ow} C={c}: {err}")

    # ---- kernel vs numpy, every convention and border ----
    def test_002_numpy_reference_all_conventions(self):
        sizes = [((7, 9), (12, 5)), ((6, 5), (3, 13)), ((1, 6), (4, 9)), ((5, 1), (2, 7)), ((2, 3), (9, 8))]
        for b in BACKENDS:
            for method in METHODS:
                for coord in COORDS:
                    for border in BORDERS:
                        for (ih, iw), (oh, ow) in sizes:
                            c = 2
                            bv = float(self.rng.uniform(-2, 2))
                            x = self.rand(ih, iw, c)
                            k = gpuinterp.resize_2d_kernel_f(ih, iw, oh, ow, c, method, coord, border, bv, backend=b)
                            got = k.resize(x)
                            want = ref_resize(x, oh, ow, method, coord, border, bv)
                            np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-6,
                                                       err_msg=f"{b} {method} {coord} {border} {ih}x{iw}->{oh}x{ow}")

    def test_003_uint8_input(self):
        for b in BACKENDS:
            for method in METHODS:
                x = self.rng.integers(1, 256, (31, 22, 3), dtype=np.uint8)
                k = gpuinterp.resize_2d_kernel_b(31, 22, 50, 13, 3, method, "half_pixel", "reflect_101", backend=b)
                got = k.resize(x)
                self.assertEqual(got.dtype, np.float32)
                want = ref_resize(x.astype(np.float64), 50, 13, method, "half_pixel", "reflect_101")
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3)
                if cv2 is not None:  # cv2 on the same frame as float32 (its uint8 path is fixed point)
                    interp = {"nearest": cv2.INTER_NEAREST, "bilinear": cv2.INTER_LINEAR, "bicubic": cv2.INTER_CUBIC}
                    k2 = gpuinterp.resize_2d_kernel_b(31, 22, 50, 13, 3, method, backend=b)
                    c2 = cv2.resize(x.astype(np.float32), (13, 50), interpolation=interp[method])
                    np.testing.assert_allclose(k2.resize(x), c2, rtol=0, atol=255 * 5e-5)

    def test_004_fused_normalise_equals_separate_steps(self):
        mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
        for b in BACKENDS:
            for method in METHODS:
                for clip in (False, True):
                    x = self.rng.integers(1, 256, (4, 40, 30, 3), dtype=np.uint8)
                    plain = gpuinterp.resize_2d_kernel_b(40, 30, 24, 24, 3, method, backend=b)
                    fused = gpuinterp.resize_2d_kernel_b(40, 30, 24, 24, 3, method, mean=mean, std=std,
                                                         scale=1 / 255, clip=clip, clip_min=0, clip_max=1,
                                                         backend=b)
                    sep = ref_transform(plain.resize(x).astype(np.float64), mean, std, 1 / 255, clip, 0, 1)
                    np.testing.assert_allclose(fused.resize(x), sep, rtol=1e-5, atol=1e-5)
                    if method == "bicubic" and clip:  # the overshoot really was clipped
                        self.assertGreater(np.max(plain.resize(x)), 255.0)
                        self.assertLessEqual(np.max(fused.resize(x)), (1 - min(mean)) / min(std) + 1e-5)

    def test_005_many_frames_per_call(self):
        for b in BACKENDS:
            x = self.rand(23, 17, 29)
            k = gpuinterp.resize_2d_kernel_f(17, 29, 8, 64, 1, "bicubic", mean=[0.5], std=[0.2], backend=b, batch=5)
            got = k.resize(x)
            self.assertEqual(got.shape, (23, 8, 64))
            for f in range(23):
                want = ref_transform(ref_resize(x[f][:, :, None], 8, 64, "bicubic")[:, :, 0], [0.5], [0.2])
                np.testing.assert_allclose(got[f], want, rtol=1e-5, atol=1e-5)
            flat = k.resize(x.ravel())  # a vector stream's view: whole frames back to back
            np.testing.assert_array_equal(flat, got.ravel())
            out = np.full((23, 8, 64), np.nan, np.float32)  # caller-owned output, poisoned
            self.assertIs(k.resize(x, out=out), out)
            np.testing.assert_array_equal(out, got)
            out16 = np.full(23 * 8 * 64, np.nan, np.float16)
            k.resize(x, half=True, out=out16)
            np.testing.assert_array_equal(out16, got.ravel().astype(np.float16))
            with self.assertRaises(ValueError):
                k.resize(x, out=np.zeros((23, 8, 63), np.float32))

    def test_006_half_output_within_1e3_relative(self):
        for b in BACKENDS:
            x = self.rand(3, 30, 40, 3)
            k = gpuinterp.resize_2d_kernel_f(30, 40, 61, 17, 3, "bicubic", mean=[0.5], std=[0.003], backend=b)
            f32 = k.resize(x)
            f16 = k.resize(x, half=True)
            self.assertEqual(f16.dtype, np.float16)
            self.assertGreater(np.max(np.abs(f32)), 100)  # exercises the exponent range
            np.testing.assert_array_less(np.abs(f16.astype(np.float32) - f32), 1e-3 * np.abs(f32) + 6e-8)
            np.testing.assert_array_equal(f16, f32.astype(np.float16))  # round to nearest even

    def test_007_bad_parameters(self):
        def raises(name, fn):
            with self.assertRaises(ValueError) as cm:
                fn()
            self.assertTrue(str(cm.exception).startswith(name), f"'{cm.exception}' should start with {name}")
        raises("in_height", lambda: gpuinterp.resize_2d_ff(0, 4, 4, 4))
        raises("in_width", lambda: gpuinterp.resize_2d_ff(4, -3, 4, 4))
        raises("out_height", lambda: gpuinterp.resize_2d_ff(4, 4, 0, 4))
        raises("out_width", lambda: gpuinterp.resize_2d_bf(4, 4, 4, 0))
        raises("channels", lambda: gpuinterp.resize_2d_ff(4, 4, 4, 4, channels=5))
        raises("method", lambda: gpuinterp.resize_2d_ff(4, 4, 4, 4, method="area"))
        raises("coord", lambda: gpuinterp.resize_2d_ff(4, 4, 4, 4, coord="center"))
        raises("border", lambda: gpuinterp.resize_2d_ff(4, 4, 4, 4, border="wrap"))
        raises("std", lambda: gpuinterp.resize_2d_ff(4, 4, 4, 4, std=[0.0]))
        raises("std", lambda: gpuinterp.resize_2d_ff(4, 4, 4, 4, channels=3, mean=[0.1, 0.2, 0.3], std=[1.0, 2.0]))
        raises("mean", lambda: gpuinterp.resize_2d_ff(4, 4, 4, 4, channels=3, mean=[0.1, 0.2]))
        raises("scale", lambda: gpuinterp.resize_2d_ff(4, 4, 4, 4, scale=0.0))
        raises("clip_min", lambda: gpuinterp.resize_2d_ff(4, 4, 4, 4, clip=True, clip_min=1.0, clip_max=0.0))
        raises("backend", lambda: gpuinterp.resize_2d_ff(4, 4, 4, 4, backend="opencl"))
        raises("batch", lambda: gpuinterp.resize_2d_ff(4, 4, 4, 4, batch=-1))
        blk = gpuinterp.resize_2d_ff(4, 4, 4, 4, channels=2)
        raises("std", lambda: blk.set_normalization([0.0, 0.0], [1.0, 0.0]))
        raises("method", lambda: blk.set_method("lanczos"))
        raises("x", lambda: gpuinterp.resize_2d_kernel_f(4, 5, 2, 2).resize(np.ones((5, 4), np.float32)))
        raises("x", lambda: gpuinterp.resize_2d_kernel_f(4, 5, 2, 2).resize(np.ones(21, np.float32)))
        # a stream whose vector length is not the frame size cannot be connected
        tb = gr.top_block()
        with self.assertRaises((ValueError, RuntimeError)):
            tb.connect(blocks.vector_source_f([0.0] * 30, False, 30), gpuinterp.resize_2d_ff(4, 4, 2, 2, channels=2))

    # ---- blocks in flowgraphs ----
    def run_fg(self, blk, frames, in_len, out_len, vsrc, vsink, tags=()):
        tb = gr.top_block()
        src = vsrc(frames.ravel().tolist(), False, in_len, list(tags))
        snk = vsink(out_len)
        tb.connect(src, blk, snk)
        tb.run()
        return np.array(snk.data()), snk.tags()

    def test_008_block_ff_with_tags(self):
        for b in BACKENDS:
            x = self.rand(40, 12, 18, 2)
            blk = gpuinterp.resize_2d_ff(12, 18, 7, 25, 2, "bilinear", "align_corners", "constant", 0.3,
                                         mean=[0.2, 0.4], std=[0.5, 2.0], backend=b)
            tag = gr.tag_utils.python_to_tag((17, gr.pmt.intern("frame"), gr.pmt.from_long(17)))
            y, tags = self.run_fg(blk, x, 12 * 18 * 2, 7 * 25 * 2, blocks.vector_source_f, blocks.vector_sink_f,
                                  [tag])
            y = y.reshape(40, 7, 25, 2)
            for f in range(40):
                want = ref_transform(ref_resize(x[f], 7, 25, "bilinear", "align_corners", "constant", 0.3),
                                     [0.2, 0.4], [0.5, 2.0])
                np.testing.assert_allclose(y[f], want, rtol=1e-5, atol=1e-5)
            self.assertEqual([t.offset for t in tags], [17])
            self.assertEqual(blk.active_backend(), b)

    def test_009_block_bf_half_output(self):
        for b in BACKENDS:
            x = self.rng.integers(1, 256, (9, 16, 20), dtype=np.uint8)
            blk = gpuinterp.resize_2d_bf(16, 20, 33, 10, 1, "bicubic", mean=[0.5], std=[0.25], scale=1 / 255,
                                         half_output=True, backend=b)
            # binary16 items travel as 2-byte vectors; a short sink carries them unchanged
            y, _ = self.run_fg(blk, x, 16 * 20, 33 * 10, blocks.vector_source_b, blocks.vector_sink_s)
            y = y.astype(np.int16).view(np.float16).astype(np.float32).reshape(9, 33, 10)
            for f in range(9):
                want = ref_transform(ref_resize(x[f][:, :, None], 33, 10, "bicubic")[:, :, 0], [0.5], [0.25], 1 / 255)
                np.testing.assert_array_less(np.abs(y[f] - want), 1e-3 * np.abs(want) + 1e-5)

    def test_010_setters_while_running(self):
        # Each frame must come out entirely with the old or entirely with the new normalisation
        # (a change lands between work() calls), and the new one must be in effect at the end.
        for b in BACKENDS:
            n = 3000
            x = self.rand(1, 6, 8).repeat(n, axis=0)
            blk = gpuinterp.resize_2d_ff(6, 8, 5, 5, 1, "bilinear", mean=[0.0], std=[1.0], backend=b)
            tb, snk = start_throttled(blk, x, 20000, vlen_in=48, vlen_out=25)
            # Set once frames flow (a fixed sleep lost the race on a loaded machine: the change
            # then landed before the first frame).
            deadline = time.monotonic() + 10
            while len(snk.data()) < 10 * 25 and time.monotonic() < deadline:
                time.sleep(0.002)
            blk.set_normalization([1.0], [0.5])
            blk.set_border_value(2.0)  # replicate border: no effect on values, must not disturb
            tb.wait()
            y = np.array(snk.data()).reshape(n, 5, 5)
            base = ref_resize(x[0][:, :, None], 5, 5)[:, :, 0]
            old, new = base, (base - 1.0) / 0.5
            is_old = np.all(np.abs(y - old) < 1e-5, axis=(1, 2))
            is_new = np.all(np.abs(y - new) < 1e-5, axis=(1, 2))
            self.assertTrue(np.all(is_old | is_new))
            self.assertTrue(is_old[0] and is_new[-1], "the change must land mid-stream")
            first_new = np.argmax(is_new)
            self.assertTrue(np.all(is_new[first_new:]), "no frame may revert to the old setting")
            self.assertEqual(list(blk.mean()), [1.0])

    def test_012_spectrogram_example(self):
        # The example end to end (2 frames, CPU): its output frames equal the kernel applied to its
        # own log-power frames, and it writes the PNG.
        import runpy
        import tempfile
        src = os.environ.get("GPUINTERP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
        ex = runpy.run_path(os.path.join(src, "examples", "spectrogram_resize.py"))
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "frames.f32")
            tb = ex["spectrogram_resize"](frames=2, backend="cpu", output=out, mean=-60.0, std=25.0)
            tb.run()
            before, after = tb.frames_before(), tb.frames_after()
            self.assertEqual(before.shape, (2, 256, 512))
            self.assertEqual(after.shape, (2, 224, 224))
            k = gpuinterp.resize_2d_kernel_f(256, 512, 224, 224, mean=[-60.0], std=[25.0])
            np.testing.assert_allclose(after, k.resize(before), rtol=1e-6, atol=1e-6)
            np.testing.assert_array_equal(np.fromfile(out, np.float32).reshape(after.shape), after)
            self.assertGreater(before.max() - np.median(before), 20)  # the tones stand above the noise
            png = os.path.join(d, "s.png")
            ex["save_png"](before[0], after[0], png, "cpu")
            self.assertGreater(os.path.getsize(png), 10000)

    def test_011_empty_input(self):
        blk = gpuinterp.resize_2d_ff(4, 4, 8, 8)
        y, _ = self.run_fg(blk, np.zeros(0, np.float32), 16, 64, blocks.vector_source_f, blocks.vector_sink_f)
        self.assertEqual(len(y), 0)


if __name__ == "__main__":
    gr_unittest.run(qa_resize_2d)
