#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Summarise a CUPTI timeline written by bench_flowgraphs or bench_kernels' dpd_step/cuda (bench/cupti_trace.h).

usage: cupti_timeline.py trace.csv [trace2.csv ...]

For each host thread (one per GNU Radio block): its runtime calls by name (count, total ms), the
streams its launches and copies went to, and for its kernels the launch-to-start delay and the
GPU duration. For each stream: kernels and copies (count, busy ms, bytes). Then the bus: bytes
each way over the run and the rate while a copy was in flight.
"""
import collections
import statistics
import sys


def load(path):
    rows = []
    with open(path) as f:
        next(f)
        for line in f:
            kind, s, e, stream, thread, nbytes, detail, corr, name = line.rstrip("\n").split(",", 8)
            rows.append(dict(kind=kind, s=int(s), e=int(e), stream=stream, thread=thread,
                             bytes=int(nbytes) if nbytes else 0, detail=detail,
                             corr=int(corr) if corr else 0, name=name))
    return rows


def short(name):
    # the kernel's function name without its template arguments and parameters
    n = name.split("(")[0]
    depth, out = 0, ""
    for ch in n:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out += ch
    return out.split(" ")[-1] or name[:40]


def ms(ns):
    return ns / 1e6


def summarise(path):
    rows = load(path)
    gpu = [r for r in rows if r["kind"] != "api"]
    api = [r for r in rows if r["kind"] == "api"]
    t0 = min(r["s"] for r in rows)
    t1 = max(r["e"] for r in rows)
    print(f"== {path}: {len(rows)} records over {ms(t1 - t0):.1f} ms")
    by_corr = {r["corr"]: r for r in gpu if r["corr"]}

    # Host threads: runtime calls, and the GPU work their launches became.
    threads = collections.defaultdict(list)
    for r in api:
        threads[r["thread"]].append(r)
    print("\nper host thread (runtime calls: count / total ms; own kernels: launch->start and duration, median ms)")
    for t, calls in sorted(threads.items(), key=lambda kv: -sum(c["e"] - c["s"] for c in kv[1])):
        tot = collections.defaultdict(lambda: [0, 0])
        kern = collections.defaultdict(list)
        streams = collections.Counter()
        for c in calls:
            tot[c["name"]][0] += 1
            tot[c["name"]][1] += c["e"] - c["s"]
            g = by_corr.get(c["corr"])
            if g:
                streams[g["stream"]] += 1
                if g["kind"] == "kernel":
                    kern[short(g["name"])].append((g["s"] - c["s"], g["e"] - g["s"]))
        if sum(v[1] for v in tot.values()) < 1e6 and not kern:
            continue
        print(f"thread {t}: streams {dict(streams)}")
        for n, (k, d) in sorted(tot.items(), key=lambda kv: -kv[1][1])[:6]:
            print(f"    {n:32s} {k:7d} {ms(d):10.2f}")
        for n, v in kern.items():
            lat = statistics.median(x[0] for x in v)
            dur = statistics.median(x[1] for x in v)
            tdur = sum(x[1] for x in v)
            print(f"    kernel {n:40s} n={len(v):6d} launch->start {ms(lat):.3f} dur {ms(dur):.3f} total {ms(tdur):.1f}")

    print("\nper stream (kind name: count, busy ms, MB)")
    streams = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0, 0]))
    for r in gpu:
        key = r["kind"] + " " + (short(r["name"]) if r["kind"] == "kernel" else r["detail"])
        v = streams[r["stream"]][key]
        v[0] += 1
        v[1] += r["e"] - r["s"]
        v[2] += r["bytes"]
    for sid, kinds in sorted(streams.items()):
        busy = sum(v[1] for v in kinds.values())
        print(f"stream {sid}: busy {ms(busy):.1f} ms ({busy / (t1 - t0):.0%} of the run)")
        for k, (n, b, by) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
            print(f"    {k:48s} {n:7d} {ms(b):10.2f} {by / 1e6:10.1f}")

    print("\nbus")
    for kind in ("h2d", "d2h", "d2d"):
        cs = [r for r in gpu if r["kind"] == "memcpy" and r["detail"] == kind]
        if not cs:
            continue
        nbytes = sum(r["bytes"] for r in cs)
        # union of the intervals in which a copy of this kind was in flight
        iv = sorted((r["s"], r["e"]) for r in cs)
        covered, cur_s, cur_e = 0, iv[0][0], iv[0][1]
        for s, e in iv[1:]:
            if s > cur_e:
                covered += cur_e - cur_s
                cur_s, cur_e = s, e
            else:
                cur_e = max(cur_e, e)
        covered += cur_e - cur_s
        big = sorted((r["bytes"] for r in cs if r["bytes"] >= 1 << 20), reverse=True)
        print(f"    {kind}: {len(cs)} copies, {nbytes / 1e6:.1f} MB, {nbytes / (t1 - t0):.1f} GB/s over the run, "
              f"{nbytes / covered:.1f} GB/s while in flight ({covered / (t1 - t0):.0%} of the run), "
              f"median {statistics.median(r['bytes'] for r in cs) / 1e6:.2f} MB; "
              f"{len(big)} of >= 1 MiB{': ' + ', '.join(f'{b / 1e6:.2f}' for b in big[:8]) + ' MB' if big else ''}")


for p in sys.argv[1:]:
    summarise(p)
