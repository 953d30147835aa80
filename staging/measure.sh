#!/usr/bin/env bash
# The measurements that decide the staged kernels, rows into $1 (pack them: a device call brings
# back 8 files): the cold-L2 latency of 1-64 rows of 32000-262144 in every type on the clusters of
# 16 blocks of 32 elements a thread (cluster16_push_*, the launch allowing a cluster past 8:
# staging/launch_path.patch, applied for the run) beside the dispatcher (the 8-block kernels sized
# to the row) and the split-row kernels (tools/few-rows-latency, ~2 minutes); and the causal
# register tiles with RowTile::load masking a chunk wholly past the read whole
# (staging/kernels_mask_outside.diff, applied to a copy of kernels/) beside kernels/' (~1 minute).
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
# a copy of kernels/ with staging/*.diff applied (changes to shared headers, measured beside the
# tree's own without staging every file that includes them)
patched=/tmp/patched
rm -rf "$patched" && mkdir -p "$patched" && cp -r kernels "$patched/" && for d in staging/*.diff; do [ -e "$d" ] && patch -d "$patched" -p1 -s < "$d"; done
# fp32 rows of 196608-262144 on the cluster with half of each block's slice stashed in shared
# memory (online_cluster_stash.cu; two blocks an SM) beside the push kernel (64 elements a thread,
# one block an SM) and the dispatcher, after the stash kernel's variant tests (~1 minute); twice,
# for the spread of repeated timings
[ -s "$out/stash_tests.txt" ] || timeout 200 python -m pytest -m gpu -q -x -n 8 -p no:cacheprovider \
  --variant "cluster_stash_c262144$S" tests > "$out/stash_tests.txt" 2>&1
tail -2 "$out/stash_tests.txt"
for run in 1 2; do
  [ -s "$out/stash_$run.json" ] || timeout 90 python -m softmax_harness measure "cluster_stash_c262144$S" \
    cluster_push_c262144 softmax --cols 196608 229376 250000 262144 --json "$out/stash_$run.json"
done
names=""
for size in 65536 131072 163840 262144; do
  for s in "" _f16 _bf16; do names="$names cluster16_push${s}_c$size$S"; done
done
# and the 8-block kernels sized 65536 on 64 and 256 rows of 32000, which FEW_ROWS leaves to the
# tiles (a block a row: 64 rows fill half the SMs)
names="$names cluster_push_c65536 cluster_push_f16_c65536 cluster_push_bf16_c65536"
# shellcheck disable=SC2086
[ -s "$out/few_rows16.jsonl" ] || tools/few-rows-latency "$out/few_rows16.jsonl" $names
for t in float32: bfloat16:_bf16 float16:_f16; do
  IFS=: read -r dtype s <<< "$t"
  pairs=""
  for c in 128 512 2048 4096 8192 16384; do
    pairs="$pairs scaled_causal_onepass${s}_c$c@$patched/kernels scaled_causal_onepass${s}_c$c"
  done
  # shellcheck disable=SC2086
  [ -s "$out/causal_tiles_$dtype.json" ] || python -m softmax_harness measure $pairs scaled_softmax_causal \
    --op scaled_softmax_causal --dtype "$dtype" --cols 128 512 2048 4096 8192 16384 --json "$out/causal_tiles_$dtype.json"
done
# the 16-bit causal rows of 16385-32768 (the online split kernel at 0.72-0.83 below 24576): the
# cluster sized 32768, whose reads are limited since f6438ef (and masked whole chunks patched),
# beside the dispatcher; bf16 (fp16 runs the same kernels over another type)
k=scaled_causal_cluster_bf16_c32768
[ -s "$out/causal_cluster_bf16.json" ] || python -m softmax_harness measure "$k@$patched/kernels" "$k" \
  scaled_causal_online_split_bf16 scaled_softmax_causal --op scaled_softmax_causal --dtype bfloat16 \
  --cols 16384 18432 20480 24576 32768 --json "$out/causal_cluster_bf16.json"
