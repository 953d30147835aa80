#!/usr/bin/env bash
# The measurement that decides the staged dispatch_cluster16_rows.patch, rows into $1: cold-L2 µs
# of the dispatcher beside the clusters of 8 and of 16 blocks sized 131072-262144 on 1-256 rows of
# 32000-262144 in every type (tools/few-rows-latency, ~2-3 minutes). The patch stands where its
# CLUSTER16_ROWS names a length and row count at which the 16 blocks beat the 8 in the same call,
# as in reports/measurements/few_rows_cluster16.jsonl (an H100, its clusters of 16 then staged).
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/staged}
mkdir -p "$out"
export PYTHONPATH=.
named=()
for s in "" _f16 _bf16; do
  for c in 131072 163840 262144; do named+=("cluster16_push${s}_c$c" "cluster_push${s}_c$c"); done
done
named+=(cluster_push_c155648)
tools/few-rows-latency "$out/few_rows_cluster16_rows.jsonl" "${named[@]}"
