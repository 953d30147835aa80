#!/usr/bin/env bash
# The measurements that decide the staged include/scaled_split.cuh, ~1 GiB inputs, in one process
# each, rows into $1/*.json: the online split kernels of the bias and mask forms with a 16-bit
# stash's (max, sum) in one pass and the fp32 mask stash's bytes a word at a time, beside the same
# kernels of kernels/, at the rows the dispatcher gives them (fp32 mask from 8193; 16-bit bias
# from 98304, mask from 16385 and past the clusters).
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=.
m() { python -m softmax_harness measure "$@"; }
m scaled_mask_online_split@staging/kernels scaled_mask_online_split --op scaled_softmax_mask --dtype float32 \
  --cols 12288 32768 65535 131072 1048576 --json "$out/mask_float32.json"
for form in bias mask; do
  for dtype in bfloat16 float16; do
    s=$([ "$dtype" = bfloat16 ] && echo _bf16 || echo _f16)
    v="scaled_${form}_online_split$s"
    m "$v@staging/kernels" "$v" "scaled_softmax_$form" --op "scaled_softmax_$form" --dtype "$dtype" \
      --cols 32768 131072 262144 1048576 --json "$out/${form}_$dtype.json"
  done
done
