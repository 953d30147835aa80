"""A subject under test: something that computes an op (the softmax, its backward, ...), and what
its bound and contract depend on (how many lanes share a row, its algorithm, its exponentials,
its element type)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import bounds, dtypes, ops


@dataclass
class Subject:
    """A kernel under test: ``fn(*inputs, out)`` over arrays of ``xp`` (NumPy or CuPy), the inputs
    those of its op (``fn(x, out)`` for the forward softmax, ``fn(y, dy, out)`` for its backward)."""

    name: str
    fn: object
    xp: object = np
    lanes: int = 1
    algorithm: str = "safe"
    convention: str = "torch"
    fast_math: bool = False
    exp: str = "shifted"  # with fast_math: the exponentials' form (registry's exp=)
    rounding: str = "nearest"  # of 16-bit outputs (registry's rounding=)
    dtype: str = "float32"  # the element type the kernel reads and writes
    repro: str = ""  # how to name this kernel on a command line (NAME, NAME@DIR, --subject MODULE:FN)
    max_cols: int | None = None  # the longest row it takes
    threads: int | None = None  # threads a block (a kernel's), for the lengths around its edges
    tile: int = 0  # elements a block holds (a split-row kernel's)
    vector: int = 1  # elements a lane sums as a tree before its chain (registry's vector=)
    op: str = "softmax"  # what it computes (softmax_harness.ops)
    strided: bool = False  # takes arrays whose rows lie further apart than their length (a callable's)

    @classmethod
    def of(cls, variant) -> Subject:
        """The subject for a declared kernel :class:`~softmax_harness.variant.Variant`."""
        import cupy

        s = variant.spec
        return cls(name=variant.name, fn=variant, xp=cupy, lanes=s.lanes, algorithm=s.algorithm,
                   convention=s.convention, fast_math=s.fast_math, exp=s.exp, rounding=s.rounding,
                   dtype=s.dtype, repro=variant.ref, max_cols=s.max_cols, threads=s.threads, tile=s.tile,
                   vector=s.vector, op=s.op)

    @property
    def operation(self):
        """Its :class:`~softmax_harness.ops.Op`."""
        return ops.of(self.op)

    @property
    def on_gpu(self) -> bool:
        """Whether it runs on device arrays (it needs a CUDA GPU)."""
        return self.xp.__name__ != "numpy"

    def chain(self, n_cols: int) -> int | None:
        """Its longest accumulation chain on rows of ``n_cols`` where ``lanes`` does not give it
        (a split-row kernel's follows its plan, a register tile's its vectors), else None."""
        if self.vector > 1:
            return bounds.chain_length(n_cols, self.lanes, self.vector)
        if not self.tile:
            return None
        return bounds.split_row_chain(n_cols, self.threads, self.tile, 128 // dtypes.of(self.dtype).bits)

    def supports(self, n_cols: int) -> bool:
        return self.max_cols is None or n_cols <= self.max_cols
