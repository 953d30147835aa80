"""The harness testing itself, without a GPU: each planted defect in a NumPy stand-in
is caught by the property that should catch it, under the ``ci`` profile, a caught defect
shrinks to a small batch, and the correct stand-ins pass every property."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings

import standins
from softmax_harness.properties import PROPERTIES, Subject, check, check_recipe
from softmax_harness.strategies import CLASSIC, BatchRecipe, RowRecipe, batches, build_batch, lengths

CPU = dict(lens=lengths(limit=300), max_elements=2**14)
CI = settings(settings.get_profile("ci"), database=None, suppress_health_check=list(HealthCheck))
# Finding a defect is the generate phase; shrinking it is Hypothesis' work (and most of the
# time), checked once below.
HUNT = settings(CI, phases=[Phase.explicit, Phase.reuse, Phase.generate])


def holds(subject, properties=PROPERTIES, seen=None, budget=HUNT):
    """A Hypothesis test that every property holds on every batch (``seen`` collects each
    recipe with the failures it found)."""
    @budget
    @given(recipe=batches(**CPU))
    def every_batch(recipe):
        report = check_recipe(subject, recipe, properties=properties)
        if seen is not None:
            seen.append((recipe, report.failures))
        report.raise_if_failed()

    return every_batch


@pytest.mark.parametrize("fn,lanes,algorithm", [(standins.correct, 1, "safe"),
                                                (standins.online_guarded, 32, "online")])
def test_correct_kernels_pass_every_property(fn, lanes, algorithm):
    subject = Subject(fn.__name__, fn, lanes=lanes, algorithm=algorithm)
    holds(subject)()
    for recipe in CLASSIC:
        check_recipe(subject, recipe).raise_if_failed()


@pytest.mark.parametrize("name", sorted(standins.DEFECTS))
def test_each_defect_is_caught_by_its_property(name):
    defect = standins.DEFECTS[name]
    subject = Subject(name, defect.fn, lanes=defect.lanes, algorithm=defect.algorithm,
                      repro=f"<stand-in {name}>")
    seen = []
    # PropertyFailure, or Hypothesis' FlakyFailure for the defect that comes and goes
    with pytest.raises(Exception):  # noqa: B017
        holds(subject, (defect.catches,), seen)()
    failures = [f for _, f in seen if f]
    assert failures and all(list(f) == [defect.catches] for f in failures)
    message = failures[0][defect.catches]
    assert name in message and "reproduce:" in message


def test_a_caught_defect_shrinks_to_one_short_row():
    """The recipes shrink: Hypothesis takes a sum-before-max failure down to a single row of
    a few columns, which is what the failure report and its repro line then show."""
    defect = standins.DEFECTS["sum_before_max"]
    subject = Subject("sum_before_max", defect.fn, lanes=defect.lanes, algorithm=defect.algorithm)
    seen = []
    with pytest.raises(Exception):  # noqa: B017
        holds(subject, (defect.catches,), seen, budget=CI)()
    failing = [recipe for recipe, failures in seen if failures]
    shrunk = failing[-1]  # Hypothesis replays the minimal example last
    assert len(failing) > 1 and shrunk.n_rows == 1 and len(shrunk.rows) == 1 and shrunk.n_cols <= 4, shrunk


def test_failure_message_names_row_column_values_and_reproduction():
    recipe = CLASSIC[1]  # first element -inf, 33 columns
    subject = Subject("nan_merge", standins.nan_merge, lanes=32, algorithm="online", repro="nan_merge")
    report = check(subject, build_batch(recipe), recipe=recipe)
    message = report.failures["nonfinite_contract"]
    assert "row 0, column" in message and "input   x[0," in message and "expected" in message
    assert message.splitlines()[-1].strip().startswith(
        "reproduce: python -m softmax_harness repro nan_merge --recipe '{")


def test_an_output_misaligned_unlike_the_input_reaches_the_kernel():
    """The checks hand the kernel an output offset of its own, and a failure's repro line keeps it
    (the stand-in faults, as a vector store from the input's alignment would)."""
    def assumes_shared_misalignment(x, out):
        if (x.ctypes.data - out.ctypes.data) % 16:
            raise RuntimeError("misaligned address")
        standins.correct(x, out)

    subject = Subject("shared_misalignment", assumes_shared_misalignment)
    x = build_batch(CLASSIC[2])
    assert check(subject, x, offset=1).ok
    report = check(subject, x, offset=1, out_offset=2)
    assert "misaligned address" in report.failures["launch"]
    assert report.failures["launch"].rstrip().endswith("--offset 1 --out-offset 2")


def test_strided_rows_catches_a_subject_that_reads_a_view_as_contiguous():
    """A callable is handed rows further apart than their length (a view of a wider array, the gap
    holding a huge value): one that reads them as contiguous fails strided_rows and nothing else,
    one that refuses them passes, and a declared kernel (whose signature has no stride) is not
    judged by it."""
    def packed(x, out):  # a wrapper that hands a kernel the data pointer of a view
        rows = (x.shape[1] * x.itemsize, x.itemsize)
        standins.correct(np.lib.stride_tricks.as_strided(x, x.shape, rows), out)

    def refuses(x, out):
        if not x.flags.c_contiguous:
            raise ValueError("x is not contiguous")
        standins.correct(x, out)

    class CUDARuntimeError(RuntimeError):  # as CuPy's module names it
        pass

    CUDARuntimeError.__module__ = "cupy_backends.cuda.api.runtime"

    def faults(x, out):  # a view read past its end: the device faults, which is no refusal
        if not x.flags.c_contiguous:
            raise CUDARuntimeError("cudaErrorIllegalAddress: an illegal memory access was encountered")
        standins.correct(x, out)

    x = build_batch(CLASSIC[2])
    fault = check(Subject("faults", faults, strided=True), x)
    assert list(fault.failures) == ["strided_rows"]
    assert "device fault (CUDARuntimeError: cudaErrorIllegalAddress" in fault.failures["strided_rows"]
    report = check(Subject("packed", packed, strided=True), x)
    assert list(report.failures) == ["strided_rows"], report.failures
    assert "reads its input as if its rows were contiguous" in report.failures["strided_rows"]
    assert check(Subject("packed", packed), x).ok  # not a strided subject: never given a view
    assert check(Subject("refuses", refuses, strided=True), x).ok
    assert check(Subject("correct", standins.correct, strided=True), x).ok


USERMOD = """
import numpy as np

def wide(x):
    m = x.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(x.astype(np.float64) - m)
    return e / e.sum(axis=1, keepdims=True)

wide.__softmax_harness__ = {"arrays": "numpy"}

def wide_found(x):
    return wide(x)

def by_stride(x):
    return wide(x).astype(x.dtype)

by_stride.__softmax_harness__ = {"strided": "no"}

def forgot_to_return(x):
    wide(x)

forgot_to_return.__softmax_harness__ = {"arrays": "numpy"}

def as_list(x):
    return wide(x).astype(x.dtype).tolist()

as_list.__softmax_harness__ = {"arrays": "numpy"}
"""


def test_a_callable_returns_its_inputs_shape_and_type_or_is_named(tmp_path, monkeypatch):
    """A result in another element type (here float64 for float32 rows) is not converted into the
    output quietly: the launch fails, in one line that says what came back."""
    from softmax_harness import callables

    (tmp_path / "usermod_types.py").write_text(USERMOD)
    monkeypatch.syspath_prepend(tmp_path)
    report = check(callables.subject("usermod_types:wide"), build_batch(CLASSIC[1]))
    assert list(report.failures) == ["launch"]
    assert ("usermod_types:wide returned ndarray of shape (1, 33) and type float64 for an input of shape "
            "(1, 33) and type float32") in report.failures["launch"]
    with pytest.raises(callables.SubjectError, match="strided='no' is not True or False"):
        callables.subject("usermod_types:by_stride")
    found = "usermod_types:wide_found"  # its arrays found by calling it: that call names it
    with pytest.raises(callables.SubjectError, match=rf"subject '{found}': {found} returned ndarray of shape "
                       r"\(2, 8\) and type float64 for an input of shape \(2, 8\) and type float32"):
        callables.subject(found)
    for name, what in (("forgot_to_return", "None"), ("as_list", "a list (not an array)")):
        report = check(callables.subject(f"usermod_types:{name}"), build_batch(CLASSIC[1]))
        assert list(report.failures) == ["launch"]
        assert (f"usermod_types:{name} returned {what} for an input of shape (1, 33) and type float32: "
                "a result must have its input's shape and type") in report.failures["launch"]


@pytest.mark.parametrize("declared,problem", [
    ('"online"', "__softmax_harness__ is a str, not a dict of what it declares"),
    ('{"lanes": "many"}', "lanes='many' is not a whole number from 1"),
    ('{"lanes": 0}', "lanes=0 is not a whole number from 1"),
    ('{"max_cols": -5}', "max_cols=-5 is not a whole number from 1"),
    ('{"fast_math": "yes"}', "fast_math='yes' is not True or False"),
    ('{"name": 3}', "name=3 is not a name"),
    ('{"device": "tpu"}', "device='tpu' is not one of cpu, cuda"),
    ('{"arrays": "cupy", "device": "cpu"}', "cupy arrays do not live on device=cpu"),
])
def test_a_malformed_declaration_refuses_the_subject_in_one_line(tmp_path, monkeypatch, declared, problem):
    """What a callable declares is checked before it is used: a lane count of 0 or a negative
    row limit would otherwise reach the bound or the battery's inputs as nonsense."""
    from softmax_harness import callables

    module = f"usermod_{tmp_path.name}"  # a module of its own for each case: imports are cached
    (tmp_path / f"{module}.py").write_text(USERMOD + f"\nwide.__softmax_harness__ = {declared}\n")
    monkeypatch.syspath_prepend(tmp_path)
    with pytest.raises(callables.SubjectError) as found:
        callables.subject(f"{module}:wide")
    assert str(found.value) == f"subject '{module}:wide': {problem}"


def test_an_element_type_this_machine_cannot_make_refuses_the_subject_in_one_line(tmp_path, monkeypatch):
    from softmax_harness import callables, dtypes

    def missing(self):
        raise TypeError("bfloat16 needs the ml_dtypes package (pip install ml_dtypes)")

    (tmp_path / "usermod_types.py").write_text(USERMOD)
    monkeypatch.syspath_prepend(tmp_path)
    monkeypatch.setattr(dtypes.Format, "numpy", missing)
    with pytest.raises(callables.SubjectError, match=r"subject 'usermod_types:wide:bfloat16': bfloat16 needs "
                       r"the ml_dtypes package \(pip install ml_dtypes\)"):
        callables.subject("usermod_types:wide:bfloat16")


def test_a_strided_launch_lays_each_input_row_pitch_elements_apart():
    from softmax_harness.buffers import GUARD, Buffers

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    mask = np.zeros((3, 4), bool)
    b = Buffers(np, (x, mask, np.float32(2)), (1, 2, 3), pitch=5)
    view, under, scale = b.inputs
    np.testing.assert_array_equal(view, x)
    assert view.strides == (9 * 4, 4) and under.strides == (9, 1) and scale == 2
    assert (b.arrays[0][GUARD + 1 + 4:GUARD + 1 + 9] == b.arrays[0][0]).all()  # the gap holds the guard
    assert b.y.flags.c_contiguous and b.y.shape == (3, 4)


def test_properties_need_no_pytest():
    report = check(Subject("correct", standins.correct), build_batch(CLASSIC[2]))
    assert report.ok and 0 < report.max_bound_ratio < 1 and report.max_ulps >= 0


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("fn", [standins.half_correct, standins.half_folded], ids=lambda f: f.__name__)
def test_a_correct_half_precision_kernel_passes_every_property(fn, dtype):
    """Among them the arithmetic of the 16-bit split-row store, under the bound of exp=folded
    (which charges bounds.FOLD_ULPS for it)."""
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    folded = fn is standins.half_folded
    holds(Subject(f"{fn.__name__}[{dtype}]", fn, dtype=dtype, fast_math=folded, exp="folded"))()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_the_folded_store_holds_on_both_sides_of_its_limit(dtype):
    """Rows whose maxima put s' = m log2e + log2 d on either side of the limit of 1024."""
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    peaks = np.r_[-760:-640:4, 0, 640:760:4]  # the switch is at |m| ~ 700
    x = (peaks[:, None] + np.random.default_rng(7).standard_normal((peaks.size, 1000)) * 3).astype(np.float32)
    subject = Subject(f"half_folded[{dtype}]", standins.half_folded, dtype=dtype, fast_math=True,
                      exp="folded")
    report = check(subject, x, offset=1)
    assert report.ok, report.failures


def test_float16_arithmetic_is_caught_by_the_half_precision_bound():
    subject = Subject("half_arithmetic", standins.half_arithmetic, dtype="float16")
    x = build_batch(BatchRecipe(n_cols=2000, rows=(RowRecipe(values="randn", seed=3),), n_rows=4))
    report = check(subject, x, properties=("matches_reference",))
    assert "matches_reference" in report.failures
