"""The fused forward: ``softmax(t)`` of the logits ``t = scale * x``, with

* ``scaled_softmax_bias``: an additive bias of the same shape, ``t = scale * x + bias`` (a bias of
  -inf masks an element; a relative-position bias, ALiBi, an additive attention mask);
* ``scaled_softmax_mask``: a boolean mask of the same shape, ``t = -inf where mask else scale * x``
  (True masks an element out, as ``masked_fill(mask, -inf)``);
* ``scaled_softmax_causal``: row ``r`` keeps columns ``0 .. r % C`` and masks the rest (the rows of
  square attention blocks, stacked).

``scale`` is a float32 scalar, any finite value (a temperature, 1/sqrt(d); a negative one flips the
row).

Contract: ``t`` is formed in float32 as written, each operation rounded to nearest (``scale * x``,
then ``+ bias``; overflow gives an infinity), and the row is the forward softmax of ``t`` under the
forward's contract (a row with NaN or +inf in ``t`` is NaN; a row masked throughout is NaN, or 0
under ``convention=masked``; a masked element of any other row is exactly 0). A masked element of
``x`` is never read: whatever it holds, NaN included, changes nothing (``ignores_masked``).

The bound: the forward's, on ``t``, where ``t`` is exactly as the contract forms it. A bias kernel
may fuse ``scale * x + bias`` into one fused multiply-add, whose ``t'`` differs from ``t`` by at
most ``D_j = u |scale x_j| + 2 u |t_j|`` (both are within one rounding of the exact sum, the
unfused one after the product's own). The softmax of ``t'`` is ``y'_i = y_i exp(e_i) / sum_j y_j
exp(e_j)`` with ``|e_j| <= D_j``, so ``|y'_i - y_i| <= y_i max(exp(D_i) / L - 1, 1 - exp(-D_i) /
H)`` with ``L = sum_j y_j exp(-D_j)`` and ``H = sum_j y_j exp(D_j)``, and the forward's bound grows
by at most ``exp(D_i) / L``. The product ``scale * x`` alone rounds once, in one way: the mask
and causal forms get no such term.
"""

from __future__ import annotations

import copy
from dataclasses import replace

import numpy as np

from .. import bounds
from ..buffers import bits
from ..findings import Finding, first_true
from ..reference import array_module, reference_softmax
from ..strategies import BIAS_KINDS, SCALES, VALUE_KINDS, BatchRecipe, build_bias
from .base import Op
from .softmax import sums_to_one

#: What a masked element of ``x`` holds in the inputs the recipes build: far above any logit, so
#: a kernel that reads it (into the maximum, the sum or an output) is off by everything.
JUNK = 1e30


def _quiet():
    return np.errstate(invalid="ignore", over="ignore", divide="ignore", under="ignore")


def causal_mask(xp, n_rows: int, n_cols: int, rows=None):
    """True where row r masks column c: c > r % C (``rows``: the rows' indices, default 0 .. N - 1)."""
    rows = xp.arange(n_rows) if rows is None else xp.asarray(rows)
    return xp.arange(n_cols)[None, :] > (rows[:, None] % max(n_cols, 1))


def ignores_masked(o) -> Finding | None:
    """The output is bitwise the same when every masked element of x is NaN: the kernel never
    reads them (a causal row does not read the columns past its index)."""
    xp = o.xp
    if bool((bits(xp, o.repeat.y) != bits(xp, o.y)).any()):
        return None  # judged bitwise: only a kernel that repeats itself (else deterministic fails)
    hidden = np.asarray(o.subject.operation.hidden(o.inputs_host))
    if not hidden.any():
        return None  # nothing masked: nothing to hide
    x = o.inputs_host[0].astype(np.float32).copy()
    x[hidden] = np.nan
    other = o.again((x, *o.inputs_host[1:]))
    where = first_true(xp, bits(xp, other.y) != bits(xp, o.y))
    if where is None:
        return None
    return Finding("NaN in masked elements of x changed the output: the kernel reads what its mask hides",
                   where, {"y": other.y, "ref": o.y64, "bound": None})


