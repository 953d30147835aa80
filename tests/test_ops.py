"""The ops beyond the forward softmax: their float64 references against values worked out by
hand, their contracts for non-finite input, how tight their bounds are on a correct kernel, and
the properties of their own, each catching a defect that nothing else does."""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np
import pytest

from softmax_harness import bounds, ops
from softmax_harness.ops.backward import backward_reference
from softmax_harness.ops.log_softmax import log_softmax_reference
from softmax_harness.properties import Subject, check, check_recipe
from softmax_harness.registry import HeaderError, parse_file
from softmax_harness.strategies import STRATA, BatchRecipe, RowRecipe

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
import op_mutants  # noqa: E402

INF, NAN = math.inf, math.nan


def rows(*values):
    return np.array(values, np.float32)


# ---- The backward's reference and contract.

def test_the_backward_of_a_uniform_row():
    # y = (1/2, 1/2), dy = (1, -1): s = 0, dx = y * dy
    np.testing.assert_array_equal(backward_reference(rows([0.5, 0.5]), rows([1.0, -1.0])), [[0.5, -0.5]])


def test_the_backward_of_a_certain_row_is_zero():
    # y one-hot: s = dy at the hot position, so dx = 1 * (dy_k - dy_k) there and 0 elsewhere
    dx = backward_reference(rows([0.0, 1.0, 0.0]), rows([7.0, -3.0, 2.0]))
    np.testing.assert_array_equal(dx, [[0, 0, 0]])


def test_the_backward_of_a_general_row():
    y, dy = [0.25, 0.75], [2.0, 6.0]  # s = 0.5 + 4.5 = 5
    np.testing.assert_array_equal(backward_reference(rows(y), rows(dy)), [[0.25 * -3.0, 0.75 * 1.0]])


@pytest.mark.parametrize("y,dy,expected", [
    ([NAN, NAN], [1.0, 2.0], [NAN, NAN]),       # the forward of a poisoned or fully masked row
    ([0.5, 0.5], [NAN, 1.0], [NAN, NAN]),       # a NaN gradient poisons s
    ([0.0, 1.0], [INF, 1.0], [NAN, NAN]),       # 0 * inf is NaN: torch's formula, not skipped
    ([0.5, 0.5], [INF, 1.0], [NAN, -INF]),      # s = inf: inf - inf, then 1 - inf
    ([0.0, 0.0], [3.0, -1.0], [0.0, 0.0]),      # a fully masked row under the masked convention
])
def test_the_backward_contract_for_non_finite_values(y, dy, expected):
    np.testing.assert_array_equal(backward_reference(rows(y), rows(dy)), [expected])


def test_the_backward_is_zero_where_y_is_zero_in_the_contract():
    subject = Subject("ref", lambda y, dy, out: out.__setitem__(..., backward_reference(y, dy)),
                      op="softmax_backward")
    y = rows([0.0, 0.5, 0.5])
    report = check(subject, (y, rows([1e30, 1.0, 2.0])))
    assert report.ok, report.failures


# ---- The log_softmax backward's reference and contract.

@pytest.mark.parametrize("z,dy,expected", [
    ([-math.log(2), -math.log(2)], [1.0, 3.0], [1.0 - 2.0, 3.0 - 2.0]),  # p = 1/2 each, s = 4
    ([-INF, 0.0], [5.0, 1.0], [5.0, 1.0 - 6.0]),  # masked: dx = dy exactly; s = 6, p = (0, 1)
    ([-INF, 0.0], [NAN, 1.0], [NAN, NAN]),        # a NaN gradient poisons s, and 0 * NaN is NaN
    ([NAN, 0.0], [1.0, 1.0], [NAN, 1.0 - 2.0]),   # NaN where z is: exp(NaN) * s
])
def test_the_log_softmax_backward_against_values_worked_by_hand(z, dy, expected):
    from softmax_harness.ops.log_softmax_backward import log_softmax_backward_reference

    got = log_softmax_backward_reference(rows(z), rows(dy))[0]
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=0)


