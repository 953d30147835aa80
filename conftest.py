"""pytest wiring: Hypothesis profiles, the ``gpu`` marker, and the session-scoped kernel fixtures.

GPU tests carry ``@pytest.mark.gpu``; without a CUDA device they are collected and
skipped with the reason "no CUDA device". Every test that takes ``variant`` (or
``split_variant``, ``bad_variant``) runs once per declared kernel variant of that kind, id'd
by its name; the fixture compiles each kernel file once per session through ``cupy.RawModule``.
"""

from __future__ import annotations

import pytest
from hypothesis import settings

import softmax_harness
from softmax_harness import gpu, profiles  # noqa: F401  (profiles registers ci, dev, thorough)

settings.load_profile("dev")

pytest_plugins = ["softmax_harness.pytest_plugin"]


def _selected(config, candidates):
    wanted = config.getoption("--variant")  # "__none__" selects no kernel at all
    return [v for v in candidates if not wanted or v.name in wanted]


def pytest_generate_tests(metafunc):
    config = metafunc.config
    if "variant" in metafunc.fixturenames:
        chosen = _selected(config, softmax_harness.variants())
        metafunc.parametrize("variant", chosen, ids=[v.name for v in chosen], indirect=True,
                             scope="session")
    if "split_variant" in metafunc.fixturenames:
        chosen = _selected(config, [v for v in softmax_harness.variants() if v.spec.geometry == "split-row"])
        metafunc.parametrize("split_variant", chosen, ids=[v.name for v in chosen], indirect=True,
                             scope="session")
    if "bad_variant" in metafunc.fixturenames:
        chosen = _selected(config, softmax_harness.known_bad())
        metafunc.parametrize("bad_variant", chosen, ids=[v.name for v in chosen], indirect=True,
                             scope="session")


def _compiled(request):
    if not gpu.available():
        pytest.skip(gpu.SKIP_REASON)
    v = request.param
    v.compile()  # once per kernel file and process; a compile error fails only its own tests
    return v


@pytest.fixture(scope="session")
def variant(request):
    """A correct kernel variant, compiled."""
    return _compiled(request)


@pytest.fixture(scope="session")
def split_variant(request):
    """A correct split-row variant (a row over a group of blocks), compiled."""
    return _compiled(request)


@pytest.fixture(scope="session")
def bad_variant(request):
    """A known-bad gallery kernel, compiled."""
    return _compiled(request)
