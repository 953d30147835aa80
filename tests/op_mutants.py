"""The mutation suite of the ops beyond the forward: defective softmax backwards and
log_softmax kernels as NumPy models (computing in float32 as a kernel would, one defect each),
and legal controls that must pass every property of their op."""

from __future__ import annotations

import numpy as np
from mutants import F32, LANES, TINY, Model, exps, lane_sums, quiet, row_max, sequential_sum

# ---- The softmax backward: dx = y * (dy - sum(dy * y)).

def _backward(y, dy, out, s=None, y_scale=None):
    with quiet():
        y32, dy32 = y.astype(F32), dy.astype(F32)
        if s is None:
            s = lane_sums((y32 * dy32).astype(F32))
        out[...] = ((y32 if y_scale is None else y_scale) * (dy32 - s).astype(F32)).astype(out.dtype)


def backward_warp(y, dy, out):
    """The correct backward: a warp's dot product, then y * (dy - s)."""
    _backward(y, dy, out)


def ctl_backward_sequential(y, dy, out):
    """A thread a row: the dot product in one sequential chain, declared with lanes=1."""
    with quiet():
        _backward(y, dy, out, s=sequential_sum((y.astype(F32) * dy.astype(F32)).astype(F32)))


def ctl_backward_ftz(y, dy, out):
    """Flush-to-zero throughout: subnormal inputs, products and outputs read or written as 0."""
    y32 = np.where(np.abs(y) < TINY, F32(0), y.astype(F32))
    dy32 = np.where(np.abs(dy) < TINY, F32(0), dy.astype(F32))
    with quiet():
        p = (y32 * dy32).astype(F32)
    _backward(y32, dy32, out, s=lane_sums(np.where(np.abs(p) < TINY, F32(0), p)))
    out[np.abs(out) < TINY] = 0


