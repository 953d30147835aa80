"""One launch of a subject on one batch, and what the properties judge it by: the float64
reference and the per-element bound, computed once (:class:`Observation`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from . import bounds, dtypes
from .buffers import Buffers, launch
from .reference import reference_softmax
from .subject import Subject


def as64(xp, a):
    with np.errstate(invalid="ignore"):  # the poison is a NaN with a payload
        return a.astype(xp.float64)


def host(xp, a):
    return a.get() if xp is not np else a


def first_true(xp, mask):
    """(row, col) of the first True in a 2-d mask, or None."""
    if not bool(mask.any()):
        return None
    flat = int(xp.argmax(mask.ravel()))
    return divmod(flat, mask.shape[1])


def as_format(x: np.ndarray, fmt) -> np.ndarray:
    """A host array in the subject's element type (overflow to +-inf is part of the input)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.ascontiguousarray(np.asarray(x).astype(fmt.numpy()))


def bound_for(subject: Subject, x, ref):
    """The allowed |y - ref| per element for ``subject`` on input ``x`` (see :mod:`bounds`)."""
    return bounds.element_bound(x, ref, lanes=subject.lanes, algorithm=subject.algorithm,
                                fast_math=subject.fast_math, exp=subject.exp, xp=subject.xp,
                                rounding=subject.rounding, dtype=subject.dtype,
                                chain=subject.chain(x.shape[-1]))


@dataclass
class Observation:
    """One launch of a subject on a batch, with the reference and the bound it is judged by."""

    subject: Subject
    fmt: dtypes.Format
    x_host: np.ndarray  # the input in the subject's element type
    offsets: tuple[int, int]
    first: Buffers  # the launch
    x: object  # the input as given, exactly, in float32 (on the subject's device)
    ref: object  # float64 reference
    bound: object  # allowed |y - ref| per element

    @property
    def xp(self):
        return self.subject.xp

    @property
    def y(self):
        return self.first.y

    def __post_init__(self):
        xp = self.xp
        self.y64 = as64(xp, self.y)
        self.finite = ~xp.isnan(self.ref)
        self.err = xp.abs(self.y64 - self.ref)
        self.written = self.first.written()
        # rows whose reference is a distribution: the row-wise properties apply to them
        self.live = xp.all(self.finite, axis=1) & (self.ref.sum(axis=1) > 0)

    @functools.cached_property
    def repeat(self) -> Buffers:
        """A second launch on the same input (``deterministic`` compares it; ``rows_independent``
        judges only a kernel that repeats itself)."""
        return self.again()

    def again(self, x_host: np.ndarray | None = None) -> Buffers:
        """Another launch, on ``x_host`` (float32, cast here) or the same input."""
        x = self.x_host if x_host is None else as_format(x_host, self.fmt)
        return launch(self.subject, x, self.offsets)


def observe(subject: Subject, x_host: np.ndarray, offsets: tuple[int, int]) -> Observation:
    """Launch ``subject`` once on ``x_host`` (in its element type) and compute what it is judged by."""
    first = launch(subject, x_host, offsets)
    x = subject.xp.asarray(x_host.astype(np.float32))  # exact: every format here widens to float32
    ref = reference_softmax(x, subject.convention)
    return Observation(subject, dtypes.of(subject.dtype), x_host, offsets, first, x, ref,
                       bound_for(subject, x, ref))


@dataclass
class Finding:
    """Why a property failed: a message, and where (row, column) with the arrays to show there
    (the observation's own unless given)."""

    message: str | None
    where: tuple[int, int] | None = None
    arrays: dict = field(default_factory=dict)  # x, y, ref, bound to show instead of the observation's
