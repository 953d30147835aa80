"""The forward softmax: the reference of :mod:`softmax_harness.reference`, the bound of
:mod:`softmax_harness.bounds`, and ``sums_to_one``."""

from __future__ import annotations

from .. import bounds
from ..findings import Finding, first_true
from ..reference import reference_softmax
from .base import Op


def sums_to_one(o) -> Finding | None:
    """Each finite row's float64 sum is 1 within its own slack (for a safe kernel with exact
    exponentials tighter than the sum of the element bounds: their errors cancel), and 0 <= y <= 1."""
    xp = o.xp
    live = xp.all(o.finite, axis=1) & (o.ref.sum(axis=1) > 0) & xp.all(o.written, axis=1)
    if not bool(live.any()):
        return None
    total = xp.where(o.finite, o.y64, 0.0).sum(axis=1)
    sub = o.subject
    slack = bounds.row_sum_slack(o.bound, n_cols=o.x.shape[1], lanes=sub.lanes, algorithm=sub.algorithm,
                                 fast_math=sub.fast_math, xp=xp, dtype=sub.dtype, rounding=sub.rounding,
                                 chain=sub.chain(o.x.shape[1]))
    row_bad = live & ~(xp.abs(total - 1.0) <= slack)
    if bool(row_bad.any()):
        r = int(xp.argmax(row_bad))
        return Finding(f"row {r} sums to {float(total[r])!r} (allowed |sum - 1| <= {float(slack[r]):.3g})")
    where = first_true(xp, live[:, None] & ~((o.y64 >= 0) & (o.y64 <= 1)))
    return Finding("an output lies outside [0, 1]", where) if where else None


class Softmax(Op):
    name = "softmax"
    inputs = ("in",)
    own = {"sums_to_one": sums_to_one}
    conventions = ("torch", "masked")

    def reference(self, inputs, convention="torch"):
        return reference_softmax(inputs[0], convention)

    def bound(self, subject, inputs, ref):
        return bounds.element_bound(inputs[0], ref, lanes=subject.lanes, algorithm=subject.algorithm,
                                    fast_math=subject.fast_math, exp=subject.exp, xp=subject.xp,
                                    rounding=subject.rounding, dtype=subject.dtype,
                                    chain=subject.chain(inputs[0].shape[-1]))

    def exact(self, o):
        """Masked (-inf) entries of a row with a finite maximum are exactly 0, and so is every
        entry of a fully masked row under the masked convention."""
        xp = o.xp
        masked = (o.x == -xp.inf) & o.finite
        full = o.finite & (o.ref == 0) & xp.all(o.x == -xp.inf, axis=1, keepdims=True)
        return masked | full, 0.0


SOFTMAX = Softmax()
