"""pytest wiring: the ``gpu``/``bench`` markers, the kernel fixtures and ``--variant``, the
Hypothesis profile, ``--results-json`` (the record a GPU runner's child writes:
:mod:`softmax_harness.run.journal`), ``--hang-timeout`` and ``--exit-on-lost-context`` (what
ends a child that can no longer test: :mod:`softmax_harness.run.watchdog`), and the error
tally's summary.

GPU tests carry ``@pytest.mark.gpu``; without a CUDA device they are collected and skipped with
the reason "no CUDA device". Every test that takes ``variant`` (or ``split_variant``,
``bad_variant``) runs once per declared kernel variant of that kind (:func:`catalog.select`),
id'd by its name; the fixture compiles each kernel file once per session. A file of a
``--kernels`` folder whose header the catalogue refuses is a failing test of its own
(``FILE::header``).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from . import callables, catalog, gpu, profiles
from .compiler import KernelCompileError
from .properties import TALLY, PropertyFailure, set_repro_dir
from .registry import HeaderError
from .run.journal import Recorder
from .run.watchdog import Watchdog
from .variant import Variant


def pytest_addoption(parser):
    group = parser.getgroup("softmax-harness")
    group.addoption("--variant", action="append", default=None, metavar="NAME",
                    help="run only this kernel variant (repeatable); NAME@DIR: the one declared "
                         "under DIR (a staged file, say)")
    group.addoption("--no-variants", action="store_true",
                    help="select no kernel variant but those --variant names (only the tests that "
                         "take none, otherwise)")
    group.addoption("--variant-tests-only", action="store_true",
                    help="deselect the tests that take no kernel variant or subject (the GPU runner "
                         "runs those once, beside the gallery)")
    group.addoption("--results-json", default=None, metavar="PATH",
                    help="write every test's outcome and duration, and the error tally, as JSON")
    group.addoption("--kernels", action="append", default=[], metavar="DIR",
                    help="run the battery on every kernel declared under DIR (repeatable; ini: "
                         "softmax_harness_kernels)")
    group.addoption("--subject", action="append", default=[], metavar="MODULE:FUNCTION",
                    help="run the battery on this Python callable, fn(x) -> y or fn(x, out) (repeatable; "
                         "ini: softmax_harness_subjects)")
    group.addoption("--repro-dir", default=None, metavar="DIR",
                    help="where a failure's input is saved for its repro line (default "
                         "softmax-harness-repro/ in the current folder)")
    group.addoption("--hang-timeout", type=float, default=None, metavar="SECONDS",
                    help="a test running longer is taken for a hang: the process writes every "
                         "thread's stack and exits (what check's child runs under)")
    group.addoption("--exit-on-lost-context", action="store_true",
                    help="end the process after a failed test that lost the CUDA context (an "
                         "illegal address, a trap), which every later test would fail on")
    parser.addini("softmax_harness_kernels", "folders of kernels to run the battery on", type="paths")
    parser.addini("softmax_harness_subjects", "module:function callables to run the battery on",
                  type="linelist")


def named_subjects(config) -> list[str]:
    """The subjects a project names (command line first, else its ini file), as references:
    NAME@DIR for each kernel under a kernels folder, MODULE:FUNCTION for each callable
    (MODULE:FUNCTION:DTYPE for each element type of one that declares several)."""
    folders = config.getoption("--kernels") or config.getini("softmax_harness_kernels")
    refs = []
    for folder in folders:
        try:
            refs += [v.ref_at for v in catalog.variants(Path(folder))]
        except catalog.UnknownVariantError as exc:
            raise pytest.UsageError(f"--kernels: {exc}") from None
    return refs + [each for ref in _subject_options(config) for each in callables.expand(ref)]


def _subject_options(config) -> list[str]:
    return list(config.getoption("--subject") or config.getini("softmax_harness_subjects"))


def pytest_configure(config):
    if not config.getoption("hypothesis_profile", None):  # hypothesis' own option wins
        settings.load_profile(profiles.default())
    if config.getoption("--repro-dir"):
        set_repro_dir(config.getoption("--repro-dir"))
    wanted = [ref for ref in _subject_options(config) if callables.is_callable_ref(ref)]
    if wanted:  # module:function names a module of the project, as `python -m pytest` would find it
        for folder in {str(config.invocation_params.dir), str(config.rootpath)}:
            if folder not in sys.path:
                sys.path.insert(0, folder)
    for ref in wanted:
        _import_early(ref)
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped with 'no CUDA device')")
    config.addinivalue_line("markers", "bench: a benchmark (run with -m bench)")
    path = config.getoption("--results-json")
    if path and not hasattr(config, "workerinput"):  # pytest-xdist workers report to the controller
        config.pluginmanager.register(Recorder(path), "softmax-harness-results")
    hang, lost = config.getoption("--hang-timeout"), config.getoption("--exit-on-lost-context")
    if hang or lost:
        config.pluginmanager.register(Watchdog(hang, lost), "softmax-harness-watchdog")


def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: hand the tally to the controller
        workeroutput["softmax_harness_tally"] = TALLY


@pytest.hookimpl(optionalhook=True)
def pytest_benchmark_update_machine_info(config, machine_info):
    """The GPU beside the host in every saved benchmark run."""
    machine_info["gpu"] = gpu.describe()


@pytest.hookimpl(optionalhook=True)
def pytest_benchmark_update_commit_info(config, commit_info):
    """The commit the tree was copied from, where the copy's own git (if any) cannot know it."""
    commit = os.environ.get("SOFTMAX_HARNESS_COMMIT")
    if commit:
        commit_info.update(id=commit, dirty=False, source="SOFTMAX_HARNESS_COMMIT")
        commit_info.pop("error", None)


