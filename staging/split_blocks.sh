#!/usr/bin/env bash
# The bias form's 16-bit online split kernel on 512-thread blocks with 8 elements a thread in
# registers and 48 in its stashes (kernels/scaled_softmax/scaled_online_split.cu's `_b512`, ahead
# of its 16 + 40 form and of the dispatcher's earlier choices at six of seven lengths on an H100:
# reports/measurements/split_blocks_regs_h100.jsonl), its map against every other kernel the
# dispatcher gives the bias form's 16-bit rows of 32769-2^20: the 256-thread split kernel, the
# barrier cluster sized 73728 (the misaligned rows of 65473-72702 until now), the push kernels
# sized 131072 and 262144, the dispatcher beside; aligned and misaligned rows, each length in one
# call (~1 GiB of rows). Rows into $1; ~1 minute on an H100. (Earlier forms of this step: git log -p
# staging/split_blocks.sh.)
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/split_blocks}
mkdir -p "$out"
export PYTHONPATH=${PYTHONPATH:-.}
m() {  # DTYPE SHORT COLS...
  local dtype=$1 short=$2; shift 2
  local k="scaled_bias_online_split_$short" c="scaled_bias_cluster_push_${short}_c"
  timeout 230 python3 -m softmax_harness measure scaled_softmax_bias "$k" "${k}_b512" \
    "scaled_bias_cluster_${short}_c73728" "${c}131072" "${c}262144" --op scaled_softmax_bias \
    --dtype "$dtype" --cols "$@" --json "$out/bias_b512_$short.json" > "$out/bias_b512_$short.txt" 2>&1
  echo "split_blocks bias b512 $short rc $?"
}
m bfloat16 bf16 32769 36000 40000 45000 60001 65473 65535 69631 72702 73729 90001 94000 98303 110000 \
  131073 180000 245759 262145 300000 400000 524288 1048576
m float16 f16 36000 65535 98303 150000 300000 524288 1048576
