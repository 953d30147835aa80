#!/usr/bin/env bash
# The trial 16-bit fused tiles sized 32 and 128 on 2 lanes of 16 and 4 lanes of 32
# (staging/kernels/scaled_softmax/scaled_onepass.cu) beside kernels/' 4 lanes of 8 and 8 of 16 and
# each form's dispatcher, ~1 GiB of rows, each beside the copy (python -m softmax_harness measure);
# rows into $1. ~1 minute.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/fused_lanes}
mkdir -p "$out"
export PYTHONPATH=${PYTHONPATH:-.}
for form in bias mask causal; do
  for t in bf16:bfloat16 f16:float16; do
    s=${t%%:*}; d=${t##*:}
    short=("scaled_${form}_onepass_${s}_c32")
    [ "$form" != mask ] && short+=("scaled_${form}_onepass_${s}_c32_l2@staging/kernels")
    python3 -m softmax_harness measure "scaled_softmax_$form" "${short[@]}" --op "scaled_softmax_$form" \
      --dtype "$d" --cols 24 32 --json "$out/${form}_${s}_c32.json"
    python3 -m softmax_harness measure "scaled_softmax_$form" "scaled_${form}_onepass_${s}_c128" \
      "scaled_${form}_onepass_${s}_c128_l4@staging/kernels" --op "scaled_softmax_$form" --dtype "$d" \
      --cols 72 96 112 120 128 --json "$out/${form}_${s}_c128.json"
  done
done
