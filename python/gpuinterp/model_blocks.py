# SPDX-License-Identifier: GPL-3.0-or-later
"""A predistorter block from a model file: what GRC's "Model file" field and scripts call.

Glue only: the file (dpd_model.load_model: checked, its field named on error) gives the spec and
either complex coefficients (ph, mp, gmp) or real weights (gru, tdnn); ``dpd_predistorter_cc``
runs both, with its channels, formats, tags and messages."""

from . import dpd_model
from .gpuinterp_python import dpd_predistorter_cc

__all__ = ["dpd_predistorter_from_file"]


def dpd_predistorter_from_file(path, **kwargs):
    """``dpd_predistorter_cc`` running the predistorter saved in ``path`` (dpd_model.save_model, or
    a file of gnuradio.gpuinterp.neural_train). ``kwargs``: the block's other arguments (backend,
    device, batch, device_buffers, channels, output_format, full_scale, input_format, ...); the
    model, coefficients, LO leakage and weights come from the file. A PA-model file is refused:
    a predistorter is the inverse of a PA, not the PA (pa_model_cc runs PA models)."""
    for k in ("model", "coefficients", "lo_leakage", "weights", "P", "Q", "Lp", "Lq"):
        if k in kwargs:
            raise ValueError(f"{k}: given by the model file {path}; leave it out")
    fit = dpd_model.load_model(path)
    if fit.kind != "predistorter":
        raise ValueError(f"{path}: kind: a {fit.kind!r} file; dpd_predistorter_cc runs predistorters "
                         "(pa_model_cc runs PA models)")
    if fit.weights is not None:
        return dpd_predistorter_cc(model=str(fit.model), weights=list(map(float, fit.weights)), **kwargs)
    return dpd_predistorter_cc(model=str(fit.model), coefficients=list(fit.coefficients),
                               lo_leakage=complex(fit.lo_leakage), **kwargs)
