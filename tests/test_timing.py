"""The benchmark timers' bookkeeping, with the CUDA-event timing replaced (no GPU needed)."""

from __future__ import annotations

import pytest

from softmax_harness import bench


@pytest.fixture
def fake_events(monkeypatch):
    """Each timing of ``fn`` returns ``fn()`` as its seconds per launch; the order is logged."""
    order = []

    def launches(fn, repeat, start, end):
        order.append(fn.__name__)
        return fn()

    monkeypatch.setattr(bench, "events", lambda: (None, None))
    monkeypatch.setattr(bench, "_launches", launches)
    monkeypatch.setattr(bench, "synchronize", lambda: None)
    return order


def kernel():
    return 2.0


def copy():
    return 1.0


def test_the_copy_timed_beside_a_kernel_stays_off_the_benchmark_clock(fake_events):
    timed = bench.gpu_timed(kernel, repeat=5, beside=copy)
    before = bench.gpu_clock()
    timed()
    timed()
    assert bench.gpu_clock() - before == 4.0
    assert timed.beside_seconds == [1.0, 1.0]
    assert fake_events == ["kernel", "copy", "kernel", "copy"]


def test_paired_medians_alternate_the_functions_round_by_round(fake_events):
    assert bench.paired_medians(kernel, copy, warmup=0, repeat=3) == (2.0, 1.0)
    assert fake_events == ["kernel", "copy"] * 3
