#!/usr/bin/env bash
# On the H200, in one call, the pairs that runs 0049 (H200) and 0044-0047 (H100) disagree on, and
# that the dispatcher now settles for the H200 from two runs apart (softmax_harness/dispatch.py:
# `_BEFORE`, `ALIGNED_TILES`, `PUSH16_FROM`): each kernel beside the copy in the same call
# (python -m softmax_harness measure, ~1 GiB of rows), Quack where its wheels are on the path;
# rows into $1. ~3 minutes.
#  1. the 16-bit short-row tiles: sized 64 on 8 lanes of 8 and 4 of 16, sized 128 on 8 lanes of 16,
#     16 of 8 and 4 of 32, at every bf16 length of 33-128 and fp16's aligned ones;
#  2. many 16-bit rows of 98304-131072 over the 8 blocks and the 16 sized 131072;
#  3. many fp32 rows of 163841-229376 over the 16 blocks and the 8 sized 262144 and the split-row
#     kernel.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=${PYTHONPATH:-.}
peers=()
python3 -c "import quack" 2>/dev/null && peers=(quack)
tiles() { echo "onepass_$1_c64 onepass_$1_c64_l4 onepass_$1_c128 onepass_$1_c128_l16 onepass_$1_c128_l4"; }
python3 -m softmax_harness measure softmax "${peers[@]}" $(tiles bf16) --dtype bfloat16 --cols $(seq 33 128) \
  --json "$out/short16_bf16.json"
python3 -m softmax_harness measure softmax "${peers[@]}" $(tiles f16) --dtype float16 \
  --cols 40 48 56 64 72 80 88 96 104 112 120 127 128 --json "$out/short16_f16.json"
for t in bf16:bfloat16 f16:float16; do
  python3 -m softmax_harness measure softmax "${peers[@]}" "cluster_push_${t%%:*}_c131072" \
    "cluster16_push_${t%%:*}_c131072" --dtype "${t##*:}" --cols 98304 110592 120000 128256 131072 \
    --json "$out/many_rows_131072_${t%%:*}.json"
done
python3 -m softmax_harness measure softmax "${peers[@]}" cluster_push_c262144 cluster16_push_c262144 \
  split_row_smem_f32 --dtype float32 --cols 163841 180000 196608 229376 --json "$out/many_rows_262144_f32.json"
