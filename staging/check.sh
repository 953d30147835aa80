#!/usr/bin/env bash
# The staged 16-bit split-row kernels on a GPU, in one call (about 5 minutes on an H200):
#   1. fraction of copy, staged beside verified, in one process a type, two passes (the second
#      in reverse order);
#   2. every property on rows whose maximum puts s' = m log2e + log2 d on either side of
#      FOLD_LIMIT (|m| near 700), where the store changes paths;
#   3. every variant test and the four sanitizers on the staged files (tools/gpu-check, stopped
#      after $DEADLINE seconds, default 240: the rest is recorded as not run).
# Results: $OUT/staged.tgz (default /tmp/staged), packed again after each step. It changes
# nothing in the tree.
set -u
cd "$(dirname "$0")/.."
out=/tmp/staged-results  # packed into ${OUT:-/tmp/staged}/staged.tgz after each step
mkdir -p "$out" "${OUT:-/tmp/staged}"
export PYTHONPATH=.
pack() { tar czf "${OUT:-/tmp/staged}/staged.tgz" -C "$out" .; }

for pass in 1 2; do
    for short in f16 bf16; do
        dtype=${short/bf16/bfloat16}
        dtype=${dtype/f16/float16}
        names=(split_row_smem_${short} split_row_smem_${short}@staging/kernels
               split_row_smem_${short}_b512 split_row_smem_${short}_b512@staging/kernels)
        cols=(65535 131072 262147 1048576)
        if [ "$pass" = 2 ]; then
            names=($(printf '%s\n' "${names[@]}" | tac))
            cols=($(printf '%s\n' "${cols[@]}" | tac))
        fi
        python3 -m softmax_harness measure "${names[@]}" --dtype "$dtype" --cols "${cols[@]}" \
            --json "$out/ab_${short}_pass${pass}.json" > "$out/ab_${short}_pass${pass}.txt" 2>&1
    done
done
pack

python3 - "$out" <<'EOF' > "$out/fold_limit.txt" 2>&1
"""Rows of C = 1000 and 262147 with maxima around +-700 (and 0): both store paths, and the switch."""
import sys

import numpy as np

import softmax_harness
from softmax_harness.properties import check
from softmax_harness.subject import Subject

failed = 0
for short in ("f16", "bf16"):
    v = softmax_harness.variant(f"split_row_smem_{short}@staging/kernels")
    for n_cols in (1000, 262147):
        peaks = np.r_[-760:-640:4, 0, 640:760:4]  # the switch is at |m| ~ 700
        rng = np.random.default_rng(n_cols)
        x = (peaks[:, None] + rng.standard_normal((peaks.size, n_cols)) * 3).astype(np.float32)
        report = check(Subject.of(v), x, offset=1)
        failed += not report.ok
        print(v.ref, n_cols, "ok" if report.ok else report.failures,
              f"max {report.max_bound_ratio:.3g} of the bound", flush=True)
sys.exit(1 if failed else 0)
EOF
echo "fold_limit: exit $?" >> "$out/fold_limit.txt"
pack

tools/gpu-check --workers 8 --sanitize --test-timeout 200 --deadline "${DEADLINE:-240}" \
    --out "$out/gpu_staged.json" \
    $(for k in f16 bf16 f16_b512 bf16_b512; do echo "--variant=split_row_smem_${k}@staging/kernels"; done) \
    > "$out/gpu_staged.txt" 2>&1
pack
