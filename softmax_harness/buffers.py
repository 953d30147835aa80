"""Guarded, poisoned device buffers for one launch of a subject.

Per element type (:mod:`softmax_harness.dtypes`): the output is poisoned with a NaN payload
that no softmax arithmetic produces, so an element left unwritten shows; each input's guard
zones hold a huge value (a logit, a probability, a gradient), so an over-read shows in the
output; every buffer has ``GUARD`` elements of guard zone on each side, so a write outside the
output shows bitwise. With a ``pitch``, each input's rows lie that many elements further apart
than their length (a view of every row of a wider array, the gaps holding the guard value), for a
subject that takes any array (a callable) and must read it by its strides.
"""

from __future__ import annotations

import numpy as np

from . import dtypes

GUARD = 64  # elements of guard zone on each side of every buffer


def bits(xp, a):
    """The raw bit patterns of a 16- or 32-bit float array (or the bytes of a boolean one)."""
    return a.view({1: xp.uint8, 2: xp.uint16}.get(a.dtype.itemsize, xp.uint32))


class Buffers:
    """The inputs and the output of one launch: the first input at the first misalignment (in
    elements) from the allocation's alignment, the output at the second; with a third, each later
    array input that many elements further than the one before it; each input's rows ``pitch``
    elements apart beyond their length (the output's stay contiguous)."""

    def __init__(self, xp, inputs, offsets: tuple[int, ...], pitch: int = 0):
        inputs = (inputs,) if isinstance(inputs, np.ndarray) else tuple(inputs)
        first = inputs[0]
        n = first.size
        fmt = dtypes.of(first.dtype)
        self.xp, self.shape, self.offsets, self.n, self.pitch = xp, first.shape, offsets, n, pitch
        self.poison = fmt.uint(fmt.poison)
        skew = offsets[2] if len(offsets) > 2 else 0
        rows, cols = (first.shape[0], first.shape[1] + pitch) if pitch else (1, n)
        self.srcs = []  # each array input in its guarded buffer; a scalar input as it is
        self.in_offsets = []  # each array input's misalignment
        for host in inputs:
            if np.ndim(host) == 0:
                self.srcs.append(host)
                continue
            at = offsets[0] + skew * len(self.in_offsets)
            src = np.full(2 * GUARD + at + rows * cols, fmt.guard, host.dtype)
            spread = src[GUARD + at:GUARD + at + rows * cols].reshape(rows, cols)
            spread[:, :cols - pitch] = host.reshape(rows, cols - pitch)
            self.srcs.append(xp.asarray(src))
            self.in_offsets.append(at)
        self.arrays = [src for src in self.srcs if np.ndim(src)]
        self.src_bits = [bits(xp, src.copy()) for src in self.arrays]
        self.dst = xp.full(2 * GUARD + offsets[1] + n, self.poison, dtype=fmt.uint).view(first.dtype)

    def view(self, buf, offset, pitch: int = 0):
        start = GUARD + offset
        if not pitch:
            return buf[start:start + self.n].reshape(self.shape)
        rows, cols = self.shape
        return buf[start:start + rows * (cols + pitch)].reshape(rows, cols + pitch)[:, :cols]

    @property
    def inputs(self) -> tuple:
        at = iter(self.in_offsets)
        return tuple(self.view(src, next(at), self.pitch) if np.ndim(src) else src for src in self.srcs)

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
        xp = self.xp
        pairs = zip(self.arrays, self.src_bits, strict=True)
        return all(bool(xp.all(bits(xp, src) == was)) for src, was in pairs)


def launch(subject, inputs, offsets: tuple[int, ...], pitch: int = 0) -> Buffers:
    """Run ``subject`` once on ``inputs`` (host arrays already in its element type; one array for
    an op of one input) in fresh buffers (their rows ``pitch`` elements apart past their length)."""
    buffers = Buffers(subject.xp, inputs, offsets, pitch)
    subject.fn(*buffers.inputs, buffers.y)
    if subject.xp is not np:
        subject.xp.cuda.get_current_stream().synchronize()
    return buffers
