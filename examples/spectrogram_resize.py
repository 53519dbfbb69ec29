#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Spectrogram frames for an ML classifier, straight from a GNU Radio stream.

    swept tone + fixed tone + noise (complex, 256 kS/s)
      -> stream_to_vector(512) -> fft_vcc(512, Blackman-Harris, shifted) -> |.|^2 -> 10 log10
      -> stream_to_vector(256 rows)          one item = one 256 x 512 log-power frame (time x freq)
      -> gpuinterp.resize_2d_ff(256, 512 -> 224, 224, bilinear, mean/std)
      -> file sink (float32 224x224 frames) or ZMQ PUB (--zmq tcp://*:5555) for the ML consumer

The frames go to the GPU (when present) in one launch per work() call, resized and normalised in
one pass. The script checks the resized frames against the resize kernel on the CPU applied to the
log-power frames it tapped (exit status 1 on a mismatch) and saves a PNG with the first frame before
and after the resize.

    ./spectrogram_resize.py --frames 8 --frames-file /tmp/frames.f32 --output /tmp/spectrogram_resize.png
"""

import argparse

import numpy as np
from gnuradio import analog, blocks, fft, gr
from gnuradio.fft import window

from gnuradio import gpuinterp


class spectrogram_resize(gr.top_block):
    def __init__(self, frames=4, fft_len=512, rows=256, out_size=224, samp_rate=256e3, mean=-60.0, std=25.0,
                 backend="automatic", output=None, zmq_address=None):
        gr.top_block.__init__(self, "Spectrogram frames resized for ML", catch_exceptions=True)
        self.fft_len, self.rows, self.out_size = fft_len, rows, out_size
        # A tone swept over +-80 kHz twice per frame, a fixed tone at -60 kHz, and noise.
        saw = analog.sig_source_f(samp_rate, analog.GR_SAW_WAVE, 2 * samp_rate / (rows * fft_len), 1.0, -0.5)
        vco = blocks.vco_c(samp_rate, 2 * np.pi * 160e3, 1.0)
        tone = analog.sig_source_c(samp_rate, analog.GR_COS_WAVE, -60e3, 0.1, 0)
        noise = analog.noise_source_c(analog.GR_GAUSSIAN, 0.02, 7)
        add = blocks.add_cc()
        head = blocks.head(gr.sizeof_gr_complex, frames * rows * fft_len)
        to_fft = blocks.stream_to_vector(gr.sizeof_gr_complex, fft_len)
        spectrum = fft.fft_vcc(fft_len, True, window.blackmanharris(fft_len), True)
        power = blocks.complex_to_mag_squared(fft_len)
        # dB relative to a full-scale tone through a rectangular window
        log = blocks.nlog10_ff(10, fft_len, -20 * np.log10(fft_len))
        to_frame = blocks.stream_to_vector(gr.sizeof_float * fft_len, rows)
        self.resize = gpuinterp.resize_2d_ff(rows, fft_len, out_size, out_size, 1, "bilinear", "half_pixel",
                                             "replicate", mean=[mean], std=[std], backend=backend)
        self.before = blocks.vector_sink_f(rows * fft_len)
        self.after = blocks.vector_sink_f(out_size * out_size)

        self.connect(saw, vco, (add, 0))
        self.connect(tone, (add, 1))
        self.connect(noise, (add, 2))
        self.connect(add, head, to_fft, spectrum, power, log, to_frame, self.resize, self.after)
        self.connect(to_frame, self.before)
        if output:
            self.connect(self.resize, blocks.file_sink(gr.sizeof_float * out_size * out_size, output, False))
        if zmq_address:
            from gnuradio import zeromq
            self.connect(self.resize, zeromq.pub_sink(gr.sizeof_float, out_size * out_size, zmq_address, 100, False, -1))

    def frames_before(self):
        return np.array(self.before.data(), dtype=np.float32).reshape(-1, self.rows, self.fft_len)

    def frames_after(self):
        return np.array(self.after.data(), dtype=np.float32).reshape(-1, self.out_size, self.out_size)


def save_png(before, after, path, backend):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(11, 4.6))
    im0 = ax[0].imshow(before, aspect="auto", cmap="viridis", origin="upper")
    ax[0].set_title(f"log-power frame {before.shape[0]} x {before.shape[1]} (dB)")
    ax[0].set_xlabel("FFT bin")
    ax[0].set_ylabel("time (FFT row)")
    fig.colorbar(im0, ax=ax[0])
    im1 = ax[1].imshow(after, aspect="equal", cmap="viridis", origin="upper")
    ax[1].set_title(f"resize_2d -> {after.shape[0]} x {after.shape[1]}, normalised ({backend})")
    fig.colorbar(im1, ax=ax[1])
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--frames", type=int, default=4)
    p.add_argument("--backend", default="automatic", choices=["automatic", "cpu", "cuda"])
    p.add_argument("--frames-file", default=None, help="file sink for the 224x224 float32 frames")
    p.add_argument("--zmq", default=None, help="also publish frames on this ZMQ PUB address")
    p.add_argument("--output", default="spectrogram_resize.png", help="PNG file to write")
    a = p.parse_args()
    mean, std = -60.0, 25.0
    tb = spectrogram_resize(frames=a.frames, mean=mean, std=std, backend=a.backend, output=a.frames_file,
                            zmq_address=a.zmq)
    tb.run()
    before, after = tb.frames_before(), tb.frames_after()
    backend = tb.resize.active_backend()
    ref = gpuinterp.resize_2d_kernel_f(tb.rows, tb.fft_len, tb.out_size, tb.out_size, mean=[mean], std=[std],
                                       backend="cpu").resize(before)
    err = float(np.max(np.abs(after - ref))) if len(after) else float("inf")
    print(f"{len(after)} frames on {backend}: before {before.shape[1:]} [{before.min():.1f}, {before.max():.1f}] dB, "
          f"after {after.shape[1:]} mean {after.mean():.2f} std {after.std():.2f}; "
          f"max |diff| vs the CPU kernel {err:.2e}")
    save_png(before[0], after[0], a.output, backend)
    print(f"saved {a.output}")
    return 0 if len(after) == a.frames and err < 1e-4 else 1


if __name__ == "__main__":
    raise SystemExit(main())
