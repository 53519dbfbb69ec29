#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# gr_modtool add on a copy of the module: the new block must land in the GNU Radio block library
# (not the GNU Radio-free kernel library), get its binding and GRC file, and still build.
# Usage: modtool_add.sh <source dir> <work dir> [full]
#   full: build the whole block library and the Python module of the copy (slow); otherwise the
#   copy is configured and the new block's two objects are built.
set -euo pipefail
src=$1
work=$2
mode=${3:-${GPUINTERP_MODTOOL_TEST:-objects}}
python=${PYTHON_EXECUTABLE:-/usr/bin/python3}

command -v gr_modtool >/dev/null || { echo "gr_modtool not found: skipped"; exit 77; }

rm -rf "$work"
mkdir -p "$work/src"
# The tracked files when the source is a git checkout (no build trees), else everything but build*.
if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
    (cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/src")
else
    (cd "$src" && tar --exclude='./build*' -cf - .) | tar -xf - -C "$work/src"
fi
cd "$work/src"

# Non-interactive: every question is answered by a flag; the C++ QA question by stdin
# (GNU Radio 3.10's C++ QA template is Boost.Test; this module's C++ tests are GoogleTest in tests/).
echo n | gr_modtool add -t sync -l cpp --copyright "gr-gpuinterp authors" \
    --argument-list "float gain=1.0" --add-python-qa newblk

fail() { echo "FAIL: $*"; exit 1; }
grep -q 'newblk_impl.cc' lib/CMakeLists.txt || fail "newblk_impl.cc not in lib/CMakeLists.txt"
# It must be in the block list (gpuinterp_sources), never in a kernel library layer's (<layer>_sources).
"$python" - <<'PY' || fail "newblk_impl.cc is not in the gpuinterp_sources list"
import re
s = open('lib/CMakeLists.txt').read()
m = re.search(r'list\(APPEND gpuinterp_sources([^()]*)\)', s)
assert m and 'newblk_impl.cc' in m.group(1).split(), m
layers = re.findall(r'set\((\w+)_sources([^()]*)\)', s)
assert layers and all('newblk_impl.cc' not in files for _, files in layers), layers
PY
grep -q 'newblk.h' include/gnuradio/gpuinterp/CMakeLists.txt || fail "header not installed"
grep -q 'bind_newblk(m);' python/gpuinterp/bindings/python_bindings.cc || fail "binding call missing"
grep -q 'newblk_python.cc' python/gpuinterp/bindings/CMakeLists.txt || fail "binding not listed"
grep -q 'gpuinterp_newblk.block.yml' grc/CMakeLists.txt || fail "GRC file not installed"
test -f python/gpuinterp/qa_newblk.py || fail "Python QA file missing"

mkdir -p "$work/build"
cd "$work/build"
cmake "$work/src" -DENABLE_CUDA=OFF -DENABLE_TESTING=OFF -DENABLE_BENCHMARKS=OFF \
    -DPYTHON_EXECUTABLE="$python" ${CMAKE_CXX_COMPILER_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER=$CMAKE_CXX_COMPILER_LAUNCHER} >cmake.log \
    || { cat cmake.log; fail "configure"; }
if [ "$mode" = full ]; then
    cmake --build . -j"${JOBS:-2}" --target gpuinterp_python
    PYTHONPATH="$work/build/test_modules" "$python" -c \
        "from gnuradio import gpuinterp; b = gpuinterp.newblk(2.0); print('made', b.name())"
else
    make -C lib newblk_impl.cc.o
    make -C python/gpuinterp/bindings newblk_python.cc.o
fi
echo "gr_modtool add: OK"