def group_vector_tree_sums(p, lanes=8, width=4):
    """Sums of the terms ``p`` as a register tile (``sh::grad_tile_rows``, an aligned row) adds them:
    chunk k of lane l holds terms width (k lanes + l) .. + width - 1, summed as a tree, the chunks in
    one chain, then the lanes' butterfly."""
    n, c = p.shape
    chunks = max(1, -(-c // (lanes * width)))
    padded = np.zeros((n, chunks * lanes * width), F32)
    padded[:, :c] = p
    t = padded.reshape(n, chunks, lanes, width)
    with quiet():
        half = width // 2
        while half:
            t = (t[..., :half] + t[..., half:2 * half]).astype(F32)
            half //= 2
        s = np.zeros((n, lanes), F32)
        for k in range(chunks):
            s = (s + t[:, k, :, 0]).astype(F32)
        offset = lanes // 2
        while offset:
            s = (s + s[:, np.arange(lanes) ^ offset]).astype(F32)
            offset //= 2
    return s[:, :1]


def ctl_backward_group(y, dy, out):
    """A group of 8 lanes a row, 4-element vectors summed as trees (backward_onepass_c32)."""
    with quiet():
        _backward(y, dy, out, s=group_vector_tree_sums((y.astype(F32) * dy.astype(F32)).astype(F32)))


def dot_in_bf16(y, dy, out):
    """The dot product over y rounded to bfloat16 (a stale, low-precision copy of the forward's output)."""
    import ml_dtypes

    y16 = y.astype(F32).astype(ml_dtypes.bfloat16).astype(F32)
    with quiet():
        _backward(y, dy, out, s=lane_sums((y16 * dy.astype(F32)).astype(F32)))


def y_in_bf16(y, dy, out):
    """The product y * (dy - s) with y rounded to bfloat16."""
    import ml_dtypes

    _backward(y, dy, out, y_scale=y.astype(F32).astype(ml_dtypes.bfloat16).astype(F32))


def dot_plus_epsilon(y, dy, out):
    """An epsilon of 1e-6 added to the dot product (to keep it off zero): within the bound of a
    long row, but not linear in dy."""
    with quiet():
        s = lane_sums((y.astype(F32) * dy.astype(F32)).astype(F32))
        _backward(y, dy, out, s=(s + F32(1e-6)).astype(F32))


def skips_masked(y, dy, out):
    """dx written only where y > 0 (a masked position is left as it was)."""
    full = np.empty(out.shape, out.dtype)
    _backward(y, dy, full)
    keep = y.astype(F32) > 0
    out[keep] = full[keep]


def skips_masked_terms(y, dy, out):
    """Terms with y = 0 left out of the dot product: a NaN or inf gradient at a masked position
    no longer poisons the row, unlike torch's."""
    y32, dy32 = y.astype(F32), dy.astype(F32)
    with quiet():
        p = np.where(y32 == 0, F32(0), (y32 * dy32).astype(F32))
    _backward(y, dy, out, s=lane_sums(p))


def dot_skips_last(y, dy, out):
    """The dot product's loop runs to C - 1."""
    y32, dy32 = y.astype(F32), dy.astype(F32)
    with quiet():
        p = (y32 * dy32).astype(F32)
    _backward(y, dy, out, s=lane_sums(p[:, :-1]) if p.shape[1] > 1 else lane_sums(p))


def first_row_dot(y, dy, out):
    """Every row uses the first row's dot product."""
    with quiet():
        s = lane_sums((y.astype(F32) * dy.astype(F32)).astype(F32))
    _backward(y, dy, out, s=np.repeat(s[:1], len(s), axis=0))


def nan_gradient_zeroed(y, dy, out):
    """NaN in dy read as 0 (a nan_to_num on the way in)."""
    _backward(y, np.where(np.isnan(dy.astype(F32)), F32(0), dy.astype(F32)), out)


def _misalignment(a) -> int:
    """How many elements ``a`` starts past a 16-byte boundary."""
    return (a.__array_interface__["data"][0] // a.itemsize) % (16 // a.itemsize)


def dy_at_y_alignment(y, dy, out):
    """dy read in vectors lined up by y's misalignment (a register tile that takes one shift for
    both rows): where the two rows start unlike each other, dy comes shifted by the difference,
    its guard zone's values at one end. Only inputs misaligned unlike each other show it."""
    lag = _misalignment(dy) - _misalignment(y)
    if lag:
        base = dy.base if dy.base is not None else dy  # the guarded buffer the harness made
        start = (dy.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // dy.itemsize
        dy = base.ravel()[start - lag:start - lag + dy.size].reshape(dy.shape)
    _backward(y, dy, out)


# ---- log_softmax: z = (x - m) - log(sum exp(x - m)).

def _log_softmax(x, out, d=None, log=np.log):
    with quiet():
        m = row_max(x)
        e = exps(x, m)
        d = lane_sums(e) if d is None else d
        out[...] = ((x - m).astype(F32) - log(d).astype(F32)).astype(out.dtype)


def log_softmax_warp(x, out):
    """The correct log_softmax: a warp's sum, (x - m) - log d."""
    _log_softmax(x.astype(F32), out)


def ctl_log_softmax_sequential(x, out):
    """A thread a row: one sequential chain, declared with lanes=1."""
    x32 = x.astype(F32)
    _log_softmax(x32, out, d=sequential_sum(exps(x32, row_max(x32))))


def log_of_softmax(x, out):
    """log(softmax(x)): an output that underflows to 0 becomes -inf."""
    x32 = x.astype(F32)
    with quiet():
        m = row_max(x32)
        e = exps(x32, m)
        out[...] = np.log((e / lane_sums(e)).astype(F32)).astype(out.dtype)


def log_sum_exp_no_max(x, out):
    """log(sum exp(x)) without the maximum: overflow past x = 88."""
    x32 = x.astype(F32)
    with quiet():
        e = np.where(x32 == -np.inf, F32(0), np.exp(x32).astype(F32))
        out[...] = (x32 - np.log(lane_sums(e)).astype(F32)).astype(out.dtype)


def lse_folded(x, out):
    """x - (m + log d): the rounding of m + log d costs u |m|, far past the bound on rows around 2^20."""
    x32 = x.astype(F32)
    with quiet():
        m = row_max(x32)
        lse = (m + np.log(lane_sums(exps(x32, m))).astype(F32)).astype(F32)
        out[...] = (x32 - lse).astype(out.dtype)


def lg2_approx_unclamped(x, out):
    """log d taken as (lg2.approx(d)) ln 2 with its absolute error, 2^-23 low: for d = 1 (one
    element far above the rest) the largest log-probability comes out above 0. Within the fast
    math bound; only nonpositive catches it."""
    def lg2_low(d):
        return ((np.log2(d).astype(F32) - F32(2.0**-23)) * F32(np.log(2.0))).astype(F32)

    _log_softmax(x.astype(F32), out, log=lg2_low)


def ctl_log_softmax_tile_fast(x, out):
    """The staged log_softmax tile's arithmetic: the sum in vector trees (8 lanes, 4-element
    vectors), log d as lg2.approx(d) ln 2 at the low end of its error, kept at 0 or above."""
    def lg2_low_kept(d):
        low = ((np.log2(d).astype(F32) - F32(2.0**-23)) * F32(np.log(2.0))).astype(F32)
        return np.where(low < 0, F32(0), low)  # a NaN d stays NaN

    x32 = x.astype(F32)
    with quiet():
        d = group_vector_tree_sums(exps(x32, row_max(x32)))
    _log_softmax(x32, out, d=d, log=lg2_low_kept)


def full_mask_zero(x, out):
    """An all -inf row written as zeros, not NaN."""
    log_softmax_warp(x, out)
    out[(x == -np.inf).all(axis=1)] = 0


def masked_clamped(x, out):
    """-inf log-probabilities clamped to -1e30 (to keep a loss finite)."""
    log_softmax_warp(x, out)
    out[(out == -np.inf) & np.isfinite(row_max(x.astype(F32)))] = F32(-1e30)


def lse_half_row(x, out):
    """log d over the first half of each row only."""
    x32 = x.astype(F32)
    half = max(1, x32.shape[1] // 2)
    _log_softmax(x32, out, d=lane_sums(exps(x32[:, :half], row_max(x32))))


BACKWARD = dict(lanes=LANES, op="softmax_backward")
LOG = dict(lanes=LANES, op="log_softmax")
M, N = "matches_reference", "nonfinite_contract"

MUTANTS = {
    "bwd_dot_in_bf16": Model(dot_in_bf16, M, **BACKWARD),
    "bwd_y_in_bf16": Model(y_in_bf16, M, **BACKWARD),
    "bwd_dot_plus_epsilon": Model(dot_plus_epsilon, "linear_in_dy", **BACKWARD),
    "bwd_skips_masked": Model(skips_masked, "all_written", **BACKWARD),
    "bwd_skips_masked_terms": Model(skips_masked_terms, N, **BACKWARD),
    "bwd_dot_skips_last": Model(dot_skips_last, "sums_to_zero", **BACKWARD),
    "bwd_first_row_dot": Model(first_row_dot, "rows_independent", **BACKWARD),
    "bwd_nan_gradient_zeroed": Model(nan_gradient_zeroed, N, **BACKWARD),
    "bwd_dy_at_y_alignment": Model(dy_at_y_alignment, M, **BACKWARD),
    "lsm_log_of_softmax": Model(log_of_softmax, M, **LOG),
    "lsm_no_max": Model(log_sum_exp_no_max, M, **LOG),
    "lsm_folded": Model(lse_folded, M, **LOG),
    "lsm_lg2_approx_unclamped": Model(lg2_approx_unclamped, "nonpositive", **LOG, fast_math=True),
    "lsm_full_mask_zero": Model(full_mask_zero, N, **LOG),
    "lsm_masked_clamped": Model(masked_clamped, N, **LOG),
    "lsm_half_row": Model(lse_half_row, "logsumexp_zero", **LOG),
}

CONTROLS = {
    "bwd_warp": Model(backward_warp, "", **BACKWARD),
    "bwd_sequential": Model(ctl_backward_sequential, "", op="softmax_backward"),
    "bwd_group_vector_tree": Model(ctl_backward_group, "", lanes=8, op="softmax_backward", vector=4),
    "bwd_ftz": Model(ctl_backward_ftz, "", **BACKWARD),
    "bwd_half_bf16": Model(backward_warp, "", **BACKWARD, dtype="bfloat16"),
    "bwd_half_f16": Model(backward_warp, "", **BACKWARD, dtype="float16"),
    "lsm_warp": Model(log_softmax_warp, "", **LOG),
    "lsm_sequential": Model(ctl_log_softmax_sequential, "", op="log_softmax"),
    "lsm_tile_fast": Model(ctl_log_softmax_tile_fast, "", lanes=8, op="log_softmax", fast_math=True,
                           vector=4),
    "lsm_half_bf16": Model(log_softmax_warp, "", **LOG, dtype="bfloat16"),
    "lsm_half_f16": Model(log_softmax_warp, "", **LOG, dtype="float16"),
}


# ---- The log_softmax backward: dx = dy - exp(z) * sum(dy).

def _log_backward(z, dy, out, s=None, p=None):
    with quiet():
        z32, dy32 = z.astype(F32), dy.astype(F32)
        s = lane_sums(dy32) if s is None else s
        p = np.exp(z32).astype(F32) if p is None else p
        p = np.where(p < TINY, F32(0), p)  # a float32 exponential under flush-to-zero
        out[...] = (dy32 - (p * s).astype(F32)).astype(out.dtype)


def log_backward_warp(z, dy, out):
    """The correct log_softmax backward: a warp's sum of dy, then dy - exp(z) * s."""
    _log_backward(z, dy, out)


def fast_exp(z):
    """exp(z) as ``ex2.approx(z * log2 e)`` at its worst: the argument rounded twice in float32
    (log2 e, then the product), the result low by 0.99 of ``bounds.FAST_EXP_ULPS`` (4 ulp, 8 u)."""
    from softmax_harness.bounds import FAST_EXP_ULPS, U

    with quiet():
        a = (z.astype(F32) * F32(1.4426950408889634)).astype(F32)
        return (np.exp2(a.astype(np.float64)) * (1 - 0.99 * 2 * FAST_EXP_ULPS * U)).astype(F32)


def ctl_log_backward_fast_exp(z, dy, out):
    """exp(z) from the special-function unit (fast_math=true)."""
    _log_backward(z, dy, out, p=fast_exp(z))


def log_backward_exp_bf16(z, dy, out):
    """exp(z) rounded to bfloat16."""
    import ml_dtypes

    with quiet():
        p = np.exp(z.astype(F32)).astype(F32).astype(ml_dtypes.bfloat16).astype(F32)
    _log_backward(z, dy, out, p=p)


def log_backward_masked_zero(z, dy, out):
    """0 where z is -inf (as a softmax backward would), not dy."""
    _log_backward(z, dy, out)
    out[(z == -np.inf) & np.isfinite(out)] = 0


def log_backward_sum_skips_last(z, dy, out):
    """sum(dy) over C - 1 elements."""
    dy32 = dy.astype(F32)
    _log_backward(z, dy, out, s=lane_sums(dy32[:, :-1]) if dy32.shape[1] > 1 else lane_sums(dy32))


LOG_BACKWARD = dict(lanes=LANES, op="log_softmax_backward")
MUTANTS.update({
    "lsmb_exp_bf16": Model(log_backward_exp_bf16, M, **LOG_BACKWARD),
    "lsmb_masked_zero": Model(log_backward_masked_zero, N, **LOG_BACKWARD),
    "lsmb_sum_skips_last": Model(log_backward_sum_skips_last, "sums_to_zero", **LOG_BACKWARD),
})
CONTROLS.update({
    "lsmb_warp": Model(log_backward_warp, "", **LOG_BACKWARD),
    "lsmb_half_bf16": Model(log_backward_warp, "", **LOG_BACKWARD, dtype="bfloat16"),
    "lsmb_half_f16": Model(log_backward_warp, "", **LOG_BACKWARD, dtype="float16"),
    "lsmb_fast_exp": Model(ctl_log_backward_fast_exp, "", **LOG_BACKWARD, fast_math=True),
})


# ---- The fused forward: softmax(scale * x + bias), masked, causal.

def _logits(x, second, scale, form, fused=False):
    """t as the contract forms it in float32 (``fused``: scale * x + bias in one rounding, as an
    fma would)."""
    with quiet():
        x32, s = x.astype(F32), F32(scale)
        if form == "bias":
            if fused:
                return (x32.astype(np.float64) * float(s) + second.astype(np.float64)).astype(F32)
            return ((x32 * s).astype(F32) + second.astype(F32)).astype(F32)
        t = (x32 * s).astype(F32)
    hidden = second if form == "mask" else causal_hidden(x.shape)
    return np.where(hidden, F32(-np.inf), t)


def causal_hidden(shape):
    rows, cols = shape
    return np.arange(cols)[None, :] > (np.arange(rows) % max(cols, 1))[:, None]


def _scaled_softmax(t, out, m=None):
    with quiet():
        m = row_max(t) if m is None else m
        e = np.exp((t - m).astype(F32)).astype(F32)
        out[...] = (e / lane_sums(e)).astype(out.dtype)


def _form(form, fn):
    """``fn(t, out, x, second, scale)`` as a model of the form's signature."""
    if form == "causal":
        return lambda x, scale, out: fn(_logits(x, None, scale, form), out, x, None, scale)
    return lambda x, second, scale, out: fn(_logits(x, second, scale, form), out, x, second, scale)


def scaled_warp(form):
    def model(t, out, *_):
        """The correct fused forward: t as the contract forms it, then a warp's safe softmax."""
        _scaled_softmax(t, out)
    return _form(form, model)


def ctl_bias_fused(x, bias, scale, out):
    """scale * x + bias in one fused multiply-add (one rounding, not two)."""
    _scaled_softmax(_logits(x, bias, scale, "bias", fused=True), out)


def bias_max_before_bias(x, bias, scale, out):
    """The maximum taken over scale * x before the bias is added: a large bias overflows exp."""
    with quiet():
        m = row_max(np.where(np.isnan(bias), F32(0), (x.astype(F32) * F32(scale)).astype(F32)))
    _scaled_softmax(_logits(x, bias, scale, "bias"), out, m=m)


def bias_t_in_bf16(x, bias, scale, out):
    """t rounded to bfloat16 before the softmax."""
    import ml_dtypes

    t = _logits(x, bias, scale, "bias")
    _scaled_softmax(t.astype(ml_dtypes.bfloat16).astype(F32), out)


def bias_first_row(x, bias, scale, out):
    """Row 0's bias for every row (a bias taken for one row and broadcast)."""
    _scaled_softmax(_logits(x, np.broadcast_to(bias[:1], bias.shape), scale, "bias"), out)


def mask_first_row(x, mask, scale, out):
    """Row 0's mask for every row."""
    _scaled_softmax(_logits(x, np.broadcast_to(mask[:1], mask.shape), scale, "mask"), out)


def mask_max_over_masked(x, mask, scale, out):
    """The maximum taken over every scale * x, masked elements included (the mask applied after the
    maximum)."""
    with quiet():
        m = row_max((x.astype(F32) * F32(scale)).astype(F32))
    _scaled_softmax(_logits(x, mask, scale, "mask"), out, m=m)


def mask_additive(x, mask, scale, out):
    """The mask added as 0 / -inf to scale * x: a NaN under the mask poisons the row."""
    with quiet():
        t = ((x.astype(F32) * F32(scale)).astype(F32) + np.where(mask, F32(-np.inf), F32(0))).astype(F32)
    _scaled_softmax(t, out)


def causal_off_by_one(x, scale, out):
    """Row r keeps columns 0 .. r % C + 1: one past its index."""
    with quiet():
        t = (x.astype(F32) * F32(scale)).astype(F32)
    rows, cols = x.shape
    hidden = np.arange(cols)[None, :] > (np.arange(rows) % max(cols, 1))[:, None] + 1
    _scaled_softmax(np.where(hidden, F32(-np.inf), t), out)


def causal_additive(x, scale, out):
    """The causal mask added as 0 / -inf: it reads the columns past the row's index."""
    with quiet():
        t = ((x.astype(F32) * F32(scale)).astype(F32) +
             np.where(causal_hidden(x.shape), F32(-np.inf), F32(0))).astype(F32)
    _scaled_softmax(t, out)


def causal_max_before_scale(x, scale, out):
    """exp(scale * (x - max x)): right for a positive scale, overflowing for a negative one."""
    hidden = causal_hidden(x.shape)
    with quiet():
        x32 = np.where(hidden, F32(-np.inf), x.astype(F32))
        e = np.exp((F32(scale) * (x32 - row_max(x32)).astype(F32)).astype(F32)).astype(F32)
        e = np.where(hidden, F32(0), e)
        out[...] = (e / lane_sums(e)).astype(out.dtype)


def _flushed(a):
    return np.where(np.abs(a) < TINY, F32(0), a).astype(F32)


def _shifted_softmax(t, out, checked: bool):
    """A 16-bit tile's shifted exponentials (``sh::ExpArgs<true>``, ``kernels/include/exp.cuh``):
    s = fl(m log2e), e = ex2(fl(t log2e - s)) in one FMA, c = ex2(-fl(m log2e - s)) putting back
    s's rounding, y = e * (c / (c sum e)); flushed to zero as CuPy's -ftz does. ``checked``: only
    where |m| < 2^22 (float's range check), else ex2((t - m) log2e)."""
    log2e = F32(1.4426950408889634)

    def fma(a, b, c):  # one rounding: the float64 product of two floats is exact
        return (a.astype(np.float64) * np.float64(b) + c.astype(np.float64)).astype(F32)

    with quiet():
        m = row_max(t)
        s = (m * log2e).astype(F32)
        shifted = np.abs(m) < F32(4194304.0) if checked else np.ones(m.shape, bool)
        arg = np.where(shifted, fma(t, log2e, -s), ((t - m).astype(F32) * log2e).astype(F32))
        c = np.where(shifted, _flushed(np.exp2(-fma(m, log2e, -s))), F32(1))
        e = _flushed(np.exp2(arg))
        d = _flushed((lane_sums(e) * c).astype(F32))
        out[...] = _flushed((e * _flushed((c / d).astype(F32))).astype(F32)).astype(out.dtype)


def mask_shift_unchecked(x, mask, scale, out):
    """A float16 kernel's shifted exponentials on t = scale * x without float's range check (the
    forward's float16 tiles need none: there |m| <= 65504): past |t| of 2^30, m log2e's rounding
    (up to 2^6) makes c / d subnormal, flushed to 0, or the exponentials overflow."""
    _shifted_softmax(_logits(x, mask, scale, "mask"), out, checked=False)


def ctl_mask_shift_checked(x, mask, scale, out):
    """The float16 mask form's shifted exponentials under float's range check (|m| < 2^22)."""
    _shifted_softmax(_logits(x, mask, scale, "mask"), out, checked=True)


BIAS = dict(lanes=LANES, op="scaled_softmax_bias")
MASK = dict(lanes=LANES, op="scaled_softmax_mask")
CAUSAL = dict(lanes=LANES, op="scaled_softmax_causal")
MUTANTS.update({
    "bias_max_before_bias": Model(bias_max_before_bias, N, **BIAS),
    "bias_t_in_bf16": Model(bias_t_in_bf16, M, **BIAS),
    "bias_first_row": Model(bias_first_row, M, **BIAS),
    "mask_first_row": Model(mask_first_row, M, **MASK),
    "mask_max_over_masked": Model(mask_max_over_masked, N, **MASK),
    "mask_additive": Model(mask_additive, "ignores_masked", **MASK),
    "causal_off_by_one": Model(causal_off_by_one, M, **CAUSAL),
    "causal_additive": Model(causal_additive, "ignores_masked", **CAUSAL),
    "causal_max_before_scale": Model(causal_max_before_scale, N, **CAUSAL),
    "mask_shift_unchecked": Model(mask_shift_unchecked, M, **MASK, dtype="float16"),
})
CONTROLS.update({
    "bias_warp": Model(scaled_warp("bias"), "", **BIAS),
    "bias_fused": Model(ctl_bias_fused, "", **BIAS),
    "bias_half_bf16": Model(scaled_warp("bias"), "", **BIAS, dtype="bfloat16"),
    "mask_warp": Model(scaled_warp("mask"), "", **MASK),
    "mask_half_f16": Model(scaled_warp("mask"), "", **MASK, dtype="float16"),
    "mask_shift_checked_f16": Model(ctl_mask_shift_checked, "", **MASK, dtype="float16"),
    "causal_warp": Model(scaled_warp("causal"), "", **CAUSAL),
    "causal_half_bf16": Model(scaled_warp("causal"), "", **CAUSAL, dtype="bfloat16"),
})
