#!/usr/bin/env bash
# The measurements that decide the staged kernels, ~1 GiB inputs, in one process each, rows into
# $1/*.json: the mask form's register tiles and clusters with the staged include/scaled.cuh (the
# mask words of four chunks loaded together) beside the same kernels of kernels/, at the sizes the
# dispatcher gives them (fp32 tiles at 1024-16384; bf16 tiles at 1024-16384 and the clusters sized
# 65536 and 73728 at 49152-73728), fp32 and bf16; and the mask form's online split kernels, whose
# tile now takes the same helper (three chunks' words at a time where it loaded all), beside kernels/'.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=.
m() { python -m softmax_harness measure "$@"; }
for dtype in float32 bfloat16; do
  s=$([ "$dtype" = bfloat16 ] && echo _bf16)
  for c in 1024 4096 8192 16384; do
    v="scaled_mask_onepass${s}_c$c"
    m "$v@staging/kernels" "$v" scaled_softmax_mask --op scaled_softmax_mask --dtype "$dtype" --cols $((c * 3 / 4)) "$c" \
      --json "$out/tile_${dtype}_$c.json"
  done
done
for pair in "65536 49152" "73728 65535"; do
  set -- $pair
  v="scaled_mask_cluster_bf16_c$1"
  m "$v@staging/kernels" "$v" --op scaled_softmax_mask --dtype bfloat16 --cols "$2" "$1" --json "$out/cluster_$1.json"
done
for dtype in float32 bfloat16; do
  v=scaled_mask_online_split$([ "$dtype" = bfloat16 ] && echo _bf16)
  m "$v@staging/kernels" "$v" --op scaled_softmax_mask --dtype "$dtype" --cols 65535 131072 1048576 \
    --json "$out/online_split_$dtype.json"
done
