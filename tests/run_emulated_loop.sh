#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# examples/dpd_loop_emulated.grc as a user runs it: compiled with grcc against this tree's blocks,
# then run headless to its end. It must finish by itself, update the predistorter at least five
# times and refuse nothing.
#   run_emulated_loop.sh EXAMPLES_DIR GRC_DIR OUT_DIR
set -euo pipefail
examples=$1 grcdir=$2 out=$3
rm -rf "$out"; mkdir -p "$out"
export GRC_BLOCKS_PATH="$grcdir"
export GR_CONF_GRC_GLOBAL_BLOCKS_PATH="/usr/share/gnuradio/grc/blocks:$grcdir"
grcc -o "$out" "$examples/dpd_loop_emulated.grc" >/dev/null
timeout 300 /usr/bin/python3 "$out/dpd_loop_emulated.py" > "$out/run.log" 2>&1 || { tail -20 "$out/run.log"; exit 1; }
line=$(grep '^dpd_loop_emulated:' "$out/run.log" | tail -1)
echo "$line"
updates=$(sed -n 's/.*updates \([0-9]*\).*/\1/p' <<<"$line")
[[ -n $updates && $updates -ge 5 ]] || { echo "FAIL: fewer than 5 updates"; tail -20 "$out/run.log"; exit 1; }
if grep -q "refused" "$out/run.log"; then echo "FAIL: a step was refused"; grep refused "$out/run.log" | head; exit 1; fi
