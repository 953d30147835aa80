"""Run a function in a child process, so that a kernel that crashes the CUDA context
(an illegal address) or hangs fails alone and the caller's process carries on."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing


class IsolatedFailure(RuntimeError):
    """The child crashed, hung past its timeout, or raised; the message says which."""


def run_isolated(target, *args, timeout: float = 300.0, what: str = "the child"):
    """``target(*args)`` in a fresh (spawned) process; its return value, or IsolatedFailure."""
    pool = cf.ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    try:
        future = pool.submit(target, *args)
        return future.result(timeout=timeout)
    except cf.TimeoutError:
        raise IsolatedFailure(f"{what} did not finish within {timeout:.0f} s (a hang?)") from None
    except cf.process.BrokenProcessPool:
        raise IsolatedFailure(f"{what} died (the process crashed)") from None
    except Exception as exc:
        raise IsolatedFailure(f"{what} raised {type(exc).__name__}: {exc}") from exc
    finally:
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        # and wait for the pool's manager thread, which sees the kill and exits: left running, it
        # could close its wakeup pipe while the interpreter's exit writes to it, and Python 3.10
        # printed that OSError's traceback after a refused target's one line (seen in CI)
        pool.shutdown(wait=True, cancel_futures=True)
