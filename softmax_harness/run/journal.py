"""The record of one pytest run that the GPU runner reads back.

``--results-json PATH`` writes every test's node id, outcome and duration, the summary
counts, and the per-kernel tally of :mod:`softmax_harness.properties` (rows checked, time,
largest error in ulps and relative to the bound), also under pytest-xdist; ``PATH.journal``
records each test as it starts and ends, so that a killed run (a crash, a hung kernel) still
tells what finished and what was running.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from ..properties import TALLY, merge_tally


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
    """Node ids of every test the run collected, from its journal (empty if none recorded), less
    those of an empty parameter set (``[NOTSET]``): pytest skips them, and a later run that
    names one (``--rest-of``), with other options, may not collect it, and then runs nothing."""
    ids = next((event["collected"] for event in _events(path) if "collected" in event), [])
    return [n for n in ids if not n.endswith("[NOTSET]")]


class Recorder:
    """Collects every test's outcome and duration into a journal as the run goes, and writes
    them with the summary and the error tally at the end of the session."""

    def __init__(self, path: str):
        self.path, self.records, self.started, self.tally = path, {}, time.time(), {}
        self.collected = False
        self.journal = open(journal_path(path), "w", buffering=1)  # noqa: SIM115 (line-buffered, kept open)

    def _log(self, event: dict) -> None:
        self.journal.write(json.dumps(event, default=str) + "\n")

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
        for key, value in report.user_properties:  # the plugin's: the subject, the failed properties
            if key == "subject":
                record["subject"] = value
            elif key == "failed_properties":
                record["properties"] = sorted(set(record.get("properties", [])) | set(value))
            elif key == "context_lost":  # the watchdog ends the process after this test
                record["context_lost"] = value
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
                      handle, indent=1, sort_keys=True, default=str)
        self.journal.close()
