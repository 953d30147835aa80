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


KINDS = {  # fixture: which variants it takes
    "variant": lambda v: not v.spec.known_bad,
    "split_variant": lambda v: not v.spec.known_bad and v.spec.geometry == "split-row",
    "bad_variant": lambda v: v.spec.known_bad,
}


def _selected(config, kind):
    """The variants of ``kind`` that --variant names (all when it names none); NAME@DIR adds the
    one declared under DIR (a staged file, say), with that as its test id."""
    wanted = config.getoption("--variant")  # "__none__" selects no kernel at all
    declared = softmax_harness.variants() + softmax_harness.known_bad()
    chosen = [v for v in declared if KINDS[kind](v) and (not wanted or v.name in wanted)]
    elsewhere = [softmax_harness.variant(w) for w in wanted if "@" in w]
    return chosen + [v for v in elsewhere if KINDS[kind](v)]


def pytest_generate_tests(metafunc):
    for kind in KINDS:
        if kind in metafunc.fixturenames:
            chosen = _selected(metafunc.config, kind)
            metafunc.parametrize(kind, chosen, ids=[v.ref for v in chosen], indirect=True, scope="session")


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
