#!/usr/bin/env bash
# The bias form's 16-bit online split kernel on 512-thread blocks with 8 elements a thread in
# registers and 48 in its stashes (staged: staging/kernels/scaled_softmax/scaled_bias_online_split_e8.cu),
# ahead of kernels/' `_b512` (16 + 40) and the dispatcher at six of seven lengths on an H100
# (reports/measurements/split_blocks_regs_h100.jsonl), beside them at the lengths the dispatcher
# gives its split kernels, its barrier and push clusters, aligned and misaligned, each length in
# one call (~1 GiB of rows); then staging/check.sh (the staged variants' tests for
# SPLIT_BLOCKS_DEADLINE seconds, default 60, and the four sanitizers). Rows into $1; ~4 minutes.
# (Earlier forms of this step: git log -p staging/split_blocks.sh.)
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/split_blocks}
mkdir -p "$out"
export PYTHONPATH=${PYTHONPATH:-.}
s=staging/kernels
m() {  # DTYPE SHORT COLS...
  local dtype=$1 short=$2; shift 2
  timeout 170 python3 -m softmax_harness measure scaled_softmax_bias "scaled_bias_online_split_$short" \
    "scaled_bias_online_split_${short}_b512" "scaled_bias_online_split_${short}_e8@$s" --op scaled_softmax_bias \
    --dtype "$dtype" --cols "$@" --json "$out/bias_e8_$short.json" > "$out/bias_e8_$short.txt" 2>&1
  echo "split_blocks bias e8 $short rc $?"
}
m bfloat16 bf16 32769 36000 40000 45000 60001 65535 69631 72702 73729 90001 98303 110000 131073 180000 \
  245759 262145 300000 524288 1048576
m float16 f16 36000 65535 150000 524288 1048576
MEASURE=0 DEADLINE="${SPLIT_BLOCKS_DEADLINE:-60}" OUT="$out" bash staging/check.sh
echo "split_blocks check rc $?"
