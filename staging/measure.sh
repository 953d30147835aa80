#!/usr/bin/env bash
# The measurements that decide the staged kernels, ~1 GiB inputs, in one process each, rows into
# $1/*.json: the mask form's online split kernels (staging/kernels: the register tile's mask words
# loaded together) beside the promoted ones, the dispatcher and torch, fp32 and bf16; and, for
# the dispatcher, the online split kernels beside the clusters they might replace: the bf16 fused
# forms' sized 32768 at 20481-32768, the bf16 backwards' sized 65536 and 73728 at 49152-73728
# (the misaligned 65535 included), the fp32 backwards' sized 32768 and 65536 at 32768-65536.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=.
m() { python -m softmax_harness measure "$@"; }
for dtype in float32 bfloat16; do
  s=$([ "$dtype" = bfloat16 ] && echo _bf16)
  m "scaled_mask_online_split$s@staging/kernels" "scaled_mask_online_split$s" scaled_softmax_mask torch \
    --op scaled_softmax_mask --dtype "$dtype" --cols 16384 32768 65535 65536 131072 262144 1048576 \
    --json "$out/mask_$dtype.json"
done
for form in bias mask causal; do
  m "scaled_${form}_online_split_bf16" "scaled_${form}_cluster_bf16_c32768" --op "scaled_softmax_$form" \
    --dtype bfloat16 --cols 20481 24576 28672 32768 --json "$out/forms_c32768_$form.json"
done
for family in backward log_softmax_backward; do
  op=$([ "$family" = backward ] && echo softmax_backward || echo log_softmax_backward)
  m "${family}_online_split_bf16" "${family}_cluster_bf16_c65536" "${family}_cluster_bf16_c73728" --op "$op" \
    --dtype bfloat16 --cols 49152 65535 65536 73728 --json "$out/${family}_bf16.json"
  m "${family}_online_split" "${family}_cluster_c32768" "${family}_cluster_c65536" --op "$op" \
    --dtype float32 --cols 32768 49152 65536 --json "$out/${family}_f32.json"
done