def test_a_fast_exponential_in_the_log_softmax_backward_needs_its_declared_bound():
    """exp(z) as ex2.approx(z * log2 e) is off by 2u |z| more than expf: on a row where p s cancels
    dy down to z = -80, it stays within the fast_math bound and goes past expf's."""
    from op_mutants import ctl_log_backward_fast_exp

    from softmax_harness.ops.log_softmax_backward import log_softmax_backward_bound as bound
    from softmax_harness.ops.log_softmax_backward import log_softmax_backward_reference as reference

    z = np.linspace(-80, -0.01, 64).astype(np.float32)[None, :]
    dy = (np.exp(z.astype(np.float64)) * 1e6).astype(np.float32)  # dx near 0 where p s is near dy
    dx = np.empty_like(dy)
    ctl_log_backward_fast_exp(z, dy, dx)
    ref = reference(z, dy)
    error = np.abs(dx - ref)
    assert (error <= bound(z, dy, ref, lanes=32, fast_math=True)).all()
    assert (error > bound(z, dy, ref, lanes=32)).any()


# ---- log_softmax's reference and contract.

@pytest.mark.parametrize("x,expected", [
    ([0.0, 0.0], [-math.log(2), -math.log(2)]),
    ([1.0, 0.0], [-math.log1p(math.exp(-1.0)), -1.0 - math.log1p(math.exp(-1.0))]),
    ([-INF, 5.0], [-INF, 0.0]),
    ([-INF, -INF], [NAN, NAN]),
    ([NAN, 1.0], [NAN, NAN]),
    ([INF, 1.0], [NAN, NAN]),
    ([2.0**100, 0.0], [0.0, -(2.0**100)]),
])
def test_log_softmax_against_values_worked_by_hand(x, expected):
    got = log_softmax_reference(rows(x))[0]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


# ---- How tight the bounds are: a correct float32 kernel (a NumPy model computing as a kernel
# would) reaches a good part of them on short rows, and never exceeds them.

@pytest.mark.parametrize("name,least", [("bwd_warp", 0.25), ("lsm_warp", 0.25), ("bwd_half_bf16", 0.5),
                                        ("lsm_half_f16", 0.5), ("bias_warp", 0.25), ("causal_warp", 0.25),
                                        ("mask_half_f16", 0.5)])
def test_a_correct_kernel_reaches_a_good_part_of_its_bound(name, least):
    model = op_mutants.CONTROLS[name]
    subject = Subject(name, model.fn, lanes=model.lanes, dtype=model.dtype, op=model.op, vector=model.vector)
    if model.dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    worst = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for recipe in STRATA[:40] + subject.operation.strata(STRATA):
            report = check_recipe(subject, recipe)
            assert report.ok, report.failures
            worst = max(worst, report.max_bound_ratio)
    assert least <= worst <= 1, worst


# ---- The properties of their own, each catching what the rest let through.

def _model(name):
    m = {**op_mutants.MUTANTS, **op_mutants.CONTROLS}[name]
    return Subject(name, m.fn, lanes=m.lanes, op=m.op, fast_math=m.fast_math, exp="ex2", vector=m.vector)


def test_linear_in_dy_catches_an_epsilon_that_the_bound_allows():
    recipe = BatchRecipe(n_cols=4097, rows=(RowRecipe(seed=1),), n_rows=4)
    failures = check_recipe(_model("bwd_dot_plus_epsilon"), recipe).failures
    assert list(failures) == ["linear_in_dy"], failures
    assert check_recipe(_model("bwd_warp"), recipe).ok


def test_nonpositive_catches_a_log_a_hair_low_that_the_bound_allows():
    recipe = BatchRecipe(n_cols=33, rows=(RowRecipe(values="dominant", seed=2),), n_rows=3)
    failures = check_recipe(_model("lsm_lg2_approx_unclamped"), recipe).failures
    assert list(failures) == ["nonpositive"], failures


