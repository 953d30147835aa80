#!/usr/bin/env bash
# The measurement that decides the staged dispatch_cluster16_many_rows.patch and the trial of
# 16-bit clusters of 16 on 64 elements a thread (staging/kernels/online_cluster_push.cu), rows into $1: at ~1
# GiB of rows, each kernel beside the copy in the same call (python -m softmax_harness measure),
# the clusters of 16 sized 131072, 163840 and 262144 beside the dispatcher (patched or not), the
# 8 blocks of PUSH_FROM and the split-row kernel, and Quack where its wheels are on the path, at
# the lengths the patch moves and those between its ranges that no call measured yet; then the
# same kernels on 1-256 rows (tools/few-rows-latency). ~2-3 minutes. The patch stands where its
# PUSH16_FROM names a length at which the 16 blocks lead the dispatcher's choice, as in
# reports/measurements/cluster16_many_rows.jsonl (an H100).
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=${PYTHONPATH:-.}
cols=(110592 114688 128256 131072 140000 143360 151936 163840 180000 196608 229376 262144)
for s in "" _f16 _bf16; do
  case $s in "") d=float32 ;; _f16) d=float16 ;; _bf16) d=bfloat16 ;; esac
  wide=()
  [ -n "$s" ] && wide=("cluster16_push${s}_c163840_b160@staging/kernels" "cluster16_push${s}_c163840_b256@staging/kernels"
                       "cluster16_push${s}_c262144_b256@staging/kernels")
  eight=("cluster_push${s}_c131072" "cluster_push${s}_c163840" "cluster_push${s}_c262144")
  [ -z "$s" ] && eight+=(cluster_push_c155648 split_row_smem_f32) || eight+=("split_row_smem$s")
  python3 -m softmax_harness measure softmax quack "cluster16_push${s}_c131072" "cluster16_push${s}_c163840" \
    "cluster16_push${s}_c262144" "${wide[@]}" "${eight[@]}" --dtype "$d" --cols "${cols[@]}" \
    --json "$out/many_rows$s.json"
done
named=()
for s in "" _f16 _bf16; do
  for c in 131072 163840 262144; do named+=("cluster16_push${s}_c$c" "cluster_push${s}_c$c"); done
done
for s in _f16 _bf16; do
  named+=("cluster16_push${s}_c163840_b160@staging/kernels" "cluster16_push${s}_c163840_b256@staging/kernels"
          "cluster16_push${s}_c262144_b256@staging/kernels")
done
tools/few-rows-latency "$out/few_rows_cluster16_many.jsonl" "${named[@]}"
# short rows of the small-batch sweep where Triton or Quack lead (run 0043): the dispatcher beside
# the other tiles that hold them
tools/few-rows-latency "$out/short_rows_latency.jsonl" --dtype float32 --shape 1x4096 --shape 8x4096 \
  --shape 64x4096 online_onepass_block_4096 onepass_vec4_c8192
tools/few-rows-latency "$out/short_rows_1024_latency.jsonl" --dtype float32 --dtype bfloat16 --shape 4096x1024 \
  onepass_vec4_c1024 onepass_vec4_c1024_b64 onepass_vec4_c1024_b128 online_onepass_warp_1024 onepass_bf16_c1024 \
  onepass_bf16_c2048 onepass_bf16_c4096
