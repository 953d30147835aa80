#!/usr/bin/env bash
# The staged cluster kernels on a GPU, in one call:
#   1. each op's 16-bit kernels sized 73728 and 262144 beside the verified cluster kernel sized
#      65536, the block and the dispatcher, bf16, at C = 65535 (misaligned rows), 69632, 73728,
#      131072, 151936 and 262144 (measure_*.json);
#   2. the forward's cluster kernels sized to the row beside the dispatched softmax (split-row)
#      and torch, fp32 and bf16, ~1 GiB inputs (measure_softmax_*.json), and on a few rows with a
#      cold L2 (few_rows.jsonl);
#   3. the backwards' split-row kernels beside the block, the dispatcher and torch, fp32 and bf16,
#      at C = 151936, 262144, 524288 and 2^20 (measure_split_*.json);
#   4. every variant test and the four sanitizers on the staged variants (tools/gpu-check,
#      stopped after $DEADLINE seconds, default 300: the rest is recorded as not run).
# Results in ${OUT:-/tmp/staged}/staged.tgz, one archive. It changes nothing in the tree.
set -u
cd "$(dirname "$0")/.."
final=${OUT:-/tmp/staged}
out=$(mktemp -d)
mkdir -p "$final"
export PYTHONPATH=.
for op in softmax_backward log_softmax log_softmax_backward scaled_softmax_bias scaled_softmax_mask scaled_softmax_causal; do
  family=$(python3 -c "from softmax_harness.dispatch import _LADDERS; print(_LADDERS['$op'])")
  timeout 60 python3 -m softmax_harness measure "${family}_cluster_bf16_c65536" "${family}_block_bf16" \
    "${family}_cluster_bf16_c73728@staging/kernels" "${family}_cluster_bf16_c262144@staging/kernels" "$op" \
    --op "$op" --dtype bfloat16 --cols 65535 69632 73728 131072 151936 262144 \
    --json "$out/measure_$op.json" >> "$out/measure.txt" 2>&1
done
python3 -m softmax_harness measure softmax onepass_cluster_c65536@staging/kernels onepass_cluster_c131072@staging/kernels \
  onepass_cluster_c262144 torch --dtype float32 --cols 65535 65536 98304 131072 151936 262144 \
  --json "$out/measure_softmax_float32.json" >> "$out/measure.txt" 2>&1
python3 -m softmax_harness measure softmax onepass_cluster_bf16_c65536 onepass_cluster_bf16_c131072@staging/kernels \
  onepass_cluster_bf16_c262144@staging/kernels torch --dtype bfloat16 --cols 65535 65536 98304 131072 151936 262144 \
  --json "$out/measure_softmax_bfloat16.json" >> "$out/measure.txt" 2>&1
timeout 120 tools/few-rows-latency "$out/few_rows.jsonl" onepass_cluster_c65536@staging/kernels \
  onepass_cluster_c131072@staging/kernels onepass_cluster_bf16_c131072@staging/kernels \
  onepass_cluster_bf16_c262144@staging/kernels > "$out/few_rows.txt" 2>&1
for op in softmax_backward log_softmax_backward; do
  family=$(python3 -c "from softmax_harness.dispatch import _LADDERS; print(_LADDERS['$op'])")
  for dtype in float32 bfloat16; do
    suffix=; block=_block_1024; [ "$dtype" = bfloat16 ] && suffix=_bf16 && block=_block_bf16
    timeout 90 python3 -m softmax_harness measure "${family}${block}" "${family}_split_row${suffix}@staging/kernels" "$op" torch \
      --op "$op" --dtype "$dtype" --cols 151936 262144 524288 1048576 \
      --json "$out/measure_split_${op}_$dtype.json" >> "$out/measure.txt" 2>&1
  done
done
names() { grep -rho "@variant name=[a-z0-9_]*" "$1" | sed 's/@variant name=//' | sort -u; }
variants=$(comm -13 <(names kernels) <(names staging/kernels))  # the staged variants kernels/ lacks
tools/gpu-check --workers 15 --sanitize --deadline "${DEADLINE:-300}" --test-timeout 240 \
  $(for v in $variants; do echo "--variant $v@staging/kernels"; done) \
  --out "$out/staged.json" --log "$out/staged.log" > "$out/staged.txt" 2>&1
echo "gpu-check exit $?" >> "$out/staged.txt"
tail -4 "$out/staged.txt"
tar czf "$final/staged.tgz" -C "$out" .
