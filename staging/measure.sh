#!/usr/bin/env bash
# The measurement that decides the trial: log_softmax_online_split (staging/kernels/trial) beside
# log_softmax_split_row (kernels/ once promoted, else staged), the dispatcher and torch, at the
# rows past the clusters, fp32 and bf16, ~1 GiB inputs, in one process. Rows into $1/measure.jsonl.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=.
split=log_softmax_split_row
grep -rqs "name=$split " kernels || split="$split@staging/kernels"
for dtype in float32 bfloat16; do
  suffix=$([ "$dtype" = bfloat16 ] && echo _bf16)
  python -m softmax_harness measure "log_softmax_online_split$suffix@staging/kernels" "$split$suffix" \
    log_softmax torch --op log_softmax --dtype "$dtype" --cols 151936 262144 524288 1048576 \
    --json "$out/measure_$dtype.json"
done
