"""Guarded, poisoned device buffers for one launch of a subject.

Per element type (:mod:`softmax_harness.dtypes`): the output is poisoned with a NaN payload
that no softmax arithmetic produces, so an element left unwritten shows; the input's guard
zones hold a huge logit, so an over-read shows in the output; both buffers have ``GUARD``
elements of guard zone on each side, so a write outside the output shows bitwise.
"""

from __future__ import annotations

import numpy as np

from . import dtypes

GUARD = 64  # elements of guard zone on each side of every buffer


def bits(xp, a):
    """The raw bit patterns of a 16- or 32-bit float array."""
    return a.view(xp.uint16 if a.dtype.itemsize == 2 else xp.uint32)


class Buffers:
    """The input and the output of one launch, each at its misalignment (in elements) from the
    allocation's alignment."""

    def __init__(self, xp, x_host: np.ndarray, offsets: tuple[int, int]):
        n = x_host.size
        fmt = dtypes.of(x_host.dtype)
        self.xp, self.shape, self.offsets, self.n = xp, x_host.shape, offsets, n
        self.poison = fmt.uint(fmt.poison)
        src = np.full(2 * GUARD + offsets[0] + n, fmt.guard, x_host.dtype)
        src[GUARD + offsets[0]:GUARD + offsets[0] + n] = x_host.ravel()
        self.src = xp.asarray(src)
        self.src_bits = bits(xp, self.src.copy())
        self.dst = xp.full(2 * GUARD + offsets[1] + n, self.poison, dtype=fmt.uint).view(x_host.dtype)

    def view(self, buf, offset):
        start = GUARD + offset
        return buf[start:start + self.n].reshape(self.shape)

    @property
    def x(self):
        return self.view(self.src, self.offsets[0])

    @property
    def y(self):
        return self.view(self.dst, self.offsets[1])

    def written(self):
        """Where the output no longer holds the poison."""
        return bits(self.xp, self.y) != self.poison

    def guards_intact(self) -> bool:
        xp, b = self.xp, bits(self.xp, self.dst)
        start = GUARD + self.offsets[1]
        stop = start + self.n
        return bool(xp.all(b[:start] == self.poison)) and bool(xp.all(b[stop:] == self.poison))

    def input_intact(self) -> bool:
        return bool(self.xp.all(bits(self.xp, self.src) == self.src_bits))


def launch(subject, x_host: np.ndarray, offsets: tuple[int, int]) -> Buffers:
    """Run ``subject`` once on ``x_host`` (already in its element type) in fresh buffers."""
    buffers = Buffers(subject.xp, x_host, offsets)
    subject.fn(buffers.x, buffers.y)
    if subject.xp is not np:
        subject.xp.cuda.get_current_stream().synchronize()
    return buffers
