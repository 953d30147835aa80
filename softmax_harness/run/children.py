"""Child pytest processes: a crash or a hang is recorded as an error that names the test
that was running (``lost``), the run resumes without the tests already done (or, by subject,
without the subject whose test it was: :func:`run_by_subject`), and a run's deadline
leaves the rest "not run" (to be finished by another call with ``--rest-of``)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..properties import merge_tally
from .carry import runs_on
from .journal import journal_path, read_collected, read_journal
from .schema import ROOT


def run_pytest(label: str, args: list[str], timeout: float | None, log,
               deadline: float | None = None, cwd: Path = ROOT) -> tuple[list[dict], dict, str, list[str]]:
    """Run pytest in a child; return its test records, tally, output, and the node ids that
    ended or were running if the child was killed or crashed (empty when it finished).
    A child still running at ``deadline`` (a ``time.time()``) is stopped; the tests it was
    running then are recorded as "not run" and are not in the returned node ids."""
    cut = deadline is not None and (timeout is None or deadline - time.time() < timeout)
    if cut:
        timeout = max(1.0, deadline - time.time())
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results.json"
        cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfE", "--durations=15",
               f"--results-json={results}", *args]
        started = time.time()
        shown = [a for a in args if not a.startswith("--deselect=")]
        log.write(f"===== {label}: {' '.join(shown)}\n")
        output, code = _child(cmd, cwd, timeout, log)
        log.flush()
        elapsed = time.time() - started
        if results.is_file() and code is not None:
            data = json.loads(results.read_text())
            tests = [t for t in data["tests"] if "empty parameter set" not in t.get("reason", "")]
            if code in (0, 1, 5):
                return tests, data.get("tally", {}), output, []
            _, running = read_journal(journal_path(results))
            if running:  # a test stopped the session (a KeyboardInterrupt of its own): as a crash in it
                raised = re.findall(r"^\S+:\d+: \w+$", output, re.M)  # pytest's "file:line: Exception"
                tests = [t for t in tests if t["nodeid"] not in running] + _lost(
                    running, elapsed, f"stopped (pytest exited with code {code})",
                    raised[-1] if raised else output[-3000:])
                return tests, data.get("tally", {}), output, [t["nodeid"] for t in tests]
            tests.append({"nodeid": f"{label}::pytest", "outcome": "error", "duration": elapsed,
                          "message": f"pytest exited with code {code}:\n{output[-3000:]}"})
            return tests, data.get("tally", {}), output, []  # pytest itself broke (an internal error)
        dump = _dump(output)
        if code is None:
            why = f"timed out after {timeout:.0f} s"
        elif dump.startswith("Timeout ("):
            why = "was stopped at the hang timeout (--hang-timeout)"
        elif code < 0 and code in {-s.value for s in signal.Signals}:
            why = f"was killed by {signal.Signals(-code).name}"
        else:
            why = f"exited with code {code}"
        ended, running = read_journal(journal_path(results))
        if cut and code is None:  # the run's deadline, not a hang: the rest did not run
            finished = {t["nodeid"] for t in ended}
            rest = [n for n in read_collected(journal_path(results)) if n not in finished] or running
            log.write(f"===== {label}: stopped at the deadline; {len(rest)} tests not run\n")
            return ended + [{"nodeid": n, "outcome": "not run", "duration": 0.0,
                             "message": "stopped at the run's deadline"} for n in rest], {}, \
                output, []
        lost = _lost(running, elapsed, why, dump or output[-3000:])
        if not ended and not lost:
            lost = [{"nodeid": f"{label}::run", "outcome": "error", "duration": elapsed, "lost": True,
                     "message": f"the test process {why} before any test ran:\n{output[-3000:]}"}]
        return ended + lost, {}, output, [t["nodeid"] for t in ended + lost]


def _lost(running: list[str], seconds: float, why: str, detail: str) -> list[dict]:
    """An error record for each test that was running when the test process ended (``why``)."""
    return [{"nodeid": nodeid, "outcome": "error", "duration": seconds, "lost": True,
             "message": f"the test process {why} while this test was running:\n{detail}"}
            for nodeid in running]


def _child(cmd: list[str], cwd: Path, timeout: float | None, log) -> tuple[str, int | None]:
    """Run ``cmd``; its output (stdout and stderr) and exit status (None: killed at ``timeout``).
    The output goes into ``log`` as the child writes it where ``log`` is a file (so a long run can
    be followed, ``tail -f``), else after it ends."""
    log.flush()
    try:
        fd, name = log.fileno(), Path(log.name)
        fd = fd if name.is_file() else None  # (not a terminal, not a pipe)
    except (AttributeError, OSError, TypeError, ValueError):  # io.StringIO, say
        fd = None
    if fd is None:
        try:
            proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
            output, code = proc.stdout + proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as exc:
            output = (exc.stdout or b"").decode(errors="replace") if isinstance(exc.stdout, bytes) \
                else (exc.stdout or "")
            code = None
        log.write(f"{output}\n")
        return output, code
    start = os.lseek(fd, 0, os.SEEK_END)
    try:
        code = subprocess.run(cmd, cwd=cwd, stdout=fd, stderr=subprocess.STDOUT, timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        code = None
    end = os.lseek(fd, 0, os.SEEK_END)
    log.seek(0, os.SEEK_END)  # the file object's own idea of where it is, past what the child wrote
    with open(name, "rb") as again:
        again.seek(start)
        output = again.read(end - start).decode(errors="replace")
    log.write("\n")
    return output, code


#: What :mod:`faulthandler` writes first when the process crashes (pytest enables it) or
#: outlives the watchdog's hang timeout (:mod:`.watchdog`).
_DUMP = re.compile(r"(Fatal Python error: .*|Timeout \(\d+:\d\d:\d\d(\.\d+)?\)!)$", re.M)


def _dump(output: str, frames: int = 8) -> str:
    """The last crash or hang that faulthandler reported in ``output``: its first line and the
    innermost ``frames`` frames of the first stack (the test's own code; the rest is pytest's),
    or "" where it reported none."""
    found = list(_DUMP.finditer(output))
    if not found:
        return ""
    lines = output[found[-1].start():].splitlines()
    stack = next((i for i, line in enumerate(lines) if line.endswith("(most recent call first):")), None)
    if stack is None:
        return lines[0]
    shown = [line for line in lines[stack + 1:stack + 1 + frames] if line.startswith("  File ")]
    return "\n".join([lines[0], lines[stack], *shown])


def run_resuming(label: str, args: list[str], timeout: float, log, attempts: int = 5,
                 deadline: float | None = None, cwd: Path = ROOT, say: str = "gpu-check"):
    """:func:`run_pytest`, resumed without the tests already done whenever the child is killed or
    crashes (the test that was running is recorded as an error), at most ``attempts`` times,
    and not after ``deadline``."""
    tests, tally, _, done = run_pytest(label, args, timeout, log, deadline, cwd)
    for attempt in range(1, attempts + 1):
        if not done or any(t["nodeid"].endswith("::run") for t in tests) or \
                (deadline is not None and deadline - time.time() < 10):
            break
        print(f"{say}: {label}: the child stopped after {len(done)} tests; resuming without them",
              flush=True)
        more, more_tally, _, newly = run_pytest(f"{label} (resumed {attempt})",
                                                [*args, *(f"--deselect={n}" for n in done)], timeout, log,
                                                deadline, cwd)
        tests += more
        merge_tally(tally, more_tally)
        done = [*done, *newly] if newly else []
    return tests, tally


#: The message of a subject's record where the child ran none of its tests (a ``-k`` that selects
#: none of them, say).
NONE_RAN = "none of its tests ran"


def run_by_subject(label: str, args: list[str], subjects: list[str], deadline: float | None, log,
                   cwd: Path) -> tuple[list[dict], dict]:
    """The tests of ``subjects`` (``--subject REF`` each) in a child pytest (``args``), and its
    tally, as ``softmax-harness check`` runs the battery. A subject whose test crashes the child,
    hangs it or loses its CUDA context fails that test, and the child starts again without that
    subject and without the tests already done: one subject never stops the others'. A child
    that dies outside any test, over several subjects, is started again over each alone. What
    the ``deadline`` stops is "not run"."""
    tests, tally, done, left, alone = [], {}, [], list(subjects), False
    while left and (deadline is None or time.time() < deadline - 1):
        group = left[:1] if alone else left
        more, more_tally, _, ended = run_pytest(
            label, [*args, *(f"--subject={ref}" for ref in group), *(f"--deselect={n}" for n in done)],
            None if deadline is None else deadline - time.time(), log, deadline, cwd)
        merge_tally(tally, more_tally)
        for record in more:  # (the records of tests that did not end, or did not run, name none)
            ref = record.get("subject") or next((r for r in group if runs_on(record["nodeid"], {r})), None)
            if ref is not None:
                record["subject"] = ref
        if not ended:  # the child finished (or the deadline stopped it)
            tests += more
            left = [ref for ref in left if ref not in group]
            continue
        culprits = {r["subject"] for r in more if "subject" in r and (r.get("lost") or r.get("context_lost"))}
        if not culprits and len(group) > 1:  # it died outside any test: one subject at a time
            more = [record for record in more if "subject" in record]
            alone = True
        elif not culprits:
            for record in more:
                record["subject"] = group[0]
            culprits.add(group[0])
        print(f"check: the {label}'s process ended early ({', '.join(sorted(culprits)) or 'in no test'}); "
              "the others go on in a fresh one", flush=True)
        tests += more
        done += [record["nodeid"] for record in more]
        left = [ref for ref in left if ref not in culprits]
    seen = {record.get("subject") for record in tests}
    late = deadline is not None and time.time() >= deadline - 1
    tests += [{"nodeid": f"{label}::{ref}", "subject": ref, "outcome": "not run", "duration": 0.0,
               "message": "the run's --timeout ran out before its tests" if late else NONE_RAN}
              for ref in subjects if ref not in seen]  # a verdict needs tests, or says there were none
    return tests, tally
