#!/usr/bin/env bash
# The measurements that decide the staged changes, rows into $1 (pack them: a device call brings
# back 8 files): the causal register tiles with RowTile::load masking a chunk wholly past the read
# whole (staging/trial/kernels_mask_outside.diff, applied to a copy of kernels/) beside kernels/'
# in every type (~1 minute), and the 16-bit causal cluster sized 32768 so patched beside the
# dispatcher. A diff under trial/ is not promoted by staging/promote.sh: it waits for these.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=.
# a copy of kernels/ with staging/trial/*.diff applied (changes to shared headers, measured beside
# the tree's own without staging every file that includes them)
patched=/tmp/patched
rm -rf "$patched" && mkdir -p "$patched" && cp -r kernels "$patched/" && for d in staging/trial/*.diff; do [ -e "$d" ] && patch -d "$patched" -p1 -s < "$d"; done
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
