"""The small-batch regime: a few rows of vocabulary-length logits, timed one launch at a time.

Two figures per contender, apart:

- **latency**, the device time of one call with a cold L2 (µs): before each timed call a 256 MiB
  buffer is overwritten (4x the 60 MB L2) and a spin kernel holds the stream for ~200 µs, so the
  host has queued the call before the GPU reaches it and the host's own time does not show;
  CUDA events around the call, medians of the rounds;
- **host overhead**, the host time of one call (µs): ``calls`` calls back to back with no
  synchronisation (the queue never fills), wall time over ``calls``.

The contenders are named in :data:`CONTENDERS`: ours from CuPy arrays (``dispatch.softmax``) and
from torch tensors (``softmax_harness.torch.softmax``, a ``torch.library`` operator), torch,
torch.compile, Triton's one-program-a-row kernel (rows it holds whole) and Quack (where it is
installed), every one at a shape on the same inputs (:func:`inputs`); for the host overhead also
ours bound to its operands (:data:`HOST_CONTENDERS`).
"""

from __future__ import annotations

import functools
import statistics
import time

from . import dtypes
from .gpu import events, synchronize

#: N x C of the sweep: decode-time batches of vocabulary-length rows, and many short rows.
SHAPES = (*((n, c) for n in (1, 8, 64, 256) for c in (4096, 32000, 128256, 151936, 262144)), (4096, 1024))
DTYPES = ("float32", "bfloat16")
#: The shapes whose host overhead is measured: a tile's launch and a split-row launch.
HOST_SHAPES = ((1, 4096), (8, 128256))
CONTENDERS = ("harness-cupy", "harness-torch", "torch", "torch.compile", "triton", "quack")
#: The host overhead's contenders: those, and ours bound to its operands once (``bind``: each call
#: the launch alone), from CuPy arrays and from torch tensors; their device time is the dispatched
#: call's.
HOST_CONTENDERS = (*CONTENDERS[:2], "harness-cupy-bound", "harness-torch-bound", *CONTENDERS[2:])

FLUSH_BYTES = 256 * 2**20
SPIN_NS = 200_000

_SPIN = r"""
extern "C" __global__ void spin(long long ns) {
    long long start;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    for (long long now = start; now - start < ns;) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
}
"""


class NotInstalled(Exception):
    """The contender's package is not installed here."""


@functools.cache
def _flush_buffer():
    import cupy

    return cupy.empty(FLUSH_BYTES, dtype=cupy.uint8)


@functools.cache
def _spin():
    import cupy

    return cupy.RawKernel(_SPIN, "spin")


def cold_seconds(fn) -> float:
    """Device seconds of one ``fn()`` with a cold L2, queued behind a spin (see the module)."""
    import cupy
    import numpy as np

    start, end = events()
    _flush_buffer().fill(0)
    _spin()((1,), (1,), (np.int64(SPIN_NS),))
    start.record()
    fn()
    end.record()
    end.synchronize()
    return cupy.cuda.get_elapsed_time(start, end) / 1e3


def host_seconds(fn, calls: int = 100) -> float:
    """Host seconds per call of ``calls`` calls of ``fn()`` back to back, unsynchronised."""
    synchronize()
    begin = time.perf_counter()
    for _ in range(calls):
        fn()
    spent = time.perf_counter() - begin
    synchronize()
    return spent / calls


@functools.lru_cache(maxsize=1)
def inputs(shape: tuple[int, int], dtype: str):
    """(x, out) as CuPy arrays, standard-normal rows, and their torch views (x_t, out_t); made once
    for the contenders at a shape in turn. Where a cold call's rows and output lie moves its time:
    two calls of the same kernel on inputs of their own ran 4.93 and 4.74 µs at fp32 8 x 4096, each
    within 0.03 µs over five rounds (reports/measurements/latency_spread_h100.jsonl), as much as a
    peer's lead there."""
    import cupy

    from .baselines import as_torch

    fmt = dtypes.of(dtype)
    x = cupy.random.default_rng(shape[1]).standard_normal(shape, dtype=cupy.float32).astype(fmt.numpy())
    out = cupy.empty_like(x)
    return x, out, as_torch(x), as_torch(out)


def contender(who: str, shape: tuple[int, int], dtype: str):
    """``fn()``: one call of ``who`` (a name of :data:`HOST_CONTENDERS`) on inputs of ``shape``, made once.
    Raises :class:`NotInstalled`, or ValueError where it does not take the shape."""
    x, out, xt, outt = inputs(shape, dtype)
    if who == "harness-cupy":
        from . import dispatch

        return lambda: dispatch.softmax(x, out=out)
    if who == "harness-cupy-bound":
        from .bound import bind

        return bind("softmax", x, out=out)
    try:
        import torch
    except ImportError:
        raise NotInstalled("torch") from None
    if who == "harness-torch":
        from .torch import softmax

        return lambda: softmax(xt)
    if who == "harness-torch-bound":
        from .torch import bind

        return bind("softmax", xt)
    if who == "torch":
        return lambda: torch.softmax(xt, -1)
    if who == "torch.compile":
        compiled = torch.compile(lambda t: torch.softmax(t, -1), dynamic=False)
        return lambda: compiled(xt)
    if who == "triton":
        return _triton(xt, outt)
    if who == "quack":
        try:
            from quack.softmax import _softmax_fwd
        except Exception:  # noqa: BLE001 - not installed, or its CUTLASS DSL does not load here
            raise NotInstalled("quack") from None
        return lambda: _softmax_fwd(xt, outt)
    raise ValueError(f"unknown contender {who!r} (known: {', '.join(HOST_CONTENDERS)})")


def _triton(xt, outt):
    from .baselines import triton_rows

    if str(xt.dtype) != "torch.float32":
        raise ValueError("the Triton row kernel is the fp32 baseline")
    try:
        return triton_rows(xt, outt)
    except ImportError:
        raise NotInstalled("triton") from None


def shape_arg(text: str) -> tuple[int, int]:
    """``NxC`` (``8x4096``) as ``(N, C)``: the ``--shape`` of the tools that time a few shapes."""
    import argparse

    try:
        n, c = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a shape NxC (e.g. 8x4096)") from None
    if n < 1 or c < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: rows and columns must be at least 1")
    return n, c


def latency_us(fn, rounds: int = 30, warmup: int = 3) -> float:
    """Median cold-L2 device µs of ``fn()`` over ``rounds`` (after ``warmup`` calls)."""
    for _ in range(warmup):
        fn()
    return statistics.median(cold_seconds(fn) for _ in range(rounds)) * 1e6
