"""Per-element error bounds for a float32 softmax against the float64 reference.

Let u = 2**-24 (float32 unit roundoff), m the row maximum (exact: a maximum
involves no rounding) and y_i = exp(x_i - m) / d. A kernel's y_i carries:

* rounding of ``x_i - m``: an absolute error of at most u*|x_i - m| in the
  exponent, hence a relative error of about u*|x_i - m| in exp(x_i - m);
* the exponential itself: ``expf`` is within 2 ulp (CUDA Programming Guide). A
  ``fast_math`` variant (``__expf``, i.e. ``ex2.approx(x * log2 e)``) rounds the
  scaled argument once more and ``ex2.approx`` is within 2 ulp, so it is charged
  ``FAST_EXP_ULPS`` and twice the argument term. That is a kernel's ``exp=ex2`` (the
  one-pass kernels). ``exp=shifted`` (the fp32 split-row kernel; the default for a fast_math
  kernel that does not say) takes exp(x_i - m_t) as ``ex2(x_i * log2 e - s) * c`` with
  s = fl(m_t * log2 e) and c = ex2(-(m_t * log2 e - s)) (``ExpArgs`` in kernels/softmax.cuh):
  one rounding of the argument (within the argument term) and c, 2 ulp, in both the tile's
  sum and its outputs: ``SHIFT_ULPS`` more;
* the sum d: each addition in the longest sequential chain adds at most u
  relative error to a sum of non-negative terms (Higham, Accuracy and Stability,
  §4.2). The chain is ceil(C / lanes) per-thread steps plus log2(lanes) tree
  levels. Online variants also round a correction factor and a product per step,
  so they are charged ``ONLINE_STEP_ULPS`` per step instead of one;
* the division and the final rounding: 2 ulp.

Flush-to-zero (CuPy compiles with ``-ftz=true``): any intermediate or output
below 2**-126 may become 0, so each element also gets an absolute floor of
2**-125. Denormal outputs are thus never required; denormal inputs behave as 0.

The bound is relative to |y_ref| plus the floor:
``|y - y_ref| <= |y_ref| * u * (|x_i - m| * A + E + S * chain) + 2**-125``,
with a safety factor ``SLACK`` on the whole (the analysis bounds first-order terms).

Half-precision kernels (float16, bfloat16) compute in float32 from inputs that are
exact in float32, so they carry the float32 bound plus the rounding of the output to
16 bits: a relative u16 (2**-11, 2**-8) and, for float16, half its smallest subnormal
spacing (2**-25) as an absolute floor. ``exp=folded`` (the 16-bit split-row kernels,
``write_softmax`` in kernels/softmax.cuh) is shifted, and writes 16-bit outputs as
ex2(x_i * log2 e - s') with s' = fl(m * log2 e + lg2(d)), |s'| < 1024: s' is rounded
(at most 2**-15, that is 2**9 u, in the exponent), lg2 is within about 2**-22, and the
argument now also holds log2 d <= 31, hence ln 2 * (2**9 + 4 + 31) u < ``FOLD_ULPS``
(a NumPy model of it reached 364 u).
"""

from __future__ import annotations

import math

import numpy as np

from . import dtypes

U = 2.0**-24
FTZ_FLOOR = 2.0**-125
FLT_TINY = 2.0**-126  # smallest normal float32
EXP_ULPS = 2.0
FAST_EXP_ULPS = 4.0
SHIFT_ULPS = 8.0
FOLD_ULPS = 384.0
ONLINE_STEP_ULPS = 3.0
SLACK = 2.0


def chain_length(n_cols: int, lanes: int) -> int:
    """Longest sequential accumulation chain of a row of ``n_cols`` split over ``lanes`` threads."""
    lanes = max(1, min(lanes, max(n_cols, 1)))
    return -(-n_cols // lanes) + math.ceil(math.log2(lanes)) + 1


def fast_exp_ulps(exp: str, bits: int) -> float:
    """What a fast exponential of form ``exp`` (``ex2``, ``shifted``, ``folded``) is charged, for
    outputs of ``bits``."""
    extra = {"ex2": 0.0, "shifted": SHIFT_ULPS, "folded": SHIFT_ULPS + (FOLD_ULPS if bits == 16 else 0.0)}
    return FAST_EXP_ULPS + extra[exp]


def element_bound(x, ref, *, lanes: int, algorithm: str = "safe", fast_math: bool = False,
                  exp: str = "shifted", xp=np, dtype="float32"):
    """Allowed |y - ref| per element, for an (N, C) input ``x`` and its float64 reference,
    for a kernel whose output is ``dtype`` (``exp``: the form of its fast exponentials)."""
    x64 = xp.asarray(x, dtype=xp.float64)
    n_cols = x64.shape[-1]
    with np.errstate(invalid="ignore"):
        peak = xp.max(xp.where(xp.isnan(x64), -xp.inf, x64), axis=-1, keepdims=True)
        gap = xp.abs(x64 - peak)
    gap = xp.where(xp.isfinite(gap), gap, 0.0)
    step = ONLINE_STEP_ULPS if algorithm == "online" else 1.0
    fmt = dtypes.of(dtype)
    exp_ulps = fast_exp_ulps(exp, fmt.bits) if fast_math else EXP_ULPS
    arg_weight = 2.0 if fast_math else 1.0
    rel = U * (gap * arg_weight + exp_ulps + 2.0 + step * chain_length(n_cols, lanes))
    if fmt.bits == 32:
        return SLACK * xp.abs(ref) * rel + FTZ_FLOOR
    subnormal_rounding = 2.0 ** (fmt.min_exp - fmt.mantissa - 1)
    return SLACK * (xp.abs(ref) * (rel + fmt.u) + subnormal_rounding) + FTZ_FLOOR


def ulps(y, ref, xp=np, dtype="float32"):
    """|y - ref| in ulps of ref in ``dtype`` (0 where both are equal, inf for a NaN mismatch)."""
    return xp.abs(y.astype(xp.float64) - ref) / dtypes.of(dtype).spacing(ref, xp)