def pytest_runtest_teardown(item):
    if "gpu" in item.keywords or "bench" in item.keywords:
        gpu.release_memory()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """The battery's tests draw the same examples whatever else pytest collects."""
    function = getattr(item, "function", None)
    battery = getattr(function, "__module__", None) == "softmax_harness.battery"
    with profiles.fixed_examples() if battery else contextlib.nullcontext():
        yield


@pytest.hookimpl(tryfirst=True)  # before -k and -m deselect: they see the battery too
def pytest_collection_modifyitems(session, config, items):
    if named_subjects(config):
        items.extend(_battery(session, items))
    items.extend(_refused_files(session))
    if config.getoption("--variant-tests-only"):
        bound = {"subject", "subject_ref", *catalog.KINDS}
        takes = [bool(bound & set(getattr(getattr(i, "callspec", None), "params", {}))) for i in items]
        config.hook.pytest_deselected(items=[i for i, t in zip(items, takes, strict=True) if not t])
        items[:] = [i for i, t in zip(items, takes, strict=True) if t]
    if gpu.available():
        return
    skip = pytest.mark.skip(reason=gpu.SKIP_REASON)
    for item in items:
        if "gpu" in item.keywords or "bench" in item.keywords:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter, config):
    if TALLY:
        terminalreporter.section("softmax-harness: rows checked and largest errors")
        terminalreporter.write_line(f"{'kernel':28s} {'checks':>7s} {'rows':>10s} {'seconds':>8s} "
                                    f"{'max ulps':>10s} {'max err/bound':>14s}")
        for name, t in sorted(TALLY.items()):
            terminalreporter.write_line(f"{name:28s} {t['checks']:7d} {t['rows']:10d} "
                                        f"{t['seconds']:8.1f} {t['max_ulps']:10.3g} "
                                        f"{t['max_bound_ratio']:14.3g}")


def _battery(session, items) -> list:
    """The battery's tests, collected beside the project's own when subjects are named (none if
    the command line named the battery's file, as the check command does). Collected here, not
    appended to the arguments: pytest drops an argument that lies under another one (the
    package in a project's own ``.venv/``, under ``.``), and imported only now, since
    Hypothesis takes a test's settings when it is decorated, after the profile is loaded. Its
    node id is ``softmax_harness/battery.py::...`` wherever the package is installed."""
    here = Path(importlib.util.find_spec("softmax_harness.battery").origin).resolve()
    if any(getattr(item, "path", None) == here for item in items):
        return []
    module = pytest.Module.from_parent(session, path=here, nodeid="softmax_harness/battery.py")
    return list(session.genitems(module))


