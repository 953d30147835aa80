#!/usr/bin/env bash
# The measurements that decide the staged include/scaled_split.cuh and include/split_row.cuh,
# ~1 GiB inputs, in one process each, rows into $1/*.json: the bias form's online split stash with
# x 0 and the bias -inf past a part's end (no bounds check an element), beside the same kernel of
# kernels/, the dispatched one and the 16-bit cluster sized 73728.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=.
for t in bfloat16:_bf16 float16:_f16 float32:; do
  IFS=: read -r dtype s <<< "$t"
  v="scaled_bias_online_split$s"
  extra=$([ -n "$s" ] && echo "scaled_bias_cluster${s}_c73728")
  python -m softmax_harness measure "$v@staging/kernels" "$v" scaled_softmax_bias $extra --op scaled_softmax_bias \
    --dtype "$dtype" --cols 49152 65535 73728 131072 1048576 --json "$out/bias_$dtype.json"
done
