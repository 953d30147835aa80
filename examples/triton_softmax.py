"""A Triton row softmax as a subject: ``softmax-harness check triton_softmax:softmax``.

One program a row holds the whole row (so rows up to 32768, declared as max_cols); the maximum
and the sum are block reductions (algorithm=safe) over num_warps * 32 lanes."""

import triton
import triton.language as tl

MAX_COLS = 32768


@triton.jit
def _rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


def softmax(x, out):
    n_rows, n_cols = x.shape
    block = triton.next_power_of_2(n_cols)
    warps = 4 if block <= 2048 else 8 if block <= 8192 else 16
    _rows[(n_rows,)](x, out, n_cols, BLOCK=block, num_warps=warps)


# tl.exp is ex2.approx of x * log2 e, as our fast kernels' exponentials: the same bound
softmax.__softmax_harness__ = {"arrays": "torch", "algorithm": "safe", "lanes": 128, "max_cols": MAX_COLS,
                               "fast_math": True, "exp": "ex2"}
