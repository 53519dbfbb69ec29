# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the training drivers (bench/train_arena_*.sh) from the repository root: the settings they
# share and the scratch folder they work in.
#
# train_workdir TAG: a folder /tmp/TAG.XXXXXX laid out as the repository (python/ and every shipped
# data/models/*.json linked, data/APA_200MHz_b linked from .gdata/, logs/ empty), made the current
# folder, so the command each model file records is the one to give from the repository root with the
# dataset in data/. New model files written to data/models/ there stay in the scratch folder.
# Sets REPO, OUT (required), DEVICE (cuda), EXTRA, PY (python3), t0, W, T (the trainer) and COMMON
# (the options every job shares).
#
# train_surrogate SEED: starts, in the background, the shipped GRU surrogates' recipe for
# APA_200MHz_b with that seed (PA_BUDGET seconds), writing data/models/pa_apa200b_gru_s<SEED>.json.
# arena_dpd SURROGATES BUDGET: sets DPD, the Arena predistorter recipe (gain, limit, learning-rate
# schedule, epochs, stride) trained through SURROGATES (--pa ... --also-through ...) for BUDGET
# seconds; the driver appends each job's model and options to it in CMD.
# run_jobs TAG BUDGET JOB...: starts the command CMD[JOB] of each job (an associative array the
# driver fills) with the shared options, BUDGET seconds each, waits, and prints each log's last
# figures.
set -u
REPO=$(pwd)
OUT=${OUT:?set OUT}
DEVICE=${DEVICE:-cuda}
EXTRA=${EXTRA:-}
PY=${PY:-python3}
t0=$(date +%s)
T="$PY python/gpuinterp/neural_train.py"
COMMON="--device $DEVICE --threads 1 --frame 100 --batch 256"

train_workdir() {
    W=$(mktemp -d "/tmp/$1.XXXXXX")
    mkdir -p "$W/data/models" "$W/logs"
    ln -s "$REPO/python" "$W/python"
    for f in "$REPO"/data/models/*.json; do ln -s "$f" "$W/data/models/"; done
    ln -s "$REPO/.gdata/APA_200MHz_b" "$W/data/APA_200MHz_b"
    cd "$W" || exit 1
    echo "$1 start $(date -u +%FT%TZ); device $DEVICE"
}

train_surrogate() {
    local c="$T pa --data data/APA_200MHz_b --split arena --model gru:H=32,C=4,D=16 --seed $1 $COMMON --epochs 240 --time-budget $PA_BUDGET --out data/models/pa_apa200b_gru_s$1.json $EXTRA"
    echo "[p$1] $c"
    OMP_NUM_THREADS=1 timeout $((PA_BUDGET + 60)) $c >"logs/p$1.log" 2>&1 &
}

declare -A CMD
arena_dpd() {
    DPD="dpd --data data/APA_200MHz_b --split arena $1 --gain 0.992225 --limit 1.0 --lr-end 1e-5 --epochs 400 --stride 2 --time-budget $2"
}

run_jobs() {
    local tag=$1 budget=$2 j c l
    shift 2
    for j in "$@"; do
        c="$T ${CMD[$j]} $COMMON --out dpd_$j.json $EXTRA"
        echo "[$j] $c"
        OMP_NUM_THREADS=1 timeout $((budget + 60)) $c >"logs/$j.log" 2>&1 &
    done
    wait
    echo "$tag end $(date -u +%FT%TZ), $(($(date +%s) - t0)) s"
    for l in logs/*.log; do
        echo "=== $l"
        grep -E "^epoch|time budget|stopped|NMSE dB train|through pa_|Error|error" "$l" | tail -n 5 | cut -c1-600
    done
}
