# SPDX-License-Identifier: GPL-3.0-or-later
"""Parameter checks for the Python blocks, with the C++ blocks' convention: a bad value raises
ValueError whose message starts with the parameter's name ("capture_length: must be ...").

Plain ``int(v)`` and ``float(v)`` are not enough: int(nan) says "cannot convert float NaN to integer"
without naming the parameter, int(2.7) silently truncates, and float comparisons with NaN are all
False, so ``if not 0 < v <= 1`` style checks let NaN through."""

import math
import numbers
import os

import numpy as np

__all__ = ["int_param", "float_param", "complex_param", "bool_param", "output_path_error", "input_file_error"]


def int_param(name, value, lo=None, hi=None):
    """value as an int in [lo, hi] (None: unbounded); integral floats (3.0) are accepted."""
    v = None
    if not isinstance(value, (bool, np.bool_)):
        if isinstance(value, numbers.Integral):
            v = int(value)
        elif isinstance(value, numbers.Real) and math.isfinite(float(value)) and float(value).is_integer():
            v = int(value)
    if v is None or (lo is not None and v < lo) or (hi is not None and v > hi):
        rng = ("" if lo is None else f" >= {lo}") + ("" if lo is None or hi is None else " and") + \
              ("" if hi is None else f" <= {hi}")
        raise ValueError(f"{name}: must be an integer{rng}, got {value!r}")
    return v


def _number(name, value, convert, what):
    """convert(value), or ValueError naming the parameter; True and False are refused (see
    float_param)."""
    if not isinstance(value, (bool, np.bool_)):
        try:
            return convert(value)
        except (TypeError, ValueError):
            pass
    raise ValueError(f"{name}: must be {what}, got {value!r}")


def float_param(name, value, lo=None, hi=None, lo_open=False, allow_inf=False):
    """value as a float, not NaN, finite unless ``allow_inf``, in [lo, hi] ((lo, hi] with ``lo_open``).
    True and False are refused, as the C++ blocks' float parameters refuse them: float(True) is 1.0,
    so a flag passed to a number (tx_gain_db=True) would be taken without a word."""
    v = _number(name, value, float, "a number")
    bad = math.isnan(v) or (not allow_inf and math.isinf(v))
    if not bad and lo is not None:
        bad = v <= lo if lo_open else v < lo
    if not bad and hi is not None:
        bad = v > hi
    if bad:
        rng = []
        if lo is not None:
            rng.append(f"{'>' if lo_open else '>='} {lo:g}")
        if hi is not None:
            rng.append(f"<= {hi:g}")
        what = "a finite number" if not allow_inf else "a number (not NaN)"
        raise ValueError(f"{name}: must be {what}{' ' + ' and '.join(rng) if rng else ''}, got {value!r}")
    return v


def bool_param(name, value):
    """value as a bool: True or False (numpy's too). bool(value) would read the string "no" and
    any list as True, and None as False."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name}: must be True or False, got {value!r}")


def complex_param(name, value):
    """value as a finite complex number (not True or False, see float_param)."""
    v = _number(name, value, complex, "a complex number")
    if not (math.isfinite(v.real) and math.isfinite(v.imag)):
        raise ValueError(f"{name}: must be finite, got {value!r}")
    return v


def output_path_error(option, path):
    """Why a run that starts now could not write ``path`` at its end, as one line starting with
    ``option`` (None when it can): an empty name, a directory, a missing or unwritable folder, an
    unwritable file. The command lines check their outputs with it before a long run, not after."""
    if path == "":
        return f"{option}: empty file name"
    if os.path.isdir(path):
        return f"{option}: {path}: is a directory; give a file name"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"{option}: {path}: folder {folder} does not exist"
    if not os.access(folder, os.W_OK | os.X_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        return f"{option}: {path}: not writable"
    return None


def input_file_error(path, max_bytes):
    """Why ``path`` cannot be read as a small data file (a model or coefficients file), as text
    to follow "<path>: " (None when it can): missing, a directory, a FIFO, a device or a socket,
    or larger than ``max_bytes``. Checked with stat(), before open(): opening a FIFO blocks until a
    writer appears (forever, in a constructor), and /dev/zero or /dev/full never end."""
    import stat

    try:
        st = os.stat(path)
    except OSError as e:
        return f"cannot read ({e.strerror or e})"
    if stat.S_ISDIR(st.st_mode):
        return "is a directory, not a file"
    if not stat.S_ISREG(st.st_mode):
        what = ("a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode) or
                stat.S_ISBLK(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        return f"is {what}; only a regular file is read"
    if st.st_size > max_bytes:
        return f"{st.st_size} bytes is larger than any such file (at most {max_bytes >> 20} MiB)"
    return None
