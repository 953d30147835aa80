#!/usr/bin/env bash
# The 16-bit online split kernels on 512-thread blocks, two a multiprocessor, staged: the mask
# form's (8 elements a thread in registers, no spill) and log_softmax's backward
# (staging/kernels/*/*_b512.cu), beside kernels/' own (four blocks of 256) and the dispatcher at
# the row lengths the dispatcher gives the split kernel, aligned and misaligned, each beside the
# copy in the same call (~1 GiB of rows); then staging/check.sh (the staged variants' tests for
# SPLIT_BLOCKS_DEADLINE seconds, default 60, and the four sanitizers). The bias form's, so
# measured, led at 75001-245759 (reports/measurements/split_blocks_h100.jsonl). Rows into $1
# (the tests' in $1/staged.tgz); ~6 minutes.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/split_blocks}
mkdir -p "$out"
export PYTHONPATH=${PYTHONPATH:-.}
s=staging/kernels
m() {  # OP FAMILY DTYPE SHORT COLS...
  local op=$1 family=$2 dtype=$3 short=$4; shift 4
  timeout 150 python3 -m softmax_harness measure "$op" "${family}_online_split_$short" \
    "${family}_online_split_${short}_b512@$s" --op "$op" --dtype "$dtype" --cols "$@" \
    --json "$out/${family}_$short.json" > "$out/${family}_$short.txt" 2>&1
  echo "split_blocks $family $short rc $?"
}
m scaled_softmax_mask scaled_mask bfloat16 bf16 20000 40000 65535 100000 150000 200001 524288 1048576
m scaled_softmax_mask scaled_mask float16 f16 65535 1048576
m log_softmax_backward log_softmax_backward bfloat16 bf16 40000 65535 68001 100000 150000 200001 524288 1048576
m log_softmax_backward log_softmax_backward float16 f16 65535 1048576
MEASURE=0 DEADLINE="${SPLIT_BLOCKS_DEADLINE:-60}" OUT="$out" bash staging/check.sh
echo "split_blocks check rc $?"
