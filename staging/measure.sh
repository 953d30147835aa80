#!/usr/bin/env bash
# The measurement that settles the trial 16-bit tiles sized 128 (staging/kernels/online_onepass_half.cu:
# 16 lanes of 8, `_l16`, and 4 lanes of 32, `_l4`) and the ranges staging/dispatch_c128_lanes.patch
# gives them (72-80 on `_l4`, 127-128 on `_l16`, from reports/measurements/c128_lanes.json, which
# measured 13 lengths between 64 and 128): every length from 65 to 128 in bf16, and those of the
# patch's edges in fp16, ~1 GiB of rows, each kernel beside the copy in the same call (python -m
# softmax_harness measure), the dispatcher (with the patch where check.sh applied it), the three
# tiles sized 128 and Quack where its wheels are on the path; then the trial 16-bit fused split
# kernels at two blocks a multiprocessor (below); rows into $1. ~3 minutes.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=${PYTHONPATH:-.}
peers=()
python3 -c "import quack" 2>/dev/null && peers=(quack)
tiles() { echo "onepass_$1_c128 onepass_$1_c128_l16@staging/kernels onepass_$1_c128_l4@staging/kernels"; }
python3 -m softmax_harness measure softmax "${peers[@]}" $(tiles bf16) --dtype bfloat16 --cols $(seq 65 128) \
  --json "$out/c128_every_bf16.json"
python3 -m softmax_harness measure softmax "${peers[@]}" $(tiles f16) --dtype float16 \
  --cols 64 71 72 80 81 96 112 126 127 128 --json "$out/c128_edges_f16.json"
# the trial 16-bit bias and mask split kernels at two blocks a multiprocessor
# (staging/kernels/scaled_softmax/scaled_online_split.cu, `*_b2`) beside kernels/' at four and the
# op's dispatcher, at the lengths the split kernels take (and 131072, the bias form's cluster's)
for form in bias mask; do
  python3 -m softmax_harness measure "scaled_softmax_$form" "scaled_${form}_online_split_bf16" \
    "scaled_${form}_online_split_bf16_b2@staging/kernels" --op "scaled_softmax_$form" --dtype bfloat16 \
    --cols 32768 65535 131072 196608 524288 1048576 --json "$out/${form}_b2_bf16.json"
  python3 -m softmax_harness measure "scaled_${form}_online_split_f16" \
    "scaled_${form}_online_split_f16_b2@staging/kernels" --op "scaled_softmax_$form" --dtype float16 \
    --cols 65535 1048576 --json "$out/${form}_b2_f16.json"
done
