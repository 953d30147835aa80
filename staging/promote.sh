#!/usr/bin/env bash
# Every staged file onto its namesake in kernels/ (git mv), and dispatch.OP_TABLES onto them
# (dispatch_op_tables.patch). Then: tests/test_compile.py whole, and the GPU suite before anything
# else on the device (staging/README.md).
set -eu
cd "$(dirname "$0")/.."
git apply --check staging/dispatch_op_tables.patch
(cd staging/kernels && find . -type f) | while read -r f; do
  mkdir -p "kernels/$(dirname "$f")"
  if [ -e "kernels/$f" ]; then git rm -q --cached "kernels/$f"; fi
  git mv -f "staging/kernels/$f" "kernels/$f"
done
git apply staging/dispatch_op_tables.patch
git rm -q staging/dispatch_op_tables.patch
git status --short
