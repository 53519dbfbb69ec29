#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""CPU backend of resize_2d against OpenCV's cv2.resize (Debian python3-opencv) on this machine:
float32, one channel, bilinear (INTER_LINEAR) and bicubic (INTER_CUBIC), both writing into a
preallocated output, same thread count (cv2.getNumThreads() vs OpenMP), median of interleaved runs.

    PYTHONPATH=build/test_modules /usr/bin/python3 bench/bench_resize_cv2.py [repetitions]
    (build/test_modules/sitecustomize.py puts the build tree ahead of an installed gr-gpuinterp)
    OMP_NUM_THREADS=1 ... also sets cv2.setNumThreads(1) (single-core comparison)
"""
import os
import sys
import time

import cv2
import numpy as np

from gnuradio import gpuinterp


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    rng = np.random.default_rng(1)
    if "OMP_NUM_THREADS" in os.environ:  # the same thread count for both libraries
        cv2.setNumThreads(int(os.environ["OMP_NUM_THREADS"]))
    print(f"cv2 {cv2.__version__}, cv2 threads {cv2.getNumThreads()}, OMP_NUM_THREADS="
          f"{os.environ.get('OMP_NUM_THREADS', '(default)')}, cpus {os.cpu_count()}")
    for (ih, iw, oh, ow) in [(1080, 1920, 2160, 3840), (2160, 3840, 224, 224)]:
        x = rng.random((ih, iw), dtype=np.float32)
        for method, interp in [("bilinear", cv2.INTER_LINEAR), ("bicubic", cv2.INTER_CUBIC)]:
            k = gpuinterp.resize_2d_kernel_f(ih, iw, oh, ow, 1, method, backend="cpu")
            y1 = np.empty((oh, ow), np.float32)
            y2 = np.empty((oh, ow), np.float32)
            k.resize(x, out=y1)
            cv2.resize(x, (ow, oh), dst=y2, interpolation=interp)
            t_ours, t_cv = [], []
            for _ in range(reps):  # interleaved, so both see the same machine load
                t = time.perf_counter()
                k.resize(x, out=y1)
                t_ours.append(time.perf_counter() - t)
                t = time.perf_counter()
                cv2.resize(x, (ow, oh), dst=y2, interpolation=interp)
                t_cv.append(time.perf_counter() - t)
            a, b = np.median(t_ours) * 1e3, np.median(t_cv) * 1e3
            print(f"{ih}x{iw} -> {oh}x{ow} {method:8s}: gpuinterp cpu {a:7.3f} ms, cv2.resize {b:7.3f} ms, "
                  f"ratio {a / b:5.2f}, max |diff| {np.max(np.abs(y1 - y2)):.2e}")


if __name__ == "__main__":
    main()
