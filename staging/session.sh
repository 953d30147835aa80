#!/usr/bin/env bash
# The next session's GPU work in one device call (staging/README.md), each step under its own
# limit so that what ran comes back: the GPU suite --since over the dispatcher's changes since
# reports/gpu.json (the tests that take no variant), staging/measure.sh (the H200's same-call
# check of those choices, Quack beside where /tmp/peer holds the wheels' first half, carried by a
# call before: `mkdir -p /tmp/peer && cp .whl/a/* /tmp/peer/`, this call carrying .whl/b), and the
# mask-words trial (`trial/check.sh kernels_mask_words`), the staged 16-bit fused tiles of other
# lane counts (check.sh's tests and sanitizers, then measure_fused_lanes.sh), and the op tiles'
# registers trial (`trial/check.sh tile_registers`): the steps named (gpu, measure, mask, lanes,
# tiles; default all; gpu and measure ~6 minutes, mask ~5, lanes ~3, tiles ~9: calls while the
# machine is warm, staging/README.md). Set
# SOFTMAX_HARNESS_COMMIT first (the device's copy has no .git). Results in $OUT/session.tgz.
set -u
cd "$(dirname "$0")/.."
r=/tmp/session
mkdir -p "$r"
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$r/device.txt"
if ls /tmp/peer/* > /dev/null 2>&1 && [ -d .whl/b ]; then
  tools/peer-wheels unpack /tmp/site /tmp/peer/* .whl/b/* > "$r/unpack.log" 2>&1 || echo "unpack failed"
fi
steps=" ${*:-gpu measure mask lanes tiles} "
[[ $steps == *" gpu "* ]] && {
  PYTHONPATH=. timeout 200 tools/gpu-check --since reports/gpu.json --workers 15 --sanitize \
    --same-sass reports/same_sass.json --out "$r/gpu.json" --log "$r/gpu.log" > "$r/gpu.txt" 2>&1
  echo "gpu-check rc $?"; tail -1 "$r/gpu.txt"; }
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:.
[[ $steps == *" measure "* ]] && {
  timeout 240 bash staging/measure.sh "$r/m" > "$r/measure.txt" 2>&1; echo "measure rc $?"
  # the cluster kernels' resident clusters on this card (active_clusters.jsonl has the H100's)
  timeout 120 tools/active-clusters "$r/active_clusters.json" > /dev/null 2>&1; echo "active-clusters rc $?"; }
[[ $steps == *" mask "* ]] && {
  DEADLINE=240 timeout 560 bash staging/trial/check.sh kernels_mask_words "$r/mw" > "$r/mask_words.txt" 2>&1
  echo "mask words rc $?"; tail -2 "$r/mw/suite.txt" 2>/dev/null; }
[[ $steps == *" tiles "* ]] && {
  DEADLINE=280 timeout 580 bash staging/trial/check.sh tile_registers "$r/tr" > "$r/tiles.txt" 2>&1
  echo "tiles rc $?"; tail -2 "$r/tr/suite.txt" 2>/dev/null; }
[[ $steps == *" lanes "* ]] && {
  MEASURE=0 OUT="$r/lanes" DEADLINE=120 timeout 150 bash staging/check.sh; echo "lanes check rc $?"
  timeout 150 bash staging/measure_fused_lanes.sh "$r/lanes" > "$r/lanes.txt" 2>&1; echo "lanes measure rc $?"; }
tar czf "${OUT:-/tmp}/session.tgz" -C "$r" .
