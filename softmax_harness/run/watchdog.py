"""What ends a test process that can no longer test: a test that hangs, and a CUDA context that
a test lost. Either way the process exits, and the runner that started it (``check``) records
the test that did it and starts again without that subject (:mod:`.children` reads the
journal that says which test was running).

Registered by the plugin with ``--hang-timeout SECONDS`` and ``--exit-on-lost-context``.
"""

from __future__ import annotations

import faulthandler
import os

import pytest

from .. import gpu

#: The exit status of a process whose CUDA context a test lost.
EXIT_CONTEXT_LOST = 75

_LOST = pytest.StashKey[str]()


class Watchdog:
    """A test still running after ``hang_timeout`` seconds is taken for a hang: every thread's
    stack goes to stderr and the process exits with status 1 (faulthandler's own thread does
    it, so a test stuck in C, a kernel that never ends, is stopped too). After a failed test,
    with ``exit_on_lost_context``, a CUDA context that no longer synchronises (a sticky error:
    an illegal address, a trap) ends the process once the test's reports are written: every
    later test would fail on that context whatever it ran."""

    def __init__(self, hang_timeout: float | None, exit_on_lost_context: bool):
        self.hang_timeout, self.exit_on_lost_context = hang_timeout, exit_on_lost_context
        self.stderr = os.fdopen(os.dup(2), "w")  # pytest captures fd 2 while a test runs

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        if self.hang_timeout:
            faulthandler.dump_traceback_later(self.hang_timeout, exit=True, file=self.stderr)
        try:
            yield
        finally:
            if self.hang_timeout:
                faulthandler.cancel_dump_traceback_later()
        why = item.stash.get(_LOST, None)
        if why is not None:
            self.stderr.write(f"softmax-harness: {item.nodeid} lost the CUDA context ({why}); the "
                              "process exits, so that the tests after it run in a fresh one\n")
            self.stderr.flush()
            os._exit(EXIT_CONTEXT_LOST)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        if self.exit_on_lost_context and report.failed and _LOST not in item.stash:
            why = gpu.context_lost()
            if why is not None:
                item.stash[_LOST] = why
                report.user_properties.append(("context_lost", why))
        return report
