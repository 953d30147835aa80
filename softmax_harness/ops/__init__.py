"""The ops a subject may compute, each with its reference, bound, inputs and properties.

An op (:class:`~softmax_harness.ops.base.Op`) is what the rest of the harness is written
against: the observation launches a subject on the op's inputs and judges it by the op's
float64 reference and bound; the properties are the shared ones and the op's own. A kernel
header or a callable names its op (``op=softmax_backward``); the default is the forward softmax.
"""

from __future__ import annotations

from .backward import SOFTMAX_BACKWARD
from .base import Op
from .log_softmax import LOG_SOFTMAX
from .log_softmax_backward import LOG_SOFTMAX_BACKWARD
from .scaled import SCALED_SOFTMAX_BIAS, SCALED_SOFTMAX_CAUSAL, SCALED_SOFTMAX_MASK
from .softmax import SOFTMAX

OPS: dict[str, Op] = {op.name: op for op in (SOFTMAX, SOFTMAX_BACKWARD, LOG_SOFTMAX,
                                              LOG_SOFTMAX_BACKWARD, SCALED_SOFTMAX_BIAS,
                                              SCALED_SOFTMAX_MASK, SCALED_SOFTMAX_CAUSAL)}
NAMES = tuple(OPS)

#: Every property of every op, shared ones first (the check command's verdict columns).
ALL_PROPERTIES = tuple(dict.fromkeys(p for op in OPS.values() for p in op.properties))


def of(name: str) -> Op:
    """The op called ``name``; ValueError naming the known ones otherwise."""
    try:
        return OPS[name]
    except KeyError:
        raise ValueError(f"unknown op {name!r} (known: {', '.join(OPS)})") from None


__all__ = ["ALL_PROPERTIES", "LOG_SOFTMAX", "LOG_SOFTMAX_BACKWARD", "NAMES", "OPS", "SCALED_SOFTMAX_BIAS",
           "SCALED_SOFTMAX_CAUSAL", "SCALED_SOFTMAX_MASK", "SOFTMAX", "SOFTMAX_BACKWARD", "Op", "of"]
