import contextlib
import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the NumPy stand-ins in tests/standins.py


_REPRO = []


@pytest.fixture
def disassembly():
    """Skip where this machine cannot read SASS apart (cuobjdump, and the nvdisasm it runs), or
    compile offline (cuda-bindings' NVRTC)."""
    pytest.importorskip("cuda.bindings")
    from softmax_harness.run import sass

    try:
        beside = Path(sass.cuobjdump()).parent / "nvdisasm"
    except RuntimeError:
        pytest.skip("no cuobjdump")
    if not (beside.is_file() or shutil.which("nvdisasm")):
        pytest.skip("no nvdisasm (cuobjdump -sass runs it)")


def pytest_configure(config):
    """Inputs that failures save go to a temporary folder, not into the checkout."""
    if not config.getoption("--repro-dir", None):
        import tempfile

        from softmax_harness.properties import set_repro_dir

        _REPRO.append(Path(tempfile.mkdtemp(prefix="softmax-harness-repro-")))
        set_repro_dir(_REPRO[-1])


def pytest_unconfigure(config):
    """The temporary folder goes unless a failure saved an input there (its repro line names it)."""
    for folder in _REPRO:
        with contextlib.suppress(OSError):
            folder.rmdir()


def pytest_terminal_summary(terminalreporter):
    """The mutation score of this run's profile, its survivors, and the mutants that only one
    property caught (tests/test_mutation.py)."""
    # (under --import-mode=importlib, as tox runs, the module is named by its path)
    module = next((m for n, m in list(sys.modules.items()) if n.rsplit(".", 1)[-1] == "test_mutation"), None)
    results = getattr(module, "RESULTS", None)
    if not results:
        return
    profiles = sorted({profile for profile, _, _ in results.values()})
    caught = [n for n, (_, declared, failed) in results.items() if declared in failed]
    survivors = sorted(set(results) - set(caught))
    lines = []
    terminalreporter.section("mutation score")
    lines.append(f"profile {', '.join(profiles)}: {len(caught)} of {len(results)} mutants caught by their "
                 f"property ({100 * len(caught) / len(results):.1f}%)")
    lines.append(f"survivors: {', '.join(survivors) or 'none'}")
    only: dict[str, list[str]] = {}
    for name, (_, _, failed) in sorted(results.items()):
        if len(failed) == 1:
            only.setdefault(next(iter(failed)), []).append(name)
    for prop, names in sorted(only.items()):
        lines.append(f"only {prop}: {', '.join(names)}")
    for line in lines:
        terminalreporter.write_line(line)
    # tox p shows a passing environment's output to no one: CI prints this file (.ci/run)
    path = os.environ.get("SOFTMAX_HARNESS_MUTATION_REPORT")
    if path:
        Path(path).write_text("\n".join(["mutation score", *lines]) + "\n")
