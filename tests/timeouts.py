"""The tests that wait out the runner's timeouts (a hung test, a run's deadline, a hang while a
callable loads): seconds of waiting each, the same code on every Python. One tox environment
(py311) runs them; the others set ``SOFTMAX_HARNESS_TIMEOUTS=0``."""

from __future__ import annotations

import os

import pytest

waits_out_timeouts = pytest.mark.skipif(
    os.environ.get("SOFTMAX_HARNESS_TIMEOUTS") == "0",
    reason="waits out the runner's timeouts: one tox environment (py311) runs it")
