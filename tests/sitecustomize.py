# SPDX-License-Identifier: GPL-3.0-or-later
# Copied to build/test_modules/ and found through PYTHONPATH by every test and example run from ctest.
# GNU Radio's gnuradio/__init__.py extends its __path__ with pkgutil.extend_path, which puts an
# *installed* gnuradio/gpuinterp (e.g. after scripts/install.sh) ahead of the build tree's copy; the
# tests must exercise the build tree, so its gnuradio directory goes first.
import os

try:
    import gnuradio

    _here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gnuradio")
    if _here in gnuradio.__path__:
        gnuradio.__path__.remove(_here)
    gnuradio.__path__.insert(0, _here)
except ImportError:
    pass
