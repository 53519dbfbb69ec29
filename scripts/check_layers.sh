#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The layers of the kernel library (lib/CMakeLists.txt) include only what they may: each layer's
# object library has no include path into another's directory, and this check refuses the relative
# includes ("../cuda/...") that an include path cannot stop. Quoted includes only; public headers
# (<gnuradio/gpuinterp/...>) are open to every layer.
#   common/  its own files
#   kernel/  its own files and ../common/ (the backends only through kernel/engine_factory.h and
#            kernel/device_query.h, which they implement)
#   cpu/     its own files, ../common/, ../kernel/
#   cuda/    its own files, ../common/, ../kernel/, ../device/ (the CUDA device operations)
#   device/  its own files, ../common/, ../kernel/
#   lib/     the blocks and the engine factory: its own files, kernel/, device/, and the backends'
#            factories cpu/cpu_engines.h and cuda/cuda_engines.h (engine_factory.cc implements them)
#   include/ no quoted include of library internals
# A path that climbs again after its allowed prefix ("../common/../cuda/x.h") is refused.
# Usage: check_layers.sh [source dir]
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

status=0
check() { # check <dir> <allowed prefix>...: every quoted include is a plain name or has an allowed prefix
    local dir=$1
    shift
    local f line inc ok p
    for f in "$dir"/*; do
        [ -f "$f" ] || continue
        while IFS= read -r line; do
            inc=${line#*\"}
            inc=${inc%%\"*}
            ok=0
            case "$inc" in */* | *..*) ;; *) ok=1 ;; esac
            for p in "$@"; do
                case "$inc" in "$p"*) case "${inc#"$p"}" in *..*) ;; *) ok=1 ;; esac ;; esac
            done
            if [ $ok = 0 ]; then
                echo "$f: #include \"$inc\": $dir/ may include only its own files${*:+ and $*}"
                status=1
            fi
        done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" || true)
    done
}

check lib kernel/ device/ cpu/cpu_engines.h cuda/cuda_engines.h
check lib/common
check lib/kernel ../common/
check lib/cpu ../common/ ../kernel/
check lib/cuda ../common/ ../kernel/ ../device/
check lib/device ../common/ ../kernel/
while IFS= read -r f; do
    if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f"; then
        echo "$f: public headers include no library internals"
        status=1
    fi
done < <(find include -type f -name '*.h')

[ $status = 0 ] && echo "layers: every include stays within its layer's reach"
exit $status