class RefusedKernelFile(pytest.Item):
    """A kernel file of a ``--kernels`` folder whose header the catalogue refuses (malformed, or
    a name declared before): one failing test that says why, the folder's other kernels tested."""

    def __init__(self, *, why: str, **kwargs):
        super().__init__(**kwargs)
        self.why = why

    def runtest(self):
        raise HeaderError(self.why)

    def repr_failure(self, excinfo, style=None):
        return self.why

    def reportinfo(self):
        return self.path, None, self.name


def _refused_files(session) -> list:
    config = session.config
    folders = config.getoption("--kernels") or config.getini("softmax_harness_kernels")
    here = f"{Path(config.invocation_params.dir).resolve()}{os.sep}"  # files named from here
    items = []
    for folder in folders:
        for path, why in catalog.refused(Path(folder)):
            name = f"{os.path.relpath(path, here)}::header"
            items.append(RefusedKernelFile.from_parent(session, name=name, nodeid=name, path=path,
                                                       why=why.replace(here, "")))
    return items


def _import_early(ref: str) -> None:
    """Import a callable's module before any test runs: on the H200, torch imported by a test of
    the battery's child (after kernel subjects had run there) failed half-way ("partially
    initialised module 'torch'"), while imported here it did not; a plain process importing torch
    after CuPy's kernels had no trouble, so the cause is not known. Errors wait for the subject's
    own tests, which report them."""
    with contextlib.suppress(callables.SubjectError):
        callables.load(callables.split_dtype(ref)[0])


@functools.cache
def _subject(ref: str):
    return catalog.subject(ref)


@pytest.fixture(scope="session")
def subject(request):
    """A subject under test (a kernel variant, compiled, or a Python callable), by reference."""
    ref = request.param
    if not callables.is_callable_ref(ref) and not gpu.available():
        pytest.skip(gpu.SKIP_REASON)
    try:
        found = _subject(ref)
        if isinstance(found.fn, Variant):
            found.fn.compile()
    except callables.NeedsGPU as exc:
        pytest.skip(str(exc))
    except (catalog.UnknownVariantError, callables.SubjectError, KernelCompileError) as exc:
        refused = str(exc)
    else:
        return found
    pytest.fail(refused, pytrace=False)  # outside the except: one line, not the chain of two


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Records which subject a test ran on and which properties failed (the check's verdict table)."""
    report = yield
    params = getattr(getattr(item, "callspec", None), "params", {})
    ref = params.get("subject", params.get("subject_ref"))
    if isinstance(ref, str):  # (an empty parameter set gives pytest's NOTSET)
        report.user_properties.append(("subject", ref))
    if call.excinfo is not None and isinstance(call.excinfo.value, PropertyFailure):
        report.user_properties.append(("failed_properties", sorted(call.excinfo.value.failures)))
    return report


def _wanted(config):
    wanted = config.getoption("--variant")
    return (wanted or []) if config.getoption("--no-variants") else wanted


def pytest_generate_tests(metafunc):
    for name in ("subject", "subject_ref"):  # the subject itself, or only its reference
        if name in metafunc.fixturenames:
            refs = named_subjects(metafunc.config) or \
                [v.ref for v in catalog.select("variant", _wanted(metafunc.config))]
            metafunc.parametrize(name, refs, ids=refs, indirect=name == "subject", scope="session")
    for kind in catalog.KINDS:
        if kind in metafunc.fixturenames:
            try:
                chosen = catalog.select(kind, _wanted(metafunc.config))
            except catalog.UnknownVariantError as exc:
                raise pytest.UsageError(f"--variant: {exc}") from None
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
def softmax_variant(request):
    """A correct kernel variant of the forward softmax, compiled."""
    return _compiled(request)


@pytest.fixture(scope="session")
def split_variant(request):
    """A correct split-row variant (a row over a group of blocks), compiled."""
    return _compiled(request)


@pytest.fixture(scope="session")
def bad_variant(request):
    """A known-bad gallery kernel, compiled."""
    return _compiled(request)
