#!/usr/bin/env bash
# The measurement that settles the trial 16-bit tiles sized 64 (staging/kernels/online_onepass_half.cu:
# 8 lanes of 8, `_c64`, and 4 lanes of 16, `_c64_l4`): every bf16 length from 33 to 64 and fp16 at
# the aligned lengths and a few odd ones, ~1 GiB of rows, each kernel beside the copy in the same
# call (python -m softmax_harness measure), the dispatcher (today the 8 lanes of 16 sized 128 from
# 33 on), the tiles sized 32 and 128 and Quack where its wheels are on the path; rows into $1. ~1 minute.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=${PYTHONPATH:-.}
peers=()
python3 -c "import quack" 2>/dev/null && peers=(quack)
tiles() { echo "onepass_$1_c128 onepass_$1_c64@staging/kernels onepass_$1_c64_l4@staging/kernels"; }
python3 -m softmax_harness measure softmax "${peers[@]}" $(tiles bf16) --dtype bfloat16 --cols $(seq 33 64) \
  --json "$out/c64_every_bf16.json"
python3 -m softmax_harness measure softmax "${peers[@]}" $(tiles f16) --dtype float16 \
  --cols 33 40 47 48 56 63 64 --json "$out/c64_edges_f16.json"
