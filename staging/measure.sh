#!/usr/bin/env bash
# The measurements that decide the staged kernels, ~1 GiB inputs, rows into $1/*.json (pack them:
# a device call brings back 8 files): the 16-bit push kernel sized 163840 on 320 threads of 64
# beside kernels/' 640 of 32 and the sizes 153600 and 155648 at Qwen's 151936 and around it; the
# causal form's register tiles and online split kernels reading up to each row's last kept column
# rounded up to a whole vector (include/scaled.cuh causal_reads), beside kernels/' and the dispatcher.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=.
S=@staging/kernels
# a measurement whose rows are already in $1 is not taken again (a call that ran out of time goes on)
measure() { [ -s "${@: -1}" ] || python -m softmax_harness measure "$@"; }
for t in bfloat16:_bf16 float16:_f16; do
  IFS=: read -r dtype s <<< "$t"
  p=cluster_push$s
  measure "${p}_c163840$S" "${p}_c163840" "${p}_c153600" "${p}_c155648" softmax --dtype "$dtype" \
    --cols 143360 147456 151936 153600 155648 159744 163840 --json "$out/qwen_$dtype.json"
done
for t in float32: bfloat16:_bf16 float16:_f16; do
  IFS=: read -r dtype s <<< "$t"
  k=scaled_causal_online_split$s
  extra=""
  [ "$dtype" = float32 ] && extra="scaled_causal_cluster_c32768$S"
  measure "$k$S" "$k" $extra scaled_softmax_causal --op scaled_softmax_causal --dtype "$dtype" \
    --cols 16384 20480 32768 65536 1048576 --json "$out/causal_$dtype.json"
done
for t in float32: bfloat16:_bf16 float16:_f16; do
  IFS=: read -r dtype s <<< "$t"
  names=""
  for c in 128 4096 16384; do names="$names scaled_causal_onepass${s}_c$c$S scaled_causal_onepass${s}_c$c"; done
  # shellcheck disable=SC2086
  measure $names scaled_softmax_causal --op scaled_softmax_causal --dtype "$dtype" \
    --cols 128 4096 16384 --json "$out/causal_tiles_$dtype.json"
done
