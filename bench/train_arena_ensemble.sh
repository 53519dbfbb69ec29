#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A GPU training call for the Arena's `best` preset (data/models/README.md, "Sixth training session"):
# predistorters trained through one frozen surrogate beat that surrogate's own figures by exploiting
# where it is wrong (through the independent judge pa_apa200b_gru_s1.json they lose 3-6 dB), so
# this call first trains two more surrogates of APA_200MHz_b (seeds 2 and 3, the recipe of the
# shipped s0 and s1), then trains predistorters through s0, s2 and s3 at once (neural_train dpd
# --also-through: the loss averaged over the three, the kept epoch the best of the worst val score).
# s1 stays out of training and selection: it is the judge.
#
# Run from the repository root with the datasets in .gdata/ (copies of <OpenDPD>/datasets/APA_200MHz_b):
#   OUT=/some/dir bash bench/train_arena_ensemble.sh
# Environment: DEVICE (cuda), PA_BUDGET (s, 120), END (s after start by which every job has stopped,
# 520), PY (python3), EXTRA (appended to every command, for a smoke test). Writes $OUT/train6.tgz.
PA_BUDGET=${PA_BUDGET:-120}
END=${END:-520}
. "$(dirname "$0")/train_workdir.sh"
train_workdir train6
for s in 2 3; do
    train_surrogate "$s"
done
wait
left=$((END - ($(date +%s) - t0)))
budget=$((left - 45))
echo "surrogates done at $(($(date +%s) - t0)) s; predistorter budget $budget s"
arena_dpd "--pa data/models/pa_apa200b_gru_s0.json --also-through data/models/pa_apa200b_gru_s2.json --also-through data/models/pa_apa200b_gru_s3.json" "$budget"
CMD[e1]="$DPD --model gru:H=24,C=4,D=1 --lr 5e-3 --seed 0 --oob-weight 100 --select aclr"
CMD[e2]="$DPD --model gmp:Ka=5,La=14,Kb=3,Lb=12,Mb=3,Kc=3,Lc=12,Mc=2 --lr 1e-3 --seed 0 --init data/models/dpd_gmp_apa200b.json --oob-weight 1000 --select aclr"
CMD[e3]="$DPD --model gru:H=32,C=4,D=1 --lr 3e-3 --seed 0 --select aclr"
CMD[e4]="$DPD --model gru:H=24,C=4,D=1 --lr 5e-3 --seed 0 --select aclr"
CMD[e5]="$DPD --model tdnn:M=20,H=48,N=2 --lr 2e-3 --seed 0 --oob-weight 100 --select aclr"
CMD[e6]="$DPD --model gmp:Ka=7,La=20,Kb=4,Lb=12,Mb=3,Kc=4,Lc=12,Mc=3 --lr 2e-3 --seed 0 --select aclr"
if [ -f data/models/pa_apa200b_gru_s2.json ] && [ -f data/models/pa_apa200b_gru_s3.json ]; then
    run_jobs train6 "$budget" e1 e2 e3 e4 e5 e6
fi
cp data/models/pa_apa200b_gru_s[23].json . 2>/dev/null
tar czf "$OUT/train6.tgz" ./*.json logs
