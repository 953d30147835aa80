"""A Triton row softmax as a subject: ``softmax-harness check triton_softmax:softmax``.

The kernel is the harness's own Triton baseline (one program a row holds the whole row, so rows
up to 32768, declared as max_cols); the maximum and the sum are block reductions
(algorithm=safe) over num_warps * 32 lanes, 128 at the fewest (the loosest bound of the three
launches). It steps from row to row by the tensor's row stride, not its row length: the harness
also hands a callable rows further apart than their length (``strided_rows``). What a subject of
your own declares is the same: the arrays it takes, what its bound depends on, its limits."""

from softmax_harness.baselines import TRITON_MAX_COLS, triton_rows


def softmax(x, out):
    triton_rows(x, out)()


# tl.exp is ex2.approx of x * log2 e, as our fast kernels' exponentials: the same bound
softmax.__softmax_harness__ = {"arrays": "torch", "device": "cuda", "algorithm": "safe", "lanes": 128,
                               "max_cols": TRITON_MAX_COLS, "fast_math": True, "exp": "ex2"}
