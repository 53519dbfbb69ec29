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
