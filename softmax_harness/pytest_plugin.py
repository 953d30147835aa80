"""pytest plugin: the ``gpu``/``bench`` markers, ``--variant``, and a JSON record of a run.

``--results-json PATH`` writes every test's node id, outcome and duration, the
summary counts, and the per-kernel tally of :mod:`softmax_harness.properties`
(rows checked, time, largest error in ulps and relative to the bound).
"""

from __future__ import annotations

import json
import time

import pytest

from . import gpu
from .properties import TALLY


def pytest_addoption(parser):
    group = parser.getgroup("softmax-harness")
    group.addoption("--variant", action="append", default=[], metavar="NAME",
                    help="run only this kernel variant (repeatable)")
    group.addoption("--results-json", default=None, metavar="PATH",
                    help="write every test's outcome and duration, and the error tally, as JSON")


class _Recorder:
    """Collects every test's outcome and duration; writes them at the end of the session."""

    def __init__(self, path: str):
        self.path, self.records, self.started = path, {}, time.time()

    def pytest_runtest_logreport(self, report):
        record = self.records.setdefault(report.nodeid, {"nodeid": report.nodeid, "outcome": "passed",
                                                         "duration": 0.0})
        record["duration"] += report.duration
        if report.skipped:
            record["outcome"] = "skipped"
            if isinstance(report.longrepr, tuple):
                record["reason"] = report.longrepr[2]
        elif report.failed:
            record["outcome"] = "failed" if report.when == "call" else "error"
            record["message"] = str(report.longrepr)[-4000:]

    def pytest_sessionfinish(self, session):
        tests = sorted(self.records.values(), key=lambda r: r["nodeid"])
        summary = {k: sum(1 for t in tests if t["outcome"] == k)
                   for k in ("passed", "failed", "skipped", "error")}
        with open(self.path, "w") as handle:
            json.dump({"started": self.started, "summary": summary, "tests": tests, "tally": TALLY},
                      handle, indent=1, sort_keys=True)


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped with 'no CUDA device')")
    config.addinivalue_line("markers", "bench: a benchmark (run with -m bench)")
    path = config.getoption("--results-json")
    if path:
        config.pluginmanager.register(_Recorder(path), "softmax-harness-results")


def pytest_collection_modifyitems(config, items):
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
