"""The softmax backward: ``dx = y * (dy - sum(dy * y))`` from the forward's output ``y`` and the
incoming gradient ``dy``.

Contract: torch's (``torch._softmax_backward_data``), the formula in IEEE arithmetic, evaluated
in float64 from the inputs as given: a row whose ``y`` holds NaN (the forward of a row with NaN
or +inf, or of a fully masked row under the torch convention) gives NaN everywhere; a NaN or
infinite ``dy`` makes ``s = sum(dy * y)`` NaN or infinite (0 * inf is NaN: an infinite gradient
at a masked position poisons the row too) and the row follows the formula; where ``y`` is 0 and
``s`` finite, ``dx`` is exactly 0 (a fully masked row under the masked convention, whose ``y``
is all 0, gives 0).

The bound (u = 2^-24; inputs exact in float32; the kernel computes in float32): ``s`` is a dot
product, each product rounded once and summed along the declared reduction's longest chain, so
``|s^ - s| <= gamma(chain + 1) * P`` with ``P = sum |y_j dy_j|`` (Higham, §3.1), plus what
flush-to-zero takes: a product whose factor or value is below 2^-126 may be lost whole, and a
partial sum below it (at most 2^-126 a step). Then ``t = dy_i - s^`` and ``y_i * t`` each round
once: ``|dx^_i - dx_i| <= (1 + 2^-10) (|y_i| |s^ - s| + 2 u |dx_i|)``, and a ``y_i`` below
2^-126 may be taken as 0 (the whole ``|y_i| (|dy_i| + |s|)``), a ``dy_i`` below it as well
(``|y_i| 2^-126``). 16-bit outputs add the store's rounding, as for the forward.

Properties of its own: ``sums_to_zero`` (each row of dx sums to ``s (1 - sum y)``, 0 for an exact
distribution, within the sum of its elements' bounds) and ``linear_in_dy`` (the backward is
linear in dy, and doubling dy is exact in every rounding: ``dx(y, 2 dy)`` is bitwise ``2 dx(y, dy)``
on every row where no value comes near the flush-to-zero or overflow thresholds).
"""

from __future__ import annotations

import numpy as np

from .. import bounds
from ..findings import Finding, first_true
from ..reference import array_module, reference_softmax
from ..strategies import GRAD_KINDS, BatchRecipe, build_grad
from .base import Op

LINEAR_FLOOR = 2.0**-100  # below it a product or an output may come near the flush-to-zero threshold


def _quiet():
    return np.errstate(invalid="ignore", over="ignore", divide="ignore", under="ignore")


def backward_reference(y, dy):
    """``y * (dy - sum(dy * y))`` over the last axis, in float64."""
    xp = array_module(y)
    y64, dy64 = xp.asarray(y, dtype=xp.float64), xp.asarray(dy, dtype=xp.float64)
    with _quiet():
        s = (y64 * dy64).sum(axis=-1, keepdims=True)
        return y64 * (dy64 - s)


def backward_bound(y, dy, ref, *, lanes: int, xp=np, dtype="float32", rounding="nearest", chain=None):
    """Allowed |dx - ref| per element (see the module's text)."""
    y64, dy64 = xp.abs(xp.asarray(y, dtype=xp.float64)), xp.abs(xp.asarray(dy, dtype=xp.float64))
    n_cols = y64.shape[-1]
    tiny = bounds.FLT_TINY
    with _quiet():
        prod = y64 * dy64
        flushed = (y64 < tiny) | (dy64 < tiny) | (prod < tiny)
        lost = xp.where(flushed, prod, 0.0).sum(axis=-1, keepdims=True) + n_cols * tiny
        chain = bounds.chain_length(n_cols, lanes) if chain is None else chain
        total = prod.sum(axis=-1, keepdims=True)  # P, and at least |s|
        ds = bounds.gamma(chain + 1) * total + lost
        float32 = bounds.SECOND_ORDER * (y64 * ds + 2 * bounds.U * xp.abs(ref))
        float32 = float32 + xp.where(y64 < tiny, bounds.SECOND_ORDER * y64 * (dy64 + total + ds), 0.0)
        float32 = float32 + y64 * tiny + bounds.FTZ_FLOOR
    return bounds.stored(float32, ref, dtype=dtype, rounding=rounding, xp=xp)


def _live_rows(o):
    """Rows whose reference is finite throughout and which were written in full."""
    xp = o.xp
    return xp.all(o.finite, axis=1) & xp.all(o.written, axis=1)


