"""Hypothesis profiles, registered on import so that every process (pytest, and the child
processes of the gallery hunts) means the same thing by ``ci``, ``dev`` and ``thorough``.

Which one a run gets (:func:`default`): ``ci`` where the environment says CI (``CI=true``),
``dev`` otherwise; ``--hypothesis-profile`` overrides both. ``ci`` is derandomised with
Hypothesis' own ``ci`` budget of 100 examples (the child processes that hunt the known-bad
kernels run with exactly that).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_SLOW = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile("ci", derandomize=True, max_examples=100, deadline=None, database=None,
                          suppress_health_check=_SLOW, print_blob=True)
settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=_SLOW,
                          print_blob=True)
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=_SLOW, print_blob=True)


def default() -> str:
    """The profile for this environment: ``ci`` under ``CI=true`` (or ``CI=1``), else ``dev``."""
    return "ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes") else "dev"
