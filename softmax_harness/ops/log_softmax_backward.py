"""The log_softmax backward: ``dx = dy - exp(z) * sum(dy)`` from the forward's output ``z`` (the
log-probabilities) and the incoming gradient ``dy``.

Contract: torch's (``torch._log_softmax_backward_data``), the formula in IEEE arithmetic,
evaluated in float64 from the inputs as given: a row whose ``z`` holds NaN gives NaN everywhere;
a NaN or infinite ``dy`` makes ``s = sum(dy)`` NaN or infinite and the row follows the formula
(``exp(-inf) * inf`` is NaN); where ``z`` is -inf (a masked position) and ``s`` finite, ``dx`` is
exactly ``dy``. ``exp(z)`` below 2^-126 (z below about -87.3) is taken as 0, as a float32
exponential under flush-to-zero gives it: so an infinite gradient makes NaN there, not -inf (a
finite one changes dx by at most ``2^-126 |s|``, within the bound).

The bound (u = 2^-24; inputs exact in float32; computed in float32): ``|s^ - s| <=
gamma(chain) S`` with ``S = sum |dy|``, plus 2^-126 a step that flush-to-zero may take;
``p = exp(z)`` comes from ``expf``, within 2 ulp (4u), or is flushed below 2^-126; the product
and the subtraction round once each: ``|dx^ - dx| <= (1 + 2^-10) (p |s^ - s| + S (5u p + 2^-126)
+ u |dx|) + 3 * 2^-126``, plus a 16-bit store's rounding. A kernel that declares
``fast_math=true`` takes p as ``ex2.approx(z * log2 e)``: the argument rounds twice
(log2 e's float and the product), at most 2u |z| log2 e in the exponent, that is 2u |z| relative
in p, and ``ex2.approx`` is charged ``bounds.FAST_EXP_ULPS``, so 4u becomes (2 FAST_EXP_ULPS +
2 |z|) u. A 16-bit store's rounding (2^-9 of dx in bfloat16) dwarfs either. Its own properties are the softmax
backward's: ``sums_to_zero`` (a row of dx sums to ``s (1 - sum p)``, 0 for an exact
distribution) and ``linear_in_dy``.
"""

from __future__ import annotations

import numpy as np

from .. import bounds
from ..reference import array_module
from ..strategies import GRAD_KINDS, BatchRecipe, build_grad
from .backward import by_slices, linear_in_dy, perturb_gradient, sums_to_zero
from .base import Op
from .log_softmax import log_softmax_reference


def _quiet():
    return np.errstate(invalid="ignore", over="ignore", divide="ignore", under="ignore")


def log_softmax_backward_reference(z, dy):
    """``dy - exp(z) * sum(dy)`` over the last axis, in float64, with ``exp(z)`` taken as 0 below
    2^-126 (see the module's text)."""
    xp = array_module(z)
    z64, dy64 = xp.asarray(z, dtype=xp.float64), xp.asarray(dy, dtype=xp.float64)
    with _quiet():
        p = xp.exp(z64)
        p = xp.where(p < bounds.FLT_TINY, 0.0, p)
        return dy64 - p * dy64.sum(axis=-1, keepdims=True)


def log_softmax_backward_bound(z, dy, ref, *, lanes: int, xp=np, dtype="float32", rounding="nearest",
                               chain=None, fast_math=False):
    """Allowed |dx - ref| per element (see the module's text; ``fast_math``: the kernel's
    exponentials are ``ex2.approx(z * log2 e)``, not ``expf``)."""
    tiny = bounds.FLT_TINY
    n_cols = z.shape[-1]
    with _quiet():
        z64 = xp.asarray(z, dtype=xp.float64)
        p = xp.exp(z64)
        total = xp.abs(xp.asarray(dy, dtype=xp.float64)).sum(axis=-1, keepdims=True)
        chain = bounds.chain_length(n_cols, lanes) if chain is None else chain
        ds = bounds.gamma(chain) * total + n_cols * tiny
        # p's error and the product's rounding, relative to p: expf's 4u + u, or the fast path's
        if fast_math:
            p_z = xp.where(p > 0, xp.abs(z64) * p, 0.0)  # 0 where p is (z = -inf)
            p_error = bounds.U * ((2 * bounds.FAST_EXP_ULPS + 1) * p + 2 * p_z)
        else:
            p_error = 5 * bounds.U * p
        float32 = bounds.SECOND_ORDER * (p * ds + total * (p_error + tiny) +
                                         bounds.U * xp.abs(ref)) + 3 * tiny
    return bounds.stored(float32, ref, dtype=dtype, rounding=rounding, xp=xp)


class LogSoftmaxBackward(Op):
    name = "log_softmax_backward"
    inputs = ("z", "dy")
    output = "dx"
    own = {"sums_to_zero": sums_to_zero, "linear_in_dy": linear_in_dy}
    grads = GRAD_KINDS

    def weights(self, z):
        """What multiplies s in dx: exp(z)."""
        with _quiet():
            return np.exp(z)

    def build(self, x, recipe=None, convention="torch"):
        with _quiet():
            z = log_softmax_reference(x).astype(np.float32)
        recipe = recipe if recipe is not None else BatchRecipe(n_cols=x.shape[1], n_rows=x.shape[0])
        return z, build_grad(recipe)

    def reference(self, inputs, convention="torch"):
        return log_softmax_backward_reference(*inputs)

    def bound(self, subject, inputs, ref):
        return log_softmax_backward_bound(*inputs, ref, lanes=subject.lanes, xp=subject.xp,
                                          dtype=subject.dtype, rounding=subject.rounding,
                                          chain=subject.chain(inputs[0].shape[-1]),
                                          fast_math=subject.fast_math)

    def exact(self, o):
        """dx is exactly dy where z is -inf (and the row's s is finite)."""
        return (o.inputs[0] == -o.xp.inf) & o.finite, o.inputs[1].astype(o.xp.float64)

    def perturb(self, inputs, rows, fmt):
        return perturb_gradient(inputs, rows)

    def device_inputs(self, xp, normal, fmt):
        """z: the log_softmax of ``normal`` (rounded to ``fmt``), dy: ``normal`` itself."""
        def log_softmax(x):
            shifted = x - x.max(axis=1, keepdims=True)
            return shifted - xp.log(xp.exp(shifted).sum(axis=1, keepdims=True))

        return by_slices(xp, normal, log_softmax), normal


LOG_SOFTMAX_BACKWARD = LogSoftmaxBackward()
