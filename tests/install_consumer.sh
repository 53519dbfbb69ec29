#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Install this build tree into a temporary prefix and use it as a user would: the library carries a
# versioned SONAME, the licence, docs and examples are installed, a consumer project with only
# find_package(gnuradio-gpuinterp) builds and runs against it, and the uninstall target removes
# every installed file again.
#   install_consumer.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work"; mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"

link=$(find "$prefix" -name libgnuradio-gpuinterp.so | head -1)
[[ -n $link ]] || { echo "FAIL: libgnuradio-gpuinterp.so not installed"; exit 1; }
libdir=$(dirname "$link")
soname=$(objdump -p "$link" | awk '$1 == "SONAME" {print $2}')
echo "SONAME $soname"
[[ $soname =~ ^libgnuradio-gpuinterp\.so\.[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "FAIL: SONAME '$soname'"; exit 1; }
[[ -e $libdir/$soname ]] || { echo "FAIL: $libdir/$soname missing"; exit 1; }

doc=$prefix/share/doc/gr-gpuinterp
for f in copyright README.md MANIFEST.md docs/dpd_loop.md examples/interpolate_sine.py examples/interpolate_sine.grc; do
  [[ -f $doc/$f ]] || { echo "FAIL: $doc/$f not installed"; exit 1; }
done
grep -q "GNU GENERAL PUBLIC LICENSE" "$doc/copyright"

# Only the install prefix on the search path: the config must find GNU Radio by itself.
cmake -S "$src/tests/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/consumer-configure.log" || { cat "$work/consumer-configure.log"; exit 1; }
cmake --build "$work/consumer" >"$work/consumer-build.log" || { cat "$work/consumer-build.log"; exit 1; }
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$work/consumer/consumer" >"$work/ldd.txt"
grep gpuinterp "$work/ldd.txt"
grep -q "=> $libdir/$soname " "$work/ldd.txt" || { echo "FAIL: consumer does not load $libdir/$soname"; exit 1; }
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/consumer/consumer"

cmake -P "$build/cmake_uninstall.cmake" >"$work/uninstall.log"
left=$(find "$prefix" \( -type f -o -type l \) | wc -l)
echo "after uninstall: $left file(s) left under the prefix"
(( left == 0 )) || { find "$prefix" \( -type f -o -type l \) | head; exit 1; }
echo "install_consumer: OK"