class ScaledSoftmax(Op):
    """One form of the fused forward (``form``: ``bias``, ``mask`` or ``causal``)."""

    conventions = ("torch", "masked")

    def __init__(self, form: str):
        self.form = form
        self.name = f"scaled_softmax_{form}"
        self.inputs = {"bias": ("in", "bias", "scale"), "mask": ("in", "mask", "scale"),
                       "causal": ("in", "scale")}[form]
        self.own = {"sums_to_one": sums_to_one} if form == "bias" else \
            {"sums_to_one": sums_to_one, "ignores_masked": ignores_masked}

    draws = {"fused": True}
    rows = None  # the rows' indices in their batch, where only some are at hand (at_rows)

    def hidden(self, inputs):
        """Where an element of x is masked (never to be read); all False for the bias form."""
        x = inputs[0]
        xp = array_module(x)
        if self.form == "mask":
            return xp.asarray(inputs[1]) != 0
        if self.form == "causal":
            return causal_mask(xp, *x.shape, rows=self.rows)
        return xp.zeros(x.shape, dtype=bool)

    def at_rows(self, rows):
        chosen = copy.copy(self)
        chosen.rows = list(rows)
        return chosen

    def logits(self, inputs):
        """t as the contract forms it, in float32 (from inputs exact in float32)."""
        x = inputs[0]
        xp = array_module(x)
        scale = xp.asarray(inputs[-1], dtype=xp.float32)
        with _quiet():
            t = (x.astype(xp.float32) * scale).astype(xp.float32)
            if self.form == "bias":
                return (t + xp.asarray(inputs[1], dtype=xp.float32)).astype(xp.float32)
        return xp.where(self.hidden(inputs), xp.float32(-xp.inf), t)

    def build(self, x, recipe=None, convention="torch"):
        """x: the logits divided by the recipe's scale (so that ``scale * x`` is close to them,
        their ties and extremes kept); masked elements hold ``JUNK``; the bias is of the recipe's
        kind, the mask where the logits are -inf."""
        recipe = recipe if recipe is not None else BatchRecipe(n_cols=x.shape[1], n_rows=x.shape[0])
        scale = np.float32(recipe.scale)
        with _quiet():
            x_in = (x.astype(np.float64) / float(scale)).astype(np.float32)
        if self.form == "bias":
            return x_in, build_bias(recipe), scale
        if self.form == "mask":
            mask = x == -np.inf
            x_in[mask] = JUNK
            return x_in, mask, scale
        x_in[causal_mask(np, *x.shape)] = JUNK
        return x_in, scale

    def reference(self, inputs, convention="torch"):
        return reference_softmax(self.logits(inputs), convention)

    def bound(self, subject, inputs, ref):
        xp = subject.xp
        t = self.logits(inputs)
        forward = bounds.element_bound(t, ref, lanes=subject.lanes, algorithm=subject.algorithm,
                                       fast_math=subject.fast_math, exp=subject.exp, xp=xp,
                                       rounding=subject.rounding, dtype=subject.dtype,
                                       chain=subject.chain(t.shape[-1]))
        if self.form != "bias":
            return forward
        with _quiet():
            product = xp.abs(inputs[0].astype(xp.float64) * float(inputs[-1]))
            t64 = t.astype(xp.float64)
            d = xp.where(xp.isfinite(t64), bounds.U * product + 2 * bounds.U * xp.abs(t64), 0.0)
            d = xp.minimum(xp.where(xp.isfinite(d), d, 700.0), 700.0)
            y = xp.where(xp.isfinite(ref), ref, 0.0)
            low = (y * xp.exp(-d)).sum(axis=-1, keepdims=True)
            high = (y * xp.exp(d)).sum(axis=-1, keepdims=True)
            grow = xp.exp(d) / low
            shift = y * xp.maximum(grow - 1, 1 - xp.exp(-d) / high)
            total = forward * grow + shift
        return xp.where(xp.isfinite(total), total, xp.inf)

    def exact(self, o):
        """Masked elements (of t: -inf) of a row with a finite maximum are exactly 0, and so is a
        row masked throughout under the masked convention."""
        xp = o.xp
        t = self.logits(o.inputs)
        masked = (t == -xp.inf) & o.finite
        full = o.finite & (o.ref == 0) & xp.all(t == -xp.inf, axis=1, keepdims=True)
        return masked | full, 0.0

    def strata(self, base):
        """One batch of every row kind under each kind of bias (and a scale each), and the far
        rows again under the near-greedy scale, where only it keeps a float16 x in range."""
        far = replace(base[VALUE_KINDS.index("far")], scale=SCALES[-1])
        if self.form != "bias":  # the long rows of each value kind, masked or not, at every scale
            return tuple(replace(r, scale=SCALES[k % len(SCALES)])
                         for k, r in enumerate(base[:len(VALUE_KINDS)])) + (far,)
        return tuple(replace(base[k], bias=b, scale=SCALES[k % len(SCALES)])
                     for k, b in enumerate(BIAS_KINDS)) + (far,)

    def device_inputs(self, xp, normal, fmt):
        """x: ``normal``; a bias of its rows in reverse order (a copy, in its type: arithmetic on a
        bfloat16 array gives float32), a mask of about one element in eight, or none; scale 1/8."""
        scale = np.float32(0.125)
        if self.form == "bias":
            return normal, xp.ascontiguousarray(normal[::-1]), scale
        if self.form == "mask":
            return normal, (normal > 1.15), scale
        return normal, scale


SCALED_SOFTMAX_BIAS = ScaledSoftmax("bias")
SCALED_SOFTMAX_MASK = ScaledSoftmax("mask")
SCALED_SOFTMAX_CAUSAL = ScaledSoftmax("causal")
