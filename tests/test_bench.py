"""Benchmarks (``pytest -m bench``): every variant and the baselines over the shape sweep.

Each stores GPU time (see :mod:`softmax_harness.bench`: run with
``--benchmark-timer=softmax_harness.bench.gpu_clock``, as ``tools/gpu-check --bench`` does) and
records in ``extra_info`` the shape, bytes moved, GB/s, and the fraction of a device-to-device
copy of the same bytes timed beside it, round by round.
"""

from __future__ import annotations

import functools
import statistics

import pytest

import softmax_harness
from softmax_harness import baselines, dispatch, latency
from softmax_harness.bench import (
    FORWARD_COLS,
    SWEEP_COLS,
    SWEEP_DTYPES,
    SWEEP_OPS,
    TIMER,
    bytes_moved,
    clocked,
    copier,
    gpu_clock,
    gpu_timed,
    op_inputs,
    sweep_input,
)

pytestmark = pytest.mark.bench


@pytest.fixture(autouse=True)
def _gpu_timer(request):
    """The figures are GPU time only under the GPU clock; anything else would be stored as if it were."""
    timer = request.config.getoption("benchmark_timer", None)
    if timer != TIMER:
        pytest.fail(f"the sweep stores GPU time: run it with --benchmark-timer={TIMER} (got {timer})")

SLOW = {"thread-per-row": 4096}  # beyond this, one thread per row has too few rows to be worth timing


def _dispatched(n_cols, dtype):
    """The variants ``softmax`` may run at this C (rows aligned or not)."""
    try:
        return {softmax_harness.dispatch.choose(n_cols, dtype=dtype, aligned=a).name for a in (True, False)}
    except LookupError:
        return set()


def _kernels():
    for v in softmax_harness.catalog.select("softmax_variant"):  # one sized for far longer rows says
        # little here, unless dispatched
        yield v.name, v, lambda c, d, v=v: v.supports(c, d) and (
            v.max_cols is None or v.max_cols <= 16 * c or v.name in _dispatched(c, d))
    yield "softmax_harness.softmax", softmax_harness.softmax, lambda c, d: d in softmax_harness.dispatch.TABLE
    yield "torch.softmax", baselines.torch_softmax(), lambda c, d: True
    yield "triton", baselines.triton_softmax(), lambda c, d: c <= baselines.TRITON_MAX_COLS and d == "float32"
    yield "quack.softmax", baselines.quack_softmax(), lambda c, d: True
    yield "liger.softmax", baselines.liger_softmax(), lambda c, d: c <= baselines.LIGER_MAX_COLS


# Grouped by element type and C, so that each ~1 GiB input is made once.
CASES = [(name, fn, c, d) for d in SWEEP_DTYPES for c in FORWARD_COLS for name, fn, ok in _kernels()
         if fn is not None and ok(c, d) and not (hasattr(fn, "spec") and c > SLOW.get(fn.spec.geometry, c))]


#: The baselines that may refuse a shape or a type (Quack: rows whose length its vectors do not
#: divide, or its launch limits; Liger: rows over 65536): they are left out there, not failed.
PEER_PREFIXES = ("quack", "liger")


def runs_or_skip(name, fn, *args):
    """Run a peer's ``fn`` once; skip the benchmark, naming why, where it refuses the input."""
    try:
        fn(*args)
    except Exception as exc:  # noqa: BLE001 - whatever the peer raises, it does not take this input
        first = (str(exc).splitlines() or [""])[0][:200]
        pytest.skip(f"{name} does not take this input: {type(exc).__name__}: {first}")


def _record(benchmark, name, x, seconds_median, copy, moved=None):
    """What a benchmark stores beside its time; ``moved``: the bytes the op must move (its inputs
    read and its output written), when they are not the forward's, and ``copy`` the time of a copy
    of as many bytes."""
    moved = moved or bytes_moved(x)
    if name == "softmax_harness.softmax":
        chosen = softmax_harness.dispatch.chosen_for(x)
        benchmark.extra_info["dispatched"] = chosen.name
    benchmark.extra_info.update({
        "kernel": name, "N": x.shape[0], "C": x.shape[1], "dtype": x.dtype.name, "bytes": moved,
        "gbps": moved / seconds_median / 1e9, "copy_gbps": moved / copy / 1e9,
        "fraction_of_copy": copy / seconds_median, "timer": "cuda-events",
    })


def _id(name, n_cols, dtype):  # fp32 ids keep the names of the earlier runs, for `compare`
    return f"C{n_cols}-{name}" if dtype == "float32" else f"{dtype}-C{n_cols}-{name}"


@pytest.mark.parametrize("name,fn,n_cols,dtype", [pytest.param(*case, id=_id(case[0], case[2], case[3]))
                                                  for case in CASES])
def test_softmax_bandwidth(benchmark, name, fn, n_cols, dtype):
    x, out = sweep_input(n_cols, dtype)
    benchmark.group = f"{dtype} C={n_cols}"
    if name.startswith(PEER_PREFIXES):
        runs_or_skip(name, fn, x, out)
    probe = gpu_clock()
    gpu_timed(lambda: fn(x, out))()  # compiles, warms up and says how slow it is
    slow = gpu_clock() - probe > 0.02
    timed = gpu_timed(lambda: fn(x, out), repeat=1 if slow else 5, beside=copier(x, out))
    benchmark.pedantic(timed, rounds=3 if slow else 15, warmup_rounds=1, iterations=1)
    _record(benchmark, name, x, benchmark.stats.stats.median, statistics.median(timed.beside_seconds))


