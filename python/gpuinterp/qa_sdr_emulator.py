#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA for gpuinterp.sdr_loopback_emulator_cc: each impairment alone (every other one off) against an
independent numpy computation, the gr-uhd style rx_time/rx_rate/rx_freq tags and sample drops, noise
levels, parameter validation, and the default (realistic) emulator end to end."""

import json
import math
import os
import tempfile
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpuinterp
from gnuradio.gpuinterp import dpd, dpd_model, sdr_emulator
from gnuradio.gpuinterp.reference import seeded_case

FD = sdr_emulator.FD_DELAY
# A PA that is exactly linear: Rapp with a saturation no sample comes near ((|x|/1e6)^4 vanishes
# against 1 in double precision).
LINEAR_PA = {"model": "rapp", "rapp_saturation": 1e6}


def ideal(**kwargs):
    """An emulator with every impairment off; kwargs switch single ones on."""
    args = dict(pa_model=LINEAR_PA, tx_sc16=False, latency=0, lo_phase_deg=0, phase_noise_deg=0,
                noise_dbfs=-math.inf, iq_imbalance_db=0, iq_imbalance_deg=0, dc_offset=0, adc_bits=0)
    args.update(kwargs)
    return gpuinterp.sdr_loopback_emulator_cc(**args)


def run(emu, x, tags=()):
    tb = gr.top_block()
    src = blocks.vector_source_c(np.asarray(x, dtype=np.complex64).tolist(), False, 1, list(tags))
    snk = blocks.vector_sink_c()
    tb.connect(src, emu, snk)
    tb.run()
    return np.array(snk.data(), dtype=np.complex128), snk.tags()


# At the end of a finite input GNU Radio's aligned two-input blocks may keep up to 7 samples (see the
# sdr_emulator docstring).
TAIL = 7


def make_tag(offset, key, value=pmt.PMT_T):
    t = gr.tag_t()
    t.offset = offset
    t.key = pmt.intern(key)
    t.value = value
    return t


def tags_by_key(tags, key):
    return [(t.offset, t.value) for t in tags if pmt.symbol_to_string(t.key) == key]


def uhd_time(value):
    return pmt.to_uint64(pmt.tuple_ref(value, 0)), pmt.to_double(pmt.tuple_ref(value, 1))


class qa_sdr_emulator(seeded_case, gr_unittest.TestCase):
    seed = 7
    rand_scale = 0.1

    def assertLength(self, y, expected, msg=None):
        self.assertLessEqual(len(y), expected, msg)
        self.assertGreaterEqual(len(y), expected - TAIL, msg)

    def assertClose(self, y, ref, atol):
        """y equals ref, of which up to TAIL samples at the end may be missing."""
        self.assertLength(y, len(ref))
        np.testing.assert_allclose(y, np.asarray(ref)[:len(y)], rtol=0, atol=atol)

    def bandlimited_periodic(self, period, band=0.4, scale=0.2):
        """A periodic random signal with no energy beyond +-band * fs, and its exact band-limited
        delay by d samples (a phase ramp on its DFT)."""
        X = np.fft.fft(self.rand_c(period))
        f = np.fft.fftfreq(period)
        X[np.abs(f) > band] = 0
        x = np.fft.ifft(X)
        x *= scale / np.sqrt(np.mean(np.abs(x) ** 2))

        def delayed(d):
            return np.fft.ifft(np.fft.fft(x) * np.exp(-2j * np.pi * f * d))
        return x, delayed

    # ---------------------------------------------------------------- latency

    def test_fractional_delay_filter_accuracy(self):
        # The design claim of sdr_emulator.fractional_delay_taps: error below -70 dB within +-0.4 fs.
        f = np.linspace(-0.4, 0.4, 801)
        worst = 0.0
        for frac in np.linspace(0, 1, 41, endpoint=False):
            h = sdr_emulator.fractional_delay_taps(frac)
            H = np.exp(-2j * np.pi * np.outer(f, np.arange(h.size))) @ h
            worst = max(worst, np.max(np.abs(H - np.exp(-2j * np.pi * f * (FD + frac)))))
        self.assertLess(20 * math.log10(worst), -70)
        # A whole number of samples is a pure delay.
        np.testing.assert_array_equal(sdr_emulator.fractional_delay_taps(0.0), np.eye(2 * FD + 2)[FD])

    def test_ideal_is_identity(self):
        # Latency 0 is below FD: the emulator skips FD samples, so FD fewer come out.
        x = self.rand_c(3000)
        y, tags = run(ideal(), x)
        self.assertLength(y, len(x) - FD)
        np.testing.assert_array_equal(y, x[:len(y)].astype(np.complex64))

    def test_latency(self):
        P = 2048
        x, delayed = self.bandlimited_periodic(P)
        xin = np.tile(x, 3)
        for latency in (57, 100.37, 5.25, 0.5, 16.999):
            y, _ = run(ideal(latency=latency), xin)
            # Below FD the first FD outputs of the fractional-delay filter are skipped.
            self.assertLength(y, xin.size - (FD if latency < FD else 0), latency)
            # Compare one period taken where the filter's history holds the periodic signal only.
            start = P + math.ceil(latency)
            got = y[start:start + P]
            ref = np.roll(delayed(latency), -start)[:P]
            err_db = 10 * math.log10(np.mean(np.abs(got - ref) ** 2) / np.mean(np.abs(ref) ** 2))
            self.assertLess(err_db, -70, latency)
            if latency == int(latency):
                np.testing.assert_allclose(got, ref, atol=1e-6)

    def test_set_latency(self):
        x, delayed = self.bandlimited_periodic(1024)
        xin = np.tile(x, 3)
        emu = ideal(latency=3000.5)
        self.assertEqual(emu.min_latency(), FD)
        with self.assertRaisesRegex(ValueError, "^latency:"):
            emu.set_latency(FD - 1)
        emu.set_latency(40.25)  # a restart with a new latency, before the samples arrive
        self.assertEqual(emu.latency(), 40.25)
        y, _ = run(emu, xin)
        self.assertLength(y, xin.size)
        ref = np.roll(delayed(40.25), -(1024 + 41))[:1024]
        np.testing.assert_allclose(y[1024 + 41:2048 + 41], ref, atol=1e-4)
        low = ideal(latency=3)
        self.assertEqual(low.min_latency(), 0)
        low.set_latency(0)

    def test_set_latency_while_running(self):
        # A restart with a new latency: before the switch the output is x delayed by L1, after it by
        # L2 (the delay line dropped the samples it held beyond L2; the FIR took the new fraction).
        P, n, L1, L2 = 4096, 1 << 20, 300.25, 120.5
        x, delayed = self.bandlimited_periodic(P)
        emu = ideal(latency=L1)
        tb = gr.top_block()
        src = blocks.vector_source_c(np.tile(x, n // P).astype(np.complex64).tolist())
        snk = blocks.vector_sink_c()
        tb.connect(src, emu, snk)
        tb.start()
        while emu._tagger.nitems_read(0) < 50000:
            time.sleep(0.002)
        emu.set_latency(L2)
        switched_by = emu._tagger.nitems_read(0)
        tb.wait()
        self.assertLess(switched_by, n // 2, "the flowgraph ran through before the switch")
        y = np.array(snk.data(), dtype=np.complex128)
        self.assertLength(y, n)  # a sync delay line: the stream skips ahead, its length stays

        def err_db(start, ref_delay):
            got = y[start:start + P]
            ref = np.roll(delayed(ref_delay), -start)[:P]
            return 10 * math.log10(np.mean(np.abs(got - ref) ** 2) / np.mean(np.abs(ref) ** 2))
        self.assertLess(err_db(2 * P, L1), -70)
        self.assertLess(err_db(len(y) - 2 * P, L2), -70)
        self.assertEqual(emu.latency(), L2)

    def test_fitted_pa_model_file(self):
        # A PA model fitted from captures (here of a linear PA with gain 0.5 + 0.2j) runs as the PA.
        g = 0.5 + 0.2j
        xt = self.rand_c(8000)
        fit = dpd.fit_forward(xt, g * xt, "mp:K=3,M=2")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "pa.json")
            dpd_model.save_model(path, fit)
            x = self.rand_c(3000)
            y, _ = run(ideal(latency=FD, pa_model=path, backend="cpu"), x)
        self.assertClose(y, np.concatenate([np.zeros(FD), g * x[:-FD]]), 1e-4)

    def test_measured_pa_model_file(self):
        # The neural PA model shipped for OpenDPD's APA_200MHz (a measured PA): the emulator runs it
        # with the module's kernel, and its output is that model's float64 forward pass (numpy, with
        # the weights read straight from the JSON) delayed by the model's look-ahead and the latency.
        src = os.environ.get("GPUINTERP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
        path = os.path.join(src, "data", "models", "pa_apa200_gru_s0.json")
        from qa_neural_models import delayed, numpy_forward  # noqa: E402 (this folder's float64 reference)
        with open(path) as f:
            doc = json.load(f)
        x = 0.3 * self.rand_c(3000)
        y, _ = run(ideal(latency=FD, pa_model=path, backend="cpu"), x)
        la = dpd_model.parse(doc["model"]).lookahead
        want = delayed(numpy_forward(doc["model"], np.asarray(doc["weights"]), x), la + FD)
        err = np.max(np.abs(y - want)) / np.sqrt(np.mean(np.abs(want) ** 2))
        self.assertLess(err, 1e-5)  # float32 kernel against float64, the neural kernels' bound

    # ---------------------------------------------------------------- LO

    def test_lo_phase(self):
        x = self.rand_c(2000)
        y, _ = run(ideal(latency=FD, lo_phase_deg=-71.5), x)
        ref = np.concatenate([np.zeros(FD), x[:-FD]]) * np.exp(1j * math.radians(-71.5))
        self.assertClose(y, ref, 1e-6)

    def test_frequency_offset_and_drift(self):
        fs, f0, drift, phi = 1e6, 12345.6, 2e7, 33.0
        x = self.rand_c(6000)
        for d in (0.0, drift):
            emu = ideal(latency=FD, sample_rate=fs, freq_offset_hz=f0, lo_drift_hz_per_s=d, lo_phase_deg=phi)
            y, _ = run(emu, x)
            t = np.arange(x.size) / fs
            lo = np.exp(1j * (math.radians(phi) + 2 * np.pi * (f0 * t + 0.5 * d * t * t)))
            ref = np.concatenate([np.zeros(FD), x[:-FD]]) * lo
            self.assertClose(y, ref, 2e-6)

    def test_clock_offset(self):
        # A tone at f (cycles per TX sample) arrives at f / (1 + ppm 1e-6) per RX sample, and
        # 1 + ppm 1e-6 RX samples come out per TX sample.
        ppm, f, n = 1000.0, 0.01, 40000
        x = 0.5 * np.exp(2j * np.pi * f * np.arange(n))
        y, _ = run(ideal(latency=FD, clock_offset_ppm=ppm), x)
        # 40 more samples, less the resampler's few samples of start-up.
        self.assertAlmostEqual(len(y) - n, n * ppm * 1e-6, delta=12)
        seg = y[1000:len(y) - 1000]
        f_rx = np.polyfit(np.arange(seg.size), np.unwrap(np.angle(seg)), 1)[0] / (2 * np.pi)
        self.assertAlmostEqual(f_rx / (f / (1 + ppm * 1e-6)), 1.0, delta=2e-6)

    # ---------------------------------------------------------------- RX front end

    def test_iq_imbalance(self):
        # channels.iqbal_gen, RX mode: I' = 10^(dB/20) (cos(phi) I + sin(phi) Q), Q' = Q.
        x = self.rand_c(2000)
        db, deg = 0.8, -4.0
        y, _ = run(ideal(latency=FD, iq_imbalance_db=db, iq_imbalance_deg=deg), x)
        xd = np.concatenate([np.zeros(FD), x[:-FD]])
        ph = math.radians(deg)
        ref = 10 ** (db / 20) * (math.cos(ph) * xd.real + math.sin(ph) * xd.imag) + 1j * xd.imag
        self.assertClose(y, ref, 1e-6)

    def test_dc_offset(self):
        x = self.rand_c(1000)
        dc = 0.01 - 0.02j
        y, _ = run(ideal(latency=FD, dc_offset=dc), x)
        self.assertClose(y, np.concatenate([np.zeros(FD), x[:-FD]]) + dc, 1e-7)

    def test_adc_clipping_and_quantisation(self):
        fs, bits = 0.5, 8
        x = self.rng.uniform(-0.7, 0.7, 4000) + 1j * self.rng.uniform(-0.7, 0.7, 4000)
        x = x.astype(np.complex64)
        emu = ideal(latency=FD, rx_full_scale=fs, adc_bits=bits)
        y, _ = run(emu, x)
        xd = np.concatenate([np.zeros(FD), x[:-FD]]).astype(np.complex64)
        step = fs / 2 ** (bits - 1)

        def adc(v):
            v = np.clip(v.astype(np.float64), -fs, fs)
            return np.clip(np.rint(v / step), -2 ** (bits - 1), 2 ** (bits - 1) - 1) * step
        ref = (adc(xd.real) + 1j * adc(xd.imag)).astype(np.complex64)
        self.assertLength(y, len(ref))
        np.testing.assert_array_equal(y.astype(np.complex64), ref[:len(y)])
        xs = xd[:len(y)]
        over = (np.abs(xs.real) > fs) | (np.abs(xs.imag) > fs)
        self.assertEqual(emu.clipped(), int(np.count_nonzero(over)))
        self.assertGreater(emu.clipped(), 0)
        # Every output is on the grid and within the two's-complement code range.
        codes = np.concatenate([y.real, y.imag]) / step
        np.testing.assert_array_equal(codes, np.rint(codes))
        self.assertEqual(codes.max(), 2 ** (bits - 1) - 1)
        self.assertEqual(codes.min(), -2 ** (bits - 1))

    def test_adc_enob(self):
        # SNR of a full-scale sine = 6.02 enob + 1.76 dB, counting the quantisation noise.
        n, fs, bits, enob = 60000, 1.0, 12, 8.0
        x = 0.999 * np.exp(2j * np.pi * 0.0123 * np.arange(n))
        y, _ = run(ideal(latency=FD, adc_bits=bits, adc_enob=enob), x)
        err = y[FD:] - x[:len(y) - FD]
        snr = 10 * math.log10((fs ** 2 / 2) / np.mean(err.real ** 2))
        self.assertAlmostEqual(snr, 6.02 * enob + 1.76, delta=0.15)

    def test_tx_sc16_saturates(self):
        special = [1.5, -3.0 + 2j, 1.00002, 0.99999j, -1.0]
        x = np.concatenate([special, self.rand_c(500, 0.4)]).astype(np.complex64)
        y, _ = run(ideal(latency=FD, tx_sc16=True), x)
        # GNU Radio's conversion saturates symmetrically at +-32767.
        q = lambda v: np.clip(np.rint(v.astype(np.float64) * 32767), -32767, 32767) / 32767  # noqa: E731
        ref = np.concatenate([np.zeros(FD), (q(x.real) + 1j * q(x.imag))[:-FD]])
        self.assertClose(y, ref, 1e-7)
        head = y[FD:FD + len(special)]
        self.assertTrue(np.all(np.abs(head.real) <= 1) and np.all(np.abs(head.imag) <= 1))
        self.assertGreater(head[0].real, 0.9999)  # 1.5 saturates at +full scale, it does not wrap
        self.assertLess(head[1].real, -0.9999)    # -3 at -full scale
        self.assertGreater(head[1].imag, 0.9999)

    # ---------------------------------------------------------------- noise

    def test_thermal_noise_power(self):
        n = 60000
        emu = ideal(latency=FD, noise_dbfs=-30)
        y, _ = run(emu, np.zeros(n))
        p = np.mean(np.abs(y) ** 2)
        self.assertAlmostEqual(10 * math.log10(p), -30, delta=0.1)  # 60000 samples: sigma 0.02 dB
        self.assertAlmostEqual(np.mean(y.real ** 2) / np.mean(y.imag ** 2), 1.0, delta=0.05)
        # Same seed, same noise; another seed, other noise.
        y2, _ = run(ideal(latency=FD, noise_dbfs=-30), np.zeros(n))
        np.testing.assert_array_equal(y, y2)
        y3, _ = run(ideal(latency=FD, noise_dbfs=-30, seed=5), np.zeros(n))
        self.assertLess(abs(np.vdot(y, y3)) / np.vdot(y, y).real, 0.02)
        # A runtime change applies to what follows.
        emu = ideal(latency=FD, noise_dbfs=-30)
        emu.set_noise_dbfs(-40)
        y4, _ = run(emu, np.zeros(n))
        self.assertAlmostEqual(10 * math.log10(np.mean(np.abs(y4) ** 2)), -40, delta=0.1)

    def test_phase_noise_rms(self):
        n = 60000
        y, _ = run(ideal(latency=FD, phase_noise_deg=2.0), np.full(n, 0.5 + 0j))
        ph = np.degrees(np.angle(y[1000:]))  # after the one-pole filter's start-up
        self.assertAlmostEqual(np.sqrt(np.mean(ph ** 2)), 2.0, delta=0.3)  # ~600 independent values
        np.testing.assert_allclose(np.abs(y[FD:]), 0.5, rtol=1e-6)  # phase only

    # ---------------------------------------------------------------- host: tags and drops

    def test_start_tags(self):
        x = self.rand_c(500)
        up = make_tag(10, "rx_time", pmt.make_tuple(pmt.from_uint64(99), pmt.from_double(0.5)))
        y, tags = run(ideal(latency=FD, sample_rate=30.72e6, center_freq=2.4e9, start_time=12.75), x, [up])
        self.assertEqual([(o, uhd_time(v)) for o, v in tags_by_key(tags, "rx_time")], [(0, (12, 0.75))])
        self.assertEqual([(o, pmt.to_double(v)) for o, v in tags_by_key(tags, "rx_rate")], [(0, 30.72e6)])
        self.assertEqual([(o, pmt.to_double(v)) for o, v in tags_by_key(tags, "rx_freq")], [(0, 2.4e9)])

    def test_tags_follow_latency(self):
        # A tag leaves on the sample it was attached to: TX index + floor(latency), also below FD_DELAY
        # where the emulator skips the fractional-delay filter's first outputs.
        tags = [make_tag(o, "mark", pmt.from_long(o)) for o in (5, 20, 700)]
        for latency in (0, 3.5, 16, 100.7):
            emu = ideal(latency=latency)
            _, got = run(emu, self.rand_c(1000), tags)
            marks = [(o, pmt.to_long(v)) for o, v in tags_by_key(got, "mark")]
            self.assertEqual(marks, [(o + math.floor(latency), o) for o in (5, 20, 700)], latency)

    def test_drops(self):
        fs, t0 = 1e6, 3.9999995
        n = 6000
        x = self.rand_c(n)
        user = [make_tag(500, "mark", pmt.from_long(1)), make_tag(1000, "mark", pmt.from_long(2)),
                make_tag(2000, "mark", pmt.from_long(3))]
        emu = ideal(latency=FD, sample_rate=fs, start_time=t0, drops=[(1000, 50), (3000, 7), (3004, 10)])
        y, tags = run(emu, x, user)
        z = np.concatenate([np.zeros(FD), x[:-FD]])  # tagger input: latency FD
        keep = np.ones(n, dtype=bool)
        keep[1000:1050] = False
        keep[3000:3014] = False
        self.assertLength(y, n - 64)
        np.testing.assert_array_equal(y, z[keep][:len(y)].astype(np.complex64))
        self.assertEqual((emu.overflows(), emu.dropped()), (2, 64))

        def t(i):
            s = t0 + i / fs
            return math.floor(s), s - math.floor(s)
        times = [(o, uhd_time(v)) for o, v in tags_by_key(tags, "rx_time")]
        self.assertEqual([o for o, _ in times], [0, 1000, 2950])
        for (o, (whole, frac)), i in zip(times, (0, 1050, 3014)):
            self.assertEqual(whole, t(i)[0])
            self.assertAlmostEqual(frac, t(i)[1], delta=1e-12)
        self.assertEqual(times[1][1][0], 4)  # the gap crossed a whole second
        self.assertEqual([o for o, _ in tags_by_key(tags, "rx_rate")], [0, 1000, 2950])
        self.assertEqual([o for o, _ in tags_by_key(tags, "rx_freq")], [0, 1000, 2950])
        # User tags travel with their samples (TX index + latency); the one landing in a gap is gone.
        marks = [(o, pmt.to_long(v)) for o, v in tags_by_key(tags, "mark")]
        self.assertEqual(marks, [(500 + FD, 1), (2000 + FD - 50, 3)])

    def test_drop_samples_runtime(self):
        x = self.rand_c(3000)
        emu = ideal(latency=FD, sample_rate=1e6)
        emu.drop_samples(100)  # lands at the tagger's first work() call
        y, tags = run(emu, x)
        z = np.concatenate([np.zeros(FD), x[:-FD]])
        self.assertLength(y, x.size - 100)
        np.testing.assert_array_equal(y, z[100:100 + len(y)].astype(np.complex64))
        (o, v), = tags_by_key(tags, "rx_time")
        self.assertEqual(o, 0)
        self.assertAlmostEqual(uhd_time(v)[1], 100e-6, delta=1e-15)
        self.assertEqual(emu.overflows(), 1)
        with self.assertRaisesRegex(ValueError, "^count:"):
            emu.drop_samples(-1)

    # ---------------------------------------------------------------- parameters

    def test_bad_parameters(self):
        bad = [
            ("sample_rate", 0), ("sample_rate", math.nan), ("center_freq", -1), ("tx_sc16", "yes"),
            ("tx_gain_db", math.inf), ("rx_gain_db", math.nan), ("latency", -1), ("latency", math.inf),
            ("clock_offset_ppm", 2e4), ("freq_offset_hz", 1e9), ("freq_offset_hz", math.nan),
            ("lo_phase_deg", math.inf), ("lo_drift_hz_per_s", math.nan), ("phase_noise_deg", -1),
            ("noise_dbfs", math.nan), ("noise_dbfs", math.inf), ("noise_dbfs", 3),
            ("iq_imbalance_db", math.inf), ("iq_imbalance_deg", 90),
            ("dc_offset", complex(math.nan, 0)), ("dc_offset", "x"), ("rx_full_scale", 0),
            ("adc_bits", 25), ("adc_bits", -1), ("adc_bits", 3.5),
            ("adc_enob", {"adc_bits": 12, "adc_enob": 13}), ("adc_enob", -1), ("adc_enob", 0.5),
            ("drops", [(5,)]), ("drops", [(-1, 3)]), ("drops", 7), ("start_time", -1),
            ("seed", -1), ("seed", 1.5), ("pa_model", "nope"), ("pa_model", 3),
            ("pa_model", "memory_polynomial"), ("pa_model", {"model": "rapp", "rapp_saturation": -1}),
            ("pa_model", "/nonexistent/pa.json"), ("backend", "gpu"),
        ]
        for name, value in bad:
            kwargs = value if isinstance(value, dict) and name != "pa_model" else {name: value}
            with self.assertRaisesRegex(ValueError, f"^{name}:", msg=f"{name}={value!r}"):
                ideal(**kwargs)
        emu = ideal()
        for setter, name, value in [
                (emu.set_tx_gain_db, "tx_gain_db", math.nan), (emu.set_rx_gain_db, "rx_gain_db", math.inf),
                (emu.set_lo_phase_deg, "lo_phase_deg", math.nan),
                (emu.set_freq_offset_hz, "freq_offset_hz", 1e12),
                (emu.set_noise_dbfs, "noise_dbfs", math.nan), (emu.set_dc_offset, "dc_offset", math.inf),
                (emu.set_latency, "latency", -0.5), (emu.drop_samples, "count", 1.5),
                (emu.set_phase_noise_deg, "phase_noise_deg", -2),
                (emu.set_lo_drift_hz_per_s, "lo_drift_hz_per_s", math.inf)]:
            with self.assertRaisesRegex(ValueError, f"^{name}:"):
                setter(value)
        with self.assertRaisesRegex(ValueError, "^iq_imbalance_deg:"):
            emu.set_iq_imbalance(0.1, -95)

    # ---------------------------------------------------------------- the realistic default

    def test_default_end_to_end(self):
        # An OFDM-like signal (2048-point IFFT, 1200 QPSK subcarriers) at -15 dBFS rms through the
        # default emulator (ding2004 PA, sc16, latency 23456.37, noise, phase noise, IQ, DC, 12-bit ADC).
        n_sym, nfft, used = 32, 2048, 1200
        X = np.zeros((n_sym, nfft), dtype=np.complex128)
        k = np.r_[1:used // 2 + 1, nfft - used // 2:nfft]
        X[:, k] = (self.rng.choice([-1, 1], (n_sym, used)) + 1j * self.rng.choice([-1, 1], (n_sym, used)))
        x = np.fft.ifft(X, axis=1).ravel()
        x *= 10 ** (-15 / 20) / np.sqrt(np.mean(np.abs(x) ** 2))
        self.assertEqual(x.size, 65536)
        emu = gpuinterp.sdr_loopback_emulator_cc()
        y, tags = run(emu, x)
        self.assertLength(y, x.size)
        self.assertEqual(emu.clipped(), 0)
        self.assertEqual([o for o, _ in tags_by_key(tags, "rx_time")], [0])
        # Before the signal arrives: thermal noise (-54 dBFS), DC (-49 dBFS) and the quantisation.
        lead = y[:23000]
        self.assertAlmostEqual(np.mean(lead), 0.0025 + 0.0025j, delta=2e-4)
        self.assertAlmostEqual(10 * math.log10(np.var(lead)), -54 + 10 * math.log10((1 + 10 ** 0.05) / 2),
                               delta=0.3)
        # The signal: PA small-signal gain 1.016 (a little compression at -15 dBFS), RX IQ amplitude
        # imbalance 0.5 dB on I (+0.26 dB of power), noise and DC.
        sig = y[23500:len(y) - 100]
        expect = 10 ** (-15 / 10) * 1.016 ** 2 * (1 + 10 ** 0.05) / 2 + 10 ** -5.4 + 2 * 0.0025 ** 2
        self.assertAlmostEqual(10 * math.log10(np.mean(np.abs(sig) ** 2) / expect), 0.0, delta=0.3)


if __name__ == "__main__":
    gr_unittest.run(qa_sdr_emulator)
