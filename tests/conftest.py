import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the NumPy stand-ins in tests/standins.py


def pytest_terminal_summary(terminalreporter):
    """The mutation score of this run's profile, its survivors, and the mutants that only one
    property caught (tests/test_mutation.py)."""
    results = getattr(sys.modules.get("test_mutation"), "RESULTS", None)
    if not results:
        return
    profiles = sorted({profile for profile, _, _ in results.values()})
    caught = [n for n, (_, declared, failed) in results.items() if declared in failed]
    survivors = sorted(set(results) - set(caught))
    write = terminalreporter.write_line
    terminalreporter.section("mutation score")
    write(f"profile {', '.join(profiles)}: {len(caught)} of {len(results)} mutants caught by their "
          f"property ({100 * len(caught) / len(results):.1f}%)")
    write(f"survivors: {', '.join(survivors) or 'none'}")
    only: dict[str, list[str]] = {}
    for name, (_, _, failed) in sorted(results.items()):
        if len(failed) == 1:
            only.setdefault(next(iter(failed)), []).append(name)
    for prop, names in sorted(only.items()):
        write(f"only {prop}: {', '.join(names)}")
