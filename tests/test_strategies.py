"""Recipes build the rows they describe, deterministically."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given

from softmax_harness.strategies import (
    CLASSIC,
    MASK_KINDS,
    VALUE_KINDS,
    BatchRecipe,
    RowRecipe,
    batches,
    build_batch,
    build_row,
    lengths,
)


@given(recipe=batches(lengths(limit=500), max_elements=2**14))
def test_batches_have_their_shape_and_dtype(recipe):
    x = build_batch(recipe)
    assert x.shape == recipe.shape and x.dtype == np.float32 and x.flags.c_contiguous
    np.testing.assert_array_equal(x, build_batch(recipe))  # deterministic in the recipe


@pytest.mark.parametrize("values", VALUE_KINDS)
@pytest.mark.parametrize("mask", MASK_KINDS)
def test_every_kind_builds(values, mask):
    row = build_row(RowRecipe(values=values, mask=mask, seed=7), 37, row_index=3)
    assert row.shape == (37,)
    if mask == "none":
        assert not np.isinf(row).any() or values in ("huge", "near_max")
    if mask == "full":
        assert (row == -np.inf).all()
    if mask == "first":
        assert row[0] == -np.inf


def test_causal_rows_keep_a_growing_prefix():
    x = build_batch(BatchRecipe(n_cols=6, rows=(RowRecipe(mask="causal"),), n_rows=8))
    kept = np.isfinite(x).sum(axis=1)
    np.testing.assert_array_equal(kept, [1, 2, 3, 4, 5, 6, 1, 2])


def test_specials_and_tails():
    row = build_row(RowRecipe(special="nan", count=3, seed=1), 10)
    assert np.isnan(row).sum() == 3
    row = build_row(RowRecipe(mask="tail", cut=0.5), 10)
    assert np.isfinite(row[:5]).all() and (row[5:] == -np.inf).all()


def test_interesting_lengths_respect_the_limit():
    @given(n=lengths(max_cols=100, threads=64))
    def within(n):
        assert 1 <= n <= 100

    within()


def test_classic_examples_are_the_seed_failures():
    shapes = [r.shape for r in CLASSIC]
    assert (1, 1) in shapes and any(r.rows[0].mask == "causal" for r in CLASSIC)


def test_the_hypothesis_profile_follows_the_environment(monkeypatch):
    """``ci`` under CI=true (derandomised, as CI must be), ``dev`` otherwise; --hypothesis-profile
    still overrides both (the plugin loads this default only when it is not given)."""
    from softmax_harness import profiles

    monkeypatch.setenv("CI", "true")
    assert profiles.default() == "ci"
    monkeypatch.setenv("CI", "")
    assert profiles.default() == "dev"
    monkeypatch.delenv("CI")
    assert profiles.default() == "dev"


def test_the_examples_do_not_change_with_what_else_is_imported(tmp_path, monkeypatch):
    """Hypothesis mixes the constants of every local module loaded into its draws, so a seeded
    hunt drew other batches when pytest collected other test modules; under
    ``profiles.fixed_examples`` (the battery, the gallery and the mutation hunts) it does not."""
    import importlib
    import sys

    from hypothesis import Phase, seed, settings

    from softmax_harness import profiles

    def drawn(fixed: bool) -> list:
        seen = []

        @seed(7)
        @settings(max_examples=60, database=None, phases=[Phase.generate], deadline=None)
        @given(recipe=batches(lengths(limit=5000), max_elements=2**14))
        def collect(recipe):
            seen.append(recipe)

        if fixed:
            with profiles.fixed_examples():
                collect()
        else:
            collect()
        return seen

    before = drawn(True)
    constants = ", ".join(str(n) for n in (4093, 77777, 123457, 2**31 - 7, 999983, 31337, 4099, 3001))
    (tmp_path / "many_constants.py").write_text(f"VALUES = [{constants}]\nRATIOS = [0.123, 9.5e-7, 1e30]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("many_constants")
    try:
        assert drawn(True) == before
        # what the fix is for: Hypothesis took the new module's constants into its pool, and
        # outside fixed_examples draws from it
        from hypothesis.internal.conjecture import providers

        assert 77777 in providers._get_local_constants().integers
    finally:
        sys.modules.pop("many_constants", None)
