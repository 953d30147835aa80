#!/usr/bin/env bash
# The 16-bit online split kernels with another share of a block's slice in registers, staged
# (staging/kernels/): the bias form's on 512-thread blocks with 8 elements a thread in registers
# (8 + 48 and 8 + 40; kernels/' own 16 + 40), as the mask form's went from 32 to 8 and led, and
# log_softmax's backward with 16 or 32 (8 spilled bytes; kernels/' own 8), as the softmax
# backward's 32; each beside kernels/' own and the dispatcher, each length in one call (~1 GiB of
# rows). Rows into $1; ~2 minutes. (The mask form's map against its other kernels: git show
# a1ee1ce:staging/split_blocks.sh.)
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/split_blocks}
mkdir -p "$out"
export PYTHONPATH=${PYTHONPATH:-.}
s=staging/kernels
timeout 150 python3 -m softmax_harness measure scaled_softmax_bias scaled_bias_online_split_bf16_b512 \
  "scaled_bias_online_split_bf16_e8@$s" "scaled_bias_online_split_bf16_e8s40@$s" --op scaled_softmax_bias \
  --dtype bfloat16 --cols 65535 81920 100000 150000 200001 524288 1048576 \
  --json "$out/bias_e8_bf16.json" > "$out/bias_e8_bf16.txt" 2>&1
echo "split_blocks bias e8 rc $?"
timeout 150 python3 -m softmax_harness measure log_softmax_backward log_softmax_backward_online_split_bf16 \
  "log_softmax_backward_online_split_bf16_e16@$s" "log_softmax_backward_online_split_bf16_e32@$s" \
  --op log_softmax_backward --dtype bfloat16 --cols 65535 100000 200001 524288 1048576 \
  --json "$out/lsb_e32_bf16.json" > "$out/lsb_e32_bf16.txt" 2>&1
echo "split_blocks lsb e32 rc $?"
