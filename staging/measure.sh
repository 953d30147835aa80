#!/usr/bin/env bash
# The measurements that decide the staged include/scaled_split.cuh, ~1 GiB inputs, in one process
# each, rows into $1/*.json: the online split kernels of the three fused forms, their stashes'
# logits formed with no bounds check an element (mask bytes a word at a time; the bias's and the
# causal form's bounds checked in the part's last chunk only), beside the same kernels of kernels/
# and the dispatched one, at rows the split kernels take and at 16-bit mask rows of 49152-73728,
# which the clusters take now.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=.
for form in mask bias causal; do
  for dtype in float32 bfloat16 float16; do
    s=$([ "$dtype" = bfloat16 ] && echo _bf16 || ([ "$dtype" = float16 ] && echo _f16))
    v="scaled_${form}_online_split$s"
    cols="32768 131072 1048576"
    [ "$form" = mask ] && [ "$dtype" != float32 ] && cols="49152 65535 73728 $cols"
    python -m softmax_harness measure "$v@staging/kernels" "$v" "scaled_softmax_$form" --op "scaled_softmax_$form" \
      --dtype "$dtype" --cols $cols --json "$out/${form}_$dtype.json"
  done
done
