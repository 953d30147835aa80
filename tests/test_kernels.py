"""Every correct variant, on the GPU, through the battery any project gets from the plugin
(:mod:`softmax_harness.battery`, over the ``subject`` fixture: here, the bundled variants that
``--variant`` selects), and the split-row kernels' own tests."""

from __future__ import annotations

import pytest
from hypothesis import example, given

import softmax_harness
from softmax_harness.battery import (  # noqa: F401  (collected here: the battery is this module's)
    MIXED,
    holds_every_property,
    test_a_batch_past_element_2_31,
    test_classic_failures_of_online_kernels,
    test_every_property_holds_on_adversarial_batches,
    test_lengths_around_the_variant_edges,
    test_masked_rows_at_awkward_lengths,
    test_millions_of_rows,
    test_output_misaligned_unlike_the_input,
    test_the_output_is_ready_when_the_callers_stream_is,
    test_the_stratified_design,
)
from softmax_harness.properties import Subject, check_recipe
from softmax_harness.strategies import CLASSIC, GRAD_KINDS, BatchRecipe, RowRecipe, batches, lengths

pytestmark = pytest.mark.gpu


def test_split_row_slices_filled_to_the_tile(split_variant):
    """With more rows than resident blocks, the split-row plan gives each row the fewest blocks,
    so slices fill the registers and the shared-memory stash, over a full round and a last
    round of five rows; at an odd length most rows start misaligned, and their slices still fit
    with the shift to aligned vectors."""
    from softmax_harness.variant import multiprocessor_count

    spec = split_variant.spec
    n_rows = spec.blocks_per_sm * multiprocessor_count(0) + 5
    for n_cols in (spec.tile - 1, spec.tile, spec.tile + 1, 2 * spec.tile):
        holds_every_property(Subject.of(split_variant), BatchRecipe(n_cols, MIXED, n_rows=n_rows))


def test_split_row_leaves_its_workspace_zeroed(split_variant):
    """The kernel zeroes its workspace on the way out, so the next launch on the stream reuses it:
    zero again after a row over the whole grid, a full round of rows of a few blocks each, and rows
    of one block; a launch on another stream gets one of its own."""
    import cupy

    from softmax_harness.variant import multiprocessor_count

    def nonzero_words():  # in each workspace the variant keeps, after all launches end
        cupy.cuda.Device().synchronize()
        return {int(cupy.count_nonzero(w)) for w in split_variant._workspaces.values()}

    spec = split_variant.spec
    many = spec.blocks_per_sm * multiprocessor_count(0) + 5
    for n_rows, n_cols in ((2, spec.max_cols - 1), (many, 3 * spec.tile + 5), (2 * len(MIXED), 1000)):
        holds_every_property(Subject.of(split_variant), BatchRecipe(n_cols, MIXED, n_rows=n_rows))
        assert nonzero_words() == {0}, (n_rows, n_cols)
    with cupy.cuda.Stream() as stream:
        holds_every_property(Subject.of(split_variant),
                             BatchRecipe(3 * spec.tile + 5, MIXED, n_rows=len(MIXED)))
    assert (0, stream.ptr) in split_variant._workspaces
    assert nonzero_words() == {0}


DIRTY = """// @variant name=dirty kernel=dirty algorithm=online geometry=split-row threads=32 tile=1024
extern "C" __global__ void dirty(const float* x, float* y, int n_rows, int n_cols, unsigned* workspace,
                                 int parts) {
    if (blockIdx.x == 0 && threadIdx.x == 0) workspace[0] = 1;
}
"""


def test_a_split_kernel_that_leaves_its_workspace_dirty_is_named(tmp_path):
    import cupy

    from softmax_harness import Variant
    from softmax_harness.registry import parse_file

    (tmp_path / "dirty.cu").write_text(DIRTY)
    (spec,) = parse_file(tmp_path / "dirty.cu")
    with pytest.raises(RuntimeError, match="'dirty': left its workspace non-zero"):
        Variant(spec)(cupy.zeros((4, 100), dtype=cupy.float32))


#: 48 KB of dynamic shared memory and 128 bytes of its own: past the 48 KB a block gets unasked.
#: Each thread writes its row from the dynamic bytes' far end.
STATIC_AND_DYNAMIC = ("// @variant name=both_shared kernel=both_shared algorithm=safe "
                      "geometry=thread-per-row threads=32 smem=49152\n") + """
extern "C" __global__ void both_shared(const float* x, float* y, int n_rows, int n_cols) {
    extern __shared__ float dynamic[];
    __shared__ float own[32];
    volatile float* kept = own;  // volatile: the compiler keeps the static bytes
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n_rows) return;
    const float* in = x + (size_t)row * n_cols;
    float m = __int_as_float(0xff800000u), d = 0.0f;
    for (int i = 0; i < n_cols; ++i) m = fmaxf(m, in[i]);
    kept[threadIdx.x] = m;
    for (int i = 0; i < n_cols; ++i) d += expf(in[i] - kept[threadIdx.x]);
    float* last = dynamic + 12288 - 32 + threadIdx.x;
    *last = 1.0f / d;
    for (int i = 0; i < n_cols; ++i) y[(size_t)row * n_cols + i] = expf(in[i] - m) * *last;
}
"""


