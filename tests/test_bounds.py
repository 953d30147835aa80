"""The error bound's constants against NumPy models of the arithmetic they stand for."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from softmax_harness import bounds
from softmax_harness.compiler import expand_source
from softmax_harness.registry import KERNELS_DIR


def fold_limit() -> float:
    """FOLD_LIMIT of the shared header: below it, 16-bit split rows fold 1/d into the exponential."""
    found = re.search(r"constexpr float FOLD_LIMIT = ([0-9.]+)f;", expand_source(KERNELS_DIR / "softmax.cuh"))
    assert found, "kernels/softmax.cuh (with its parts) declares no FOLD_LIMIT"
    return float(found.group(1))


def f32(a):
    return np.asarray(a, dtype=np.float64).astype(np.float32)


def test_the_folded_exponential_stays_within_fold_ulps():
    """y = ex2(fl(x log2e - s')), s' = fl(m log2e + log2 d) with |s'| below the header's limit:
    beyond the argument term every bound charges, its error is within FOLD_ULPS (exact ex2 and
    lg2 here: their own errors are FAST_EXP_ULPS and the 4 u in FOLD_ULPS)."""
    limit = fold_limit()
    rng = np.random.default_rng(1)
    n = 400_000
    log2e = np.float64(np.float32(1.4426950408889634))
    m = f32(rng.uniform(-1.05, 1.05, n) * limit / log2e)
    d = f32(np.exp2(rng.uniform(0, 31, n)))
    x = f32(m - rng.exponential(8, n))
    s = f32(m * log2e + np.log2(d.astype(np.float64)))  # one FMA: the product is exact in float64
    folded = np.abs(s) < limit
    assert folded.mean() > 0.8  # the model covers the fold, up to its limit
    y = np.exp2(f32(x * log2e - s).astype(np.float64))
    exact = np.exp(x.astype(np.float64) - m) / d
    gap = np.abs(x.astype(np.float64) - m)
    excess = (np.abs(y / exact - 1) / bounds.U - 2 * gap)[folded]
    assert excess.max() <= bounds.FOLD_ULPS, excess.max()
    assert excess.max() > bounds.FOLD_ULPS / 2  # and FOLD_ULPS is not far above what it covers


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_each_fast_exponential_is_charged_its_own_terms(dtype):
    """Its own error in the output, the error of the sum's terms (folded is shifted there: the
    fold is in the outputs only) and of its division, 2u an ulp; twice the argument and the
    mean gap of the sum; a 16-bit
    store rounds the wider float32 result, (1 + u16) times the difference."""
    from softmax_harness import dtypes

    x = np.array([[0.0, -1.0, -3.0]])
    ref = np.exp(x) / np.exp(x).sum()
    exact = bounds.element_bound(x, ref, lanes=1, dtype=dtype)
    sixteen = dtype != "float32"
    store = 1 + (dtypes.of(dtype).u if sixteen else 0.0)
    for exp, own, term in (("ex2", 0.0, 0.0), ("shifted", bounds.SHIFT_ULPS, bounds.SHIFT_ULPS),
                           ("folded", bounds.SHIFT_ULPS + sixteen * bounds.FOLD_ULPS, bounds.SHIFT_ULPS)):
        fast = bounds.element_bound(x, ref, lanes=1, fast_math=True, exp=exp, dtype=dtype)
        charged = (fast - exact) / (store * bounds.SECOND_ORDER * ref * bounds.U)
        ulps = 2 * (bounds.FAST_EXP_ULPS - bounds.EXP_ULPS) + own + term + \
            bounds.FAST_DIV_ULPS - bounds.DIV_ULPS
        more = 2 * ulps + np.abs(x) + np.log(3)
        np.testing.assert_allclose(charged, more, rtol=1e-9, err_msg=exp)


def test_an_undeclared_fast_exponential_is_caught_by_the_tight_bound_only():
    """A kernel taking exp(t) as ex2(t * log2 e) in float32 without declaring fast_math doubles
    the argument's error. The bound this one replaced, SLACK * u * (g + E_own + E_terms + 2 +
    log2 C) + gamma(chain) with SLACK = 2, allowed that on every element (the doubled argument
    term paid for it); the exact argument term does not."""
    import mutants

    rng = np.random.default_rng(3)
    x = (rng.standard_normal((64, 33)) * 40).astype(np.float32)
    ref = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    ref /= ref.sum(axis=1, keepdims=True)
    y = np.empty_like(x)
    mutants.exp_fast_undeclared(x, y)
    err = np.abs(y.astype(np.float64) - ref)
    gap = x.max(axis=1, keepdims=True).astype(np.float64) - x
    chain = bounds.chain_length(33, mutants.LANES)
    old = ref * (2 * bounds.U * (gap + 2 + 2 + 2 + np.log2(33)) + bounds.gamma(chain)) + bounds.FTZ_FLOOR
    new = bounds.element_bound(x, ref, lanes=mutants.LANES)
    assert (err <= old).all()
    assert (err > new).any()


def _tile_sum_depth(n_cols: int, lanes: int, vector: int, shift: int) -> int:
    """The most roundings any term meets in a register tile's sum (sh::grad_tile_rows and the staged
    tile_sum): lane l's chunk k holds tile positions vector (k lanes + l) .. + vector - 1, position p
    element p - shift (or, where the row does not fit with its shift, element i lanes + l at
    position i); each chunk's terms as a tree, the chunks in one chain from 0, then the lanes'
    butterfly. Zeros (outside the row) add no rounding."""

    capacity = lanes * vector * max(1, -(-(n_cols + vector) // (lanes * vector)))
    fits = shift + n_cols <= capacity
    per_lane = []
    for lane in range(lanes):
        chunks = []
        for k in range(capacity // (lanes * vector)):
            inside = 0
            for j in range(vector):
                i = vector * k + j
                e = vector * (k * lanes + lane) + j - shift if fits else i * lanes + lane
                inside += 0 <= e < n_cols
            chunks.append(inside)
        live = [c for c in chunks if c]
        tree = max((math.ceil(math.log2(c)) for c in live), default=0)
        per_lane.append(tree + max(0, len(live) - 1) if live else -1)
    live_lanes = [d for d in per_lane if d >= 0]
    return max(live_lanes) + math.ceil(math.log2(max(1, len(live_lanes))))


@pytest.mark.parametrize("lanes,vector", [(8, 4), (16, 8), (32, 4), (32, 8), (128, 4), (512, 8)])
def test_a_vector_tiles_declared_chain_covers_its_sum(lanes, vector):
    slack = []
    for n_cols in (1, 2, 3, 5, 31, 32, 33, 100, 127, 128, 129, 500, 1000, 4095, 4096, 4097):
        for shift in range(vector):
            depth = _tile_sum_depth(n_cols, lanes, vector, shift)
            assert depth <= bounds.chain_length(n_cols, lanes, vector), (n_cols, shift, depth)
            slack.append(bounds.chain_length(n_cols, lanes, vector) - depth)
    assert min(slack) <= 2  # reached, but for the product's rounding and the misaligned row's vector
    # and it is tighter than a lane's elements in one chain, which it replaces
    assert bounds.chain_length(4096, lanes, vector) < bounds.chain_length(4096, lanes)


def _split_lane_terms(n_cols: int, parts: int, threads: int, tile_e: int, stash_s: int, vector: int,
                      shift: int) -> int:
    """The most terms one lane of a split-row kernel folds (kernels/include/split_row.cuh): its
    group's slices are whole 128-byte lines; a block's slice fills the registers' tile from
    ``shift`` (the slice's place in its line, where the tile starts), then the stash, each dealt
    to the lanes in vectors round robin."""
    line = 8 * vector
    slice_ = math.ceil(math.ceil(n_cols / parts) / line) * line
    most = 0
    for rank in range(parts):
        count = min(n_cols - min(n_cols, rank * slice_), slice_)
        held = min(count, threads * tile_e - shift)
        lanes = [0] * threads
        for first, n, chunks in ((shift, held, tile_e // vector), (0, count - held, stash_s // vector)):
            for k in range(chunks):
                for lane in range(threads):
                    p = vector * (k * threads + lane)
                    lanes[lane] += max(0, min(p + vector, first + n) - max(p, first))
        most = max(most, max(lanes))
    return most


@pytest.mark.parametrize("threads,tile_e,stash_s,vector", [
    (256, 32, 44, 4), (256, 48, 88, 8), (512, 48, 88, 8), (256, 12, 20, 4), (256, 8, 40, 8)])
def test_a_split_row_kernels_declared_chain_covers_its_longest_lane(threads, tile_e, stash_s, vector):
    """A lane's terms, one chain, within what the chain's per-lane share allows, at every plan's
    end and at every shift (the forward's tiles, 16-bit at 512 threads, the backwards' smaller
    ones). A lane can hold a vector more than its even share of each region: counted as even
    shares (ceil(slice / threads)), the chain fell 3 steps short in fp32 and 7 in 16 bits."""
    line = 8 * vector
    tile = threads * (tile_e + stash_s) - line
    block_levels = math.ceil(math.log2(threads)) + 1
    for n_cols in (tile + 1, 131073, 262144, 524287, 1048576):
        least = -(-n_cols // tile)
        for parts in (least, least + 1):
            merge = 2 + -(-parts // 32) + 5
            allowed = bounds.split_row_chain(n_cols, threads, tile, vector) - block_levels - merge
            for shift in (0, 1, vector - 1, vector + 3, line - 1):
                assert _split_lane_terms(n_cols, parts, threads, tile_e, stash_s, vector, shift) <= allowed, \
                    (n_cols, parts, shift)
