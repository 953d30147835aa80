#!/usr/bin/env bash
# The staged 16-bit cluster kernels (sized 73728 and 262144) on a GPU, in one call:
#   1. each op's staged kernels beside the verified cluster kernel sized 65536, the block and the
#      dispatcher, bf16, at C = 65535 (misaligned rows), 69632, 73728, 131072, 151936 and 262144
#      (measure_*.json);
#   2. every variant test and the four sanitizers on the 24 staged variants (tools/gpu-check,
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
variants=$(cd staging/kernels && grep -ho "@variant name=[a-z0-9_]*_c\(73728\|262144\)" -r . | sed 's/@variant name=//')
tools/gpu-check --workers 15 --sanitize --deadline "${DEADLINE:-300}" --test-timeout 240 \
  $(for v in $variants; do echo "--variant $v@staging/kernels"; done) \
  --out "$out/staged.json" --log "$out/staged.log" > "$out/staged.txt" 2>&1
echo "gpu-check exit $?" >> "$out/staged.txt"
tail -4 "$out/staged.txt"
tar czf "$final/staged.tgz" -C "$out" .