def test_a_kernel_past_48_kb_with_its_own_shared_bytes_launches(tmp_path):
    """48 KB of dynamic shared memory alone needs no asking; with the kernel's own bytes beside it,
    it does (once planned 0 resident blocks of a split kernel so declared: split_blocks_ops_h100.jsonl)."""
    import cupy
    import numpy as np

    from softmax_harness import Variant
    from softmax_harness.registry import parse_file

    (tmp_path / "both_shared.cu").write_text(STATIC_AND_DYNAMIC)
    (spec,) = parse_file(tmp_path / "both_shared.cu")
    variant = Variant(spec)
    x = cupy.asarray(np.random.default_rng(0).standard_normal((70, 300), dtype=np.float32))
    y = cupy.asnumpy(variant(x))
    assert variant.compile().shared_size_bytes > 0
    expected = np.exp(cupy.asnumpy(x).astype(np.float64))
    np.testing.assert_allclose(y, expected / expected.sum(axis=1, keepdims=True), rtol=1e-5)


#: Found on the H200 (2026-12-04): the third row's one finite maximum (4.17e5) dominates, and
#: split_row_smem_f32's shifted exponentials wrote 1 + 2^-23 there, outside [0, 1].
LONE_SHIFTED_MAXIMUM = BatchRecipe(1048576, (RowRecipe(), RowRecipe(),
                                             RowRecipe("mixed_scales", "causal", seed=4294967294)))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@given(recipe=batches(lengths(long_rows=True)))
@example(recipe=CLASSIC[2])
@example(recipe=LONE_SHIFTED_MAXIMUM)
def test_dispatched_softmax_holds_every_property(dtype, recipe):
    """softmax_harness.softmax, judged with the bound of the variant it dispatches to."""
    import cupy

    if dtype not in softmax_harness.dispatch.TABLE:
        pytest.skip(f"no {dtype} dispatch entries yet")
    itemsize = 4 if dtype == "float32" else 2  # the buffers' guard zones keep 16-byte alignment
    aligned = all(n * itemsize % 16 == 0 for n in (recipe.n_cols, recipe.offset))
    n_rows = recipe.shape[0]  # a few long rows take a cluster kernel of their own
    chosen = softmax_harness.dispatch.choose(recipe.n_cols, cupy.cuda.Device().id, dtype, aligned=aligned,
                                             n_rows=n_rows)
    subject = Subject.of(chosen)
    subject.fn, subject.name, subject.repro = softmax_harness.softmax, f"softmax->{chosen.name}", chosen.name
    report = check_recipe(subject, recipe)
    report.raise_if_failed()


#: The public entry point of each op besides the forward, as the harness calls a subject.
ENTRIES = {
    "softmax_backward": softmax_harness.softmax_backward,
    "log_softmax": softmax_harness.log_softmax,
    "log_softmax_backward": softmax_harness.log_softmax_backward,
    "scaled_softmax_bias": lambda x, b, s, out: softmax_harness.scaled_softmax(x, s, bias=b, out=out),
    "scaled_softmax_mask": lambda x, m, s, out: softmax_harness.scaled_softmax(x, s, mask=m, out=out),
    "scaled_softmax_causal": lambda x, s, out: softmax_harness.scaled_softmax(x, s, causal=True, out=out),
}


@pytest.mark.parametrize("op", sorted(ENTRIES))
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@given(recipe=batches(lengths(long_rows=True), grads=GRAD_KINDS, fused=True))
@example(recipe=CLASSIC[2])
def test_dispatched_ops_hold_every_property(op, dtype, recipe):
    """softmax_harness.softmax_backward, log_softmax, log_softmax_backward and scaled_softmax (each
    form), judged with the bound of the variant each dispatches to."""
    import cupy

    assert sorted(ENTRIES) == sorted(softmax_harness.dispatch.OP_TABLES)
    itemsize = 4 if dtype == "float32" else 2  # the recipe's rows start `offset` elements off 16 bytes
    aligned = (recipe.offset * itemsize) % 16 == 0 and (recipe.n_cols * itemsize) % 16 == 0
    chosen = softmax_harness.dispatch.choose_op(op, recipe.n_cols, cupy.cuda.Device().id, dtype,
                                                aligned=aligned)
    entry = ENTRIES[op]
    subject = Subject.of(chosen)
    subject.fn, subject.name, subject.repro = entry, f"{op}->{chosen.name}", chosen.name
    check_recipe(subject, recipe).raise_if_failed()


def test_the_bound_holds_and_is_tight_from_1_to_2_20(softmax_variant):
    """At every length from 1 to 2^20, on rows that load each term of the bound
    (:mod:`softmax_harness.tightness`), the largest error is within the bound; for a safe float32
    kernel with exact exponentials it also reaches a quarter of it at every length from 2 (at
    C = 1 the output is exactly 1): a bound far above what correct kernels reach lets defects
    through."""
    from softmax_harness import tightness

    variant = softmax_variant
    subject = Subject.of(variant)
    points = tightness.sweep(subject)
    over = [p for p in points if not p.ratio <= 1]
    assert not over, f"{variant.name} exceeds its bound: {over[:3]}"
    if subject.algorithm == "safe" and not subject.fast_math and subject.dtype == "float32":
        worst = tightness.worst_by_length(points, 32)
        loose = {n: round(p.ratio, 3) for n, p in worst.items() if n > 1 and p.ratio < 0.25}
        assert not loose, f"{variant.name}: the bound is over 4x the largest error at lengths {loose}"
