"""pytest plugin: the ``gpu``/``bench`` markers, ``--variant``, and a JSON record of a run.

``--results-json PATH`` writes every test's node id, outcome and duration, the
summary counts, and the per-kernel tally of :mod:`softmax_harness.properties`
(rows checked, time, largest error in ulps and relative to the bound), also under
pytest-xdist; ``PATH.journal`` records each test as it starts and ends, so that a
killed run still tells what finished and what was running.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from . import gpu
from .properties import TALLY, merge_tally


def pytest_addoption(parser):
    group = parser.getgroup("softmax-harness")
    group.addoption("--variant", action="append", default=[], metavar="NAME",
                    help="run only this kernel variant (repeatable); NAME@DIR: the one declared "
                         "under DIR (a staged file, say)")
    group.addoption("--results-json", default=None, metavar="PATH",
                    help="write every test's outcome and duration, and the error tally, as JSON")


def journal_path(path) -> str:
    """Where a results file's journal lives: one JSON line per test started and per test ended,
    written as the run goes, so a run that is killed (a crash, a hung kernel) leaves a record."""
    return f"{path}.journal"


def _events(path):
    """The journal's events, in order (none if there is no journal)."""
    try:
        lines = Path(path).read_text().splitlines()
    except FileNotFoundError:
        return
    for line in lines:
        try:
            yield json.loads(line)
        except json.JSONDecodeError:  # the last line of a killed run may be cut short
            continue


def read_journal(path) -> tuple[list[dict], list[str]]:
    """(records of the tests that ended, node ids of tests that started and never ended)."""
    ended: dict[str, dict] = {}
    running: dict[str, None] = {}
    for event in _events(path):
        if "running" in event:
            running[event["running"]] = None
        elif "ended" in event:
            ended[event["ended"]["nodeid"]] = event["ended"]
            running.pop(event["ended"]["nodeid"], None)
    return list(ended.values()), list(running)


def read_collected(path) -> list[str]:
    """Node ids of every test the run collected, from its journal (empty if none recorded)."""
    return next((event["collected"] for event in _events(path) if "collected" in event), [])


class _Recorder:
    """Collects every test's outcome and duration into a journal as the run goes, and writes
    them with the summary and the error tally at the end of the session."""

    def __init__(self, path: str):
        self.path, self.records, self.started, self.tally = path, {}, time.time(), {}
        self.collected = False
        self.journal = open(journal_path(path), "w", buffering=1)  # noqa: SIM115 (line-buffered, kept open)

    def _log(self, event: dict) -> None:
        self.journal.write(json.dumps(event) + "\n")

    def pytest_collection_finish(self, session):
        if session.items:  # under pytest-xdist the controller collects nothing: see below
            self._log({"collected": [item.nodeid for item in session.items]})

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids):
        if not self.collected:  # every worker reports the same collection
            self.collected = True
            self._log({"collected": list(ids)})

    def pytest_runtest_logstart(self, nodeid, location):
        self._log({"running": nodeid})

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
        if report.when == "teardown" or (report.failed and report.when == "???"):  # xdist: a crash
            self._log({"ended": record})

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):  # pytest-xdist: a worker's tally comes home
        merge_tally(self.tally, getattr(node, "workeroutput", {}).get("softmax_harness_tally", {}))

    def pytest_sessionfinish(self, session):
        tests = sorted(self.records.values(), key=lambda r: r["nodeid"])
        summary = {k: sum(1 for t in tests if t["outcome"] == k)
                   for k in ("passed", "failed", "skipped", "error")}
        tally = merge_tally(dict(self.tally), TALLY)
        with open(self.path, "w") as handle:
            json.dump({"started": self.started, "summary": summary, "tests": tests, "tally": tally},
                      handle, indent=1, sort_keys=True)
        self.journal.close()


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped with 'no CUDA device')")
    config.addinivalue_line("markers", "bench: a benchmark (run with -m bench)")
    path = config.getoption("--results-json")
    if path and not hasattr(config, "workerinput"):  # pytest-xdist workers report to the controller
        config.pluginmanager.register(_Recorder(path), "softmax-harness-results")


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
