# SPDX-License-Identifier: GPL-3.0-or-later
"""Flowgraph scaffolding shared by the Python QA files (not a test itself, not installed)."""

import contextlib
import io

import numpy as np
from gnuradio import blocks, gr


def bench_call(argv):
    """gpuinterp_dpd_bench in-process: (exit code, stdout, stderr); argparse's exits count as exit codes."""
    from gnuradio.gpuinterp import dpd_bench_cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = dpd_bench_cli.main(argv)
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def start_throttled(blk, x, rate, vlen_in=1, vlen_out=1):
    """Starts vector_source(x) -> throttle(rate items/s) -> blk -> vector_sink and returns
    (top_block, sink): the flowgraph is still running when the caller changes blk's settings
    (the throttle paces the stream; no timing is asserted). Complex x takes the complex
    source and sink, anything else the float ones; vlen_in and vlen_out: items per vector."""
    cplx = np.iscomplexobj(x)
    data = x.ravel().tolist() if hasattr(x, "ravel") else list(x)
    src = (blocks.vector_source_c if cplx else blocks.vector_source_f)(data, False, vlen_in)
    size = (gr.sizeof_gr_complex if cplx else gr.sizeof_float) * vlen_in
    snk = (blocks.vector_sink_c if cplx else blocks.vector_sink_f)(vlen_out)
    tb = gr.top_block()
    tb.connect(src, blocks.throttle(size, rate), blk, snk)
    tb.start()
    return tb, snk