def test_only_inputs_misaligned_unlike_each_other_show_a_kernel_that_lines_dy_up_by_y():
    subject = _model("bwd_dy_at_y_alignment")
    recipe = BatchRecipe(n_cols=1000, rows=(RowRecipe(),), n_rows=8, offset=1)
    assert check_recipe(subject, recipe).ok  # alike: every property holds
    report = check_recipe(subject, BatchRecipe(n_cols=1000, rows=(RowRecipe(),), n_rows=8, offset=1, skew=1))
    assert "matches_reference" in report.failures and "--recipe" in report.failures["matches_reference"]
    assert '"skew":1' in report.failures["matches_reference"]  # the repro replays the skew


def test_a_flushed_subnormal_y_may_turn_an_infinite_gradient_into_nan():
    """y subnormal beside dy = +inf: the reference's s is +inf and dx is -inf; a kernel compiled with
    flush-to-zero (CuPy's default) reads y as 0, so 0 * inf makes s, and the row, NaN. Either is
    right; the same NaN without a subnormal y is not."""
    y = np.array([[1e-40, 3e-40, 1.0 - 4e-40]], np.float32)
    dy = np.array([[np.inf, 0.5, -0.25]], np.float32)

    def flushing(y, dy, out):
        y0 = np.where(np.abs(y) < 2.0**-126, np.float32(0), y)
        with np.errstate(invalid="ignore"):
            out[...] = y0 * (dy - (y0 * dy).sum(axis=1, keepdims=True))

    subject = Subject("flushing", flushing, op="softmax_backward")
    assert "nonfinite_contract" not in check(subject, (y, dy)).failures
    # the same NaN row where y holds no subnormal: the reference's -inf must be there
    normal = np.array([[1e-30, 3e-30, 1.0 - 4e-30]], np.float32)
    assert np.isneginf(backward_reference(normal.astype(np.float64), dy.astype(np.float64))[0, 1:]).all()

    def nan_row(y, dy, out):
        out[...] = np.nan

    assert "nonfinite_contract" not in check(Subject("nan_row", nan_row, op="softmax_backward"), (y, dy),
                                             properties=("nonfinite_contract",)).failures
    assert "nonfinite_contract" in check(Subject("nan_row", nan_row, op="softmax_backward"), (normal, dy),
                                         properties=("nonfinite_contract",)).failures


def test_the_nonfinite_contract_wants_a_masked_nan_gradient_to_poison_its_row():
    y = rows([0.0, 0.5, 0.5])
    dy = rows([NAN, 1.0, 2.0])
    failures = check(_model("bwd_skips_masked_terms"), (y, dy)).failures
    assert "nonfinite_contract" in failures, failures
    assert check(_model("bwd_warp"), (y, dy)).ok


# ---- Headers and callables name their op.

def test_a_backward_kernel_declares_its_op_and_takes_y_dy_out(tmp_path):
    path = tmp_path / "b.cu"
    path.write_text("// @variant name=b op=softmax_backward kernel=b algorithm=safe geometry=warp-per-row "
                    "threads=128\n// @variant name=c op=softmax_backward kernel=c algorithm=safe "
                    "geometry=warp-per-row threads=128 args=dy,y,out,cols,rows\n")
    b, c = parse_file(path)
    assert (b.op, b.args, c.args) == ("softmax_backward", ("y", "dy", "out", "rows", "cols"),
                                       ("dy", "y", "out", "cols", "rows"))
    assert ops.of(b.op).properties[-5:] == ("sums_to_zero", "linear_in_dy", "deterministic",
                                            "rows_independent", "strided_rows")


