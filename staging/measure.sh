#!/usr/bin/env bash
# The measurements that decide the staged include/scaled_split.cuh, ~1 GiB inputs, in one process
# each, rows into $1/*.json: the 16-bit causal online split kernel's stash taking (max, sum) in one
# pass as the others do, and the bias form's bounds check on the chunk's room left (no sum an
# element), beside the same kernels of kernels/ and the dispatched kernel.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=.
for t in causal:bfloat16:_bf16 causal:float16:_f16 bias:bfloat16:_bf16 bias:float16:_f16 bias:float32:; do
  IFS=: read -r form dtype s <<< "$t"
  v="scaled_${form}_online_split$s"
  python -m softmax_harness measure "$v@staging/kernels" "$v" "scaled_softmax_$form" --op "scaled_softmax_$form" \
    --dtype "$dtype" --cols 49152 131072 1048576 --json "$out/${form}_$dtype.json"
done
