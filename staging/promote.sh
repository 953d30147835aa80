#!/usr/bin/env bash
# Every staged file but trial/'s onto its namesake in kernels/ (git mv), and every staging/*.patch
# (the harness's own changes they need or the dispatcher onto them) and staging/*.diff (changes to
# kernels/' shared headers, measured on a patched copy) applied; staging/retest goes with them. Then: tests/test_compile.py whole, and the GPU suite before anything
# else on the device (staging/README.md).
set -eu
cd "$(dirname "$0")/.."
patches=$(ls staging/*.patch staging/*.diff 2>/dev/null || true)
for p in $patches; do git apply --check "$p"; done
[ -d staging/kernels ] && (cd staging/kernels && find . -type f -not -path './trial/*') | while read -r f; do
  mkdir -p "kernels/$(dirname "$f")"
  if [ -e "kernels/$f" ]; then git rm -q --cached "kernels/$f"; fi
  git mv -f "staging/kernels/$f" "kernels/$f"
done
for p in $patches; do git apply "$p" && git rm -q "$p"; done
if [ -e staging/retest ]; then git rm -qf staging/retest; fi
find staging/kernels -depth -type d -empty -delete 2>/dev/null || true
git status --short
