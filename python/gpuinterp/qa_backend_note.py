#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a user reads when no GPU is usable: the reason is true (no driver is not an "insufficient
driver"), it is logged once per process however many blocks fall back, and cuda_device_name says why
instead of returning an empty string."""

import os
import subprocess
import sys
import unittest

from gnuradio import gpuinterp

# Several blocks of different kinds, all with backend "automatic", in one process.
CHILD = r"""
from gnuradio import gpuinterp
blocks = [gpuinterp.interp_fir_ccf(2, [1.0, 0.5], backend="automatic"),
          gpuinterp.interp_fir_fff(4, [1.0, 0.5, 0.25], backend="automatic"),
          gpuinterp.resampler_cc(1.25, "linear", backend="automatic"),
          gpuinterp.table_lookup_ff([0.0, 1.0, 2.0], backend="automatic")]
print("ACTIVE", " ".join(b.active_backend() for b in blocks))
"""


def run_child():
    env = dict(os.environ)
    env.pop("GPUINTERP_BACKEND", None)
    r = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(f"child failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r.stdout + r.stderr


class qa_backend_note(unittest.TestCase):
    def test_fallback_logged_once_and_true(self):
        out = run_child()
        reason = gpuinterp.cuda_unavailable_reason()
        notes = [line for line in out.splitlines() if "using the CPU backend" in line]
        if not reason:  # a usable GPU: no fallback line at all
            self.assertEqual(notes, [], out)
            self.assertIn("ACTIVE cuda cuda cuda cuda", out)
            return
        self.assertIn("ACTIVE cpu cpu cpu cpu", out)
        self.assertEqual(len(notes), 1, f"expected one fallback line for four blocks:\n{out}")
        self.assertIn(f"{reason}; using the CPU backend", notes[0])
        self.assertNotIn("insufficient", out)

    def test_reason_names_the_missing_driver(self):
        reason = gpuinterp.cuda_unavailable_reason()
        if not gpuinterp.built_with_cuda():
            self.assertEqual(reason, "gr-gpuinterp was built without CUDA")
        elif not any(os.path.exists(os.path.join(d, "libcuda.so.1")) for d in
                     ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/lib/wsl/lib")) \
                and "LD_LIBRARY_PATH" not in os.environ:
            # No driver library in the usual places: this is a machine without the NVIDIA driver.
            self.assertEqual(reason, "no NVIDIA driver found")

    def test_device_name_says_why(self):
        reason = gpuinterp.cuda_unavailable_reason()
        if reason:
            with self.assertRaises(RuntimeError) as cm:
                gpuinterp.cuda_device_name(0)
            self.assertIn(reason, str(cm.exception))
        else:
            self.assertTrue(gpuinterp.cuda_device_name(0))
            with self.assertRaises(ValueError):
                gpuinterp.cuda_device_name(gpuinterp.cuda_device_count())

    def test_select_backend_reason(self):
        reason = gpuinterp.cuda_unavailable_reason()
        selected, note = gpuinterp.select_backend("automatic", 0)
        if reason and os.environ.get("GPUINTERP_BACKEND") != "cpu":
            self.assertEqual((selected, note), ("cpu", f"{reason}; using the CPU backend"))
        if reason:
            with self.assertRaises(RuntimeError) as cm:
                gpuinterp.select_backend("cuda", 0)
            self.assertIn(reason, str(cm.exception))


if __name__ == "__main__":
    unittest.main()
