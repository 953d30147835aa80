"""A Triton row softmax as a subject: ``softmax-harness check triton_softmax:softmax``.

The kernel is the harness's own Triton baseline (one program a row holds the whole row, so rows
up to 32768, declared as max_cols); the maximum and the sum are block reductions
(algorithm=safe) over num_warps * 32 lanes, 128 at the fewest (the loosest bound of the three
launches). What a subject of your own declares is the same: the arrays it takes, what its bound
depends on, its limits."""

from softmax_harness.baselines import TRITON_MAX_COLS, triton_rows_kernel


def softmax(x, out):
    triton, kernel = triton_rows_kernel()
    n_rows, n_cols = x.shape
    block = triton.next_power_of_2(n_cols)
    warps = 4 if block <= 2048 else 8 if block <= 8192 else 16
    kernel[(n_rows,)](x, out, n_cols, BLOCK=block, num_warps=warps)


# tl.exp is ex2.approx of x * log2 e, as our fast kernels' exponentials: the same bound
softmax.__softmax_harness__ = {"arrays": "torch", "algorithm": "safe", "lanes": 128,
                               "max_cols": TRITON_MAX_COLS, "fast_math": True, "exp": "ex2"}
