#!/usr/bin/env bash
# Every staged file but trial/'s onto its namesake in kernels/ (git mv), and dispatch.OP_TABLES onto them
# (dispatch_op_tables.patch, where there is one); staging/retest goes with them. Then: tests/test_compile.py whole, and the GPU suite before anything
# else on the device (staging/README.md).
set -eu
cd "$(dirname "$0")/.."
patch=staging/dispatch_op_tables.patch
[ ! -e "$patch" ] || git apply --check "$patch"
(cd staging/kernels && find . -type f -not -path './trial/*') | while read -r f; do
  mkdir -p "kernels/$(dirname "$f")"
  if [ -e "kernels/$f" ]; then git rm -q --cached "kernels/$f"; fi
  git mv -f "staging/kernels/$f" "kernels/$f"
done
if [ -e "$patch" ]; then git apply "$patch" && git rm -q "$patch"; fi
if [ -e staging/retest ]; then git rm -qf staging/retest; fi
find staging/kernels -depth -type d -empty -delete 2>/dev/null || true
git status --short
