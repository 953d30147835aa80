#!/usr/bin/env bash
# The staged kernels on a GPU, in one call:
#   1. the staged shapes of the 16-bit backward tiles beside kernels/'s at C = 32, 128 and 16384
#      (shapes_*.json);
#   2. the main variant tests on every staged variant (adversarial batches, lengths around its
#      edges, inputs misaligned unlike each other), stopped after $TESTS seconds (default 240);
#   3. with FULL=1, every variant test and the four sanitizers on them (tools/gpu-check, stopped
#      after $DEADLINE seconds, default 400: the rest is recorded as not run).
# Results in ${OUT:-/tmp/staged}/staged.tgz (one file: the device returns only a few). It changes
# nothing in the tree.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/staged}
work=$(mktemp -d)
mkdir -p "$out"
export PYTHONPATH=.

for dtype in bfloat16 float16; do
  short=${dtype/bfloat16/bf16}; short=${short/float16/f16}
  for c in 32 128 16384; do
    python3 -m softmax_harness measure "backward_onepass_${short}_c${c}" \
      $(python3 -c "from softmax_harness import catalog; print(' '.join(v.name + '@staging/kernels' for v in catalog.variants('staging/kernels') if v.name.startswith('backward_onepass_${short}_c${c}_')))") \
      softmax_backward --op softmax_backward --dtype "$dtype" --cols "$c" --json "$work/shapes_${short}_${c}.json" \
      >> "$work/shapes.txt" 2>&1
  done
done

variants=$(python3 -c "
from softmax_harness import catalog
print(' '.join(f'--variant={v.name}@staging/kernels' for v in catalog.variants('staging/kernels')))")
timeout "${TESTS:-240}" python3 -m pytest -m gpu -q -p no:cacheprovider -n 15 --hypothesis-profile=ci \
  --timeout 200 tests/test_kernels.py -k "adversarial_batches or lengths_around or misaligned_unlike" $variants \
  > "$work/tests.txt" 2>&1
echo "tests exit $?" >> "$work/tests.txt"

if [ "${FULL:-0}" = 1 ]; then
  tools/gpu-check --workers 15 --sanitize --test-timeout 200 --deadline "${DEADLINE:-400}" \
    --out "$work/gpu_staged.json" $variants > "$work/gpu_staged.txt" 2>&1
fi
tar czf "$out/staged.tgz" -C "$work" .
tail -3 "$work/tests.txt"
