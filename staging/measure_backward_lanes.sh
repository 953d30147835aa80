#!/usr/bin/env bash
# The trial 16-bit backward tiles sized 32 on 2 lanes of 16 (staging/kernels/*/..._onepass.cu)
# beside kernels/' 4 lanes of 8, each op's dispatcher, torch and the peers where installed, ~1 GiB
# of rows, each beside the copy (python -m softmax_harness measure); rows into $1. ~1 minute.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/backward_lanes}
mkdir -p "$out"
export PYTHONPATH=${PYTHONPATH:-.}
for op in softmax_backward log_softmax_backward; do
  pre=${op#softmax_}_onepass
  for t in bf16:bfloat16 f16:float16; do
    s=${t%%:*}; d=${t##*:}
    python3 -m softmax_harness measure "$op" "${pre}_${s}_c32" "${pre}_${s}_c32_l2@staging/kernels" torch quack \
      liger --op "$op" --dtype "$d" --cols 20 24 32 --json "$out/${op}_${s}_c32.json"
  done
done
