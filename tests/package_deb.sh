#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Build the Debian packages from this build tree (scripts/package-deb.sh --no-build), check their
# contents and Depends, install them into a temporary root and import the module from there, making
# sure the Python module and the library that get loaded are the temporary root's copies. As root,
# the packages are installed and removed again by dpkg itself (own admin directory, so the system's
# package database is not touched).
#   package_deb.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work"; mkdir -p "$work"
bash "$src/scripts/package-deb.sh" --no-build "$build" "$work/debs"
shopt -s nullglob
debs=("$work"/debs/*.deb)
(( ${#debs[@]} == 3 )) || { echo "FAIL: expected 3 packages, got ${#debs[@]}"; exit 1; }
lib_deb=$(ls "$work"/debs/libgnuradio-gpuinterp[0-9]*.deb)
mod_deb=$(ls "$work"/debs/gr-gpuinterp_*.deb)
dev_deb=$(ls "$work"/debs/libgnuradio-gpuinterp-dev_*.deb)
lib_pkg=$(dpkg-deb -f "$lib_deb" Package)

# A here-string, not `echo | grep -q`: grep -q stops at the first match and a pipe under pipefail
# would then fail on the echo killed by SIGPIPE.
check() { grep -qE "$3" <<<"$2" || { echo "FAIL: $1 does not match '$3': $2"; exit 1; }; }
check "$lib_pkg Depends" "$(dpkg-deb -f "$lib_deb" Depends)" "libgnuradio-runtime3\.10"
check "gr-gpuinterp Depends" "$(dpkg-deb -f "$mod_deb" Depends)" "$lib_pkg \(= "
check "gr-gpuinterp Depends" "$(dpkg-deb -f "$mod_deb" Depends)" "gnuradio \(>= 3\.10"
check "gr-gpuinterp Depends" "$(dpkg-deb -f "$mod_deb" Depends)" "python3-numpy"
check "-dev Depends" "$(dpkg-deb -f "$dev_deb" Depends)" "$lib_pkg \(= "
check "$lib_pkg contents" "$(dpkg-deb -c "$lib_deb")" "usr/lib/.*/libgnuradio-gpuinterp\.so\.[0-9]+\.[0-9]+\.[0-9]+"
check "$lib_pkg contents" "$(dpkg-deb -c "$lib_deb")" "usr/share/doc/$lib_pkg/copyright"
check "gr-gpuinterp contents" "$(dpkg-deb -c "$mod_deb")" "usr/lib/python3/dist-packages/gnuradio/gpuinterp/gpuinterp_python.*\.so"
check "gr-gpuinterp contents" "$(dpkg-deb -c "$mod_deb")" "usr/share/gnuradio/grc/blocks/gpuinterp_interp_fir\.block\.yml"
check "gr-gpuinterp contents" "$(dpkg-deb -c "$mod_deb")" "usr/share/doc/gr-gpuinterp/examples/interpolate_sine\.py"
check "-dev contents" "$(dpkg-deb -c "$dev_deb")" "usr/include/gnuradio/gpuinterp/interp_fir\.h"
if dpkg-deb -c "$mod_deb" | grep -E "dist-packages/gnuradio/__init__\.py"; then
  echo "FAIL: gr-gpuinterp must not ship gnuradio/__init__.py (GNU Radio's package owns it)"; exit 1
fi
if dpkg-deb -c "$lib_deb" | grep -E "libcudart"; then echo "FAIL: libcudart.so shipped"; exit 1; fi

root=$work/root
mkdir -p "$root"
use_dpkg=0
if [[ $(id -u) -eq 0 ]]; then
  use_dpkg=1
  admin=$root/var/lib/dpkg
  mkdir -p "$admin/info" "$admin/updates" "$admin/triggers"
  touch "$admin/status" "$admin/available"
  # --force-depends: GNU Radio is in the system's database, not in this empty one.
  # --force-script-chrootless: the root has no shell to chroot into; the scripts only run ldconfig.
  dpkg --root="$root" --force-depends --force-script-chrootless --log=/dev/null -i "${debs[@]}" >"$work/dpkg-install.log" 2>&1 \
    || { cat "$work/dpkg-install.log"; exit 1; }
  dpkg --root="$root" -l | grep '^ii' | awk '{print "  installed:", $2, $3}'
else
  for d in "${debs[@]}"; do dpkg -x "$d" "$root"; done
fi

# GNU Radio's gnuradio/__init__.py prefers its own directory; a shim package found first extends
# gnuradio.__path__ in sys.path order, so the temporary root's gnuradio.gpuinterp is the one imported.
mkdir -p "$work/shim/gnuradio"
printf 'from pkgutil import extend_path\n__path__ = extend_path(__path__, __name__)\n' \
  >"$work/shim/gnuradio/__init__.py"
libdir=$(dirname "$(find "$root/usr/lib" -name 'libgnuradio-gpuinterp.so.*' | head -1)")
env -u GPUINTERP_BACKEND PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$work/shim:$root/usr/lib/python3/dist-packages" \
  LD_LIBRARY_PATH="$libdir" /usr/bin/python3 - "$root" <<'PY'
import sys
root = sys.argv[1]
from gnuradio import gpuinterp
assert gpuinterp.__file__.startswith(root), gpuinterp.__file__
loaded = {line.split()[-1] for line in open("/proc/self/maps") if "gpuinterp" in line and ".so" in line}
assert len(loaded) >= 2 and all(p.startswith(root) for p in loaded), loaded
blk = gpuinterp.interp_fir_ccf(2, [1.0, 0.5])
print("imported", gpuinterp.__file__)
print("loaded", *sorted(loaded), sep="\n  ")
print("interp_fir_ccf backend:", blk.active_backend())
PY

if ((use_dpkg)); then
  dpkg --root="$root" --force-script-chrootless --log=/dev/null -r \
    gr-gpuinterp libgnuradio-gpuinterp-dev "$lib_pkg" >"$work/dpkg-remove.log" 2>&1 \
    || { cat "$work/dpkg-remove.log"; exit 1; }
  left=0
  [[ ! -d $root/usr ]] || left=$(find "$root/usr" \( -type f -o -type l \) | wc -l)
  echo "after dpkg -r: $left file(s) left under $root/usr"
  (( left == 0 )) || { find "$root/usr" \( -type f -o -type l \) | head; exit 1; }
fi
echo "package_deb: OK"
