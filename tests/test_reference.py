"""The float64 reference against an independent computation and its written contract."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from softmax_harness import reference_softmax

INF, NAN = math.inf, math.nan


def softmax_by_fsum(row):
    """Softmax of one row of Python floats, by math.fsum, with the contract spelled out."""
    if any(math.isnan(v) for v in row) or any(v == INF for v in row) or all(v == -INF for v in row):
        return [NAN] * len(row)
    peak = max(row)
    exps = [0.0 if v == -INF else math.exp(v - peak) for v in row]
    total = math.fsum(exps)
    return [e / total for e in exps]


FINITE32 = st.floats(width=32, allow_nan=False, allow_infinity=False)


@given(st.lists(st.one_of(FINITE32, st.just(-INF)), min_size=1, max_size=60))
def test_matches_an_independent_fsum_softmax(row):
    x = np.array([row], np.float32)
    expected = softmax_by_fsum([float(v) for v in x[0]])
    np.testing.assert_allclose(reference_softmax(x)[0], expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("row,expected", [
    ([0.0, math.log(3.0)], [0.25, 0.75]),
    ([5.0, 5.0, 5.0, 5.0], [0.25] * 4),
    ([-INF, 0.0], [0.0, 1.0]),
    ([0.0, -INF, -INF], [1.0, 0.0, 0.0]),
    ([3e38, -3e38], [1.0, 0.0]),
    ([NAN, 1.0], [NAN, NAN]),
    ([INF, 1.0], [NAN, NAN]),
    ([INF, INF], [NAN, NAN]),
    ([-INF, -INF], [NAN, NAN]),
])
def test_contract_like_torch(row, expected):
    got = reference_softmax(np.array([row], np.float32))[0]
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    finite = ~np.isnan(got)  # rtol: log(3) is rounded to float32 on the way in
    np.testing.assert_allclose(got[finite], np.array(expected)[finite], rtol=1e-7)


def test_masked_exactly_zero():
    got = reference_softmax(np.array([[1.0, -INF, 2.0, -INF]], np.float32))[0]
    assert got[1] == 0.0 and got[3] == 0.0


def test_masked_convention_gives_zeros_for_fully_masked_rows_only():
    x = np.array([[-INF, -INF], [NAN, 0.0], [0.0, 0.0]], np.float32)
    got = reference_softmax(x, "masked")
    assert (got[0] == 0).all()
    assert np.isnan(got[1]).all()
    np.testing.assert_array_equal(got[2], [0.5, 0.5])


def test_is_float64_and_keeps_shape():
    got = reference_softmax(np.zeros((3, 0), np.float32))
    assert got.shape == (3, 0)
    assert reference_softmax(np.ones((2, 3), np.float32)).dtype == np.float64


def test_unknown_convention_is_an_error():
    with pytest.raises(ValueError, match="convention"):
        reference_softmax(np.ones((1, 2), np.float32), "sideways")
