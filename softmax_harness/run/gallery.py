"""The known-bad gallery: hunt each planted defect with the property it declares."""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings

from .. import catalog, profiles  # profiles: also the child's ci profile
from ..properties import check_recipe
from ..strategies import STRATA, BatchRecipe, RowRecipe, batches, lengths
from ..subject import Subject

MANY_ROWS = 70_000  # past the 65535 blocks of a grid's y and z dimensions


def _many_rows(subject, prop):
    recipe = BatchRecipe(33, (RowRecipe(values="randn", seed=1),), n_rows=MANY_ROWS)
    failures = check_recipe(subject, recipe, properties=(prop,)).failures
    return next(iter(failures.items()), None)


def _past_2_31(subject, prop):
    from ..large_batch import check

    return check(subject)


def _busy_stream(subject, prop):
    from ..streams import check

    return check(subject)


#: The trials for a known-bad kernel's ``input=``: each gives (property, message) for what it
#: finds, or None. Each is one fixed input the strategies would never draw.
TRIALS = {"many_rows": _many_rows, "past_2_31": _past_2_31, "busy_stream": _busy_stream}


def hunt(name: str, profile: str = "ci") -> dict:
    """Search for an input on which variant ``name`` fails its declared property.

    Returns ``{"variant", "catches", "caught", "message", "examples"}``; ``caught`` is
    True only when the declared property itself failed (a crash is not a catch).
    """
    variant = catalog.variant(name)
    prop = variant.spec.catches
    subject = Subject.of(variant)
    tried, caught = [], []

    @settings(settings.get_profile(profile), database=None, phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(recipe=batches(lengths(variant.max_cols, variant.spec.threads), **variant.op.draws))
    def search(recipe):
        tried.append(recipe)
        report = check_recipe(subject, recipe, properties=(prop,))
        caught.extend(report.failures.items())
        report.raise_if_failed()

    result = {"variant": name, "catches": prop, "caught": False, "message": "", "examples": 0}
    if variant.spec.input is not None:
        found = TRIALS[variant.spec.input](subject, prop)
        result.update(examples=1, caught=bool(found) and found[0] == prop, message=found[1] if found else "")
        return result
    for recipe in STRATA + variant.op.strata(STRATA):  # the stratified design first, then the draws
        if caught:
            break
        if subject.supports(recipe.n_cols):
            tried.append(recipe)
            caught.extend(check_recipe(subject, recipe, properties=(prop,)).failures.items())
    if not caught:
        try:
            with profiles.fixed_examples():
                search()
        except Exception as exc:  # PropertyFailure, or Hypothesis' Flaky for a defect that comes and goes
            if not caught:
                caught.append(("error", f"{type(exc).__name__}: {exc}"))
    result["message"] = "\n\n".join(m for _, m in caught)
    result["caught"] = any(p == prop for p, _ in caught)
    result["examples"] = len(tried)
    return result
