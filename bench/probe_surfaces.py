#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A re-runnable probe of the DPD loop's user-facing surfaces: what a new user might hand them.

Probes every constructor keyword and setter of sdr_loopback_emulator_cc, pa_model_cc,
dpd_predistorter_cc and dpd_estimator_cc; the arguments of the estimation kernels dpd_gram
(constructor, add() with its masks and history, solve() with its regularization forms and grid,
forget(), gram()/rhs()) and dpd_capture_kernel (constructor, align()); model and coefficients files
(a FIFO, a directory, /dev/full, /dev/zero, empty, a PA model where a predistorter belongs, 1e30 /
NaN coefficients, another model's file, ...) given to every reader; the ``coeffs`` message and the
``dpd_coeffs`` tag in every form (channel as float, uint64, negative, missing; non-dicts; wrong
lengths; weights for a polynomial model) and decode_coeffs_message(); and malformed rx_rate /
rx_freq / rx_time tags into the estimator. Every keyword gets the same invalid values (0, -1, -1e6,
NaN, +-inf, 1e300, 2**64, 2**63, 1e-300, "x", None, True, []) plus its documented bounds and values
near them (from the docstrings, headers and the GRC asserts; the tables are probe_surfaces_blocks.py
and probe_surfaces_inputs.py, their shared helpers probe_surfaces_util.py).

Each case runs in a worker process (one at a time; a worker that hangs is killed, one that dies is
replaced) with the worker's stderr captured, so the C++ and Python loggers can be read. An accepted
block is exercised: a short flowgraph (4000 samples through the emulator, PA model and predistorter;
four 2048-sample captures through the estimator, run synchronously; a solve or an alignment for the
kernels). Classes:

  works    accepted, and what it produced is finite, the getters sane (and the value is not one the
           documentation rules out);
  refused  ValueError / TypeError (or RuntimeError, or for messages, tags and steps a logged error)
           whose message names the parameter, file or input at fault;
  vague    refused, but the message does not name it (or is pybind11's "incompatible function
           arguments" / "Unable to cast", or another exception type from deep inside);
  silent   accepted, but the output or a getter is not finite (or the estimator reports a stalled
           receiver while both inputs flowed), or the value is one the documentation rules out and
           nothing was said;
  hang     did not finish within --timeout seconds;
  crash    the worker process died (segfault, abort).

Cases whose value the documentation allows but that were refused are marked "valid value refused" in
the JSON and the report (class refused or vague, as the message is).

Run (well under a minute here: about 2800 cases, one worker process at a time):
  PYTHONPATH=build-test/test_modules GPUINTERP_SOURCE_DIR=$PWD nice /usr/bin/python3 bench/probe_surfaces.py \\
      [--out /tmp/probe_surfaces.json] [--only SURFACE-WORDS] [--timeout 20]
"""

import argparse
import collections
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

CLASSES = ("works", "refused", "vague", "silent", "hang", "crash")
PYBIND = ("incompatible function arguments", "incompatible constructor arguments", "Unable to cast")


def classify(case, r):
    """(class, detail) of a case from the worker's result."""
    names, expect = case["names"], case["expect"]
    if r["outcome"] in ("hang", "crash"):
        return r["outcome"], r["detail"]
    if r["outcome"] == "ok":
        if r["problem"]:
            return "silent", r["problem"]
        if expect is False:
            return "silent", "accepted a value the documentation rules out; nothing was said"
        return "works", ""
    msg, kind = r["message"], r["kind"]
    detail = f"{r['type']}: {msg}"
    if kind == "other":
        return "vague", detail
    if any(p in msg for p in PYBIND):
        return "vague", detail
    if not any(str(n) in msg for n in names):
        return "vague", detail
    return "refused", detail


# -- the worker --------------------------------------------------------------------------------------
def worker_main(fixtures, log_path):
    proto = os.fdopen(os.dup(1), "w")
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    import numpy as np
    import probe_surfaces_util as pu
    from probe_surfaces_inputs import all_cases

    np.seterr(all="ignore")
    cases = all_cases(fixtures)
    pu.LOG["path"] = log_path
    proto.write(f"ready {len(cases)}\n")
    proto.flush()
    for line in sys.stdin:
        case = cases[int(line)]
        sys.stdout.flush()
        sys.stderr.flush()
        pu.LOG["mark"] = os.fstat(fd).st_size
        res = {"outcome": "ok", "problem": None}
        try:
            res["problem"] = case.fn()
        except Exception as e:  # noqa: B902 (every exception is a result here)
            kind = ("logged" if isinstance(e, pu.Logged) else "value" if isinstance(e, ValueError) else
                    "type" if isinstance(e, TypeError) else "runtime" if type(e) is RuntimeError else "other")
            res = {"outcome": "error", "kind": kind, "type": type(e).__name__, "message": str(e)[:1500]}
        proto.write(json.dumps(res) + "\n")
        proto.flush()


class Worker:
    def __init__(self, fixtures, n):
        self.log = os.path.join(fixtures, f"worker{n}.log")
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", fixtures, self.log],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self._line(120)
        if not line or not line.startswith("ready"):
            raise RuntimeError(f"the probe's worker did not start: {self._tail(0)}")
        self.count = int(line.split()[1])

    def _line(self, timeout):
        ready, _, _ = select.select([self.p.stdout], [], [], timeout)
        return self.p.stdout.readline() if ready else None

    def _tail(self, mark):
        try:
            with open(self.log, "rb") as f:
                f.seek(mark)
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return ""
        return text[-1500:]

    def run(self, i, timeout):
        mark = os.path.getsize(self.log) if os.path.exists(self.log) else 0
        self.p.stdin.write(f"{i}\n")
        self.p.stdin.flush()
        line = self._line(timeout)
        if line:
            return json.loads(line)
        if line is None:  # nothing within the timeout
            self.p.kill()
            self.p.wait()
            return {"outcome": "hang", "detail": f"no result within {timeout:g} s; log: {self._tail(mark)[-600:]}"}
        rc = self.p.wait()
        return {"outcome": "crash", "detail": f"worker exit status {rc}; log: {self._tail(mark)[-800:]}"}

    def close(self):
        if self.p.poll() is None:
            self.p.stdin.close()
            self.p.wait(timeout=30)


def run_probe(args):
    from probe_surfaces_inputs import all_cases, make_fixtures

    fixtures = tempfile.mkdtemp(prefix="probe_surfaces.")
    try:
        make_fixtures(fixtures)
        cases = all_cases(fixtures)
        chosen = [i for i, c in enumerate(cases) if not args.only or args.only in c.surface]
        results, worker, n_workers = [], None, 0
        t0 = time.time()
        for k, i in enumerate(chosen):
            c = cases[i]
            if worker is None:
                n_workers += 1
                worker = Worker(fixtures, n_workers)
                assert worker.count == len(cases), "the worker built another case list"
            t = time.time()
            r = worker.run(i, args.timeout)
            if r["outcome"] in ("hang", "crash"):
                worker = None
            row = {"surface": c.surface, "call": c.call, "names": [str(n) for n in c.names], "expect": c.expect}
            row["class"], row["detail"] = classify(row, r)
            row["seconds"] = round(time.time() - t, 3)
            if c.expect is True and row["class"] in ("refused", "vague"):
                row["note"] = "valid value refused"
            results.append(row)
            if args.verbose:
                print(f"[{k + 1}/{len(chosen)}] {row['class']:8s} {c.call[:150]}", flush=True)
        if worker is not None:
            worker.close()
        elapsed = time.time() - t0
    finally:
        shutil.rmtree(fixtures, ignore_errors=True)
    report(results, elapsed, n_workers)
    with open(args.out, "w") as f:
        json.dump({"elapsed_s": round(elapsed, 1), "cases": results}, f, indent=1)
    print(f"per-case results: {args.out}")


def one_line(detail, width=300):
    """A detail for the table: pybind11's list of signatures cut to its first line, newlines folded."""
    if any(p in detail for p in PYBIND):
        detail = detail.split(". The following")[0]
    detail = " ".join(detail.split())
    return detail if len(detail) <= width else detail[:width - 3] + "..."


def report(results, elapsed, n_workers):
    surfaces = list(dict.fromkeys(r["surface"] for r in results))
    width = max(len(s) for s in surfaces + ["surface"])
    print(f"{'surface':{width}s} " + " ".join(f"{c:>7s}" for c in CLASSES) + "   total")
    for s in surfaces:
        n = collections.Counter(r["class"] for r in results if r["surface"] == s)
        print(f"{s:{width}s} " + " ".join(f"{n[c]:7d}" for c in CLASSES) + f" {sum(n.values()):7d}")
    for cls in ("vague", "silent", "hang", "crash"):
        rows = [r for r in results if r["class"] == cls]
        if rows:
            print(f"\n{cls} ({len(rows)}):")
            for r in rows:
                print(f"  {r['call']}\n      -> {one_line(r['detail'])}")
    odd = [r for r in results if r.get("note")]
    if odd:
        print(f"\nvalid values refused ({len(odd)}):")
        for r in odd:
            print(f"  {r['call']}\n      -> {one_line(r['detail'])}")
    n = collections.Counter(r["class"] for r in results)
    print(f"\nprobe ran in {elapsed:.0f} s with {n_workers} worker process(es)")
    print(f"{len(results)} cases: " + ", ".join(f"{c} {n[c]}" for c in CLASSES))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="/tmp/probe_surfaces.json", help="the per-case results as JSON")
    ap.add_argument("--only", default="", help="only the surfaces whose name holds these words")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds before a case counts as a hang")
    ap.add_argument("--verbose", action="store_true", help="print each case as it finishes")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker_main(*args.worker)
    else:
        run_probe(args)


if __name__ == "__main__":
    main()
