"""Hypothesis strategies for adversarial softmax inputs.

Strategies draw compact *recipes* (what kind of row, how long, where the special
values go, an RNG seed); :func:`build_batch` turns a recipe into a float32 array
with NumPy. Generation stays fast for long rows, and a failing example shrinks to
the shortest row, the simplest value kind and the fewest special values, because
each list below is ordered from simple to nasty.

Public strategies: :func:`lengths`, :func:`row_recipes`, :func:`batches`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from hypothesis import strategies as st

FLT_MAX = float(np.finfo(np.float32).max)
FLT_TINY = float(np.finfo(np.float32).tiny)  # smallest normal; below it CuPy's -ftz flushes

#: Kinds of finite row content, simplest first.
VALUE_KINDS = (
    "randn",          # standard normal, scaled by 3
    "equal",          # every element the same (0, 1, large, huge)
    "one_ulp",        # all equal but one element, one ulp above
    "integers",       # small integers (exact sums, many ties)
    "dominant",       # one element 60 above the rest: the others underflow towards 0
    "spread",         # normal * 12: gaps of tens, where the rounding of x - m is most of the error
    "wide",           # normal * 1000: most outputs underflow, some flush to zero
    "mixed_scales",   # magnitudes from 1e-30 to 1e30 in one row
    "near_max",       # clustered at +FLT_MAX or -FLT_MAX
    "huge",           # spread over +-FLT_MAX: x - max overflows to -inf
    "subnormal",      # subnormals, +0.0 and -0.0 (flushed to zero under -ftz)
    "signed_zeros",   # only +0.0 and -0.0
    "plateau",        # the maximum once, every other element one value below it: the sum adds
                      # one term C times, and its rounding errors all go one way
    "creeping",       # a running maximum that grows a little at almost every element
    "ties",           # a few levels, the maximum among them many times over
    "offset",         # randn around a large constant (64 to 2^20): errors that grow with |x|
    "ramp",           # gaps to the maximum spread evenly over 0 ... 110: outputs over the whole
                      # float32 range, down past the flush-to-zero floor
    "far",            # ties and one-hot rows a few ulps apart around +-3 * 2^30, where m log2e
                      # rounds by up to 2^7: shifted exponentials need float's range check there
)
#: Where -inf goes: no mask, the first element, a padding tail, a causal prefix
#: (row i of a batch keeps i + 1 elements), random positions, the whole row, the last element,
#: all but one random element, all but the last.
MASK_KINDS = ("none", "first", "tail", "causal", "random", "full", "last", "all_but_one", "only_last")
#: Poison values that the contract turns into an all-NaN row.
SPECIAL_KINDS = ("none", "posinf", "nan")
#: Kinds of incoming gradient dy (for the backward ops), simplest first: standard normal, one value
#: everywhere (dx cancels to about 0), a one-hot row (a cross-entropy's), magnitudes near 2^100
#: and near 2^-100, large values of both signs that cancel in sum(dy * y), and one non-finite
#: element (NaN, +inf).
GRAD_KINDS = ("randn", "equal", "one_hot", "huge", "tiny", "opposite", "nan", "posinf")
#: Kinds of additive bias (the fused forward's ``scaled_softmax_bias``), simplest first: zeros,
#: standard normal, a relative-position ramp (ALiBi: -slope |c - r % C|), an additive mask (0, or
#: -inf at random positions), magnitudes near 1e30 of both signs (t is the bias's), one NaN, one
#: +inf a row.
BIAS_KINDS = ("zero", "randn", "alibi", "neg_inf", "huge", "nan", "posinf")
#: Scales (temperatures) the fused forward is drawn with: 1, an attention head's 1/sqrt(64) and
#: 1/sqrt(128), sharpening ones, a tiny one, negative ones (they flip the row, so a kernel
#: that takes the maximum before scaling is wrong), and a near-greedy one, 2^16, last, under
#: which a float16 x (at most 65504) makes t of 2^32: t is not bounded by x's type's range.
SCALES = (1.0, 0.125, 0.08838834764831845, 3.0, 1e-3, -1.0, -0.25, 65536.0)

LONG_LENGTHS = (2**17 + 3, 2**20, 2**20 + 1)


@dataclass(frozen=True)
class RowRecipe:
    """How to build one row: value kind, -inf mask, poison values, and their counts."""

    values: str = "randn"
    mask: str = "none"
    special: str = "none"
    count: int = 1        # masked (random) or special positions
    cut: float = 0.5      # padding tail starts at this fraction of the row
    seed: int = 0


@dataclass(frozen=True)
class BatchRecipe:
    """A 2-d batch: ``n_rows`` rows of ``n_cols``, cycling through ``rows``; ``offset``
    is the misalignment (in elements) of the input base pointers, ``out_offset`` that of the
    output (None: the same as the input's), ``skew`` how many elements further each array input
    starts than the one before it (inputs misaligned unlike each other); ``grad`` the kind of
    incoming gradient an op with a ``dy`` input gets (:func:`build_grad`)."""

    n_cols: int
    rows: tuple[RowRecipe, ...] = (RowRecipe(),)
    n_rows: int = 0       # 0: one row per recipe
    offset: int = 0
    out_offset: int | None = None
    grad: str = "randn"   # the incoming gradient's kind (GRAD_KINDS), for the backward ops
    bias: str = "randn"   # the additive bias's kind (BIAS_KINDS), for scaled_softmax_bias
    scale: float = 1.0    # the fused forward's scale (SCALES)
    skew: int = 0         # each later array input starts this many elements further

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_rows or len(self.rows), self.n_cols)


def _values(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "randn":
        return rng.standard_normal(n) * 3
    if kind == "equal":
        return np.full(n, rng.choice([0.0, 1.0, -7.25, 1e30, -3e38, 3e38]))
    if kind == "one_ulp":
        row = np.full(n, np.float32(rng.choice([0.0, 1.0, 88.5, -1e20])), dtype=np.float32)
        row[rng.integers(n)] = np.nextafter(row[0], np.float32(np.inf))
        return row
    if kind == "integers":
        return rng.integers(-20, 21, n).astype(np.float64)
    if kind == "dominant":
        row = rng.standard_normal(n)
        row[rng.integers(n)] = 60.0 + row.max()
        return row
    if kind == "spread":
        return rng.standard_normal(n) * 12
    if kind == "wide":
        return rng.standard_normal(n) * 1000
    if kind == "mixed_scales":
        return rng.standard_normal(n) * 10.0 ** rng.uniform(-30, 30, n)
    if kind == "near_max":
        sign = rng.choice([-1.0, 1.0])
        return sign * FLT_MAX * (1 - rng.integers(0, 64, n) * 2.0**-23)
    if kind == "huge":
        return rng.uniform(-FLT_MAX, FLT_MAX, n)
    if kind == "subnormal":
        tiny = rng.integers(0, 2**23, n).astype(np.uint32).view(np.float32).astype(np.float64)
        return tiny * rng.choice([-1.0, 1.0, 0.0], n)
    if kind == "signed_zeros":
        return rng.choice([0.0, -0.0], n)
    if kind == "plateau":
        top = float(rng.choice([0.0, 10.0, -50.0]))
        row = np.full(n, top - float(rng.choice([2.0**-10, 0.25, 0.6931, 1.0, 3.0])))
        row[rng.integers(n)] = top
        return row
    if kind == "creeping":
        step = float(rng.choice([2.0**-12, 2.0**-6, 0.05, 0.5]))
        return np.cumsum(rng.uniform(0, 2 * step, n)) - rng.uniform(0, 1)
    if kind == "ties":
        levels = rng.standard_normal(3) * 3
        row = rng.choice(levels, n)
        row[rng.integers(n, size=max(1, n // 4))] = levels.max()
        return row
    if kind == "ramp":
        return rng.permutation(-np.linspace(0.0, 110.0, n)) + float(rng.choice([0.0, 30.0, -200.0]))
    if kind == "offset":
        return rng.standard_normal(n) * 3 + float(rng.choice([64.0, 1000.0, 2.0**20]))
    if kind == "far":  # float32's ulp there is 256
        return float(rng.choice([-1.0, 1.0])) * 3 * 2.0**30 + rng.integers(-4, 5, n) * 256.0
    raise ValueError(f"unknown value kind {kind!r}")


def build_row(recipe: RowRecipe, n_cols: int, row_index: int = 0) -> np.ndarray:
    """The float32 row that ``recipe`` describes (deterministic in the recipe); a causal
    row at ``row_index`` keeps its first ``row_index % n_cols + 1`` elements."""
    rng = np.random.default_rng(recipe.seed)
    row = _values(recipe.values, n_cols, rng).astype(np.float32)
    count = max(1, min(recipe.count, n_cols))
    if recipe.mask == "first":
        row[0] = -np.inf
    elif recipe.mask == "tail":
        row[max(1, int(recipe.cut * n_cols)):] = -np.inf
    elif recipe.mask == "causal":
        row[row_index % n_cols + 1:] = -np.inf
    elif recipe.mask == "random":
        row[rng.choice(n_cols, count, replace=False)] = -np.inf
    elif recipe.mask == "full":
        row[:] = -np.inf
    elif recipe.mask == "last":
        row[-1] = -np.inf
    elif recipe.mask == "all_but_one":
        keep = rng.integers(n_cols)
        row[np.arange(n_cols) != keep] = -np.inf
    elif recipe.mask == "only_last":
        row[:-1] = -np.inf
    if recipe.special != "none":
        row[rng.choice(n_cols, count, replace=False)] = np.inf if recipe.special == "posinf" else np.nan
    return row


def build_batch(recipe: BatchRecipe) -> np.ndarray:
    """The (N, C) float32 array that ``recipe`` describes; rows cycle through ``recipe.rows``."""
    n_rows, n_cols = recipe.shape
    kinds = recipe.rows[:n_rows]
    if not kinds or not n_cols:
        return np.empty((n_rows, n_cols), np.float32)
    unmasked = [replace(r, mask="none") if r.mask == "causal" else r for r in kinds]
    batch = np.resize(np.stack([build_row(r, n_cols) for r in unmasked]), (n_rows, n_cols))
    causal = np.array([r.mask == "causal" for r in kinds])
    index = np.arange(n_rows)
    rows = index[causal[index % len(kinds)]]
    if rows.size:  # row i of the batch keeps its first i % C + 1 elements
        cols = np.arange(n_cols)
        batch[rows] = np.where(cols[None, :] > (rows % n_cols)[:, None], -np.inf, batch[rows])
    return batch


def build_grad(recipe: BatchRecipe) -> np.ndarray:
    """The (N, C) float32 incoming gradient of ``recipe``'s kind (deterministic in the recipe)."""
    n_rows, n_cols = recipe.shape
    kind = recipe.grad
    rng = np.random.default_rng([recipe.rows[0].seed if recipe.rows else 0, GRAD_KINDS.index(kind)])
    shape = (n_rows, n_cols)
    if kind == "equal":
        dy = np.full(shape, rng.choice([1.0, -3.5, 1e20]))
    elif kind == "one_hot":
        dy = np.zeros(shape)
        if n_cols:
            dy[np.arange(n_rows), rng.integers(n_cols, size=n_rows)] = rng.choice([1.0, -1.0, 1e4])
    elif kind == "huge":
        dy = rng.standard_normal(shape) * 2.0**100
    elif kind == "tiny":
        dy = rng.standard_normal(shape) * 2.0**-100
    elif kind == "opposite":
        dy = rng.standard_normal(shape) + np.where(np.arange(n_cols) % 2, 1e20, -1e20)
    else:
        dy = rng.standard_normal(shape)
    return _one_special_a_row(dy.astype(np.float32), kind, rng)


def _one_special_a_row(a: np.ndarray, kind: str, rng) -> np.ndarray:
    """``a`` with one NaN (kind ``nan``) or +inf (``posinf``) at a random column of each row."""
    if kind in ("nan", "posinf") and a.size:
        at = rng.integers(a.shape[1], size=a.shape[0])
        a[np.arange(a.shape[0]), at] = np.nan if kind == "nan" else np.inf
    return a


def build_bias(recipe: BatchRecipe) -> np.ndarray:
    """The (N, C) float32 additive bias of ``recipe``'s kind (deterministic in the recipe)."""
    n_rows, n_cols = recipe.shape
    kind = recipe.bias
    rng = np.random.default_rng([recipe.rows[0].seed if recipe.rows else 0, BIAS_KINDS.index(kind)])
    shape = (n_rows, n_cols)
    if kind == "zero":
        bias = np.zeros(shape)
    elif kind == "alibi":
        slope = float(rng.choice([0.5, 1 / 16, 2.0**-8]))
        bias = -slope * np.abs(np.arange(n_cols)[None, :] - (np.arange(n_rows) % max(n_cols, 1))[:, None])
    elif kind == "neg_inf":
        bias = np.where(rng.random(shape) < 0.3, -np.inf, 0.0)
    elif kind == "huge":
        bias = rng.uniform(-1e30, 1e30, shape)
    else:
        bias = rng.standard_normal(shape) * 3
    return _one_special_a_row(bias.astype(np.float32), kind, rng)


#: Length classes, each drawn as often as the others (:func:`lengths`): a few elements, warp
#: edges, vector edges, powers of two.
TINY_LENGTHS = tuple(range(1, 10))
WARP_LENGTHS = tuple(k * 32 + d for k in (1, 2, 3, 4, 8, 32) for d in (-1, 0, 1))
VECTOR_LENGTHS = tuple(v * k + d for v in (4, 8) for k in (5, 33, 125) for d in (-1, 1, 2, 3))
POWER_LENGTHS = tuple(2**p + d for p in range(7, 15) for d in (-1, 0, 1))


def lengths(max_cols: int | None = None, threads: int | None = None, *, long_rows: bool = False,
            limit: int = 20000):
    """Row lengths, stratified: a class is drawn first (tiny, warp edges, vector edges, powers of
    two, the subject's own edges: its threads and its longest row, long rows with
    ``long_rows``, any length up to ``limit``), then a length in it, so that every class is
    reached within a small budget."""
    cap = min(limit, max_cols) if max_cols else limit
    ceiling = max_cols or max(LONG_LENGTHS)
    own = set()
    for edge in (threads, max_cols):
        if edge:
            own |= {edge - 1, edge, edge + 1, 4 * edge + 3}
    classes = [TINY_LENGTHS, WARP_LENGTHS, VECTOR_LENGTHS, POWER_LENGTHS, own]
    if long_rows:
        classes.append(LONG_LENGTHS)
    kept = [sorted(e for e in c if 1 <= e <= ceiling) for c in classes]
    # any length first: a failure shrinks towards that branch, and in it towards 1
    return st.one_of(st.integers(1, max(1, cap)), *[st.sampled_from(c) for c in kept if c])


def row_recipes(values=VALUE_KINDS, masks=MASK_KINDS, specials=SPECIAL_KINDS):
    """Recipes for single rows, drawn from the given kinds."""
    return st.builds(
        RowRecipe,
        values=st.sampled_from(values),
        mask=st.sampled_from(masks),
        special=st.sampled_from(specials),
        count=st.integers(1, 4),
        cut=st.sampled_from([0.5, 0.0, 0.25, 0.9, 1.0 - 1e-9]),
        seed=st.integers(0, 2**32 - 1),
    )


@st.composite
def batches(draw, lens=None, rows=None, *, max_kinds: int = 24, max_elements: int = 2**22,
            aligned_only: bool = False, rows_first: bool = False, grads=None, fused: bool = False):
    """Batches mixing many row recipes of one length, with the row count sometimes far
    larger (multi-row and grid-stride paths) and base pointers sometimes misaligned, the
    output sometimes differently from the input. Where the two do not fit ``max_elements``,
    the length wins (the row count is cut), or with ``rows_first`` the row count (the length
    is cut): so a small budget still reaches batches of 70001 rows, past 65535. ``grads`` (a
    sequence of :data:`GRAD_KINDS`) draws the incoming gradient's kind too, for ops that take one;
    ``fused`` draws a bias kind and a scale (:data:`BIAS_KINDS`, :data:`SCALES`) for the fused
    forward. Without them nothing more is drawn, so the forward's examples stay as they were."""
    n_cols = draw(lens if lens is not None else lengths())
    kinds = draw(st.lists(rows if rows is not None else row_recipes(), min_size=1, max_size=max_kinds))
    room = max(1, max_elements // n_cols)
    n_rows = draw(st.sampled_from([len(kinds), 1, 257, 4099, 70001]))
    if rows_first and n_rows > room:
        n_cols, room = max(1, max_elements // n_rows), n_rows
    n_rows = max(1, min(n_rows, room))
    offset, out_offset = 0, None
    if not aligned_only:
        offset = draw(st.sampled_from([0, 1, 2, 3]))
        out_offset = draw(st.sampled_from([None, None, 0, 1, 2, 3]))
    grad = draw(st.sampled_from(grads)) if grads else "randn"
    bias, scale = "randn", 1.0
    if fused:
        bias, scale = draw(st.sampled_from(BIAS_KINDS)), draw(st.sampled_from(SCALES))
    skew = 0  # ops of two array inputs: the second misaligned unlike the first, at times
    if (grads or fused) and not aligned_only:
        skew = draw(st.sampled_from([0, 0, 0, 1, 2, 3]))
    return BatchRecipe(n_cols=n_cols, rows=tuple(kinds[:n_rows]), n_rows=n_rows, offset=offset,
                       out_offset=None if out_offset == offset else out_offset, grad=grad, bias=bias,
                       scale=scale, skew=skew)


#: The classic failures of the seed posts' online kernels, pinned as examples.
CLASSIC = (
    BatchRecipe(n_cols=1),                                                 # SumMax: C = 1
    BatchRecipe(n_cols=33, rows=(RowRecipe(mask="first"),)),               # first element -inf
    BatchRecipe(n_cols=100, rows=(RowRecipe(mask="causal"),), n_rows=100), # causal -inf tails
    BatchRecipe(n_cols=1000, rows=(RowRecipe(mask="tail", cut=0.25),)),    # padding mask
    BatchRecipe(n_cols=64, rows=(RowRecipe(mask="full"), RowRecipe())),    # fully masked row
    BatchRecipe(n_cols=4097, rows=(RowRecipe(values="huge"),), offset=1),  # overflow + misaligned
)

#: A stratified design, for a hunt to try before it draws: each value kind on a long row (plain,
#: with a padding tail, with random -inf) and on eight short ones (where the chain is short and
#: the exponentials' errors are most of the bound), and the shapes a small budget rarely reaches
#: (past 65535 rows; a row past 2^17 of each kind that sums one term many times).
STRATA = tuple(
    BatchRecipe(n_cols=4097, rows=(RowRecipe(values=v, seed=i), RowRecipe(values=v, mask="tail", seed=i + 1),
                                   RowRecipe(values=v, mask="random", count=3, seed=i + 2)), offset=i % 4)
    for i, v in enumerate(VALUE_KINDS)
) + tuple(
    BatchRecipe(n_cols=33, rows=tuple(RowRecipe(values=v, seed=8 * i + k) for k in range(8)), offset=i % 4)
    for i, v in enumerate(VALUE_KINDS)
) + (
    BatchRecipe(n_cols=2, rows=(RowRecipe(), RowRecipe(mask="first")), n_rows=70001),
    BatchRecipe(n_cols=2**17 + 3, rows=(RowRecipe(values="plateau", seed=1),)),
    BatchRecipe(n_cols=2**17 + 3, rows=(RowRecipe(values="creeping", seed=1),)),
)
