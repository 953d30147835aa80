#!/usr/bin/env bash
# The fused forms' 16-bit online split kernels on 512-thread blocks, two a multiprocessor, and on
# one 1024-thread block (staging/kernels/scaled_softmax/scaled_online_split_b512.cu) beside
# kernels/' own (four blocks of 256) and the dispatcher, at the row lengths the dispatcher gives
# the split kernel (aligned and misaligned), each beside the copy in the same call (~1 GiB of
# rows); then the staged variants' tests for SPLIT_BLOCKS_DEADLINE seconds (default 45), no
# sanitizers. Rows into $1; ~3 minutes.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/split_blocks}
mkdir -p "$out"
export PYTHONPATH=${PYTHONPATH:-.}
s=staging/kernels
for form in bias:32769-40959,73729-98303,131073-245759,262145-1048576:36000,81920,90001,150000,200001,524288,1048576 \
    mask:16385-28671,32769-45055,73729-114687,131073-1048576:20000,40000,65535,100000,200001,1048576; do
  IFS=: read -r f _ cols <<< "$form"
  timeout 150 python3 -m softmax_harness measure "scaled_softmax_$f" "scaled_${f}_online_split_bf16" \
    "scaled_${f}_online_split_bf16_b512@$s" "scaled_${f}_online_split_bf16_b1024@$s" \
    --op "scaled_softmax_$f" --dtype bfloat16 --cols ${cols//,/ } --json "$out/${f}_bf16.json" \
    > "$out/${f}_bf16.txt" 2>&1
  echo "split_blocks $f bf16 rc $?"
  timeout 60 python3 -m softmax_harness measure "scaled_${f}_online_split_f16" \
    "scaled_${f}_online_split_f16_b512@$s" --op "scaled_softmax_$f" --dtype float16 --cols 65535 1048576 \
    --json "$out/${f}_f16.json" > "$out/${f}_f16.txt" 2>&1
  echo "split_blocks $f f16 rc $?"
done
names=$(grep -ho "@variant name=[a-z0-9_]*" $s/scaled_softmax/scaled_online_split_b512.cu | sed 's/@variant name=//')
tools/gpu-check --workers 15 --deadline "${SPLIT_BLOCKS_DEADLINE:-45}" --test-timeout 120 \
  $(for v in $names; do echo "--variant $v@$s"; done) --out "$out/suite.json" --log "$out/suite.log" \
  > "$out/suite.txt" 2>&1
echo "split_blocks suite rc $?"; tail -1 "$out/suite.txt"
