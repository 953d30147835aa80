#!/usr/bin/env bash
# The measurements that decide the staged kernels, ~1 GiB inputs, fp32 and bf16, in one process
# each: the fused forms' online split kernels (staging/kernels) beside their split_row kernels,
# the dispatcher and torch, at the rows the clusters and the split_row kernels take now; and
# log_softmax's online split kernel beside the dispatcher (its clusters) at 32768-262144, where
# it may win too; the backwards' online split kernels beside their split_row kernels, the
# dispatcher and torch at 131072-2^20. Rows into $1/measure_*.json. Then the few-row latency of
# the forward's clusters sized 32768 beside the dispatcher (tools/few-rows-latency, cold L2) into
# $1/few_rows.jsonl.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=.
for dtype in float32 bfloat16; do
  suffix=$([ "$dtype" = bfloat16 ] && echo _bf16)
  for form in bias mask causal; do
    python -m softmax_harness measure "scaled_${form}_online_split$suffix@staging/kernels" \
      "scaled_${form}_split_row$suffix" "scaled_softmax_$form" torch --op "scaled_softmax_$form" \
      --dtype "$dtype" --cols 32768 65536 98304 131072 151936 262144 524288 1048576 --json "$out/measure_${form}_$dtype.json"
  done
  python -m softmax_harness measure "log_softmax_online_split$suffix" log_softmax torch --op log_softmax \
    --dtype "$dtype" --cols 32768 49152 65535 65536 98304 131072 151936 262144 \
    --json "$out/measure_log_softmax_$dtype.json"
  for family in backward log_softmax_backward; do
    op=$([ "$family" = backward ] && echo softmax_backward || echo log_softmax_backward)
    python -m softmax_harness measure "${family}_online_split$suffix@staging/kernels" "${family}_split_row$suffix" \
      "$op" torch --op "$op" --dtype "$dtype" --cols 131072 151936 262144 524288 1048576 \
      --json "$out/measure_${family}_$dtype.json"
  done
done
tools/few-rows-latency "$out/few_rows.jsonl" onepass_cluster_c32768@staging/kernels \
  onepass_cluster_f16_c32768@staging/kernels onepass_cluster_bf16_c32768@staging/kernels
