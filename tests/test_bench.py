"""Benchmarks (``pytest -m bench``): every variant and the baselines over the shape sweep.

Each stores GPU time (see :mod:`softmax_harness.bench`) and records in ``extra_info``
the shape, bytes moved, GB/s, and the fraction of a device-to-device copy of the same
size measured in the same run.
"""

from __future__ import annotations

import pytest

import softmax_harness
from softmax_harness import baselines
from softmax_harness.bench import SWEEP_COLS, bytes_moved, copy_seconds, gpu_clock, gpu_timed, sweep_input

pytestmark = pytest.mark.bench

SLOW = {"thread-per-row": 4096}  # beyond this, one thread per row has too few rows to be worth timing


def _kernels():
    for v in softmax_harness.variants():  # a kernel sized for far longer rows says little here
        yield v.name, v, lambda c, v=v: v.supports(c) and (v.max_cols is None or v.max_cols <= 16 * c)
    yield "softmax_harness.softmax", softmax_harness.softmax, lambda c: True
    yield "torch.softmax", baselines.torch_softmax(), lambda c: True
    yield "triton", baselines.triton_softmax(), lambda c: c <= baselines.TRITON_MAX_COLS


# Grouped by C, so that each ~1 GiB input is made once.
CASES = [(name, fn, c) for c in SWEEP_COLS for name, fn, ok in _kernels() if fn is not None and ok(c)
         and not (hasattr(fn, "spec") and c > SLOW.get(fn.spec.geometry, c))]


def _record(benchmark, name, x, seconds_median):
    moved = bytes_moved(x)
    copy = copy_seconds(x.shape[1])
    if name == "softmax_harness.softmax":
        benchmark.extra_info["dispatched"] = softmax_harness.dispatch.choose(x.shape[1], x.device.id).name
    benchmark.extra_info.update({
        "kernel": name, "N": x.shape[0], "C": x.shape[1], "dtype": str(x.dtype), "bytes": moved,
        "gbps": moved / seconds_median / 1e9, "copy_gbps": moved / copy / 1e9,
        "fraction_of_copy": copy / seconds_median, "timer": "cuda-events",
    })


@pytest.mark.parametrize("name,fn,n_cols", [pytest.param(*case, id=f"C{case[2]}-{case[0]}")
                                            for case in CASES])
def test_softmax_bandwidth(benchmark, name, fn, n_cols):
    x, out = sweep_input(n_cols)
    benchmark.group = f"C={n_cols}"
    benchmark._timer = gpu_clock  # store GPU time: see softmax_harness.bench
    probe = gpu_clock()
    gpu_timed(lambda: fn(x, out))()  # compiles, warms up and says how slow it is
    slow = gpu_clock() - probe > 0.02
    timed = gpu_timed(lambda: fn(x, out), repeat=1 if slow else 5)
    benchmark.pedantic(timed, rounds=3 if slow else 15, warmup_rounds=1, iterations=1)
    _record(benchmark, name, x, benchmark.stats.stats.median)


@pytest.mark.parametrize("n_cols", SWEEP_COLS, ids=lambda c: f"C{c}-copy")
def test_copy_ceiling(benchmark, n_cols):
    x, out = sweep_input(n_cols)
    benchmark.group = f"C={n_cols}"
    benchmark._timer = gpu_clock
    benchmark.pedantic(gpu_timed(lambda: out.__setitem__(Ellipsis, x), repeat=5), rounds=15,
                       warmup_rounds=1)
    _record(benchmark, "copy", x, benchmark.stats.stats.median)
