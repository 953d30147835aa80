"""The battery: every property, on every kind of input the harness makes, for one subject.

These are pytest tests over the ``subject`` fixture of the plugin
(:mod:`softmax_harness.pytest_plugin`): a project that names its kernels (``--kernels DIR``)
or callables (``--subject MODULE:FUNCTION``, or the ``softmax_harness_kernels`` and
``softmax_harness_subjects`` ini options) gets them collected with nothing else; this
repository's own GPU tests (``tests/test_kernels.py``) are these, over its bundled variants;
``softmax-harness check`` runs them and prints the verdict table. Each test raises the
:class:`~softmax_harness.properties.PropertyFailure` of its first failing batch, whose message
names the property, the input and a repro line; Hypothesis shrinks it first.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import example, given, target
from hypothesis.control import currently_in_test_context

from . import callables, catalog, signature
from .properties import check_recipe
from .registry import SANITIZERS
from .strategies import CLASSIC, GRAD_KINDS, STRATA, BatchRecipe, RowRecipe, batches, lengths

#: One row of each kind that breaks kernels, for the tests that pick lengths themselves.
MIXED = tuple(RowRecipe(values=v, mask=m, seed=i) for i, (v, m) in enumerate(
    [("randn", "none"), ("randn", "first"), ("randn", "tail"), ("randn", "causal"),
     ("huge", "none"), ("equal", "random"), ("dominant", "none"), ("randn", "full")]))


def holds_every_property(subject, recipe: BatchRecipe):
    """Every property of ``subject`` on the batch ``recipe`` describes (rows too long for it cut
    to its limit)."""
    if not subject.supports(recipe.n_cols):
        recipe = replace(recipe, n_cols=subject.max_cols)
    report = check_recipe(subject, recipe)
    if currently_in_test_context():  # climb towards the rows with the largest error
        target(report.max_bound_ratio, label="error / bound")
    report.raise_if_failed()


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_the_kernel_compiles_offline_without_spills(subject_ref, arch):
    """NVRTC with CuPy's options, no GPU needed (cuda-bindings and nvidia-cuda-nvrtc)."""
    if callables.is_callable_ref(subject_ref):
        pytest.skip("a Python callable: nothing to compile")
    pytest.importorskip("cuda.bindings.nvrtc", reason="the offline compile needs cuda-bindings")
    from .compiler import compile_offline, resources

    spec = catalog.variant(subject_ref).spec
    result = compile_offline(spec.path, arch, ["-Xptxas=-v"])
    log = result["log"]
    assert result["cubin"], f"NVRTC returned an empty cubin for {spec.path}"
    if not log:  # seen where CuPy's own NVRTC is already loaded in the process: no ptxas report
        pytest.skip("NVRTC gave no ptxas report here (registers and spills unknown)")
    used = resources(log)
    assert spec.kernel in used, f"{spec.kernel} is not in {spec.path}"
    assert not any(spills for _, spills in used.values()), f"{spec.path} spills registers for {arch}:\n{log}"
    why = signature.mismatch(spec, result["cubin"])
    assert why is None, f"{spec.path}: {why}"


@pytest.mark.parametrize("tool", SANITIZERS)
def test_the_sanitizers_find_nothing(subject_ref, tool):
    """compute-sanitizer's tool over the kernel on a few adversarial batches, in a child process
    (it must report no error, and the child must probe the kernel)."""
    import shutil

    from . import gpu
    from .run.sanitize import sanitize

    if callables.is_callable_ref(subject_ref):
        pytest.skip("a Python callable: the sanitizers look at kernels")
    if not gpu.available():
        pytest.skip(gpu.SKIP_REASON)
    if shutil.which("compute-sanitizer") is None:
        pytest.skip("compute-sanitizer is not on PATH")
    result = sanitize(tool, [subject_ref])
    assert result["ok"], f"compute-sanitizer --tool={tool} on {subject_ref}: {result['errors']} errors\n" \
        f"{result['output'][-2000:]}"


# an op ignores what it does not take (a forward the gradient, a backward the bias)
@given(recipe=batches(lengths(long_rows=True), grads=GRAD_KINDS, fused=True))
@example(recipe=CLASSIC[0])
@example(recipe=CLASSIC[1])
@example(recipe=CLASSIC[2])
def test_every_property_holds_on_adversarial_batches(subject, recipe):
    holds_every_property(subject, recipe)


@pytest.mark.parametrize("recipe", CLASSIC, ids=lambda r: f"C{r.n_cols}-{r.rows[0].mask}")
def test_classic_failures_of_online_kernels(subject, recipe):
    holds_every_property(subject, recipe)


