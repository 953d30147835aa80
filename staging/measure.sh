#!/usr/bin/env bash
# The measurements that decide the staged cluster push kernels, ~1 GiB inputs, rows into $1/*.json
# (pack them: a device call brings back 8 files): fp32 rows of 196608-262144 on 16 blocks of 512
# threads of 32 (cluster16_push_c262144, the launch allowing a cluster past 8: staging/launch_path.patch,
# applied for the run) beside the 8
# blocks of 512 of 64 and the dispatcher; Qwen's 151936 in 16 bits on 416 threads of 48 (159744)
# and 320 of 64 (163840_b320) beside the size 153600's 480 of 40; 16-bit 50257 and misaligned 65535
# on sizes 51200 and 67584; the causal form's kernels that skip the masked columns; with FEW_ROWS=1,
# the cold-L2 latency of a few rows of 262144 in fp32 on the 16-block kernel.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=.
S=@staging/kernels
# staging/*.patch in place while it runs, where staging/check.sh has not put them there already
applied=""
for p in staging/*.patch; do
  [ -e "$p" ] && { git apply "$p" 2>/dev/null || patch -p1 -s -N -r - < "$p" > /dev/null 2>&1; } && applied="$applied $p"
done
trap 'for p in $applied; do git apply -R "$p" 2>/dev/null || patch -R -p1 -s < "$p"; done' EXIT
# a measurement whose rows are already in $1 is not taken again (a call that ran out of time goes on)
measure() { [ -s "${@: -1}" ] || python -m softmax_harness measure "$@"; }
measure cluster16_push_c262144$S cluster_push_c262144 softmax --dtype float32 \
  --cols 196608 229376 245760 262144 --json "$out/fp32_262144.json"
measure cluster16_push_c262144$S cluster_push_c262144 softmax --dtype float32 \
  --cols 262144 --json "$out/fp32_262144_again.json"
for t in bfloat16:_bf16 float16:_f16; do
  IFS=: read -r dtype s <<< "$t"
  p=cluster_push$s
  measure "${p}_c159744$S" "${p}_c163840_b320$S" "${p}_c153600" softmax --dtype "$dtype" \
    --cols 151936 153600 159744 --json "$out/qwen_$dtype.json"
done
# GPT-2's 50257 and a misaligned 65535 in 16 bits on push kernels sized to hold them (51200: 160
# threads of 40; 67584: 352 of 24) beside the dispatcher (the split-row kernel; the size 73728)
for t in bfloat16:_bf16 float16:_f16; do
  IFS=: read -r dtype s <<< "$t"
  measure "cluster_push${s}_c51200$S" "cluster_push${s}_c67584$S" "cluster_push${s}_c73728" softmax \
    --dtype "$dtype" --cols 50257 51200 65535 67584 --json "$out/odd_$dtype.json"
done
# the causal form's online split kernels reading and folding only up to each row's last kept
# column, beside kernels/' and the dispatcher (rows r keep 0 .. r % C: most of a long row is masked)
for t in float32: bfloat16:_bf16 float16:_f16; do
  IFS=: read -r dtype s <<< "$t"
  k=scaled_causal_online_split$s
  measure "$k$S" "$k" scaled_softmax_causal --op scaled_softmax_causal --dtype "$dtype" \
    --cols 20480 32768 65536 131072 1048576 --json "$out/causal_$dtype.json"
done
# the causal form's register tiles reading only up to each row's last kept column (include/scaled.cuh
# CausalTile), each at the size it holds, beside kernels/' (rows of short C: about half of each read)
for t in float32: bfloat16:_bf16 float16:_f16; do
  IFS=: read -r dtype s <<< "$t"
  names=""
  for c in 128 4096 16384; do names="$names scaled_causal_onepass${s}_c$c$S scaled_causal_onepass${s}_c$c"; done
  [ "$dtype" = float32 ] && names="$names scaled_causal_cluster_c32768$S scaled_causal_cluster_c32768"
  # shellcheck disable=SC2086
  measure $names scaled_softmax_causal --op scaled_softmax_causal --dtype "$dtype" \
    --cols 128 4096 16384 32768 --json "$out/causal_tiles_$dtype.json"
done
# the whole few-rows latency sweep (~2 minutes), with FEW_ROWS=1: once the 16-block kernel has won
if [ "${FEW_ROWS:-0}" = 1 ] && [ ! -s "$out/few_rows.jsonl" ]; then
  tools/few-rows-latency "$out/few_rows.jsonl" cluster16_push_c262144$S
fi
