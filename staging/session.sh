#!/usr/bin/env bash
# The next session's GPU work in device calls (staging/README.md), each step under its own limit so
# that what ran comes back: the GPU suite --since over the changes since reports/gpu.json (gpu; in
# two halves, shard1 and shard2), staging/measure.sh with tools/active-clusters (measure: the H200's
# same-call check of the dispatcher's choices, Quack beside where the peers' wheels are unpacked:
# one part carried a call, .whl/a, .whl/b, .whl/c, the last call of the set unpacking them), the op
# tiles' registers trial (tiles: `trial/check.sh tile_registers`; TILES_DEADLINE=5 leaves its tests
# out and measures), the staged kernels' tests (staged), issue 24's shapes behind timed round after
# round (spread), Nsight Compute's counters of ours and Quack's at the shapes where Quack leads
# (versus), the op cells below 0.90 on the H200 against every kernel of their op (gaps), the
# clusters of 16 at few rows on the H200 (rows16), the bias form's misaligned 16-bit rows past
# 65472 (misbias), the mask form's misaligned 16-bit rows on its clusters (mismask), the row
# stride alone (strideprobe), the bias form's split kernels with larger stashes beside its 8 +
# 48 (biass56), the bias form's 16-bit split kernel's map
# (splitblocks), the mask form's crossovers to its 512-thread split kernel (maskcross), the
# sweeps (ops, small, long) and ncu's counters (profile). Steps named as arguments, default gpu
# measure tiles; gpu ~3 minutes, measure ~6, tiles ~9, ops ~4, profile ~3, spread ~2: calls
# while the machine is warm.
# Set SOFTMAX_HARNESS_COMMIT first (the device's copy has no .git). Results in $OUT/session.tgz.
set -u
cd "$(dirname "$0")/.."
r=/tmp/session
mkdir -p "$r"
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$r/device.txt"
# the peers' wheels, one part a call (tools/peer-wheels): each carried part kept in /tmp/peer, the
# set unpacked into /tmp/site by the call that completes it
for part in .whl/*/peers.tar.xz.*of*; do [ -e "$part" ] && mkdir -p /tmp/peer && cp "$part" /tmp/peer/; done
parts=(/tmp/peer/peers.tar.xz.*of*)
if [ -e "${parts[0]}" ] && [ ! -d /tmp/site ] && [ "${#parts[@]}" -eq "${parts[0]##*of}" ]; then
  tools/peer-wheels unpack /tmp/site "${parts[@]}" > "$r/unpack.log" 2>&1 || echo "unpack failed"
fi
steps=" ${*:-gpu measure tiles} "
# what has run so far, packed after each step and every 30 s while one runs (into a file of its
# own, then renamed: two packs never write one file): a call that outlives its limit still brings
# back the steps before the one it was killed in, and what that one had written 30 s before
pack() {
  tar czf "${OUT:-/tmp}/.session.$BASHPID.tgz" -C "$r" . 2>/dev/null
  mv -f "${OUT:-/tmp}/.session.$BASHPID.tgz" "${OUT:-/tmp}/session.tgz"; }
( while sleep 30; do pack; done ) &
trap 'kill $! 2>/dev/null' EXIT
# the GPU suite --since over what changed since reports/gpu.json
suite() {
  timeout 280 tools/gpu-check --since reports/gpu.json --workers 15 --sanitize \
    --same-sass reports/same_sass.json --out "$r/gpu.json" --log "$r/gpu.log" > "$r/gpu.txt" 2>&1
  echo "gpu-check rc $?"; tail -1 "$r/gpu.txt"; }
[[ $steps == *" gpu "* ]] && { PYTHONPATH=. suite; pack; }
# Each length of "dtype:cols ..." in one call of `measure OP` over the variants named, {s} in a
# name standing for the type's (f16, bf16), the dispatcher beside: lengths_map STEP OP LENGTHS NAME...
lengths_map() {
  local step=$1 op=$2 lengths=$3 v dtype c s; shift 3
  mkdir -p "$r/$step"
  for v in $lengths; do
    IFS=: read -r dtype c <<< "$v"; s=$([ "$dtype" = float16 ] && echo f16 || echo bf16)
    timeout 150 python3 -m softmax_harness measure "$op" "${@//\{s\}/$s}" --op "$op" --dtype "$dtype" \
      --cols "$c" --json "$r/$step/${dtype}_$c.json" > "$r/$step/${dtype}_$c.txt" 2>&1
    echo "$step $dtype $c rc $?"; done; pack; }
# The same in two halves, a warm call each (shard1, then shard2), for a change that moves many
# variants' SASS (the one-exponential merge moved 160: ~5100 s of test time): joined here by
# `tools/gpu-check --merge gpu_1.json gpu_2.json --out reports/gpu.json`.
for k in 1 2; do
  [[ $steps == *" shard$k "* ]] && {
    PYTHONPATH=. timeout 540 tools/gpu-check --since reports/gpu.json --shard "$k/2" --workers 15 --sanitize \
      --same-sass reports/same_sass.json --out "$r/gpu_$k.json" --log "$r/gpu_$k.log" > "$r/gpu_$k.txt" 2>&1
    echo "gpu-check shard $k rc $?"; tail -1 "$r/gpu_$k.txt"; pack; }
done
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:.
[[ $steps == *" measure "* ]] && {
  timeout 240 bash staging/measure.sh "$r/m" > "$r/measure.txt" 2>&1; echo "measure rc $?"
  # the cluster kernels' resident clusters on this card (active_clusters.jsonl has the H100's)
  timeout 120 tools/active-clusters "$r/active_clusters.json" > /dev/null 2>&1; echo "active-clusters rc $?"; pack; }
# The op cells below 0.90 of a copy on the H200 in run 0068 and the forward's lengths below 0.97 in
# run 0070, every kernel of their op beside the dispatched one (staging/gaps.sh, ~7 minutes on an
# H100, which ran 19 of its 24 cells in 360 s: gaps_h100.jsonl; a call of its own; no peers)
[[ $steps == *" gaps "* ]] && {
  timeout 560 bash staging/gaps.sh "$r/gaps" > "$r/gaps.txt" 2>&1; echo "gaps rc $?"; pack; }
# The clusters of 16 beside the 8 blocks at the few rows where the H100 and the H200 disagree
# (merge_one_exp_h200.jsonl: the 16 ahead at 8 rows of fp32 151936, 8.24 µs against 8.58, and of
# bf16 262144, 8.48 against 8.62, where the H100 had the 8 ahead: rows16_h100.jsonl,
# few_rows_cluster16_rows.jsonl), round after round, the dispatcher beside (rows16, ~2 minutes).
[[ $steps == *" rows16 "* ]] && {
  shapes=(); for c in 200000 262144; do for n in 2 4 6 8 10 12 15; do shapes+=(--shape "${n}x$c"); done; done
  timeout 150 tools/latency-spread "$r/rows16_bf16.jsonl" cluster16_push_bf16_c262144_b256_keep \
    cluster_push_bf16_c262144_keep --dtype bfloat16 "${shapes[@]}" --who harness-cupy > "$r/rows16_bf16.txt" 2>&1
  echo "rows16 bf16 rc $?"; pack
  shapes=(); for n in 4 6 8 10 12 15; do shapes+=(--shape "${n}x151936"); done
  timeout 120 tools/latency-spread "$r/rows16_f32.jsonl" cluster16_push_c163840 cluster_push_c155648 \
    "${shapes[@]}" --who harness-cupy > "$r/rows16_f32.txt" 2>&1
  echo "rows16 fp32 rc $?"; pack; }
# The bias form's misaligned 16-bit rows of 65473-72702, which dispatch.ladders.SPLIT_WIDE gives
# the split kernels on 512-thread blocks, 8 + 48 up to 65536 and 16 + 56 (_e16s56) past it (0.875
# against the barrier cluster's 0.826 at 65535 on an H100: split_blocks_regs_h100.jsonl; _e16s56
# ahead at 69631 and 72702, behind at 65535: bias_s56_h100.jsonl): the four and the push kernel,
# the dispatcher beside, each length in one call (misbias, ~1 minute).
[[ $steps == *" misbias "* ]] && lengths_map misbias scaled_softmax_bias "bfloat16:65473 bfloat16:65535 \
  bfloat16:66561 bfloat16:67585 bfloat16:68609 bfloat16:69631 bfloat16:70657 bfloat16:71681 bfloat16:72702 \
  float16:65535 float16:69631" "scaled_bias_online_split_{s}" "scaled_bias_online_split_{s}_b512" \
  "scaled_bias_online_split_{s}_e16s56" "scaled_bias_cluster_{s}_c73728" "scaled_bias_cluster_push_{s}_c73728"
# The mask form's misaligned 16-bit rows of 55001-73663 on its push kernels sized 65536 and
# 73728 and its barrier cluster beside its split kernel on 512-thread blocks (the dispatcher's
# choice there): on an H100 the push kernel sized 73728 ran 0.857 of a copy at 65535 against the
# split kernel's 0.842 (gaps_dispatched_h100.jsonl); each length in one call (mismask, ~2 minutes;
# MISMASK="dtype:cols ..." for other lengths).
[[ $steps == *" mismask "* ]] && lengths_map mismask scaled_softmax_mask "${MISMASK:-bfloat16:55001 \
  bfloat16:57345 bfloat16:59001 bfloat16:61441 bfloat16:63489 bfloat16:65471 bfloat16:65535 bfloat16:67585 \
  bfloat16:69631 bfloat16:71681 bfloat16:73663 float16:65535 float16:69631}" \
  "scaled_mask_online_split_{s}_b512" "scaled_mask_cluster_push_{s}_c65536" \
  "scaled_mask_cluster_push_{s}_c73728" "scaled_mask_cluster_{s}_c73728"
# The bias form's 16-bit split kernels on 512-thread blocks with 56 in each stash (8 or 16
# elements a thread in registers, fewer blocks a row) beside the one with 48 (8 + 48), the
# dispatcher beside, each length in one call, once staging/promote.sh has put them in kernels/
# (biass56, ~1 minute; BIASS56 for other lengths: on
# an H100 the staged kernels at 14 bf16 lengths are bias_s56_h100.jsonl).
[[ $steps == *" biass56 "* ]] && lengths_map biass56 scaled_softmax_bias "${BIASS56:-float16:36001 \
  float16:69631 float16:150001 float16:1048576 bfloat16:36001 bfloat16:69631 bfloat16:150001 bfloat16:1048576}" \
  "scaled_bias_online_split_{s}_b512" "scaled_bias_online_split_{s}_s56" "scaled_bias_online_split_{s}_e16s56"
# Whether the stride alone makes the split kernels' dips (tools/stride-probe: ~1 GiB of rows
# copied with the split plan's mapping beside a copy), at the mask form's 16-bit lengths of
# mask_misaligned_h100.jsonl and at 2^20, for the mask form's tile (40896) and the bias form's
# (28608) on 512-thread blocks, then the mask form's with the rows read at once 7 strides apart
# (--spread 7: the remedy, if the stride is the cause) (strideprobe, ~1 minute).
[[ $steps == *" strideprobe "* ]] && {
  timeout 150 tools/stride-probe "$r/stride_probe.jsonl" 63489 65025 65377 65409 65471 65535 65536 65793 \
    66049 66177 66561 69631 73473 73601 73663 73728 131072 262144 1048576 > "$r/stride_probe.txt" 2>&1
  echo "stride-probe rc $?"
  timeout 60 tools/stride-probe "$r/stride_probe.jsonl" --tile 28608 63489 65535 67585 69631 98303 1048576 \
    >> "$r/stride_probe.txt" 2>&1
  echo "stride-probe bias rc $?"
  timeout 60 tools/stride-probe "$r/stride_probe.jsonl" --spread 7 63489 65409 65535 65793 69631 73601 1048576 \
    >> "$r/stride_probe.txt" 2>&1
  echo "stride-probe spread rc $?"; pack; }
# The bias form's 16-bit online split kernel on 512-thread blocks (8 elements a thread in
# registers) against every other kernel the dispatcher gives its 16-bit rows past 32768, the
# dispatcher beside (staging/split_blocks.sh, ~1 minute; splitblocks).
[[ $steps == *" splitblocks "* ]] && {
  timeout 400 bash staging/split_blocks.sh "$r/split_blocks" > "$r/split_blocks.txt" 2>&1
  echo "splitblocks rc $?"; tail -3 "$r/split_blocks.txt"; pack; }
# The mask form's 16-bit crossovers between its 512-thread split kernel and the dispatcher's
# other kernels (the split kernel of 256-thread blocks at 16385-19999, the tile sized 32768 at
# 28672-32768, the push kernel sized 65536 from 45056; split_blocks_mask_map_h100.jsonl), each
# length in one call (maskcross, ~1 minute).
[[ $steps == *" maskcross "* ]] && {
  mkdir -p "$r/maskcross"
  timeout 150 python3 -m softmax_harness measure scaled_softmax_mask scaled_mask_online_split_bf16_b512 \
    --op scaled_softmax_mask --dtype bfloat16 --cols 16385 16896 17408 17920 18432 19456 28672 29696 \
    30720 31744 32768 45056 47104 49152 51200 53248 55296 --json "$r/maskcross/bf16.json" \
    > "$r/maskcross/bf16.txt" 2>&1
  echo "maskcross rc $?"; pack; }
# a trial diff's tests (under a deadline) and measurements: trial STEP NAME DEADLINE LIMIT
trial() {
  DEADLINE=$3 timeout "$4" bash staging/trial/check.sh "$2" "$r/$1" > "$r/$1.txt" 2>&1
  echo "$1 rc $?"; tail -2 "$r/$1/suite.txt" 2>/dev/null; pack; }
[[ $steps == *" tiles "* ]] && trial tiles tile_registers "${TILES_DEADLINE:-280}" 580
# The staged kernels (staging/kernels/): their variants' tests and the sanitizers
# (staging/check.sh; staging/measure.sh is the measure step's).
[[ $steps == *" staged "* ]] && {
  MEASURE=0 DEADLINE=200 OUT="$r" timeout 300 bash staging/check.sh > "$r/staged_check.txt" 2>&1
  echo "staged check rc $?"; tail -2 "$r/staged_check.txt"; pack; }
# Issue 24's two shapes behind in run 0063, timed round after round beside the contenders
# (tools/latency-spread: the spread of five medians each): fp32 rows of 4096 at 1-16 rows (Triton
# ahead at 8, level at 1), bf16 256 x 32000 from torch against from CuPy, bound beside (the
# output made before), the cluster of 4 beside the dispatched cluster of 2, Quack where the peers
# are unpacked; then Nsight Compute's counters of our
# tile and Triton's row kernel on 8 x 4096, one launch each with a cold L2 (spread, ~2 minutes).
[[ $steps == *" spread "* ]] && {
  shapes=(); for n in 1 2 4 8 16; do shapes+=(--shape "${n}x4096"); done
  timeout 150 tools/latency-spread "$r/spread_fp32_4096.jsonl" onepass_vec4_c4096 "${shapes[@]}" \
    --who harness-cupy harness-cupy-bound triton > "$r/spread_fp32_4096.txt" 2>&1
  echo "spread fp32 rc $?"; pack
  timeout 150 tools/latency-spread "$r/spread_bf16_32000.jsonl" cluster4_push_bf16_c32768 --dtype bfloat16 \
    --shape 256x32000 --shape 64x32000 \
    --who harness-cupy harness-torch harness-cupy-bound harness-torch-bound torch quack > "$r/spread_bf16_32000.txt" 2>&1
  echo "spread bf16 rc $?"; pack
  for v in harness-cupy:onepass_vec4_c4096_b256 triton:softmax_rows; do
    IFS=: read -r who kernel <<< "$v"
    timeout 100 ncu --clock-control none --cache-control all -k "regex:$kernel" --launch-skip 3 \
      --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
      --section Occupancy --section LaunchStats --section SchedulerStats --section InstructionStats \
      --section SourceCounters python3 -c "
from softmax_harness import gpu, latency
fn = latency.contender('$who', (8, 4096), 'float32')
for _ in range(6):
    fn()
gpu.synchronize()" > "$r/profile_8x4096_$who.txt" 2>&1
    echo "profile 8x4096 $who rc $?"; pack; done; }
# Issues 24 and 25's shapes behind Quack in runs 0063-0067 (bf16 1 x 262144 by 3-4%, fp32 8 x
# 151936 by 1-5%): Nsight Compute's counters of one launch of ours and one of Quack's each, the
# caches flushed, the sixth call (in an NVTX range), the peers unpacked (versus, ~2 minutes).
[[ $steps == *" versus "* ]] && for v in bfloat16:1:262144 float32:8:151936; do
  IFS=: read -r dtype n c <<< "$v"
  for who in harness-cupy quack; do
    timeout 120 ncu --clock-control none --cache-control all --nvtx --nvtx-include "prof/" --launch-count 1 \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
      --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats \
      --section InstructionStats python3 -c "
import torch
from softmax_harness import gpu, latency
fn = latency.contender('$who', ($n, $c), '$dtype')
for _ in range(5):
    fn()
gpu.synchronize()
torch.cuda.nvtx.range_push('prof')
fn()
torch.cuda.nvtx.range_pop()
gpu.synchronize()" > "$r/ncu_${dtype}_${n}x${c}_$who.txt" 2>&1
    echo "versus $dtype ${n}x$c $who rc $?"; pack; done; done
# The sweeps the open issues cite (README, reports/STATUS.md), each saved as the next run of the
# history under the commit's name: ops (issue 23, ~250 s on the H200), small (issue 24, ~45 s),
# long (issue 25's long rows with Quack, ~35 s).
bench() {
  local before; before=$(ls -t .benchmarks/*/*.json | head -1)
  timeout "$2" python3 -m pytest tests/test_bench.py -m bench -q -p no:cacheprovider -k "$3" \
    --benchmark-timer=softmax_harness.bench.gpu_clock --benchmark-save="${SOFTMAX_HARNESS_COMMIT:0:12}" \
    > "$r/$1.txt" 2>&1
  echo "$1 rc $?"; tail -1 "$r/$1.txt"
  local saved; saved=$(ls -t .benchmarks/*/*.json | head -1)  # a run that saved nothing brings none back
  [ "$saved" != "$before" ] && mkdir -p "$r/bench" && cp "$saved" "$r/bench/$1.json"; pack; }
[[ $steps == *" ops "* ]] && bench ops 420 "test_op_bandwidth or test_copy_ceiling"
[[ $steps == *" small "* ]] && bench small 120 "test_latency or test_host_overhead"
[[ $steps == *" long "* ]] && bench long 120 "test_softmax_bandwidth and (softmax_harness or quack) and \
(C32768 or C50257 or C65535 or C128256 or C131072 or C151936 or C262144 or C1048576)"
# Counters of the 16-bit online split kernels, which ran 0.67-0.80 of a copy on the H200 (run
# 0051; an H100 ran the fused forms' at 72-74% of its DRAM throughput, stalled 45% of the time on
# their loads: STATUS): the stalls and the memory throughput of one launch each, the causal
# form's (which reads less) beside; and the 16-bit mask and bias tiles sized 32768, alike in shape
# (1024 threads, a block a multiprocessor, their loads in one round trip by the SASS's
# scoreboards), which ran 0.69 and 0.98 of a copy on the H200 in run 0068 (0.92 and 0.98 on an H100).
[[ $steps == *" profile "* ]] && for v in scaled_bias_online_split_bf16:scaled_softmax_bias:65535 \
    scaled_mask_online_split_bf16:scaled_softmax_mask:65535 \
    scaled_causal_online_split_bf16:scaled_softmax_causal:65535 \
    log_softmax_backward_online_split_bf16:log_softmax_backward:65535 \
    scaled_mask_onepass_bf16_c32768:scaled_softmax_mask:32768 \
    scaled_bias_onepass_bf16_c32768:scaled_softmax_bias:32768; do
  IFS=: read -r name op cols <<< "$v"
  timeout 120 ncu --clock-control none -k "regex:$name" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section Occupancy --section LaunchStats --section SchedulerStats --section InstructionStats \
    python3 -m softmax_harness measure "$name" --op "$op" --dtype bfloat16 \
    --cols "$cols" > "$r/profile_${name}_$cols.txt" 2>&1
  echo "profile $name rc $?"; pack; done
pack
