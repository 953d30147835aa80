"""Per-element error bounds for a float32 softmax against the float64 reference.

Let u = 2**-24 (float32 unit roundoff; one ulp of a value is at most 2u of it), m the row
maximum (exact: a maximum involves no rounding), g_i = |x_i - m| and y_i = exp(x_i - m) / d.
A kernel's y_i carries, to first order, the relative errors below; their products are second
order (the sum stays under 2**-10 wherever a bound is useful) and are covered by the factor
``SECOND_ORDER`` on the first-order sum. Each term is exact as stated, so there is no safety
factor:

* the rounding of ``x_i - m``: an error of at most u g_i in the exponent, hence u g_i relative
  in exp(x_i - m) (the ``wide`` rows of :mod:`softmax_harness.tightness` reach it);
* the exponential itself: ``expf`` is within 2 ulp (CUDA Programming Guide), 4u. A ``fast_math``
  variant (``__expf``, i.e. ``ex2.approx(x * log2 e)``) rounds the scaled argument once more
  (another u g_i: the argument's weight A is 2) and ``ex2.approx`` is charged ``FAST_EXP_ULPS``.
  That is a kernel's ``exp=ex2`` (the one-pass kernels). ``exp=shifted`` (the fp32 split-row
  kernel; the default for a fast_math kernel that does not say) takes exp(x_i - m_t) as
  ``ex2(x_i * log2 e - s) * c`` with s = fl(m_t * log2 e) and c = ex2(-(m_t * log2 e - s))
  (``ExpArgs`` in kernels/softmax.cuh): one rounding of the argument (within the argument term)
  and c, 2 ulp, in both the tile's sum and its outputs: ``SHIFT_ULPS`` more;
* the sum d: its terms are the same exponentials, each with the errors above, so d is off by
  their weighted mean: at most E + A u sum_j y_j g_j, and sum_j y_j g_j (the mean gap under the
  softmax: H(y) - ln d) is at most ln C. Then each addition in the longest sequential chain adds
  at most u relative error to a sum of non-negative terms (Higham, Accuracy and Stability,
  §4.2): gamma(k) = k u / (1 - k u) for a chain of k additions, exact and with no first-order
  truncation. The chain is ceil(C / lanes) per-thread steps plus log2(lanes) tree levels: the
  declared reduction structure (a split-row kernel's, :func:`split_row_chain`, follows its plan).
  Online variants also round a correction factor (an exponential: 2 ulp, 4u; ``FAST_EXP_ULPS``
  under fast_math) and a product in a step where the running maximum moves, and a merge of two
  states likewise, so each step is charged :func:`online_step` u (6, or 10 under fast_math),
  not one. The ``tail`` rows (the
  maximum first, every other term just under u) reach gamma: each step drops almost u;
* the division, or a reciprocal and a product: ``DIV_ULPS`` (``FAST_DIV_ULPS`` under fast_math:
  ``__fdividef`` is within 2 ulp, then the product).

So ``|y - y_ref| <= |y_ref| * (SECOND_ORDER * (u A (g_i + ln C) + 2 u (E_own + E_terms + D))
+ gamma(S * chain)) + 2**-125``. It replaces ``SLACK * u * (A g_i + E_own + E_terms + 2 +
A log2 C) + gamma(S * chain)`` with ``SLACK = 2`` on the first-order terms: that factor paid for
an ulp being up to 2u, but it also doubled the argument term, which is exact, so a kernel whose
x - m was off by a whole exponent of error at gap 40 used half its bound; the short rows of every
correct kernel here stayed under a third of it. The worst case before that, ``SLACK * u * (g_i A
+ E + 2 + S * chain)``, doubled the chain too: at C = 2^20 over 32 lanes a sequential sum
declared as 32 lanes passed. ``reports/measurements/tightness.md`` has the largest error of
every correct kernel, as a fraction of its bound, from C = 1 to 2^20.

Flush-to-zero (CuPy compiles with ``-ftz=true``): any intermediate or output
below 2**-126 may become 0, so each element also gets an absolute floor of
2**-125. Denormal outputs are thus never required; denormal inputs behave as 0.

The row sum (``row_sum_slack``): for a safe kernel with exact exponentials the outputs'
numerators are the very terms of d, so their exponential and gap errors cancel in
sum_i y_i = (sum_i e_i / d) (1 + division): only the chain, the division and the output
rounding remain, ``gamma(chain) + 6 u`` (plus u16 for a 16-bit output, and the FTZ floor
per element). That slack does not follow from the per-element bound. For online or fast-math
kernels the terms of d are not the numerators, and the slack is the sum of the per-element
bounds (the check then follows from ``matches_reference``).

Half-precision kernels (float16, bfloat16) compute in float32 from inputs that are
exact in float32, so they carry the float32 bound plus the rounding of the output to
16 bits: rounding to nearest, a relative u16 (2**-11, 2**-8) of the float32 result (one
rounding, exactly bounded) and, for float16, half its smallest subnormal spacing
(2**-25) as an absolute floor; a kernel that declares ``rounding=truncate`` gets twice both.
``exp=folded`` (the 16-bit split-row kernels,
``write_softmax`` in kernels/softmax.cuh) is shifted, and writes 16-bit outputs as
ex2(x_i * log2 e - s') with s' = fl(m * log2 e + lg2(d)), |s'| < 1024: s' is rounded
(at most 2**-15, that is 2**9 u, in the exponent), lg2 is within about 2**-22, and the
argument now also holds log2 d <= 31, hence ln 2 * (2**9 + 4 + 31) u < 2 u ``FOLD_ULPS``
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
DIV_ULPS = 1.0  # a correctly rounded reciprocal and a product (or one division: half of it)
FAST_DIV_ULPS = 2.5  # __fdividef (2 ulp), or an approximate reciprocal and a product
ULP = 2 * U  # an ulp of a float32 value, relative to it, at most
SECOND_ORDER = 1 + 2.0**-10
ROW_SUM_U = 6.0  # the row sum's division and output rounding, in u


def chain_length(n_cols: int, lanes: int, vector: int = 1) -> int:
    """Longest sequential accumulation chain of a row of ``n_cols`` split over ``lanes`` threads;
    with ``vector`` > 1, each lane holds whole aligned vectors of that many elements (a misaligned
    row touches one more), summed as a tree (log2 ``vector`` levels) before its chain."""
    if vector > 1:
        vectors = -(-n_cols // vector) + 1
        lanes = max(1, min(lanes, vectors))
        return -(-vectors // lanes) + int(math.log2(vector)) + math.ceil(math.log2(lanes)) + 1
    lanes = max(1, min(lanes, max(n_cols, 1)))
    return -(-n_cols // lanes) + math.ceil(math.log2(lanes)) + 1


def split_row_chain(n_cols: int, threads: int, tile: int, vector: int) -> int:
    """The longest chain of a split-row kernel (kernels/include/split_row.cuh, split_group.cuh)
    on rows of ``n_cols``: a row goes to ``parts`` blocks, at least ceil(C / tile) and at most
    ceil(C / (threads * vector)) (``split_plan``), each holding a slice of whole 128-byte lines
    (``line``: 8 ``vector``s of 16 bytes), shifted up to a line to start one. The slice lies in
    up to two regions (the registers' tile, the shared-memory stash), each dealt to the lanes in
    whole vectors round robin, so a lane holds at most one vector more than its even share of
    each; it folds them in one chain, then over the block; with more than one part, each tags its
    state (one ulp: 2 steps), and 32 lanes merge the ``parts`` states, ceil(parts / 32) each,
    before 5 butterfly levels. Either end of the plan may be the longer."""
    def ceil_div(a, b):
        return -(-a // b)

    least = ceil_div(n_cols, tile)
    most = max(least, ceil_div(n_cols, threads * vector))
    line = 8 * vector

    def through(parts):
        slice_ = ceil_div(ceil_div(n_cols, parts), line) * line if parts > 1 else n_cols
        lane = (ceil_div(slice_ + line, threads * vector) + 1) * vector
        block = lane + math.ceil(math.log2(threads)) + 1
        return block if parts == 1 else block + 2 + -(-parts // 32) + 5

    return max(through(least), through(most))


def online_step(fast_math: bool) -> float:
    """What one step of an online chain may add, in u: the add, the product by the correction
    factor and the factor's own exponential (an ulp is at most 2u)."""
    return 2.0 + 2.0 * (FAST_EXP_ULPS if fast_math else EXP_ULPS)


def gamma(k: float) -> float:
    """Higham's gamma_k = k u / (1 - k u): the relative error of a chain of k float32 additions
    of non-negative terms."""
    return k * U / (1.0 - k * U) if k * U < 1 else math.inf


def store_rounding(fmt, rounding: str) -> tuple[float, float]:
    """The rounding of a 16-bit store of a float32 result: (relative, absolute), half an ulp
    (a whole one truncating) and as much of the smallest subnormal spacing; none for float32."""
    if fmt.bits == 32:
        return 0.0, 0.0
    ulps = 2.0 if rounding == "truncate" else 1.0
    return ulps * fmt.u, ulps * 2.0 ** (fmt.min_exp - fmt.mantissa - 1)


def stored(float32, ref, *, dtype, rounding: str = "nearest", xp=np):
    """The bound of a result computed in float32 within ``float32`` of ``ref`` and stored in
    ``dtype``: the store's rounding on top, and none (inf) where the result may lie past the
    format's largest finite value, where a correct store gives an infinity (a 16-bit gradient
    past 65504; ``nonfinite_contract`` wants the infinity where the result is surely past it)."""
    fmt = dtypes.of(dtype)
    relative, absolute = store_rounding(fmt, rounding)
    bound = float32 + relative * (xp.abs(ref) + float32) + absolute
    return xp.where(xp.abs(ref) + float32 >= fmt.largest, xp.inf, bound)


def fast_exp_ulps(exp: str, bits: int) -> float:
    """What a fast exponential of form ``exp`` (``ex2``, ``shifted``, ``folded``) is charged, for
    outputs of ``bits``."""
    extra = {"ex2": 0.0, "shifted": SHIFT_ULPS, "folded": SHIFT_ULPS + (FOLD_ULPS if bits == 16 else 0.0)}
    return FAST_EXP_ULPS + extra[exp]


def element_bound(x, ref, *, lanes: int, algorithm: str = "safe", fast_math: bool = False,
                  exp: str = "shifted", xp=np, dtype="float32", rounding: str = "nearest",
                  chain: int | None = None):
    """Allowed |y - ref| per element, for an (N, C) input ``x`` and its float64 reference,
    for a kernel whose output is ``dtype`` (``exp``: the form of its fast exponentials;
    ``rounding``: how its 16-bit outputs are rounded, ``nearest`` or ``truncate``; ``chain``:
    its longest accumulation chain, where ``lanes`` does not give it)."""
    x64 = xp.asarray(x, dtype=xp.float64)
    n_cols = x64.shape[-1]
    with np.errstate(invalid="ignore"):
        peak = xp.max(xp.where(xp.isnan(x64), -xp.inf, x64), axis=-1, keepdims=True)
        gap = xp.abs(x64 - peak)
    gap = xp.where(xp.isfinite(gap), gap, 0.0)
    step = online_step(fast_math) if algorithm == "online" else 1.0
    fmt = dtypes.of(dtype)
    exp_ulps = fast_exp_ulps(exp, fmt.bits) if fast_math else EXP_ULPS
    arg_weight = 2.0 if fast_math else 1.0
    term_ulps = fast_exp_ulps("shifted" if exp == "folded" else exp, 32) if fast_math else EXP_ULPS
    div_ulps = FAST_DIV_ULPS if fast_math else DIV_ULPS
    chain = chain_length(n_cols, lanes) if chain is None else chain
    rel = SECOND_ORDER * (U * arg_weight * (gap + math.log(max(n_cols, 1))) +
                          ULP * (exp_ulps + term_ulps + div_ulps)) + gamma(step * chain)
    float32 = xp.abs(ref) * rel + FTZ_FLOOR
    if fmt.bits == 32:
        return float32
    # The store: one rounding, exactly bounded.
    relative, absolute = store_rounding(fmt, rounding)
    return float32 + relative * (xp.abs(ref) + float32) + absolute


def row_sum_slack(element_bounds, *, n_cols: int, lanes: int, algorithm: str = "safe",
                  fast_math: bool = False, xp=np, dtype="float32", rounding: str = "nearest",
                  chain: int | None = None):
    """Allowed |sum_i y_i - 1| per row (see the module's text), given the per-element bounds
    of each row, (N, C)."""
    if algorithm == "online" or fast_math:
        return element_bounds.sum(axis=1)
    store, subnormal = store_rounding(dtypes.of(dtype), rounding)
    rel = gamma(chain_length(n_cols, lanes) if chain is None else chain) + ROW_SUM_U * U
    per_row = (1 + store) * rel + store + n_cols * (FTZ_FLOOR + subnormal)
    return xp.full(element_bounds.shape[0], per_row)


def ulps(y, ref, xp=np, dtype="float32"):
    """|y - ref| in ulps of ref in ``dtype`` (0 where both are equal, inf for a NaN mismatch)."""
    return xp.abs(y.astype(xp.float64) - ref) / dtypes.of(dtype).spacing(ref, xp)
