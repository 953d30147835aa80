#!/usr/bin/env bash
# The next session's GPU work in device calls (staging/README.md), each step under its own limit
# so that what ran comes back: the GPU suite --since over the changes since reports/gpu.json
# (gpu), staging/measure.sh with tools/active-clusters (measure: the H200's same-call check of the
# dispatcher's choices, Quack beside where /tmp/peer holds the wheels' first half, carried by a
# call before: `mkdir -p /tmp/peer && cp .whl/a/* /tmp/peer/`, this call carrying .whl/b), the
# one-trip mask words trial (mask: `trial/check.sh mask_words_together`), the staged tiles (lanes: check.sh's
# tests and sanitizers, then measure_backward_lanes.sh), the op tiles' registers trial (tiles:
# `trial/check.sh tile_registers`; TILES_DEADLINE=5 leaves its tests out and measures), and the
# sweeps (ops, small, long), and ncu's counters (profile). Steps named as arguments, default gpu measure mask lanes tiles; gpu
# and measure ~6 minutes, mask ~5, lanes ~3, tiles ~9, ops ~4: calls while the machine is warm.
# Set SOFTMAX_HARNESS_COMMIT first (the device's copy has no .git). Results in $OUT/session.tgz.
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
  DEADLINE=${MASK_DEADLINE:-200} timeout 500 bash staging/trial/check.sh mask_words_together "$r/mw" > "$r/mask_words.txt" 2>&1
  echo "mask words rc $?"; tail -2 "$r/mw/suite.txt" 2>/dev/null; }
[[ $steps == *" tiles "* ]] && {
  DEADLINE=${TILES_DEADLINE:-280} timeout 580 bash staging/trial/check.sh tile_registers "$r/tr" > "$r/tiles.txt" 2>&1
  echo "tiles rc $?"; tail -2 "$r/tr/suite.txt" 2>/dev/null; }
# The sweeps the open issues cite (README, reports/STATUS.md), each saved as the next run of the
# history under the commit's name: ops (issue 23, ~250 s on the H200), small (issue 24, ~45 s),
# long (issue 25's long rows with Quack, ~35 s).
bench() {
  timeout "$2" python3 -m pytest tests/test_bench.py -m bench -q -p no:cacheprovider -k "$3" \
    --benchmark-timer=softmax_harness.bench.gpu_clock --benchmark-save="${SOFTMAX_HARNESS_COMMIT:0:12}" \
    > "$r/$1.txt" 2>&1
  echo "$1 rc $?"; tail -1 "$r/$1.txt"
  mkdir -p "$r/bench" && cp "$(ls -t .benchmarks/*/*.json | head -1)" "$r/bench/$1.json"; }
[[ $steps == *" ops "* ]] && bench ops 420 "test_op_bandwidth or test_copy_ceiling"
[[ $steps == *" small "* ]] && bench small 120 "test_latency or test_host_overhead"
[[ $steps == *" long "* ]] && bench long 120 "test_softmax_bandwidth and (softmax_harness or quack) and \
(C32768 or C50257 or C65535 or C128256 or C131072 or C151936 or C262144 or C1048576)"
# Counters where the 16-bit mask form trails the bias form on the H200 (run 0051: the tiles sized
# 16384 0.70 against 1.03 of a copy, the online split kernel at 65535 0.67 against 0.70): the
# stalls and the memory throughput of one launch each, beside the bias form's.
[[ $steps == *" profile "* ]] && for v in scaled_mask_onepass_bf16_c16384:mask:16384 \
    scaled_bias_onepass_bf16_c16384:bias:16384 scaled_mask_online_split_bf16:mask:65535 \
    scaled_bias_online_split_bf16:bias:65535; do
  IFS=: read -r name form cols <<< "$v"
  timeout 120 ncu --clock-control none -k "regex:$name" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section Occupancy --section LaunchStats --section SchedulerStats --section InstructionStats \
    python3 -m softmax_harness measure "$name" --op "scaled_softmax_$form" --dtype bfloat16 \
    --cols "$cols" > "$r/profile_${name}_$cols.txt" 2>&1
  echo "profile $name rc $?"; done
[[ $steps == *" lanes "* ]] && {
  MEASURE=0 OUT="$r/lanes" DEADLINE=120 timeout 150 bash staging/check.sh; echo "lanes check rc $?"
  timeout 150 bash staging/measure_backward_lanes.sh "$r/lanes" > "$r/lanes.txt" 2>&1; echo "lanes measure rc $?"; }
tar czf "${OUT:-/tmp}/session.tgz" -C "$r" .
