"""Hypothesis profiles, registered on import so that every process (pytest, and the child
processes of the gallery hunts) means the same thing by ``ci``, ``dev`` and ``thorough``.

Which one a run gets (:func:`default`): ``ci`` where the environment says CI (``CI=true``),
``dev`` otherwise; ``--hypothesis-profile`` overrides both. ``ci`` is derandomised with
Hypothesis' own ``ci`` budget of 100 examples (the child processes that hunt the known-bad
kernels run with exactly that).
"""

from __future__ import annotations

import contextlib
import os

from hypothesis import HealthCheck, settings

_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large]

#: The profiles, from the fewest examples to the most.
NAMES = ("ci", "dev", "thorough")

settings.register_profile("ci", derandomize=True, max_examples=100, deadline=None, database=None,
                          suppress_health_check=_SLOW, print_blob=True)
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=_SLOW,
                          print_blob=True)
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=_SLOW, print_blob=True)


def default() -> str:
    """The profile for this environment: ``ci`` under ``CI=true`` (or ``CI=1``), else ``dev``."""
    return "ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes") else "dev"


@contextlib.contextmanager
def fixed_examples():
    """Within it, a seeded or derandomised test draws the same examples whatever else is
    imported: Hypothesis (since 6.131) mixes into its draws the literal constants of every
    local module loaded, so which test modules pytest collects changed the batches the battery
    and the hunts drew. Here that pool is empty. Hypothesis' internals: where they differ, this
    does nothing."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - another Hypothesis layout
        yield
        return
    original = getattr(providers, "_get_local_constants", None)
    if original is None or not hasattr(providers, "Constants"):
        yield
        return
    empty = providers.Constants()
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    providers._get_local_constants = lambda: empty
    if cache is not None:
        cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = original
        if cache is not None:
            cache.clear()
