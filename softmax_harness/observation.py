"""One launch of a subject on one batch, and what the properties judge it by: its op's float64
reference and per-element bound, computed once (:class:`Observation`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from . import bounds, dtypes
from .buffers import Buffers, launch
from .findings import Finding, first_true
from .subject import Subject

__all__ = ["Finding", "Observation", "as64", "as_format", "bound_ratio", "first_true", "host", "observe"]


def as64(xp, a):
    with np.errstate(invalid="ignore"):  # the poison is a NaN with a payload
        return a.astype(xp.float64)


def bound_ratio(subject, op, inputs: tuple, out):
    """|out - the float64 reference| over ``op``'s bound for ``subject``, element by element, on
    device ``inputs`` (widened exactly, through float32) and ``out``: NaN where either is NaN."""
    xp = subject.xp
    xs = tuple(as64(xp, a).astype(xp.float32) if getattr(a, "ndim", 0) else a for a in inputs)
    ref = op.reference(xs, subject.convention)
    return xp.abs(as64(xp, out) - ref) / op.bound(subject, xs, ref)


def host(xp, a):
    return a.get() if xp is not np else a


def as_format(x: np.ndarray, fmt) -> np.ndarray:
    """A host array in the subject's element type (overflow to +-inf is part of the input); a
    scalar input (a scale) stays a float32 scalar, a boolean array (a mask) stays bool."""
    x = np.asarray(x)
    if x.ndim == 0:
        return np.float32(x)
    if x.dtype == bool:
        return np.ascontiguousarray(x)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.ascontiguousarray(x.astype(fmt.numpy()))


@dataclass
class Observation:
    """One launch of a subject on a batch, with the reference and the bound it is judged by."""

    subject: Subject
    fmt: dtypes.Format
    inputs_host: tuple  # the inputs in the subject's element type
    offsets: tuple[int, ...]  # the inputs', the output's and the skew between inputs (buffers)
    first: Buffers  # the launch
    inputs: tuple  # the inputs as given, exactly, in float32 (on the subject's device)
    ref: object  # float64 reference
    bound: object  # allowed |out - ref| per element

    @property
    def xp(self):
        return self.subject.xp

    @property
    def y(self):
        """The output (dx for a backward)."""
        return self.first.y

    @property
    def x(self):
        """The first input (the logits of a forward)."""
        return self.inputs[0]

    @property
    def x_host(self):
        return self.inputs_host[0]

    def __post_init__(self):
        xp = self.xp
        self.y64 = as64(xp, self.y)
        self.finite = xp.isfinite(self.ref)
        with np.errstate(invalid="ignore"):
            self.err = xp.abs(self.y64 - self.ref)
        self.written = self.first.written()

    @functools.cached_property
    def repeat(self) -> Buffers:
        """A second launch on the same inputs (``deterministic`` compares it; ``rows_independent``
        judges only a kernel that repeats itself)."""
        return self.again()

    @functools.cached_property
    def ref_flushed(self):
        """The reference on the inputs with float32 subnormals read as 0, as a kernel compiled
        with flush-to-zero (CuPy's default) reads them; None where no input holds one."""
        xp = self.xp

        def subnormal(a):  # where a float array holds a float32 subnormal (None: a mask or a scale)
            if not (getattr(a, "ndim", 0) and a.dtype.kind == "f"):
                return None
            return (a != 0) & (xp.abs(a) < bounds.FLT_TINY)

        found = [subnormal(a) for a in self.inputs]
        if not any(f is not None and bool(f.any()) for f in found):
            return None
        pairs = zip(self.inputs, found, strict=True)
        flushed = tuple(a if f is None else xp.where(f, xp.zeros_like(a), a) for a, f in pairs)
        return self.subject.operation.reference(flushed, self.subject.convention)

    def again(self, inputs: tuple | None = None) -> Buffers:
        """Another launch, on ``inputs`` (float32, cast here) or the same inputs."""
        inputs = self.inputs_host if inputs is None else tuple(as_format(a, self.fmt) for a in inputs)
        return launch(self.subject, inputs, self.offsets)


def observe(subject: Subject, inputs: tuple, offsets: tuple[int, ...]) -> Observation:
    """Launch ``subject`` once on ``inputs`` (host arrays in its element type) and compute what it
    is judged by."""
    inputs = (inputs,) if isinstance(inputs, np.ndarray) else tuple(inputs)
    first = launch(subject, inputs, offsets)
    exact = tuple(subject.xp.asarray(np.asarray(a).astype(np.float32)) for a in inputs)  # widened exactly
    op = subject.operation
    ref = op.reference(exact, subject.convention)
    return Observation(subject, dtypes.of(subject.dtype), inputs, offsets, first, exact, ref,
                       op.bound(subject, exact, ref))
