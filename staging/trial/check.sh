#!/usr/bin/env bash
# A trial kept as a diff onto kernels/ (staging/trial/NAME.diff) on a GPU, in one call: kernels/
# copied to /tmp/patched/NAME/kernels with the diff applied; every variant test and the four
# sanitizers on the variants whose SASS it changes (NAME.retest, from `tools/sass-same --diff`),
# as VARIANT@that copy; then NAME.measure (bash, sourced with P the copy, OUT the results folder
# and m the harness's measure): the moved kernels beside kernels/' own at ~1 GiB, each beside the
# copy. Usage: bash staging/trial/check.sh NAME [OUT] (default OUT /tmp/trial_NAME).
set -u
cd "$(dirname "$0")/../.."
name=${1:?name a trial: staging/trial/NAME.diff}
OUT=${2:-/tmp/trial_$name}
P=/tmp/patched/$name/kernels
mkdir -p "$OUT"
export PYTHONPATH=${PYTHONPATH:-.}
rm -rf "$P" && mkdir -p "$P" && cp -r kernels/. "$P" &&
  patch --batch --forward -s -p2 -d "$P" -i "$PWD/staging/trial/$name.diff" || exit 1
names=$(grep -v '^#' "staging/trial/$name.retest")
tools/gpu-check --workers 15 --sanitize --deadline "${DEADLINE:-200}" --test-timeout 240 \
  $(for v in $names; do echo "--variant $v@$P"; done) \
  --out "$OUT/suite.json" --log "$OUT/suite.log" > "$OUT/suite.txt" 2>&1
echo "gpu-check exit $?" >> "$OUT/suite.txt"; tail -3 "$OUT/suite.txt"
m() { python3 -m softmax_harness measure "$@"; }
# shellcheck source=/dev/null
source "staging/trial/$name.measure"
