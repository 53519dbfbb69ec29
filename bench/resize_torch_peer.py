#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""PyTorch peer of the resize_2d kernel benchmarks (BM_resize_cuda_kernel_f32 and the variant rows of
bench_k_resize.cc), for the GPU host: torch.nn.functional.interpolate, bilinear, align_corners=False
(the same sampling as half_pixel), on device-resident float32 frames of one channel, at the two sizes
the benchmarks use:

- 4 frames 1080x1920 -> 2160x3840, and 16 frames 2160x3840 -> 224x224;
- each resize alone, and followed by (v - mean) / std as a second pass (what a torch user writes to
  get what resize_2d's fused normalise gives in one).

floor_ms = frames * 4 B * (in + out pixels) / 4169 GB/s, the device-to-device copy rate measured on
the H200 (bench/fir_cupy_peer.py prints it), the same floor as bench_k_resize.cc reports.
Run it in the same call as bench_kernels so the ratio comes from one run. Prints one JSON line per
row: medians of 20 CUDA-event timings."""
import json

import numpy as np
import torch
import torch.nn.functional as F

ROWS = [(1080, 1920, 2160, 3840, 4), (2160, 3840, 224, 224, 16)]
D2D_GBPS = 4169.0


def gpu_ms(f, n_repeat=20, n_warmup=3):
    for _ in range(n_warmup):
        f()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(n_repeat):
        start.record()
        f()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    return float(np.median(times))


def main():
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name()}))
    for ih, iw, oh, ow, frames in ROWS:
        x = torch.rand(frames, 1, ih, iw, device="cuda")

        def resize():
            return F.interpolate(x, size=(oh, ow), mode="bilinear", align_corners=False)

        ms = gpu_ms(resize)
        ms_norm = gpu_ms(lambda: (resize() - 0.5) / 0.25)
        floor_ms = frames * 4 * (ih * iw + oh * ow) / (D2D_GBPS * 1e9) * 1e3
        print(json.dumps({"case": f"{frames} x {ih}x{iw} -> {oh}x{ow} bilinear",
                          "torch_ms": round(ms, 4), "torch_then_normalise_ms": round(ms_norm, 4),
                          "floor_ms": round(floor_ms, 4),
                          "Mpixel_out_per_s": round(frames * oh * ow / (ms * 1e-3) / 1e6, 1)}))


if __name__ == "__main__":
    main()
