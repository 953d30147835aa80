#!/usr/bin/env bash
# The mask-words trial (kernels_mask_words.diff: a chunk's kept bits from its mask words in five
# integer instructions a word, no branch a byte; the bits set a chunk at a time) on a GPU, in one
# call: kernels/ copied to /tmp/patched/kernels with the diff applied; every variant test and the
# four sanitizers on the 53 variants whose SASS it changes (kernels_mask_words.retest), as
# NAME@/tmp/patched/kernels; then each form's kernels beside kernels/' own at ~1 GiB, each beside
# the copy. Results under $1 (default /tmp/mask_words). ~4 minutes.
set -u
cd "$(dirname "$0")/../.."
out=${1:-/tmp/mask_words}
mkdir -p "$out"
export PYTHONPATH=${PYTHONPATH:-.}
rm -rf /tmp/patched && mkdir -p /tmp/patched && cp -r kernels /tmp/patched/ &&
  (cd /tmp/patched && patch -s -p1 < "$OLDPWD/staging/trial/kernels_mask_words.diff") || exit 1
names=$(grep -v '^#' staging/trial/kernels_mask_words.retest)
tools/gpu-check --workers 15 --sanitize --deadline "${DEADLINE:-200}" --test-timeout 240 \
  $(for v in $names; do echo "--variant $v@/tmp/patched/kernels"; done) \
  --out "$out/suite.json" --log "$out/suite.log" > "$out/suite.txt" 2>&1
echo "gpu-check exit $?" >> "$out/suite.txt"; tail -3 "$out/suite.txt"
m() { python3 -m softmax_harness measure "$@"; }
for t in bf16:bfloat16 :float32; do
  s=${t%%:*}; s=${s:+_$s}; d=${t##*:}
  for c in 32 128 512 4096 16384; do
    m "scaled_mask_onepass${s}_c$c" "scaled_mask_onepass${s}_c$c@/tmp/patched/kernels" --op scaled_softmax_mask \
      --dtype "$d" --cols "$c" --json "$out/tile${s}_c$c.json"
  done
  m "scaled_mask_online_split$s" "scaled_mask_online_split$s@/tmp/patched/kernels" scaled_softmax_mask \
    --op scaled_softmax_mask --dtype "$d" --cols 32768 65535 131072 1048576 --json "$out/split_mask$s.json"
done
m scaled_causal_online_split_bf16 scaled_causal_online_split_bf16@/tmp/patched/kernels --op scaled_softmax_causal \
  --dtype bfloat16 --cols 65535 1048576 --json "$out/split_causal_bf16.json"
m scaled_mask_cluster_push_bf16_c73728 scaled_mask_cluster_push_bf16_c73728@/tmp/patched/kernels \
  --op scaled_softmax_mask --dtype bfloat16 --cols 73728 --json "$out/push_mask_bf16.json"
