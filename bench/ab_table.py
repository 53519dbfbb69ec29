#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The table of bench/ab_rows.sh: every row both trees ran, old against new.

    python3 bench/ab_table.py OUTDIR [--limit 3]

OUTDIR holds the console outputs k_{old,new}_R.txt (bench_kernels) and f_{old,new}_R.txt
(bench_flowgraphs). Every row is compared by its rate, printed with six digits (a time in the
console's three digits would make 0.040 against 0.041 ms a 2.5 % step): output Msample/s per
channel for the line-rate rows, items per second otherwise. Kernel rows take the fastest of the
rounds, flowgraph rows the median. A row is marked when the new tree is slower than the limit
allows, and the script exits 1 if any row is. Standard library only: it runs on the GPU host.
"""
import argparse
import glob
import os
import re
import statistics
import sys

SCALE = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9}
RATE = re.compile(r"(out_Msps_per_channel|items_per_second)=([0-9.]+)([kMG]?)")


def rates(path):
    """Row name -> samples per second of one bench_kernels or bench_flowgraphs console output."""
    rows = {}
    for line in open(path):
        m = RATE.search(line) if line.startswith("BM_") else None
        if m:
            v = float(m.group(2)) * SCALE[m.group(3)]
            if m.group(1) == "out_Msps_per_channel":
                v *= 1e6
            rows[line.split()[0]] = v
    return rows


def rounds(outdir, prefix, side):
    files = sorted(glob.glob(os.path.join(outdir, f"{prefix}_{side}_*.txt")))
    return [rates(f) for f in files]


def compared(old, new, pick):
    """(row, old rates, new rates, slowdown in per cent) for every row in every round."""
    rows = []
    for name in old[0]:
        if all(name in r for r in old + new):
            o = [r[name] for r in old]
            n = [r[name] for r in new]
            rows.append((name, o, n, 100 * (pick(o) / pick(n) - 1)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--limit", type=float, default=3.0,
                    help="slowdown allowed, per cent (default 3)")
    a = ap.parse_args()
    bad = []
    parts = (
        ("k", max, 1e-9, "Gsample/s", "Kernels: the fastest round"),
        ("f", statistics.median, 1e-6, "Msample/s",
         "Flowgraphs: the median of the rounds"),
    )
    for prefix, pick, shown, unit, title in parts:
        old = rounds(a.outdir, prefix, "old")
        new = rounds(a.outdir, prefix, "new")
        if not old or not new:
            continue
        print(f"\n{title}\n")
        print(f"| row | old ({unit}) | new ({unit}) | slower by |")
        print("| --- | --- | --- | --- |")
        for name, o, n, change in compared(old, new, pick):
            fmt = " / ".join(f"{v * shown:.4g}" for v in o)
            fmn = " / ".join(f"{v * shown:.4g}" for v in n)
            mark = ""
            if change > a.limit:
                mark = " **over**"
                bad.append(name)
            print(f"| {name} | {fmt} | {fmn} | {change:+.1f} %{mark} |")
    print(f"\n{len(bad)} row(s) slower than {a.limit} %" +
          ("" if not bad else ": " + ", ".join(bad)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
