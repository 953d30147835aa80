"""The known-bad gallery: hunt each planted defect with the property it declares."""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings

from .. import catalog, profiles  # noqa: F401  (profiles: the child needs the same ci profile)
from ..properties import check_recipe
from ..strategies import batches, lengths
from ..subject import Subject


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
    @given(recipe=batches(lengths(variant.max_cols, variant.spec.threads)))
    def search(recipe):
        tried.append(recipe)
        report = check_recipe(subject, recipe, properties=(prop,))
        caught.extend(report.failures.items())
        report.raise_if_failed()

    result = {"variant": name, "catches": prop, "caught": False, "message": "", "examples": 0}
    if variant.spec.input == "past_2_31":  # too large to draw: the one batch past element 2^31
        from ..large_batch import check

        found = check(subject)
        result.update(examples=1, caught=bool(found) and found[0] == prop, message=found[1] if found else "")
        return result
    try:
        search()
    except Exception as exc:  # PropertyFailure, or Hypothesis' Flaky for a defect that comes and goes
        result["message"] = "\n\n".join(m for _, m in caught) or f"{type(exc).__name__}: {exc}"
    result["caught"] = any(p == prop for p, _ in caught)
    result["examples"] = len(tried)
    return result
