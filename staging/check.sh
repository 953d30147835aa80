#!/usr/bin/env bash
# The staged kernels on a GPU, in one call: every variant test and the four sanitizers on the
# variants staging/kernels/ declares that kernels/ lacks, and on those staging/retest names
# (tools/gpu-check, stopped after $DEADLINE seconds, default 300: the rest is recorded as not run), then staging/measure.sh if
# there is one and MEASURE is not 0 (the measurements that decide what to promote; it writes
# under $1; `bash staging/measure.sh DIR` runs it alone, in a call of its own).
# Results in ${OUT:-/tmp/staged}/staged.tgz, one archive. It leaves the tree as it found it.
set -u
cd "$(dirname "$0")/.."
final=${OUT:-/tmp/staged}
out=$(mktemp -d)
mkdir -p "$final"
export PYTHONPATH=.
# the staged changes to the harness's own files (staging/*.patch) that the staged kernels need, in
# place for the run and taken back at its end
patches=$(ls staging/*.patch 2>/dev/null)
for p in $patches; do git apply "$p" 2>/dev/null || patch -p1 -s -N -r - < "$p" || exit 1; done
names() { grep -rho "@variant name=[a-z0-9_]*" "$1" 2>/dev/null | sed 's/@variant name=//' | sort -u; }
variants=$(comm -13 <(names kernels) <(names staging/kernels))  # the staged variants kernels/ lacks
# and those of kernels/ whose machine code a staged file changes, listed in staging/retest
variants="$variants $(grep -v '^#' staging/retest 2>/dev/null)"
variants=$(echo $variants)
if [ -n "$variants" ]; then
  tools/gpu-check --workers 15 --sanitize --deadline "${DEADLINE:-300}" --test-timeout 240 \
    $(for v in $variants; do echo "--variant $v@staging/kernels"; done) \
    --out "$out/staged.json" --log "$out/staged.log" > "$out/staged.txt" 2>&1
  echo "gpu-check exit $?" >> "$out/staged.txt"
  tail -4 "$out/staged.txt"
fi
if [ -f staging/measure.sh ] && [ "${MEASURE:-1}" != 0 ]; then
  bash staging/measure.sh "$out" > "$out/measure.txt" 2>&1
fi
for p in $patches; do git apply -R "$p" 2>/dev/null || patch -R -p1 -s < "$p"; done
tar czf "$final/staged.tgz" -C "$out" .