@pytest.mark.parametrize("op,who,n_cols,dtype", [
    pytest.param(op, who, c, d, id=_id(f"{op}-{who}", c, d))
    for d in SWEEP_DTYPES for c in SWEEP_COLS for op in SWEEP_OPS
    for who in ("harness", *(peer for peer, table in baselines.PEERS.items() if op in table))
    if not (who == "liger" and c > baselines.LIGER_MAX_COLS)])
def test_op_bandwidth(benchmark, op, who, n_cols, dtype):
    """The dispatched backward, log_softmax, log_softmax backward and fused forward, and torch's, as
    the fraction of a copy of the same bytes (the op's inputs and output: the copy of the sweep
    input, timed beside, scaled by as much)."""
    x, out = sweep_input(n_cols, dtype)
    inputs = op_inputs(op, n_cols, dtype)
    fn = functools.partial(dispatch.run_op, op) if who == "harness" else baselines.PEERS[who][op]()
    if fn is None:
        pytest.skip(f"{who} is not installed")
    if who != "harness":
        runs_or_skip(who, fn, *inputs, out)
    benchmark.group = f"{dtype} C={n_cols} {op}"
    timed = gpu_timed(lambda: fn(*inputs, out), repeat=5, beside=copier(x, out))
    benchmark.pedantic(timed, rounds=15, warmup_rounds=1, iterations=1)
    moved = sum(a.nbytes for a in inputs if getattr(a, "ndim", 0)) + out.nbytes
    name = f"softmax_harness.{op}" if who == "harness" else f"{who}.{op}"
    _record(benchmark, name, x, benchmark.stats.stats.median,
            moved / (2 * x.nbytes) * statistics.median(timed.beside_seconds), moved=moved)
    benchmark.extra_info["op"] = op
    if who == "harness":
        benchmark.extra_info["dispatched"] = dispatch.op_chosen_for(op, inputs[0]).name


@pytest.mark.parametrize("n_cols,dtype", [pytest.param(c, d, id=_id("copy", c, d))
                                          for d in SWEEP_DTYPES for c in SWEEP_COLS])
def test_copy_ceiling(benchmark, n_cols, dtype):
    x, out = sweep_input(n_cols, dtype)
    benchmark.group = f"{dtype} C={n_cols}"
    benchmark.pedantic(gpu_timed(copier(x, out), repeat=5), rounds=15, warmup_rounds=1)
    _record(benchmark, "copy", x, benchmark.stats.stats.median, benchmark.stats.stats.median)


def _contender_or_skip(who, shape, dtype):
    try:
        fn = latency.contender(who, shape, dtype)
    except latency.NotInstalled as exc:
        pytest.skip(f"{exc} is not installed")
    except ValueError as exc:
        pytest.skip(str(exc))
    runs_or_skip(who, fn)  # compiles (torch.compile, Triton) outside the timing
    return fn


def _small_id(prefix, who, shape, dtype):
    return f"{prefix}-{dtype}-{shape[0]}x{shape[1]}-{who}"


@pytest.mark.parametrize("who,shape,dtype", [
    pytest.param(w, s, d, id=_small_id("latency", w, s, d))
    for d in latency.DTYPES for s in latency.SHAPES for w in latency.CONTENDERS])
def test_latency(benchmark, who, shape, dtype):
    """One call's device time with a cold L2 (see :mod:`softmax_harness.latency`), stored as the
    round's time: the median is the latency."""
    fn = _contender_or_skip(who, shape, dtype)
    benchmark.group = f"latency {dtype} {shape[0]}x{shape[1]}"
    benchmark.pedantic(clocked(lambda: latency.cold_seconds(fn)), rounds=20, warmup_rounds=3, iterations=1)
    benchmark.extra_info.update({"latency_of": who, "N": shape[0], "C": shape[1], "dtype": dtype,
                                 "us": benchmark.stats.stats.median * 1e6, "timer": "cuda-events, cold L2"})


@pytest.mark.parametrize("who,shape,dtype", [
    pytest.param(w, s, d, id=_small_id("host", w, s, d))
    for d in latency.DTYPES for s in latency.HOST_SHAPES for w in latency.HOST_CONTENDERS])
def test_host_overhead(benchmark, who, shape, dtype):
    """One call's host time, 100 calls back to back unsynchronised: what the host spends before
    the GPU can start, apart from the device time."""
    fn = _contender_or_skip(who, shape, dtype)
    benchmark.group = f"host overhead {dtype} {shape[0]}x{shape[1]}"
    benchmark.pedantic(clocked(lambda: latency.host_seconds(fn)), rounds=10, warmup_rounds=2, iterations=1)
    benchmark.extra_info.update({"host_overhead_of": who, "N": shape[0], "C": shape[1], "dtype": dtype,
                                 "us": benchmark.stats.stats.median * 1e6, "timer": "perf_counter, host"})
