"""GPU timing for benchmarks: CUDA events, a GPU clock for pytest-benchmark, bandwidth.

pytest-benchmark times a function with a *timer* it reads before and after each call.
:func:`gpu_clock` is such a timer that advances only by GPU time: every call of a
function wrapped by :func:`gpu_timed` records CUDA events around its launch,
synchronises, and adds the event time to the clock. So the figure pytest-benchmark
stores (and ``pytest-benchmark compare`` reads) is kernel time on the device, without
host launch overhead. Inputs are about 1 GiB, far larger than the 60 MB L2, so every
launch streams from device memory.
"""

from __future__ import annotations

import functools

#: Row lengths of the sweep; N is chosen so that each input is about ``BYTES`` bytes.
SWEEP_COLS = (32, 128, 500, 1024, 2048, 4096, 8192, 16384, 32768, 131072, 1048576)
BYTES = 2**30

_elapsed = [0.0]


def gpu_clock() -> float:
    """Seconds of GPU time measured so far by :func:`gpu_timed` functions (a pytest-benchmark timer)."""
    return _elapsed[0]


def gpu_timed(fn):
    """Wrap ``fn`` so that each call is timed with CUDA events on the current stream."""
    import cupy

    start, end = cupy.cuda.Event(), cupy.cuda.Event()

    @functools.wraps(fn)
    def timed(*args, **kwargs):
        start.record()
        result = fn(*args, **kwargs)
        end.record()
        end.synchronize()
        _elapsed[0] += cupy.cuda.get_elapsed_time(start, end) / 1e3
        return result

    return timed


def shape_for(n_cols: int, itemsize: int = 4, total: int = BYTES) -> tuple[int, int]:
    """(N, C) with N * C * itemsize close to ``total`` bytes."""
    return max(1, total // (itemsize * n_cols)), n_cols


@functools.lru_cache(maxsize=1)
def sweep_input(n_cols: int):
    """A ~1 GiB float32 input of standard-normal rows, and an output buffer (one size cached)."""
    import cupy

    shape = shape_for(n_cols)
    x = cupy.random.default_rng(n_cols).standard_normal(shape, dtype=cupy.float32)
    return x, cupy.empty_like(x)


def bytes_moved(x) -> int:
    """The fewest bytes a softmax must move: the input read once and the output written once."""
    return 2 * x.nbytes


def median_seconds(fn, *, warmup: int = 3, repeat: int = 20) -> float:
    """Median GPU seconds of ``fn()`` over ``repeat`` event-timed launches after ``warmup``."""
    import statistics

    import cupy

    for _ in range(warmup):
        fn()
    cupy.cuda.Device().synchronize()
    times = []
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    for _ in range(repeat):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end) / 1e3)
    return statistics.median(times)


@functools.cache
def copy_seconds(n_cols: int) -> float:
    """Median time of a device-to-device copy of the sweep input for ``n_cols`` (the ceiling)."""
    x, out = sweep_input(n_cols)
    return median_seconds(lambda: out.__setitem__(Ellipsis, x))
