"""Element types of the kernels: float32, float16 and bfloat16, and what the checks need of each.

NumPy has no bfloat16; the ``ml_dtypes`` package provides it (and CuPy 14 uses it).
Half-precision kernels compute in float32; only their inputs and outputs are 16-bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Format:
    """A floating-point storage format."""

    name: str
    bits: int          # storage width
    mantissa: int      # explicit significand bits
    min_exp: int       # exponent of the smallest normal number
    poison: int        # a NaN bit pattern that no softmax arithmetic produces
    guard: float       # a huge finite logit for the guard zones around inputs

    @property
    def u(self) -> float:
        """Unit roundoff (half an ulp of 1)."""
        return 2.0 ** -(self.mantissa + 1)

    @property
    def largest(self) -> float:
        """Largest finite number."""
        return {"float32": 3.4028234663852886e38, "float16": 65504.0,
                "bfloat16": 3.3895313892515355e38}[self.name]

    @property
    def tiny(self) -> float:
        """Smallest normal number."""
        return 2.0**self.min_exp

    @property
    def uint(self):
        return np.uint16 if self.bits == 16 else np.uint32

    def numpy(self) -> np.dtype:
        """The NumPy dtype (bfloat16 from ml_dtypes)."""
        if self.name == "bfloat16":
            try:
                import ml_dtypes
            except ImportError:
                raise TypeError("bfloat16 needs the ml_dtypes package (pip install ml_dtypes)") from None
            return np.dtype(ml_dtypes.bfloat16)
        return np.dtype(self.name)

    def spacing(self, r, xp=np):
        """The ulp of |r| in this format (the subnormal spacing below the normal range)."""
        r = xp.abs(xp.asarray(r, dtype=xp.float64))
        with np.errstate(divide="ignore"):
            exponent = xp.floor(xp.log2(xp.maximum(r, self.tiny)))
        return xp.exp2(exponent - self.mantissa)


FORMATS = {
    "float32": Format("float32", 32, 23, -126, 0xFFA5A5A5, 3e38),
    "float16": Format("float16", 16, 10, -14, 0xFDA5, 6e4),
    "bfloat16": Format("bfloat16", 16, 7, -126, 0xFFA5, 3e38),
}


def name_of(dtype) -> str:
    """The format name of a dtype-like (``'float32'``, ``numpy.float16``, an array's dtype ...)."""
    return dtype if isinstance(dtype, str) else np.dtype(dtype).name


def of(dtype) -> Format:
    """The :class:`Format` of a dtype-like; TypeError for anything else."""
    name = name_of(dtype)
    if name not in FORMATS:
        raise TypeError(f"dtype {name} is not supported (supported: {', '.join(FORMATS)})")
    return FORMATS[name]
