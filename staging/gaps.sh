#!/usr/bin/env bash
# On an H200: the op cells that run 0068 (H200, commit e4734ea, no peers) put below 0.90 of a
# copy, and the forward's lengths below issue 25's 0.97 in run 0070, each dispatched op beside
# every variant of its op that takes the row (no one-thread or one-warp rungs nor the forward's
# block ladder, no tile or cluster sized past twice the row), each beside the copy in the same
# call (python -m softmax_harness measure, ~1 GiB of rows): whether a kernel of kernels/ the
# dispatcher passes over does better there (its choices were measured mostly on H100s, where the
# same cells ran 0.79-1.02), or whether the kernels themselves fall short of the H200's bandwidth.
# bf16 for the 16-bit cells (fp16's variants are the same kernels). Rows into $1; ~4 minutes.
set -u
cd "$(dirname "$0")/.."
out=${1:-/tmp/gaps}
mkdir -p "$out"
export PYTHONPATH=${PYTHONPATH:-.}
candidates() {  # OP DTYPE COLS
  python3 - "$@" <<'PY'
import re, sys
from softmax_harness import catalog
op, dtype, cols = sys.argv[1], sys.argv[2], int(sys.argv[3])
ladder = re.compile(r"_(thread|warp)(_|$)|^(safe_|online_block|online_grid_stride)")


def sized_past(name):
    size = re.search(r"_c(\d+)", name)
    return size is not None and int(size[1]) > 2 * max(cols, 64)


print(" ".join(v.name for v in catalog.variants() if v.op.name == op and v.supports(cols, dtype)
               and not ladder.search(v.name) and not sized_past(v.name)))
PY
}
# 180 s a cell: the first cell compiles its op's kernel files into a cold cache (on an H100 the
# mask form's first, bf16 32, ran past 90 s and brought back nothing)
# GAPS_OPS="op ...": only those ops' cells (the rest measured in an earlier call)
cell() {  # OP DTYPE COLS...
  local op=$1 dtype=$2; shift 2
  [[ -n ${GAPS_OPS:-} && " $GAPS_OPS " != *" $op "* ]] && return
  for c in "$@"; do
    timeout 180 python3 -m softmax_harness measure "$op" $(candidates "$op" "$dtype" "$c") --op "$op" \
      --dtype "$dtype" --cols "$c" --json "$out/${op}_${dtype}_$c.json" > "$out/${op}_${dtype}_$c.txt" 2>&1
    echo "$op $dtype $c rc $?"
  done
}
cell scaled_softmax_mask bfloat16 32 500 16384 32768 65535 131072 1048576
cell scaled_softmax_mask float32 65535 1048576
cell scaled_softmax_bias bfloat16 32 65535 1048576
cell log_softmax_backward bfloat16 32 500 16384 65535 1048576
cell log_softmax_backward float32 1048576
cell softmax_backward float32 1048576
cell scaled_softmax_causal bfloat16 32
# issue 25's lengths below 0.97 in run 0070 (H200)
cell softmax bfloat16 65535 151936
cell softmax float32 65535 262144
