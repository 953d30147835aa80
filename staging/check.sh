#!/usr/bin/env bash
# The staged register tiles of log_softmax and the fused forward on a GPU, in one call:
#   1. fraction of copy of kernels/'s dispatcher beside the staged tile sized to C, in one process,
#      at C = 32 ... 16384, fp32 and bf16 (ab.jsonl);
#   2. the main variant tests on every staged variant (adversarial batches, lengths around its
#      edges, an output misaligned unlike the input),
#      stopped after $TESTS seconds (default 240);
#   3. with FULL=1, every variant test and the four sanitizers on them (tools/gpu-check, stopped
#      after $DEADLINE seconds, default 400: the rest is recorded as not run).
#   0. with BACKWARD=1 first, the staged cluster kernels (both backwards, log_softmax, the fused
#      forms) beside the dispatched op and torch at C = 16385 ... 131072 (cluster_*.json).
# Results in ${OUT:-/tmp/staged}/staged.tgz, one archive: the device returns only a few files (a
# call of commit 22d80ff lost its shapes_*.json that way). It changes nothing in the tree.
set -u
cd "$(dirname "$0")/.."
final=${OUT:-/tmp/staged}
out=$(mktemp -d)
mkdir -p "$final"
export PYTHONPATH=.

if [ "${BACKWARD:-0}" = 1 ]; then
  python3 -m softmax_harness measure backward_cluster_c32768@staging/kernels backward_cluster_c65536@staging/kernels \
    backward_cluster_c131072@staging/kernels softmax_backward torch --op softmax_backward --dtype float32 \
    --cols 32768 65535 65536 131072 --json "$out/cluster_f32.json" >> "$out/shapes.txt" 2>&1
  python3 -m softmax_harness measure log_softmax_backward_cluster_c32768@staging/kernels \
    log_softmax_backward_cluster_c65536@staging/kernels \
    log_softmax_backward_cluster_c131072@staging/kernels log_softmax_backward torch --op log_softmax_backward \
    --dtype float32 --cols 32768 65535 65536 131072 --json "$out/cluster_log_f32.json" >> "$out/shapes.txt" 2>&1
  for dtype in float32 bfloat16; do
    short=; [ "$dtype" = bfloat16 ] && short=bf16_
    python3 -m softmax_harness measure "log_softmax_cluster_${short}c65536@staging/kernels" \
      "log_softmax_cluster_${short}c131072@staging/kernels" log_softmax torch --op log_softmax --dtype "$dtype" \
      --cols 32769 65535 65536 131072 --json "$out/cluster_log_softmax_$dtype.json" >> "$out/shapes.txt" 2>&1
  done
  for form in bias mask causal; do
    for dtype in float32 bfloat16; do
      short=; [ "$dtype" = bfloat16 ] && short=bf16_
      python3 -m softmax_harness measure $(for c in 32768 65536 131072; do echo "scaled_${form}_cluster_${short}c$c@staging/kernels"; done) \
        "scaled_softmax_$form" torch --op "scaled_softmax_$form" --dtype "$dtype" \
        --cols 16385 32768 65535 65536 131072 --json "$out/cluster_scaled_${form}_$dtype.json" >> "$out/shapes.txt" 2>&1
    done
  done
  for short in f16 bf16; do
    dtype=${short/bf16/bfloat16}; dtype=${dtype/f16/float16}
    for op in softmax_backward log_softmax_backward; do
      family=$op; [ "$op" = softmax_backward ] && family=backward
      python3 -m softmax_harness measure "${family}_cluster_${short}_c65536@staging/kernels" \
        "${family}_cluster_${short}_c131072@staging/kernels" "$op" torch \
        --op "$op" --dtype "$dtype" --cols 32769 65535 65536 131072 --json "$out/cluster_${op}_${short}.json" \
        >> "$out/shapes.txt" 2>&1
    done
  done
fi

python3 - > "$out/ab.jsonl" 2> "$out/ab.err" <<'PY'
import json

from softmax_harness import bench, catalog

STAGED = "staging/kernels"
names = [v.name for v in catalog.variants(STAGED) if "onepass" in v.name]
for op, family in (("log_softmax", "log_softmax"), ("scaled_softmax_bias", "scaled_bias"),
                   ("scaled_softmax_mask", "scaled_mask"), ("scaled_softmax_causal", "scaled_causal")):
    for dtype, suffix in (("float32", ""), ("bfloat16", "_bf16")):
        for n_cols, size in ((32, 32), (128, 128), (500, 512), (1024, 1024), (4096, 4096), (16384, 16384)):
            staged = f"{family}_onepass{suffix}_c{size}"
            if staged not in names:
                continue
            rows = bench.fractions_of_copy([op, f"{staged}@{STAGED}"], [n_cols], dtype, op=op)
            print(json.dumps(rows[0]), flush=True)
PY
echo "ab exit $?" >> "$out/ab.err"

variants=$(python3 -c "
from softmax_harness import catalog
print(' '.join(f'--variant={v.name}@staging/kernels' for v in catalog.variants('staging/kernels')))")
timeout "${TESTS:-240}" python3 -m pytest -m gpu -q -p no:cacheprovider -n 15 --hypothesis-profile=ci \
  --timeout 200 tests/test_kernels.py -k "adversarial_batches or lengths_around or misaligned_unlike" $variants \
  > "$out/tests.txt" 2>&1
echo "tests exit $?" >> "$out/tests.txt"

if [ "${FULL:-0}" = 1 ]; then
  tools/gpu-check --workers 15 --sanitize --test-timeout 200 --deadline "${DEADLINE:-400}" \
    --out "$out/gpu_staged.json" $variants > "$out/gpu_staged.txt" 2>&1
fi
tail -3 "$out/tests.txt"
tar czf "$final/staged.tgz" -C "$out" .