def test_the_stratified_design(subject):
    """Every value kind on a long row (plain, with a padding tail, with random -inf), past 65535
    rows, and rows past 2^17 that add one term many times: what a small example budget reaches
    rarely (``strategies.STRATA``); and what the op's own inputs need (``Op.strata``: each kind of
    incoming gradient, of bias, each scale)."""
    for recipe in STRATA + subject.operation.strata(STRATA):
        if subject.supports(recipe.n_cols):
            holds_every_property(subject, recipe)


@pytest.mark.parametrize("n_cols", [1, 2, 31, 33, 1000, 4097])
@pytest.mark.parametrize("offset", [0, 1])
def test_masked_rows_at_awkward_lengths(subject, n_cols, offset):
    holds_every_property(subject, BatchRecipe(n_cols, MIXED, n_rows=3 * len(MIXED), offset=offset))


def test_lengths_around_the_variant_edges(subject):
    threads = subject.threads or 32  # a callable's: around a warp, and a block of 256
    edges = {threads - 1, threads, threads + 1, 4 * threads + 3}
    if not subject.threads:
        edges |= {255, 256, 257, 1027}
    if subject.tile:  # split-row: a row over one, two and four blocks (with many rows) or the whole grid
        edges |= {subject.tile - 1, subject.tile, subject.tile + 1, 3 * subject.tile + 5}
    if subject.max_cols:
        edges |= {subject.max_cols - 1, subject.max_cols}
    for n_cols in sorted(e for e in edges if e >= 1 and subject.supports(e)):
        holds_every_property(subject, BatchRecipe(n_cols, MIXED, n_rows=len(MIXED), offset=3))


@pytest.mark.parametrize("offset,out_offset", [(0, 1), (1, 0), (2, 7)])
def test_output_misaligned_unlike_the_input(subject, offset, out_offset):
    """A kernel that moves a misaligned row in aligned vectors may not assume that the output row
    is misaligned the same way (a store would fault, or land in the wrong place)."""
    sizes = {1000, 4097}
    if subject.max_cols:
        sizes.add(subject.max_cols - 7)  # the largest that still fits a register tile with its shift
    if subject.tile:
        sizes.add(2 * subject.tile + 3)
    for n_cols in sorted(c for c in sizes if c >= 1 and subject.supports(c)):
        holds_every_property(subject, BatchRecipe(n_cols, MIXED, n_rows=len(MIXED), offset=offset,
                                                  out_offset=out_offset))


def test_inputs_misaligned_unlike_each_other(subject):
    """A kernel of two array inputs (y and dy, x and a bias or a mask) that moves them in aligned
    vectors may not assume that the second row is misaligned as the first (its loads would
    fault, or read the row shifted)."""
    if len(subject.operation.arrays) < 2:
        pytest.skip(f"{subject.op} takes one array")
    sizes = {1000, 4097}
    if subject.max_cols:
        sizes.add(subject.max_cols - 7)
    for offset, skew in ((0, 1), (1, 2), (3, 1)):
        for n_cols in sorted(c for c in sizes if c >= 1 and subject.supports(c)):
            holds_every_property(subject, BatchRecipe(n_cols, MIXED, n_rows=len(MIXED), offset=offset,
                                                      skew=skew))


@pytest.mark.parametrize("n_rows,n_cols", [(2_000_000, 3), (1_100_000, 33)])
def test_millions_of_rows(subject, n_rows, n_cols):
    holds_every_property(subject, BatchRecipe(n_cols, MIXED, n_rows=n_rows))


def test_a_batch_past_element_2_31(subject_ref):
    """Rows past element 2^31 (2^32 for 16-bit kernels): a 32-bit row offset shows here only.
    In a child process: a kernel that faults there poisons only that process's context."""
    from . import gpu, large_batch
    from .properties import PropertyFailure
    from .run.isolation import IsolatedFailure, run_isolated

    if not gpu.available():
        pytest.skip(gpu.SKIP_REASON)
    if not catalog.subject(subject_ref).on_gpu:
        pytest.skip("a CPU subject: 8 GiB batches are for the GPU")
    try:
        found = run_isolated(large_batch.check_ref, subject_ref, timeout=300,
                             what=f"{subject_ref} on the batch past element 2^31")
    except IsolatedFailure as exc:
        if isinstance(exc.__cause__, MemoryError):
            pytest.skip(f"too little device memory: {exc.__cause__}")
        found = ("launch", str(exc))
    if found:
        prop, message = found
        raise PropertyFailure({prop: f"{prop} failed on the batch past element 2^31: {message}"})


def test_the_output_is_ready_when_the_callers_stream_is(subject):
    """A kernel launched on a stream of its own passes every check that waits for the device, and
    fails a caller who reads the output after their own stream (see :mod:`streams`)."""
    from . import streams
    from .properties import PropertyFailure

    if not subject.on_gpu:
        pytest.skip("a CPU subject: it has no streams")
    found = streams.check(subject)
    if found:
        prop, message = found
        raise PropertyFailure({prop: f"{prop} failed on the caller's stream: {message}"})
