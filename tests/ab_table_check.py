#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench/ab_table.py on console outputs written here, with slowdowns known by construction.

    ab_table_check.py BENCH_DIR
"""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(sys.argv.pop(1) if len(sys.argv) > 1 else "bench", "ab_table.py")


def kernel_line(name, gsps):
    # bench_kernels' console line: time, CPU time, iterations, then the counters.
    return (f"{name}/iterations:1/manual_time   0.100 ms   40.0 ms   1 "
            f"Gsps={gsps} items_per_second={gsps}G/s kernel_ms=0.1\n")


def linerate_line(name, msps):
    return (f"{name}/iterations:2/real_time   100 ms   10 ms   2 channels=1 "
            f"out_Msps_per_channel={msps} radio_491.52_share=1/s fc32\n")


class AbTable(unittest.TestCase):
    def run_table(self, files, *args):
        with tempfile.TemporaryDirectory() as d:
            for name, text in files.items():
                with open(os.path.join(d, name), "w") as f:
                    f.write("Benchmark   Time   CPU   Iterations UserCounters...\n" + text)
            p = subprocess.run([sys.executable, SCRIPT, d, *args],
                               capture_output=True, text=True)
        return p.returncode, p.stdout

    def test_marks_the_slower_rows_and_fails(self):
        # Kernel a: fastest old round 101, fastest new 96 -> 101 / 96 - 1 = +5.2 %, over 3 %.
        # Kernel b: 50 and 50 -> 0 %. Flowgraph c: median old 150, median new 140 (a slow
        # outlier of 10 in one round is ignored) -> 150 / 140 - 1 = +7.1 %.
        # Flowgraph d: 1.2k = 1200 Msample/s per channel on both sides -> 0 %.
        files = {
            "k_old_1.txt": kernel_line("BM_a", 100) + kernel_line("BM_b", 50),
            "k_old_2.txt": kernel_line("BM_a", 101) + kernel_line("BM_b", 49),
            "k_new_1.txt": kernel_line("BM_a", 96) + kernel_line("BM_b", 50),
            "k_new_2.txt": kernel_line("BM_a", 95) + kernel_line("BM_b", 48),
            "f_old_1.txt": kernel_line("BM_c", 0.100) + linerate_line("BM_d", "1.2k"),
            "f_old_2.txt": kernel_line("BM_c", 0.200) + linerate_line("BM_d", "1.2k"),
            "f_old_3.txt": kernel_line("BM_c", 0.150) + linerate_line("BM_d", "1.2k"),
            "f_new_1.txt": kernel_line("BM_c", 0.140) + linerate_line("BM_d", "1.2k"),
            "f_new_2.txt": kernel_line("BM_c", 0.150) + linerate_line("BM_d", "1200"),
            "f_new_3.txt": kernel_line("BM_c", 0.010) + linerate_line("BM_d", "1.2k"),
        }
        rc, out = self.run_table(files)
        rows = {line.split("|")[1].strip().split("/")[0]: line.split("|")[4]
                for line in out.splitlines() if line.startswith("| BM_")}
        self.assertIn("+5.2 % **over**", rows["BM_a"])
        self.assertIn("+0.0 %", rows["BM_b"])
        self.assertIn("+7.1 % **over**", rows["BM_c"])
        self.assertIn("+0.0 %", rows["BM_d"])
        self.assertNotIn("over", rows["BM_b"] + rows["BM_d"])
        self.assertIn("2 row(s) slower than 3.0 %", out)
        self.assertEqual(rc, 1)
        # A looser limit passes the same figures.
        rc, out = self.run_table(files, "--limit", "8")
        self.assertIn("0 row(s) slower than 8.0 %", out)
        self.assertEqual(rc, 0)

    def test_compares_only_rows_every_round_has(self):
        files = {
            "k_old_1.txt": kernel_line("BM_a", 100) + kernel_line("BM_only_old", 1),
            "k_new_1.txt": kernel_line("BM_a", 100) + kernel_line("BM_only_new", 1),
        }
        rc, out = self.run_table(files)
        self.assertIn("| BM_a/", out)
        self.assertNotIn("only_", out)
        self.assertEqual(rc, 0)


if __name__ == "__main__":
    unittest.main()