def sums_to_zero(o) -> Finding | None:
    """Each finite row of dx sums to s (1 - sum y) (0 for an exact distribution), within the sum of
    its elements' bounds."""
    xp = o.xp
    live = _live_rows(o)
    if not bool(live.any()):
        return None
    with _quiet():
        total = xp.where(o.finite, o.y64, 0.0).sum(axis=1)
        want = xp.where(o.finite, o.ref, 0.0).sum(axis=1)
        slack = xp.where(o.finite, o.bound, 0.0).sum(axis=1)
    bad = live & ~(xp.abs(total - want) <= slack)
    if not bool(bad.any()):
        return None
    r = int(xp.argmax(bad))
    return Finding(f"row {r} of dx sums to {float(total[r])!r}, expected {float(want[r])!r} "
                   f"(allowed difference {float(slack[r]):.3g})")


def linear_in_dy(o) -> Finding | None:
    """dx(y, 2 dy) is bitwise 2 dx(y, dy) on the rows where doubling is exact throughout."""
    xp, fmt = o.xp, o.fmt
    dy = o.inputs_host[1].astype(np.float64)
    with _quiet():
        prod = np.abs(o.subject.operation.weights(o.inputs_host[0].astype(np.float64)) * dy)
        fits = np.all(np.isfinite(dy), axis=1) & (np.max(np.abs(dy), axis=1, initial=0.0) < fmt.largest / 4)
        clear = np.all((prod == 0) | (prod >= LINEAR_FLOOR), axis=1)
    doubled = (o.inputs_host[0], (o.inputs_host[1].astype(np.float64) * 2).astype(o.inputs_host[1].dtype))
    again = o.again(doubled)
    y2 = xp.asarray(again.y).astype(xp.float64)
    floor = max(LINEAR_FLOOR, 2 * fmt.tiny)
    judged = xp.asarray(fits & clear) & _live_rows(o)
    with _quiet():
        for out in (o.y64, y2):
            judged &= xp.all((out == 0) | (xp.abs(out) >= floor), axis=1)
            judged &= xp.all(xp.isfinite(out), axis=1)
        where = first_true(xp, judged[:, None] & (y2 != 2 * o.y64))
    if where is None:
        return None
    return Finding("doubling dy did not double dx exactly (the backward is linear in dy, and doubling "
                   "is exact in every rounding)", where, {"y": again.y, "ref": 2 * o.y64, "bound": None})


def by_slices(xp, rows, f):
    """``f`` of the huge device array ``rows``, in float32 a slice of rows at a time (no float32
    copy of it all), stored in its element type."""
    out = xp.empty_like(rows)
    step = max(1, 2**27 // rows.shape[1])
    for start in range(0, rows.shape[0], step):
        out[start:start + step] = f(rows[start:start + step].astype(xp.float32)).astype(rows.dtype)
    return out


def perturb_gradient(inputs, rows):
    """dy's changed rows reversed, doubled and moved by 1 (their s changes; the forward's output
    stays as it was)."""
    dy = inputs[1].astype(np.float32).copy()
    with _quiet():
        for k in rows:
            dy[k] = np.where(np.isfinite(dy[k]), dy[k][::-1] * 2 + 1, dy[k])
    return inputs[0], dy


class SoftmaxBackward(Op):
    name = "softmax_backward"
    inputs = ("y", "dy")
    output = "dx"
    own = {"sums_to_zero": sums_to_zero, "linear_in_dy": linear_in_dy}
    conventions = ("torch", "masked")

    grads = GRAD_KINDS

    def weights(self, y):
        """What multiplies dy in the dot product: y itself."""
        return y

    def build(self, x, recipe=None, convention="torch"):
        with _quiet():
            y = reference_softmax(x, convention).astype(np.float32)
        recipe = recipe if recipe is not None else BatchRecipe(n_cols=x.shape[1], n_rows=x.shape[0])
        return y, build_grad(recipe)

    def reference(self, inputs, convention="torch"):
        return backward_reference(*inputs)

    def bound(self, subject, inputs, ref):
        return backward_bound(*inputs, ref, lanes=subject.lanes, xp=subject.xp, dtype=subject.dtype,
                              rounding=subject.rounding, chain=subject.chain(inputs[0].shape[-1]))

    def exact(self, o):
        """dx is exactly 0 where y is 0 (and the row's s is finite)."""
        return (o.inputs[0] == 0) & o.finite, 0.0

    def perturb(self, inputs, rows, fmt):
        return perturb_gradient(inputs, rows)

    def device_inputs(self, xp, normal, fmt):
        """y: the softmax of ``normal`` (rounded to ``fmt``), dy: ``normal`` itself."""
        def softmax(x):
            e = xp.exp(x - x.max(axis=1, keepdims=True))
            return e / e.sum(axis=1, keepdims=True)

        return by_slices(xp, normal, softmax), normal


SOFTMAX_BACKWARD = SoftmaxBackward()
