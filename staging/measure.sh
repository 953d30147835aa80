#!/usr/bin/env bash
# The measurements that decide the staged cluster push kernels: the 16-bit tiles skipping the
# chunks past the row's end (RowTile's LIVE) on rows below a kernel's size, the 16-bit kernels
# sized 153600 (480 threads of 40) on Qwen's 151936, and fp32 (cluster_slice from cluster.cuh,
# no LIVE) unchanged; each beside the same kernel of kernels/ and the dispatcher, ~1 GiB inputs,
# rows into $1/*.json.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=.
S=@staging/kernels
for t in bfloat16:_bf16 float16:_f16; do
  IFS=: read -r dtype s <<< "$t"
  p=cluster_push$s
  python -m softmax_harness measure "${p}_c65536$S" "${p}_c65536" softmax --dtype "$dtype" \
    --cols 40960 49152 53248 57344 65536 --json "$out/live_65536_$dtype.json"
  python -m softmax_harness measure "${p}_c73728$S" "${p}_c73728" softmax --dtype "$dtype" \
    --cols 65535 69632 73728 --json "$out/live_73728_$dtype.json"
  python -m softmax_harness measure "${p}_c98304$S" "${p}_c98304" softmax --dtype "$dtype" \
    --cols 81920 86016 --json "$out/live_98304_$dtype.json"
  python -m softmax_harness measure "${p}_c131072$S" "${p}_c131072" softmax --dtype "$dtype" \
    --cols 102400 110592 131072 --json "$out/live_131072_$dtype.json"
  python -m softmax_harness measure "${p}_c153600$S" "${p}_c155648$S" "${p}_c155648" "${p}_c163840$S" softmax \
    --dtype "$dtype" --cols 151936 153600 --json "$out/qwen_$dtype.json"
  python -m softmax_harness measure "${p}_c262144$S" "${p}_c262144" softmax --dtype "$dtype" \
    --cols 196608 229376 262144 --json "$out/live_262144_$dtype.json"
done
python -m softmax_harness measure cluster_push_c65536$S cluster_push_c65536 cluster_push_c131072$S cluster_push_c131072 \
  cluster_push_c262144$S cluster_push_c262144 softmax --dtype float32 --cols 65536 131072 262144 --json "$out/fp32.json"
# the backwards' 16-bit cluster push kernels beside the barrier cluster kernels and the dispatcher
for op in softmax_backward:backward log_softmax_backward:log_softmax_backward; do
  IFS=: read -r o f <<< "$op"
  for t in bfloat16:_bf16 float16:_f16; do
    IFS=: read -r dtype s <<< "$t"
    python -m softmax_harness measure "${f}_cluster_push${s}_c65536$S" "${f}_cluster_push${s}_c73728$S" \
      "${f}_cluster${s}_c73728" "$o" --op "$o" --dtype "$dtype" --cols 57344 65535 65536 73728 --json "$out/${o}_a_$dtype.json"
    python -m softmax_harness measure "${f}_cluster_push${s}_c131072$S" "${f}_cluster${s}_c131072" \
      "${f}_cluster_push${s}_c262144$S" "${f}_cluster${s}_c262144" "$o" --op "$o" --dtype "$dtype" \
      --cols 114688 131072 229376 262144 --json "$out/${o}_b_$dtype.json"
  done
done
# the fused forms' 16-bit cluster push kernels beside the dispatcher (the online split kernel, or
# the bias form's cluster sized 73728 at 65535)
for form in bias mask causal; do
  for t in bfloat16:_bf16 float16:_f16; do
    IFS=: read -r dtype s <<< "$t"
    k=scaled_${form}_cluster_push$s
    python -m softmax_harness measure "${k}_c65536$S" "${k}_c73728$S" "${k}_c131072$S" "${k}_c262144$S" \
      "scaled_softmax_$form" --op "scaled_softmax_$form" --dtype "$dtype" \
      --cols 57344 65535 65536 73728 114688 131072 229376 262144 --json "$out/${form}_$dtype.json"
  done
done
