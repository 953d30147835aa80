"""The float64 reference softmax and its contract for non-finite input.

Contract (the same as ``torch.softmax``):

* a row holding NaN or +inf gives NaN in every element;
* a row that is entirely -inf gives NaN in every element;
* -inf entries of a row whose maximum is finite give exactly 0.

A variant may declare ``convention=masked`` instead: then an all -inf row gives
zeros (the masked-attention convention); every other rule is unchanged.
The same code runs on NumPy and on CuPy arrays (the GPU suite computes the
reference on the device).
"""

from __future__ import annotations

import numpy as np


def array_module(x):
    """``cupy`` for a CuPy array, else ``numpy``."""
    if type(x).__module__.startswith("cupy"):
        import cupy

        return cupy
    return np


def reference_softmax(x, convention: str = "torch"):
    """Softmax over the last axis in float64, following the contract above."""
    xp = array_module(x)
    x64 = xp.asarray(x, dtype=xp.float64)
    if x64.shape[-1] == 0:
        return x64.copy()
    with np.errstate(invalid="ignore", over="ignore"):
        peak = x64.max(axis=-1, keepdims=True)  # NaN in, NaN out; +inf makes inf - inf = NaN
        e = xp.exp(x64 - peak)  # -inf - finite = -inf -> exactly 0
        y = e / e.sum(axis=-1, keepdims=True)
    if convention == "masked":
        y = xp.where(peak == -xp.inf, 0.0, y)
    elif convention != "torch":
        raise ValueError(f"unknown convention {convention!r} (expected 'torch' or 'masked')")
    return y
