#!/usr/bin/env bash
# The promotion's second device call (staging/README.md), on the promoted tree, in one go, the
# quickest first: how many clusters of each push kernel the GPU holds at once (seconds; issue 25's
# fp32 262144), the host time of a call from CuPy and from torch (issue 24), the dispatcher on
# 1-256 rows of 32000-262144 in every type (~2 minutes: the new few-rows choices where they run),
# the causal trial (staging/measure.sh, ~1 minute), and issue 26's spread on the one GPU: a few
# variants' tests in two children sharing it and in one child, under the derandomised ci profile
# (`tools/gpu-check --same-content two.json one.json` here compares them; ~2 minutes). Results
# under $1 (default $OUT): six files and a log, within the 8 a call brings back.
set -u
cd "$(dirname "$0")/.."
out=${1:-${OUT:?give a folder}}
mkdir -p "$out"
export PYTHONPATH=.
log="$out/after-promotion.log"
step() {
  local name=$1
  shift
  local begin=$SECONDS
  "$@" >> "$log" 2>&1
  echo "== $name: exit $?, $((SECONDS - begin)) s" >> "$log"
}
step active-clusters tools/active-clusters "$out/active_clusters.json"
step host-overhead tools/host-overhead "$out/host.json"
step few-rows-latency tools/few-rows-latency "$out/few_rows_promoted.jsonl"
m=$(mktemp -d)
step measure bash staging/measure.sh "$m"
tar czf "$out/measure.tgz" -C "$m" .
few=(--variant onepass_vec4_c1024 --variant split_row_smem_f32 --variant cluster_push_c65536
     --variant scaled_bias_online_split --variant bad_own_stream)
step spread-two tools/gpu-check --groups-per-gpu 2 --workers 3 --profile ci --deadline 100 "${few[@]}" \
  --out "$m/two.json" --log "$m/two.log"
step spread-one tools/gpu-check --one-gpu --workers 6 --profile ci --deadline 100 "${few[@]}" \
  --out "$m/one.json" --log "$m/one.log"
cp "$m/two.json" "$m/one.json" "$out/" 2>/dev/null
tail -n 4 "$log"
