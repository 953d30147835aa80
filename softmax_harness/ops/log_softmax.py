"""log_softmax: ``z = (x - m) - log(sum exp(x - m))`` over the last axis.

Contract (torch's): a row holding NaN or +inf, or entirely -inf, gives NaN everywhere; a -inf
entry of a row whose maximum is finite gives exactly -inf.

The bound is absolute, not relative (u = 2^-24; an ulp is at most 2u). With m the exact
maximum, d = sum exp(x_j - m) is computed with relative error ``e_d`` as in the forward (the
terms' exponentials and argument roundings, at most ``E + A u ln C`` on their weighted mean, and
gamma of the declared reduction's chain, 6u a step for an online one), so ``log d^`` is off by
at most ``e_d / (1 - e_d)``; ``logf`` adds 1 ulp of ``L = log d`` (``lg2.approx`` under fast_math:
2^-22 absolute, times ln 2); ``x_i - m`` rounds once (``u |x_i - m|``, twice that under
fast_math) and the final subtraction once (``u |z_i|``). So
``|z^_i - z_i| <= (1 + 2^-10) (A u |x_i - m| + e_d + 2u L + u |z_i|) + C 2^-126`` (flush-to-zero
takes at most 2^-126 a term from d >= 1), plus a 16-bit store's rounding of z. A log-probability
beyond half the format's largest finite value is not judged by its value (``x - m`` itself may
overflow to -inf there, and the exact result may lie past the format's range): only for not
being NaN.

Properties of its own: ``nonpositive`` (z <= 0: d >= 1 in any order of summation, since its
largest term is exactly 1, so a correct kernel never returns a positive log-probability) and
``logsumexp_zero`` (log sum exp z = 0, within what the elements' bounds allow).
"""

from __future__ import annotations

import math

import numpy as np

from .. import bounds, dtypes
from ..findings import Finding, first_true
from ..reference import array_module
from .base import Op

LG2_ABS = 2.0**-22 * math.log(2.0)  # lg2.approx's absolute error, in natural log


def _quiet():
    return np.errstate(invalid="ignore", over="ignore", divide="ignore", under="ignore")


def log_softmax_reference(x):
    """``(x - m) - log(sum exp(x - m))`` over the last axis, in float64, following the contract."""
    xp = array_module(x)
    x64 = xp.asarray(x, dtype=xp.float64)
    if x64.shape[-1] == 0:
        return x64.copy()
    with _quiet():
        peak = x64.max(axis=-1, keepdims=True)
        shifted = x64 - peak
        return shifted - xp.log(xp.exp(shifted).sum(axis=-1, keepdims=True))


def log_softmax_bound(x, ref, *, lanes: int, algorithm="safe", fast_math=False, exp="shifted", xp=np,
                      dtype="float32", rounding="nearest", chain=None):
    """Allowed |z - ref| per element (see the module's text)."""
    x64 = xp.asarray(x, dtype=xp.float64)
    n_cols = x64.shape[-1]
    with _quiet():
        peak = xp.max(xp.where(xp.isnan(x64), -xp.inf, x64), axis=-1, keepdims=True)
        gap = xp.abs(x64 - peak)
        gap = xp.where(xp.isfinite(gap), gap, 0.0)
        log_d = xp.abs(xp.max(xp.where(xp.isfinite(ref), ref, -xp.inf), axis=-1, keepdims=True))
        log_d = xp.where(xp.isfinite(log_d), log_d, 0.0)
        z = xp.where(xp.isfinite(ref), xp.abs(ref), 0.0)
    step = bounds.online_step(fast_math) if algorithm == "online" else 1.0
    arg_weight = 2.0 if fast_math else 1.0
    term_ulps = bounds.fast_exp_ulps("shifted" if exp == "folded" else exp, 32) if fast_math else \
        bounds.EXP_ULPS
    chain = bounds.chain_length(n_cols, lanes) if chain is None else chain
    e_d = bounds.U * arg_weight * math.log(max(n_cols, 1)) + bounds.ULP * term_ulps + \
        bounds.gamma(step * chain)
    log_err = e_d / (1 - e_d) + (LG2_ABS if fast_math else 0.0)
    float32 = bounds.SECOND_ORDER * (bounds.U * arg_weight * gap + log_err + bounds.ULP * log_d +
                                     bounds.U * z) + n_cols * bounds.FLT_TINY
    fmt = dtypes.of(dtype)
    relative, absolute = bounds.store_rounding(fmt, rounding)
    stored = float32 + relative * (z + float32) + absolute
    return xp.where(z > fmt.largest / 2, xp.inf, stored)  # x - m itself overflows near there


def nonpositive(o) -> Finding | None:
    """Every log-probability is <= 0."""
    where = first_true(o.xp, o.finite & o.written & (o.y64 > 0))
    return Finding("a log-probability is above 0", where) if where else None


def logsumexp_zero(o) -> Finding | None:
    """log sum exp z = 0 on every finite row, within what its elements' bounds allow:
    log sum p_i exp(+-b_i), with p = exp(ref)."""
    xp = o.xp
    live = xp.all(o.finite, axis=1) & xp.all(o.written, axis=1)
    if not bool(live.any()):
        return None
    with _quiet():
        p = xp.where(o.finite, xp.exp(o.ref), 0.0)
        b = xp.minimum(xp.where(o.finite, o.bound, 0.0), 700.0)  # exp(b) finite; p is 0 where b is huge
        z = xp.where(o.finite, o.y64, -xp.inf)
        top = z.max(axis=1, keepdims=True)
        lse = (top + xp.log(xp.exp(z - top).sum(axis=1, keepdims=True)))[:, 0]
        high = xp.log((p * xp.exp(b)).sum(axis=1))
        low = xp.log((p * xp.exp(-b)).sum(axis=1))
        slack = xp.maximum(high, -low) + 1e-12  # the float64 evaluation's own rounding
    bad = live & ~(xp.abs(lse) <= slack)
    if not bool(bad.any()):
        return None
    r = int(xp.argmax(bad))
    return Finding(f"row {r}: log sum exp z = {float(lse[r])!r}, expected 0 (allowed {float(slack[r]):.3g})")


class LogSoftmax(Op):
    name = "log_softmax"
    inputs = ("in",)
    output = "z"
    own = {"nonpositive": nonpositive, "logsumexp_zero": logsumexp_zero}

    def reference(self, inputs, convention="torch"):
        return log_softmax_reference(inputs[0])

    def bound(self, subject, inputs, ref):
        return log_softmax_bound(inputs[0], ref, lanes=subject.lanes, algorithm=subject.algorithm,
                                 fast_math=subject.fast_math, exp=subject.exp, xp=subject.xp,
                                 dtype=subject.dtype, rounding=subject.rounding,
                                 chain=subject.chain(inputs[0].shape[-1]))


LOG_SOFTMAX = LogSoftmax()
