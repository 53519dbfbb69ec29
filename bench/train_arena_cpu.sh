#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The CPU fallback of bench/train_arena_presets.sh (data/models/README.md, "Fourth training session"): the
# GPU call was refused (no machine lent), so the DPD Arena v6 predistorters were trained on the 2-core
# development machine, one job at a time, one thread, `nice`, in the same repository-shaped scratch folder
# (python/, data/models/, data/APA_200MHz_b), so each model file records the command to give from the
# repository root with the data in data/.
#
#   OUT=/some/dir bash bench/train_arena_cpu.sh NAME "OPTIONS" [NAME "OPTIONS" ...]
#
# trains each NAME (file NAME.json, log NAME.log in $OUT) by direct learning through
# data/models/pa_apa200b_gru_s0.json with the Arena's constants, then OPTIONS (e.g. the --model spec,
# --lr, --epochs, --stride, --seed). PY (python3) runs the script; the recorded command says python3.
set -u
REPO=$(pwd)
OUT=${OUT:?set OUT}
PY=${PY:-python3}
W=$(mktemp -d /tmp/train4cpu.XXXXXX)
mkdir -p "$W/data" "$OUT"
ln -s "$REPO/python" "$W/python"
ln -s "$REPO/data/models" "$W/data/models"
ln -s "$REPO/.gdata/APA_200MHz_b" "$W/data/APA_200MHz_b"
ln -s "$REPO/.gdata/APA_200MHz" "$W/data/APA_200MHz"
cd "$W" || exit 1
DPD="dpd --data data/APA_200MHz_b --split arena --pa data/models/pa_apa200b_gru_s0.json --gain 0.992225 --limit 1.0"
COMMON="--device cpu --threads 1 --frame 100 --batch 256 --lr-end 1e-5"
while [ $# -ge 2 ]; do
    name=$1 opts=$2
    shift 2
    echo "[$name] $(date -u +%T) python3 python/gpuinterp/neural_train.py $DPD $COMMON $opts --out $name.json"
    OMP_NUM_THREADS=1 nice "$PY" python/gpuinterp/neural_train.py $DPD $COMMON $opts --out "$name.json" >"$OUT/$name.log" 2>&1
    echo "[$name] $(date -u +%T) rc $?: $(grep -E 'time budget|stopped' "$OUT/$name.log" | tr '\n' ' ')$(grep -o 'val [-0-9.]* dB best [-0-9.]*' "$OUT/$name.log" | tail -n 1)"
    [ -f "$name.json" ] && mv "$name.json" "$OUT/"
done
rm -rf "$W"
