#!/usr/bin/env bash
# The mask form's 16-bit online split kernel on 512-thread blocks (kernels/, promoted from rows of
# 20000 on after reports/measurements/split_blocks_ops_h100.jsonl) beside its kernel of four
# 256-thread blocks and the dispatcher, at the lengths where the dispatcher gives other kernels
# the rows (the tile sized 16384 below 16385, the split kernel at 16385-19999, the tile sized 32768
# at 28672-32768, the push kernels at 45056-73728 and 114688-131072) and at the crossovers, each
# beside the copy in the same call (~1 GiB of rows); then the staged log_softmax backward below.
# Rows into $1; ~3 minutes.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/split_blocks}
mkdir -p "$out"
export PYTHONPATH=${PYTHONPATH:-.}
m() {  # DTYPE SHORT COLS...
  local dtype=$1 short=$2; shift 2
  timeout 150 python3 -m softmax_harness measure scaled_softmax_mask "scaled_mask_online_split_$short" \
    "scaled_mask_online_split_${short}_b512" --op scaled_softmax_mask --dtype "$dtype" --cols "$@" \
    --json "$out/scaled_mask_$short.json" > "$out/scaled_mask_$short.txt" 2>&1
  echo "split_blocks scaled_mask $short rc $?"
}
m bfloat16 bf16 12288 16384 16385 18000 24576 28672 32768 45056 57344 65536 69632 73728 98304 114688 131072 262144
m float16 f16 16385 32768 65536 131072
# log_softmax's 16-bit backward with its stashes in dynamic shared memory (staged: S = 48 and 56,
# four 256-thread blocks a multiprocessor) beside kernels/' own (S = 40) and the dispatcher
s=staging/kernels
timeout 150 python3 -m softmax_harness measure log_softmax_backward log_softmax_backward_online_split_bf16 \
  "log_softmax_backward_online_split_bf16_s48@$s" "log_softmax_backward_online_split_bf16_s56@$s" \
  --op log_softmax_backward --dtype bfloat16 --cols 40000 65535 100000 200001 524288 1048576 \
  --json "$out/lsb_smem_bf16.json" > "$out/lsb_smem_bf16.txt" 2>&1
echo "split_blocks lsb smem bf16 rc $?"
timeout 60 python3 -m softmax_harness measure log_softmax_backward log_softmax_backward_online_split_f16 \
  "log_softmax_backward_online_split_f16_s56@$s" --op log_softmax_backward --dtype float16 --cols 1048576 \
  --json "$out/lsb_smem_f16.json" > "$out/lsb_smem_f16.txt" 2>&1
echo "split_blocks lsb smem f16 rc $?"
