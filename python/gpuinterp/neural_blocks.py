# SPDX-License-Identifier: GPL-3.0-or-later
"""``neural_predistorter_cc``: a neural predistorter (gru, tdnn; docs/neural_models.md) as a block.

Glue only: the module's kernel (``gpuinterp.dpd_predistorter`` built with weights, CPU or CUDA) does the
work, with its streaming state carried across work() calls. One channel, complex float in and out;
``dpd_predistorter_cc`` keeps the polynomial families with their channels, sc16 formats and
coefficient tags and messages."""

import threading

import numpy as np
from gnuradio import gr

from . import dpd_model
from .gpuinterp_python import dpd_predistorter

__all__ = ["neural_predistorter_cc"]


class neural_predistorter_cc(gr.sync_block):
    """Neural predistorter (or PA model) block, complex in, complex out.

    Args:
        model: a neural spec ("gru:H=8,C=4,D=2", "tdnn:M=4,H=16,N=2") with ``weights``, or the path of
            a model file with "weights" (dpd_model.save_model), or a :class:`dpd_model.ModelFit`.
        weights: the real weights in docs/neural_models.md's layout (a spec only).
        backend: "automatic", "cpu" or "cuda".
        device: CUDA device index.
        batch: most samples per GPU launch (0: default).

    The output is delayed by delay() samples (a gru's look-ahead, max(1, D if C > 0); its first
    delay() outputs are zero); stream tags stay on their input index. set_weights(w) replaces the
    weights between two work() calls (validated at once; the state stays)."""

    def __init__(self, model, weights=None, backend="automatic", device=0, batch=0):
        gr.sync_block.__init__(self, name="neural_predistorter_cc", in_sig=[np.complex64],
                               out_sig=[np.complex64])
        self._lock = threading.Lock()
        fit = None
        if isinstance(model, dpd_model.ModelFit):
            fit = model
        elif isinstance(model, str) and model.endswith(".json"):
            fit = dpd_model.load_model(model)
        if fit is not None:
            if weights is not None:
                raise ValueError("weights: must be None for a model file (they are in the file)")
            if fit.weights is None:
                raise ValueError(f"model: {fit.model} is not a neural model; use dpd_predistorter_cc")
            spec, weights = fit.model, fit.weights
        else:
            spec = dpd_model.parse(model)
            if not spec.is_neural:
                raise ValueError(f"model: {spec} is not a neural model ({', '.join(dpd_model.NEURAL_FAMILIES)}); "
                                 "use dpd_predistorter_cc")
            if weights is None:
                raise ValueError(f"weights: {spec} needs {spec.num_weights} weights")
        self._k = dpd_predistorter(str(spec), weights=np.asarray(weights, dtype=np.float32).ravel(),
                                   backend=backend, device=device, batch=batch)

    def set_weights(self, weights):
        with self._lock:
            self._k.set_weights(np.asarray(weights, dtype=np.float32).ravel())

    def weights(self):
        return self._k.weights()

    def model(self):
        return str(self._k.model())

    def delay(self):
        return self._k.delay()

    def active_backend(self):
        return self._k.active_backend()

    def work(self, input_items, output_items):
        n = len(output_items[0])
        with self._lock:
            output_items[0][:] = self._k.process(input_items[0][:n])
        return n
