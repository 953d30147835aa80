"""The mutation score: each model of ``tests/mutants.py`` hunted through the battery's strategies
under the active Hypothesis profile (``--hypothesis-profile``; CI runs ``ci``), every property
checked. A mutant counts as caught when its declared property fails; a control must pass
everything. The terminal summary prints the score, the survivors and, per property, the mutants
that only it caught (``conftest.py``)."""

from __future__ import annotations

import contextlib
import os

import mutants
import op_mutants
import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import FlakyFailure

from softmax_harness import ops, profiles
from softmax_harness.properties import PropertyFailure, Subject, check_recipe
from softmax_harness.strategies import STRATA, batches, lengths

pytestmark = pytest.mark.skipif(os.environ.get("SOFTMAX_HARNESS_MUTATION") == "0",
                                reason="the mutation score runs in one tox environment (py311)")



def strategy(op):
    """The CPU hunt: rows to 2^20 (a few of them), batches past 65535 rows of short ones (the row
    count wins over the length), with what the op's own inputs need drawn too."""
    return batches(lengths(limit=4096, long_rows=True), max_elements=2**18, rows_first=True, **op.draws)


#: Every op's mutants and controls.
MUTANTS = {**mutants.MUTANTS, **op_mutants.MUTANTS}
CONTROLS = {**mutants.CONTROLS, **op_mutants.CONTROLS}

#: Mutants a profile is known to miss (each must still be missed: the xfail is strict), and why.
SURVIVORS: dict[str, dict[str, str]] = {"ci": {}, "dev": {}, "thorough": {}}

#: What the hunts saw, for the summary: name -> (profile, declared, properties that failed).
RESULTS: dict[str, tuple[str, str, frozenset[str]]] = {}


def profile_name() -> str:
    return settings._current_profile or "default"


def hunt(name: str, model) -> frozenset[str]:
    """Every property that failed on some batch, up to the first batch on which the declared
    one failed (a control declares none: the hunt takes the whole budget)."""
    subject = Subject(name, model.fn, lanes=model.lanes, algorithm=model.algorithm, dtype=model.dtype,
                      repro=f"<mutant {name}>", op=model.op, fast_math=model.fast_math, exp="ex2",
                      vector=model.vector, strided=True)
    found: list[str] = []
    budget = settings(settings.default, database=None, suppress_health_check=list(HealthCheck),
                      phases=[Phase.explicit, Phase.generate], deadline=None)

    @seed(20261202)
    @budget
    @given(recipe=strategy(subject.operation))
    def every_batch(recipe):
        report = check_recipe(subject, recipe)
        found.extend(report.failures)
        if model.catches in report.failures or (report.failures and not model.catches):
            report.raise_if_failed()

    # the stratified design first, then the profile's draws
    for recipe in STRATA + subject.operation.strata(STRATA):
        if model.catches in found:
            break
        found.extend(check_recipe(subject, recipe).failures)
    # PropertyFailure, or Hypothesis' FlakyFailure for a defect that comes and goes; seeded,
    # with fixed_examples: the same batches whatever else pytest collects
    with contextlib.suppress(PropertyFailure, FlakyFailure), profiles.fixed_examples():
        if model.catches not in found:
            every_batch()
    return frozenset(found)


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_the_mutant_is_caught_by_its_property(name):
    model = MUTANTS[name]
    assert model.catches in ops.of(model.op).properties, model.catches
    failed = hunt(name, model)
    RESULTS[name] = (profile_name(), model.catches, failed)
    why = SURVIVORS.get(profile_name(), {}).get(name)
    if why:
        if model.catches in failed:
            pytest.fail(f"{name} is caught now: take it off SURVIVORS[{profile_name()!r}]")
        pytest.xfail(f"survives the {profile_name()} profile: {why}")
    assert model.catches in failed, f"{name} ({model.doc}) survived; failed: {sorted(failed) or 'nothing'}"


@pytest.mark.parametrize("name", sorted(CONTROLS))
def test_a_legal_control_passes_every_property(name):
    model = CONTROLS[name]
    if model.dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    failed = hunt(name, model)
    assert not failed, f"control {name} ({model.doc}) was flagged by {sorted(failed)}"


def test_the_suite_has_forty_mutants_and_the_survivors_stay_under_five_percent():
    assert len(MUTANTS) >= 40
    for op in ops.NAMES:  # every op has mutants of its own
        assert any(m.op == op for m in MUTANTS.values()), op
    for profile, survivors in SURVIVORS.items():
        assert set(survivors) <= set(MUTANTS), profile
        assert len(survivors) <= 0.05 * len(MUTANTS), profile
    assert not SURVIVORS["thorough"]