@pytest.mark.parametrize("header,problem", [
    ("op=softmax_backward args=in,out,rows,cols", "'in' is not one of y, dy, out, rows, cols, stride"),
    ("op=softmax_backward args=y,out,rows,cols", "must name y, dy, out, rows and cols once each"),
    ("op=sideways", "op='sideways' is not one of softmax, softmax_backward, log_softmax"),
    ("op=log_softmax convention=masked", "convention='masked' is not one of torch"),
])
def test_a_malformed_op_header_names_the_problem(tmp_path, header, problem):
    path = tmp_path / "k.cu"
    path.write_text(f"// @variant name=k kernel=k algorithm=safe geometry=warp-per-row threads=128 "
                    f"{header}\n")
    with pytest.raises(HeaderError, match=r"k\.cu:1: .*" + problem.replace("(", r"\(")):
        parse_file(path)


def test_a_split_row_kernel_takes_its_ops_arrays_in_order(tmp_path):
    """A split-row kernel of any op takes the op's arrays, out, rows and cols, then the workspace
    and the blocks a row; another order is refused."""
    path = tmp_path / "k.cu"
    path.write_text("// @variant name=k op=softmax_backward kernel=k algorithm=safe geometry=split-row "
                    "threads=256 tile=8188\n")
    (spec,) = parse_file(path)
    assert spec.args == ("y", "dy", "out", "rows", "cols")
    path.write_text("// @variant name=k op=log_softmax kernel=k algorithm=online geometry=split-row "
                    "threads=512 tile=1024 args=out,in,rows,cols\n")
    with pytest.raises(HeaderError, match="split-row takes its op's arrays, out, rows and cols in"):
        parse_file(path)


BACKWARD_MODULE = '''
import numpy as np

def backward(y, dy):
    s = (y.astype(np.float64) * dy).sum(axis=1, keepdims=True)
    return (y * (dy - s)).astype(y.dtype)

backward.__softmax_harness__ = {"op": "softmax_backward", "arrays": "numpy"}

def one(y):
    return y

one.__softmax_harness__ = {"op": "softmax_backward"}

def tiled(y, dy, out):
    backward(y, dy, out)

tiled.__softmax_harness__ = {"op": "softmax_backward", "arrays": "numpy", "lanes": 8, "vector": 4}

def odd(y, dy, out):
    backward(y, dy, out)

odd.__softmax_harness__ = {"op": "softmax_backward", "arrays": "numpy", "vector": 3}
'''


