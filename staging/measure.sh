#!/usr/bin/env bash
# The measurements that decide the staged include/backward.cuh: the 16-bit online split kernels of
# log_softmax's backward with exp(z) from the special-function unit (fast_math=true), beside the
# same kernels of kernels/ (expf) and the dispatched one, ~1 GiB inputs, rows into $1/*.json.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=.
for t in bfloat16:_bf16 float16:_f16; do
  IFS=: read -r dtype s <<< "$t"
  v="log_softmax_backward_online_split$s"
  python -m softmax_harness measure "$v@staging/kernels" "$v" log_softmax_backward --op log_softmax_backward \
    --dtype "$dtype" --cols 65535 73728 131072 262144 1048576 --json "$out/lsb_$dtype.json"
done
# the 16-bit register tiles sized 8192 and 16384 with the same exponential
for t in bfloat16:_bf16 float16:_f16; do
  IFS=: read -r dtype s <<< "$t"
  python -m softmax_harness measure "log_softmax_backward_onepass${s}_c8192@staging/kernels" "log_softmax_backward_onepass${s}_c8192" \
    "log_softmax_backward_onepass${s}_c16384@staging/kernels" "log_softmax_backward_onepass${s}_c16384" log_softmax_backward \
    --op log_softmax_backward --dtype "$dtype" --cols 6144 8192 12288 16384 --json "$out/lsb_tiles_$dtype.json"
done
