"""The mutation suite: realistic defective softmax kernels as NumPy models, and legal controls.

Each model is ``fn(x, out)`` over NumPy arrays, computing in float32 as a kernel would, with one
defect that kernels written by hand really have; :data:`MUTANTS` declares the property that must
catch each, :data:`CONTROLS` are kernels that differ from the float64 softmax only in ways the
contract allows, and must pass every property. The score (caught / all) per Hypothesis profile
is what ``tests/test_mutation.py`` measures and prints; defects that need a GPU (races, 32-bit
indices past element 2^31, grid limits, another stream) are known-bad CUDA kernels in
``kernels/known_bad/``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import standins

F32 = np.float32
LANES = 32
U = 2.0**-24
TINY = np.finfo(F32).tiny


def quiet():
    return np.errstate(invalid="ignore", over="ignore", divide="ignore", under="ignore")


def exps(x, m):
    """exp(x - m) in float32, 0 where x is -inf (also when m is)."""
    with quiet():
        e = np.exp((x - m).astype(F32)).astype(F32)
    return np.where(x == -np.inf, F32(0), e)


def row_max(x):
    with quiet():
        return x.max(axis=1, keepdims=True)


def lane_sums(e, lanes=LANES):
    """A warp's sum: each lane a sequential chain over every ``lanes``-th element, then a tree."""
    n, c = e.shape
    width = -(-c // lanes) * lanes
    padded = np.zeros((n, width), F32)
    padded[:, :c] = e
    acc = np.zeros((n, lanes), F32)
    with quiet():
        for j in range(0, width, lanes):
            acc = (acc + padded[:, j:j + lanes]).astype(F32)
        while acc.shape[1] > 1:
            half = acc.shape[1] // 2
            acc = (acc[:, :half] + acc[:, half:]).astype(F32)
    return acc


def sequential_sum(e):
    with quiet():
        return np.cumsum(e, axis=1, dtype=F32)[:, -1:] if e.shape[1] else np.zeros((e.shape[0], 1), F32)


def normalise(e, d, out):
    with quiet():
        out[...] = (e / d).astype(out.dtype)


def safe_warp(x, out):
    """The correct kernel most models start from: safe softmax, a warp's sum."""
    m = row_max(x)
    e = exps(x, m)
    normalise(e, lane_sums(e), out)


# ---- Controls: legal differences from the float64 softmax.

def ctl_flush_below_normal(x, out):
    """Outputs below 2^-126 flushed to zero, as -ftz does."""
    safe_warp(x, out)
    out[np.abs(out) < TINY] = 0


def ctl_negative_zero_masked(x, out):
    """-0.0 where the input is -inf."""
    safe_warp(x, out)
    out[(x == -np.inf) & np.isfinite(row_max(x))] = -0.0


def ctl_one_ulp_apart(x, out):
    """Equal inputs whose outputs differ by one ulp (a reduction order that differs by lane)."""
    safe_warp(x, out)
    odd = np.zeros(out.shape, bool)
    odd[:, 1::2] = True
    bump = odd & np.isfinite(out) & (out > TINY) & (out < 0.5)
    out[bump] = np.nextafter(out[bump], F32(np.inf))


def ctl_inputs_flushed(x, out):
    """Inputs below 2^-126 read as zero (-ftz on loads)."""
    safe_warp(np.where(np.abs(x) < TINY, F32(0), x).astype(F32), out)


def ctl_sequential_declared(x, out):
    """A thread a row: one sequential chain, declared with lanes=1."""
    m = row_max(x)
    e = exps(x, m)
    normalise(e, sequential_sum(e), out)


# ---- Mutants.

def pair_shared_max(x, out):
    """Two rows a warp, one maximum for both (the pair's): right in exact arithmetic."""
    m = row_max(x)
    pair = np.repeat(np.maximum.reduceat(np.where(np.isnan(m), -np.inf, m), np.arange(0, len(m), 2)), 2,
                     axis=0)[:len(m)]
    pair = np.where(np.isnan(m), m, pair)
    e = exps(x, pair)
    normalise(e, lane_sums(e), out)


def first_row_max(x, out):
    """Every row shifted by the first row's maximum."""
    m = row_max(x)[:1]
    e = exps(x, np.where(np.isfinite(m), m, F32(0)))
    normalise(e, lane_sums(e), out)


def mask_as_zero(x, out):
    """-inf read as 0 (a padding value): masked positions get weight."""
    safe_warp(np.where(x == -np.inf, F32(0), x).astype(F32), out)


def nan_dropped(x, out):
    """NaN skipped by fmaxf and by the sum: the row stays finite."""
    clean = np.where(np.isnan(x), -np.inf, x).astype(F32)
    safe_warp(clean, out)
    out[np.isnan(x)] = 0


def posinf_one_hot(x, out):
    """+inf as a certain winner (1 there, 0 elsewhere) instead of NaN."""
    safe_warp(x, out)
    hot = np.isposinf(x).any(axis=1) & ~np.isnan(x).any(axis=1)
    out[hot] = np.where(np.isposinf(x[hot]), F32(1) / np.isposinf(x[hot]).sum(axis=1, keepdims=True), 0)


def full_mask_zeros(x, out):
    """An all -inf row written as zeros, while declaring torch's NaN."""
    safe_warp(x, out)
    out[(x == -np.inf).all(axis=1)] = 0


def one_column_nan(x, out):
    """C = 1 gives NaN (SumMax V6: a lane with no element merged unguarded)."""
    safe_warp(x, out)
    if x.shape[1] == 1:
        out[...] = np.nan


def max_skips_first(x, out):
    """The maximum's loop starts at element 1: an input whose first element is far the largest
    overflows."""
    m = row_max(x[:, 1:]) if x.shape[1] > 1 else np.zeros((x.shape[0], 1), F32)
    m = np.where(np.isnan(x[:, :1]), np.nan, m).astype(F32)
    e = exps(x, np.where(m == -np.inf, x[:, :1], m))
    normalise(e, lane_sums(e), out)


def half_warp_sum(x, out):
    """The sum's butterfly stops at 16 lanes: lanes 16-31 are left out."""
    m = row_max(x)
    e = exps(x, m)
    n, c = e.shape
    keep = (np.arange(c) % LANES) < 16
    normalise(e, lane_sums(np.where(keep, e, F32(0)))[:, :1] if c > 16 else lane_sums(e), out)


def sum_skips_last(x, out):
    """The sum's loop runs to C - 1."""
    m = row_max(x)
    e = exps(x, m)
    normalise(e, lane_sums(e[:, :-1]) if x.shape[1] > 1 else lane_sums(e), out)


def tail_reads_zero(x, out):
    """A vector-of-4 loop whose tail reads padding as 0: exp(0 - m) joins the sum."""
    m = row_max(x)
    e = exps(x, m)
    pad = -x.shape[1] % 4
    extra = pad * exps(np.zeros((x.shape[0], 1), F32), m)
    with quiet():
        d = (lane_sums(e) + extra).astype(F32)
    normalise(e, d, out)


def misaligned_head_dropped(x, out):
    """The vector path peels a misaligned output head but never writes it."""
    y = np.empty_like(out)
    safe_warp(x, y)
    head = (-(out.ctypes.data // out.itemsize)) % 4
    out.reshape(-1)[head:] = y.reshape(-1)[head:]


def flush_small_outputs(x, out):
    """Outputs below 1e-30 written as 0 (a 'denormal guard' far above the FTZ floor)."""
    safe_warp(x, out)
    out[np.abs(out) < 1e-30] = 0


def flush_below_2_100(x, out):
    """Outputs below 2^-100 written as 0."""
    safe_warp(x, out)
    out[np.abs(out) < 2.0**-100] = 0


def sequential_declared_32(x, out):
    """One sequential chain a row, while the kernel declares 32 lanes."""
    ctl_sequential_declared(x, out)


def scale_error(x, out, ulps=40):
    """Every output off by ``ulps`` ulps in the same direction (a wrong reciprocal)."""
    safe_warp(x, out)
    with quiet():
        out[...] = (out * F32(1 + ulps * U)).astype(F32)


def reciprocal_bf16(x, out):
    """1/d taken in bfloat16 precision, then multiplied."""
    m = row_max(x)
    e = exps(x, m)
    d = lane_sums(e)
    with quiet():
        r = (F32(1) / d).astype(F32).view(np.uint32) & np.uint32(0xFFFF0000)
        out[...] = (e * r.view(F32)).astype(F32)


def crude_exp(x, out):
    """exp by a short polynomial (about 1e-4 relative error)."""
    m = row_max(x)
    with quiet():
        t = (x - m).astype(F32)
        k = np.floor(t / F32(np.log(2)))
        r = (t - k * F32(np.log(2))).astype(F32)
        p = (1 + r + r * r / 2 + r * r * r / 6).astype(F32)
        e = np.where(x == -np.inf, F32(0), np.ldexp(p, np.clip(k, -300, 300).astype(np.int32))).astype(F32)
    normalise(e, lane_sums(e), out)


def exp_flushes_early(x, out):
    """exp(t) taken as 0 for t < -80 (a range check of a fast exponential)."""
    m = row_max(x)
    e = exps(x, m)
    with quiet():
        e = np.where((x - m) < -80, F32(0), e)
    normalise(e, lane_sums(e), out)


def exp_fast_undeclared(x, out):
    """exp(x - m) as ex2((x - m) * log2 e) in float32 (``exp2f(t * LOG2E)``, or ``__expf`` under
    ``--use_fast_math``) in a kernel that does not declare fast_math: the product rounds the
    argument once more, u |x - m| relative again."""
    m = row_max(x)
    with quiet():
        t = (x - m).astype(F32)
        e = np.exp2((t * F32(1.4426950408889634)).astype(F32)).astype(F32)
        e = np.where(x == -np.inf, F32(0), e)
    normalise(e, lane_sums(e), out)


def online_merge_one_side(x, out):
    """The lanes' merge rescales only the left state by the new maximum."""
    standins.online_lanes(x, out, merge="one_side")


def online_skip_correction_at_boundary(x, out):
    """The running sum is not rescaled when a new maximum arrives on the first lane."""
    standins.online_lanes(x, out, merge="ok", skip_lane0=True)


def online_merge_unguarded(x, out):
    """A lane's step is guarded for -inf, its merge is not: NaN when a lane saw only -inf."""
    standins.online_lanes(x, out, merge="unguarded")



def online_stale_max(x, out):
    """The step compares with the maximum of the previous step (a register read too early):
    a new maximum on a lane's very next element goes unnoticed for the sum."""
    standins.online_lanes(x, out, merge="ok", stale=True)


def last_masked_unwritten(x, out):
    """A trailing -inf is taken for the row's padding and not written."""
    keep = out.copy()
    safe_warp(x, out)
    last = x[:, -1:] == -np.inf
    out[:, -1:] = np.where(last, keep[:, -1:], out[:, -1:])


def only_last_finite_wrong(x, out):
    """A row whose only finite element is the last gets 0 there (the max loop stops at C - 1)."""
    safe_warp(x, out)
    if x.shape[1] > 1:
        only = np.isfinite(x[:, -1]) & (x[:, :-1] == -np.inf).all(axis=1)
        out[only, -1] = 0


def rows_past_65535_unwritten(x, out):
    """A grid of at most 65535 blocks, one a row, and no loop over the rest."""
    safe_warp(x[:65535], out[:65535])


def rows_past_32768_wrap(x, out):
    """A row index kept in a 16-bit short: rows past 32767 compute an earlier row."""
    index = (np.arange(x.shape[0]) % 32768)
    safe_warp(x[index], out)


def swapped_pairs(x, out):
    """A vector store with its lanes 1 and 2 swapped."""
    safe_warp(x, out)
    c = out.shape[1] - out.shape[1] % 4
    if c:
        out[:, 1:c:4], out[:, 2:c:4] = out[:, 2:c:4].copy(), out[:, 1:c:4].copy()


def reversed_output(x, out):
    """The row written back to front."""
    safe_warp(x, out)
    out[...] = out[:, ::-1].copy()








_rng = np.random.default_rng()


def nondeterministic(x, out):
    """One output below 1/2, chosen at random each launch, one ulp off (an atomic sum's order)."""
    safe_warp(x, out)
    flat = out.reshape(-1)
    small = np.flatnonzero((flat > TINY) & (flat < 0.5))
    if small.size:
        i = small[_rng.integers(small.size)]
        flat[i] = np.nextafter(flat[i], F32(1 if _rng.integers(2) else 0))


def batch_small_logits_no_shift(x, out):
    """Skips the max subtraction when every finite logit of the batch is below 8 (a global
    'no overflow possible' flag): right either way, but a row's rounding depends on the others."""
    finite = x[np.isfinite(x)]
    if finite.size and finite.max() < 8:
        e = exps(x, np.zeros((x.shape[0], 1), F32))
        e = np.where(np.isnan(row_max(x)) | np.isposinf(row_max(x)), np.nan, e).astype(F32)
        normalise(e, lane_sums(e), out)
    else:
        safe_warp(x, out)




def sum_exp_cheap(x, out, ulps=14):
    """The sum's loop uses a cheaper exponential, ``ulps`` ulps high, the write loop expf: every
    output is low by the same factor, well within each element's bound."""
    m = row_max(x)
    e = exps(x, m)
    with quiet():
        d = lane_sums((e * F32(1 + ulps * U)).astype(F32))
    normalise(e, d, out)


def lse_fold_unguarded(x, out):
    """exp(x - lse) with lse = fl(m + log d) in float32: the rounding of lse is absolute,
    u * |m|, and for rows around 2^20 it moves every output by percents."""
    m = row_max(x)
    e = exps(x, m)
    d = lane_sums(e)
    with quiet():
        lse = (m + np.log(d).astype(F32)).astype(F32)
        y = np.exp((x - lse).astype(F32)).astype(F32)
    out[...] = np.where(x == -np.inf, F32(0), y)


def reads_next_row_first(x, out):
    """The first element of each row's maximum is read from the next row (an off-by-one row
    pointer in the max loop only)."""
    shifted = x.copy()
    shifted[:-1, 0] = x[1:, 0]
    m = row_max(shifted)
    m = np.where(np.isnan(row_max(x)), np.nan, m).astype(F32)
    e = exps(x, m)
    normalise(e, lane_sums(e), out)


def rows_read_as_contiguous(x, out):
    """The input read from its first element as if its rows lay back to back (a wrapper that hands
    a kernel a view's data pointer and its row length, not its row stride)."""
    packed = np.lib.stride_tricks.as_strided(x, shape=x.shape, strides=(x.shape[1] * x.itemsize, x.itemsize))
    safe_warp(packed.copy(), out)


def half_truncating_store(x, out):
    """A 16-bit store that truncates instead of rounding to nearest."""
    y = np.empty(x.shape, F32)
    safe_warp(x.astype(F32), y)
    out[...] = _truncate(y, out.dtype)


def lone_maximum_over_one(x, out):
    """A lone maximum's output written as 1 + 2^-23 (split_row_smem_f32's shifted exponentials
    rounded it three times, found on the H200): within the bound, outside [0, 1]."""
    safe_warp(x, out)
    out[...] = np.where(out == 1, np.nextafter(F32(1), F32(2)), out)


def clamped_with_fmin(x, out):
    """Outputs held to 1 with fminf, which returns 1 for a NaN: rows with +inf or all -inf."""
    safe_warp(x, out)
    out[...] = np.fmin(out, F32(1))


def _truncate(y, dtype):
    """y rounded towards zero to ``dtype`` (float16 or bfloat16)."""
    if np.dtype(dtype) == np.float16:
        near = y.astype(np.float16)
        over = np.abs(near.astype(F32)) > np.abs(y)
        step = np.nextafter(near, np.float16(0))
        return np.where(over & np.isfinite(y), step, near)
    bits = y.view(np.uint32) & np.uint32(0xFFFF0000)
    return bits.view(F32).astype(dtype)



@dataclass(frozen=True)
class Model:
    fn: object
    catches: str  # the property that must catch it ("" for a control: none may fail)
    lanes: int = 1
    algorithm: str = "safe"
    dtype: str = "float32"
    op: str = "softmax"
    fast_math: bool = False
    vector: int = 1  # elements a lane sums as a tree before its chain (registry's vector=)

    @property
    def doc(self) -> str:
        return (self.fn.__doc__ or "").strip().splitlines()[0] if self.fn.__doc__ else self.fn.__name__


def _mutants():
    W = dict(lanes=LANES)
    ON = dict(lanes=LANES, algorithm="online")
    M, A, N = "matches_reference", "all_written", "nonfinite_contract"
    return {
        # classic
        "no_max_subtraction": Model(standins.no_max_subtraction, M),
        "sum_before_max": Model(standins.sum_before_max, M),
        "skipped_tail": Model(standins.skipped_tail, A),
        "dropped_row": Model(standins.dropped_row, A),
        "unwritten_element": Model(standins.unwritten_element, A),
        "write_past_row": Model(standins.write_past_row, "no_write_outside"),
        "nondeterministic": Model(nondeterministic, "deterministic"),
        "modified_input": Model(standins.modified_input, "input_unchanged"),
        "batch_max": Model(standins.batch_max, "rows_independent"),
        "pair_shared_max": Model(pair_shared_max, "rows_independent", **W),
        "first_row_max": Model(first_row_max, "rows_independent", **W),
        "reads_next_row_first": Model(reads_next_row_first, "rows_independent", **W),
        "batch_small_logits_no_shift": Model(batch_small_logits_no_shift, "rows_independent", **W),
        "rows_read_as_contiguous": Model(rows_read_as_contiguous, "strided_rows", **W),
        # non-finite values and masks
        "mask_as_zero": Model(mask_as_zero, N, **W),
        "nan_dropped": Model(nan_dropped, N, **W),
        "posinf_one_hot": Model(posinf_one_hot, N, **W),
        "full_mask_zeros": Model(full_mask_zeros, N, **W),
        "one_column_nan": Model(one_column_nan, N, **W),
        "online_nan_merge": Model(standins.nan_merge, N, **ON),
        "online_merge_unguarded": Model(online_merge_unguarded, N, **ON),
        "last_masked_unwritten": Model(last_masked_unwritten, A, **W),
        "only_last_finite_wrong": Model(only_last_finite_wrong, M, **W),
        # reductions and online merges
        "max_skips_first": Model(max_skips_first, N, **W),
        "half_warp_sum": Model(half_warp_sum, M, **W),
        "sum_skips_last": Model(sum_skips_last, M, **W),
        "tail_reads_zero": Model(tail_reads_zero, M, **W),
        "online_merge_one_side": Model(online_merge_one_side, M, **ON),
        "online_skip_correction_at_boundary": Model(online_skip_correction_at_boundary, M, **ON),
        "online_stale_max": Model(online_stale_max, M, **ON),
        "sequential_declared_32": Model(sequential_declared_32, M, **W),
        # arithmetic
        "scale_error_40_ulps": Model(scale_error, M, **W),
        "sum_exp_cheap": Model(sum_exp_cheap, "sums_to_one", **W),
        "reciprocal_bf16": Model(reciprocal_bf16, M, **W),
        "crude_exp": Model(crude_exp, M, **W),
        "exp_flushes_early": Model(exp_flushes_early, M, **W),
        "exp_fast_undeclared": Model(exp_fast_undeclared, M, **W),
        "lse_fold_unguarded": Model(lse_fold_unguarded, M, **W),
        "flush_small_outputs": Model(flush_small_outputs, M, **W),
        "lone_maximum_over_one": Model(lone_maximum_over_one, "sums_to_one", **W),
        "clamped_with_fmin": Model(clamped_with_fmin, N, **W),
        "flush_below_2_100": Model(flush_below_2_100, M, **W),
        "half_truncating_store_bf16": Model(half_truncating_store, M, **W, dtype="bfloat16"),
        "half_truncating_store_f16": Model(half_truncating_store, M, **W, dtype="float16"),
        "half_sum_in_half": Model(standins.half_arithmetic, M, dtype="float16"),
        # layout and limits
        "misaligned_head_dropped": Model(misaligned_head_dropped, A, **W),
        "swapped_pairs": Model(swapped_pairs, M, **W),
        "reversed_output": Model(reversed_output, M, **W),
        "rows_past_65535_unwritten": Model(rows_past_65535_unwritten, A, **W),
        "rows_past_32768_wrap": Model(rows_past_32768_wrap, M, **W),
    }


MUTANTS = _mutants()

CONTROLS = {
    "safe_warp": Model(safe_warp, "", lanes=LANES),
    "online_guarded": Model(standins.online_guarded, "", lanes=LANES, algorithm="online"),
    "sequential": Model(ctl_sequential_declared, ""),
    "flush_below_normal": Model(ctl_flush_below_normal, "", lanes=LANES),
    "negative_zero_masked": Model(ctl_negative_zero_masked, "", lanes=LANES),
    "one_ulp_apart": Model(ctl_one_ulp_apart, "", lanes=LANES),
    "inputs_flushed": Model(ctl_inputs_flushed, "", lanes=LANES),
    "half_correct_bf16": Model(standins.half_correct, "", dtype="bfloat16"),
    "half_correct_f16": Model(standins.half_correct, "", dtype="float16"),
}