def test_a_backward_callable_runs_the_properties_of_its_op(tmp_path, monkeypatch):
    from softmax_harness import callables

    (tmp_path / "bwdmod.py").write_text(BACKWARD_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    subject = callables.subject("bwdmod:backward")
    assert subject.op == "softmax_backward" and not subject.on_gpu
    report = check_recipe(subject, BatchRecipe(n_cols=100, rows=(RowRecipe(mask="tail"),), n_rows=5,
                                               grad="opposite"))
    assert report.ok, report.failures
    with pytest.raises(callables.SubjectError, match=r"expected fn\(y, dy\) -> out or fn\(y, dy, out\)"):
        callables.subject("bwdmod:one")
    # a tile that sums its vectors as trees says so, and its bound's chain follows
    tiled = callables.subject("bwdmod:tiled")
    assert tiled.vector == 4
    assert tiled.chain(1000) == bounds.chain_length(1000, 8, 4) < bounds.chain_length(1000, 8)
    with pytest.raises(callables.SubjectError, match="subject 'bwdmod:odd': vector=3 is not a power of two"):
        callables.subject("bwdmod:odd")


# ---- The fused forward: its reference, contract, inputs and properties.

def test_the_fused_reference_forms_t_in_float32_as_written():
    """t = scale * x + bias, each operation rounded to float32; then the softmax of t."""
    bias_op = ops.of("scaled_softmax_bias")
    x, bias = rows([1.0, 2.0, 3.0]), rows([0.0, math.log(2.0), -INF])
    got = bias_op.reference((x, bias, np.float32(2.0)))[0]
    t = np.float32(4.0) + np.float32(math.log(2.0))  # rounded once more to float32
    e = np.exp([2.0 - float(t), 0.0])
    np.testing.assert_allclose(got, [*(e / e.sum()), 0.0], rtol=1e-15)
    # an infinity of t under a -inf bias: inf + -inf is NaN, and the row NaN
    assert np.isnan(bias_op.reference((rows([1.0, 3e38]), rows([0.0, -INF]), np.float32(2.0)))).all()
    # 3e38 * 2 overflows to +inf in float32 (and the row is NaN, as torch's), although not in float64
    assert np.isnan(bias_op.reference((rows([1.0, 3e38]), rows([0.0, 0.0]), np.float32(2.0)))).all()


def test_the_mask_and_causal_forms_mask_what_they_say():
    x = rows([5.0, 1.0, 2.0], [5.0, 1.0, 2.0], [5.0, 1.0, 2.0], [5.0, 1.0, 2.0])
    causal = ops.of("scaled_softmax_causal").reference((x, np.float32(-1.0)))
    assert causal[0].tolist() == [1.0, 0.0, 0.0] and causal[3].tolist() == [1.0, 0.0, 0.0]  # row 3: 3 % 3 = 0
    e = np.exp([-4.0, 0.0])
    np.testing.assert_allclose(causal[1][:2], e / e.sum(), rtol=1e-15)
    mask = np.array([[True, False, False]] * 4)
    masked = ops.of("scaled_softmax_mask").reference((x, mask, np.float32(1.0)))
    assert (masked[:, 0] == 0).all()
    full = ops.of("scaled_softmax_mask").reference((x, np.ones_like(mask), np.float32(1.0)))
    assert np.isnan(full).all()  # torch's convention for a row masked throughout


def test_the_fused_inputs_keep_the_logits_and_hide_junk_under_the_mask():
    recipe = BatchRecipe(n_cols=50, rows=(RowRecipe(values="ties", mask="random", count=4, seed=3),),
                         n_rows=6, scale=-0.25)
    from softmax_harness.strategies import build_batch

    logits = build_batch(recipe)
    x, mask, scale = ops.of("scaled_softmax_mask").build(logits, recipe)
    assert mask.dtype == bool and (mask == (logits == -INF)).all() and scale == np.float32(-0.25)
    assert (x[mask] == np.float32(1e30)).all()
    kept = ~mask
    np.testing.assert_allclose(x[kept] * scale, logits[kept], rtol=2**-23)
    x, _ = ops.of("scaled_softmax_causal").build(logits, recipe)
    assert x[0, 1] == np.float32(1e30) and x[5, 5] != np.float32(1e30)


def test_ignores_masked_alone_catches_a_kernel_that_reads_under_its_mask():
    """A mask added as 0 / -inf is right for every finite x, but a NaN under the mask poisons the
    row: only ignores_masked puts one there."""
    recipe = BatchRecipe(n_cols=257, rows=(RowRecipe(mask="random", count=9, seed=2), RowRecipe(seed=3)),
                         n_rows=4, scale=0.125)
    for bad, good in (("mask_additive", "mask_warp"), ("causal_additive", "causal_warp")):
        failures = check_recipe(_model(bad), recipe).failures
        assert list(failures) == ["ignores_masked"], (bad, failures)
        assert check_recipe(_model(good), recipe).ok


def test_the_bias_bound_allows_a_fused_multiply_add():
    """scale * x + bias in one rounding differs from the contract's two roundings by up to an ulp
    of t: the bound's D term takes it, on rows where t's exponent makes that matter."""
    kinds = (RowRecipe(values="offset", seed=5), RowRecipe(values="wide", seed=6))
    recipe = BatchRecipe(n_cols=4097, rows=kinds, n_rows=4, scale=3.0, bias="randn")
    report = check_recipe(_model("bias_fused"), recipe)
    assert report.ok, report.failures


def test_a_fused_kernel_declares_its_op_and_takes_its_scale_last(tmp_path):
    path = tmp_path / "f.cu"
    path.write_text("// @variant name=f op=scaled_softmax_mask kernel=f algorithm=safe geometry=warp-per-row "
                    "threads=128\n// @variant name=g op=scaled_softmax_causal kernel=g algorithm=safe "
                    "geometry=warp-per-row threads=128 args=scale,in,out,rows,cols\n")
    f, g = parse_file(path)
    assert f.args == ("in", "mask", "out", "rows", "cols", "scale")
    assert g.args == ("scale", "in", "out", "rows", "cols")
    assert ops.of(f.op).properties[-4:] == ("ignores_masked", "deterministic", "rows_independent",
                                            "strided_rows")


FUSED_MODULE = '''
import numpy as np

def causal(x, scale):
    t = (x * np.float32(scale)).astype(np.float32)
    n_rows, n_cols = x.shape
    hidden = np.arange(n_cols)[None, :] > (np.arange(n_rows) % n_cols)[:, None]
    t = np.where(hidden, np.float32(-np.inf), t)
    e = np.exp(t - t.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(x.dtype)

causal.__softmax_harness__ = {"op": "scaled_softmax_causal", "arrays": "numpy"}

def no_scale(x):
    return x

no_scale.__softmax_harness__ = {"op": "scaled_softmax_causal"}
'''


def test_a_fused_callable_takes_its_scale_and_runs_the_properties_of_its_op(tmp_path, monkeypatch):
    from softmax_harness import callables

    (tmp_path / "fusedmod.py").write_text(FUSED_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    subject = callables.subject("fusedmod:causal")
    report = check_recipe(subject, BatchRecipe(n_cols=100, rows=(RowRecipe(values="spread"),), n_rows=150,
                                               scale=-0.25))
    assert report.ok, report.failures
    want = r"expected fn\(x, scale\) -> out or fn\(x, scale, out\)"
    with pytest.raises(callables.SubjectError, match=want):
        callables.subject("fusedmod:no_scale")


def test_a_fused_failure_saves_its_inputs_by_role_and_the_repro_replays_them(tmp_path, monkeypatch):
    """The .npz of a failure holds the mask as bool and the scale as a scalar; repro reads them."""
    from softmax_harness import cli, properties

    monkeypatch.setattr(properties, "REPRO_DIR", [tmp_path])
    x = rows([1.0, 500.0, 2.0], [0.5, 0.25, 3.0])
    mask = np.array([[False, True, False], [False, False, False]])
    report = check(_model("mask_max_over_masked"), (x, mask, np.float32(0.5)))
    assert "nonfinite_contract" in report.failures
    saved = next(tmp_path.glob("input-*.npz"))
    data = np.load(saved)
    assert data["mask"].dtype == bool and data["scale"].shape == () and float(data["scale"]) == 0.5
    subject = _model("mask_max_over_masked")
    loaded = cli._load_inputs(str(saved), subject)
    assert check(subject, loaded).failures.keys() == report.failures.keys()


def test_a_16_bit_gradient_past_the_format_is_an_infinity():
    """dx = 1 - 131075 in a float16 row of 131075 ones: the correct store is -inf (past 65504);
    a store that saturates to the largest finite value is wrong."""
    pytest.importorskip("ml_dtypes")
    recipe = BatchRecipe(n_cols=131075, rows=(RowRecipe(values="offset", mask="causal", seed=2452246),),
                         n_rows=1, grad="equal")
    z = np.full((1, 131075), -np.inf, np.float32)
    z[0, 0] = 0.0
    dy = np.ones((1, 131075), np.float32)
    model = op_mutants.CONTROLS["lsmb_half_f16"]
    subject = Subject("lsmb_half_f16", model.fn, lanes=model.lanes, dtype="float16", op=model.op)
    assert check(subject, (z, dy)).ok
    assert check_recipe(subject, recipe).ok  # the thorough profile's find, before the store's rule

    def saturating(z, dy, out):
        model.fn(z, dy, out)
        np.clip(out, -65504, 65504, out=out)

    failures = check(Subject("saturating", saturating, lanes=model.lanes, dtype="float16", op=model.op),
                     (z, dy)).failures
    assert "nonfinite_contract" in failures and "matches_reference" not in failures, failures
