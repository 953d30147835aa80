"""NumPy stand-ins for softmax kernels: one correct, and one per classic defect.

Each is ``fn(x, out)`` over NumPy arrays, like a Variant over CuPy arrays, so the
property checks can be shown to catch real bugs on a machine without a GPU.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LANES = 32


def _safe(x, out):
    with np.errstate(invalid="ignore", over="ignore"):
        m = x.max(axis=1, keepdims=True)
        e = np.exp(x - m)
        out[...] = e / e.sum(axis=1, keepdims=True)


def correct(x, out):
    _safe(x, out)


def _exp_below(a, b, guard):
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(a - b)
    return np.where(a == -np.inf, np.float32(0), e) if guard else e


def online_lanes(x, out, guard=True, merge="ok", skip_lane0=False, stale=False):
    """Online softmax the way a warp does it: 32 lanes, strided elements, butterfly merge.
    ``guard``: (-inf) - (-inf) taken as 0 in the steps and merges; the defects of
    ``tests/mutants.py``: ``merge`` ``one_side`` (only the left state rescaled) or ``unguarded``
    (the merge alone unguarded), ``skip_lane0`` (lane 0 never rescales for a new maximum),
    ``stale`` (a new maximum's rescale skipped after the first step)."""
    n, c = x.shape
    width = -(-c // LANES) * LANES
    padded = np.full((n, width), -np.inf, np.float32)
    padded[:, :c] = x
    m = np.full((n, LANES), -np.inf, np.float32)
    d = np.zeros((n, LANES), np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        for j in range(0, width, LANES):
            v = padded[:, j:j + LANES]
            mj = np.fmax(m, v)
            factor = _exp_below(m, mj, guard)
            if skip_lane0:
                factor[:, 0] = np.where(v[:, 0] > m[:, 0], np.float32(1), factor[:, 0])
            if stale and j:
                factor = np.where(mj > m, np.float32(1), factor)
            d = (d * factor + _exp_below(v, mj, guard)).astype(np.float32)
            m = mj
        offset = LANES // 2
        while offset:
            partner = np.arange(LANES) ^ offset
            mo, do = m[:, partner], d[:, partner]
            mj = np.fmax(m, mo)
            if merge == "one_side":
                d = (d * _exp_below(m, mj, guard) + do).astype(np.float32)
            else:
                merged = guard and merge != "unguarded"
                d = (d * _exp_below(m, mj, merged) + do * _exp_below(mo, mj, merged)).astype(np.float32)
            m = mj
            offset //= 2
        out[...] = (_exp_below(x, m[:, :1], guard) / d[:, :1]).astype(out.dtype)


def online_guarded(x, out):
    online_lanes(x, out, guard=True)


def nan_merge(x, out):
    online_lanes(x, out, guard=False)


def skipped_tail(x, out):
    full = x.shape[1] - x.shape[1] % 4
    if full:
        _safe(x[:, :full], out[:, :full])


def dropped_row(x, out):
    _safe(x[:-1], out[:-1])


def sum_before_max(x, out):
    with np.errstate(invalid="ignore", over="ignore"):
        running = np.maximum.accumulate(x, axis=1)
        d = np.exp(x - running).sum(axis=1, keepdims=True)  # never corrected for a new max
        out[...] = np.exp(x - x.max(axis=1, keepdims=True)) / d


def no_max_subtraction(x, out):
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(x)
        out[...] = e / e.sum(axis=1, keepdims=True)


def unwritten_element(x, out):
    keep = out[-1, -1].copy()
    _safe(x, out)
    out[-1, -1] = keep


def write_past_row(x, out):
    _safe(x, out)
    flat = np.lib.stride_tricks.as_strided(out, shape=(out.size + 1,), strides=(4,))
    flat[-1] = 0.5


_rng = np.random.default_rng()


def nondeterministic(x, out):
    _safe(x, out)
    i = _rng.integers(out.size)
    flat = out.reshape(-1)
    flat[i] = np.nextafter(flat[i], np.float32(2 if _rng.integers(2) else -1))


def modified_input(x, out):
    _safe(x, out)
    x[0, 0] = out[0, 0]


def batch_max(x, out):
    """Subtracts the maximum of the whole batch: right in exact arithmetic, wrong in rows far below it."""
    with np.errstate(invalid="ignore", over="ignore"):
        finite = x[np.isfinite(x)]
        e = np.exp(x - (finite.max() if finite.size else 0))
        out[...] = e / e.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class Defect:
    fn: object
    catches: str
    lanes: int = 1
    algorithm: str = "safe"


DEFECTS = {
    "nan_merge": Defect(nan_merge, "nonfinite_contract", LANES, "online"),
    "skipped_tail": Defect(skipped_tail, "all_written"),
    "dropped_row": Defect(dropped_row, "all_written"),
    "sum_before_max": Defect(sum_before_max, "matches_reference"),
    "no_max_subtraction": Defect(no_max_subtraction, "matches_reference"),
    "unwritten_element": Defect(unwritten_element, "all_written"),
    "write_past_row": Defect(write_past_row, "no_write_outside"),
    "nondeterministic": Defect(nondeterministic, "deterministic"),
    "modified_input": Defect(modified_input, "input_unchanged"),
    "batch_max": Defect(batch_max, "rows_independent"),
}


def half_correct(x, out):
    """A half-precision kernel done right: float32 arithmetic, one rounding to the output type."""
    y = np.empty(x.shape, np.float32)
    _safe(x.astype(np.float32), y)
    out[...] = y.astype(out.dtype)


def half_arithmetic(x, out):
    """Defect: exponentials and sum computed in float16 (the sum of a long row loses digits)."""
    with np.errstate(invalid="ignore", over="ignore"):
        h = x.astype(np.float16)
        m = h.max(axis=1, keepdims=True)
        e = np.exp(h - m)
        s = np.zeros((h.shape[0], 1), np.float16)
        for j in range(h.shape[1]):  # a sequential float16 accumulator
            s += e[:, j:j + 1]
        out[...] = (e / s).astype(out.dtype)


def half_folded(x, out, limit=1024.0):
    """The split-row store for 16-bit outputs (``write_softmax``): y = 2^fl(x log2e - s')
    with s' = fl(m log2e + log2 d) where |s'| < ``limit``, else exp(x - m) / d; float32 steps
    (exact exponentials), one rounding to the output type."""
    log2e = np.float64(np.float32(1.4426950408889634))
    x = x.astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        m = x.max(axis=1, keepdims=True)
        e = np.exp(x - m)
        d = e.sum(axis=1, keepdims=True, dtype=np.float32)
        s = (m * log2e + np.log2(d.astype(np.float64))).astype(np.float32)
        folded = np.exp2((x * log2e - s).astype(np.float32).astype(np.float64))
        y = np.where(np.abs(s) < limit, folded, e / d)
    out[...] = y.astype(out.dtype)
