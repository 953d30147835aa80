"""GPU timing for benchmarks: CUDA events, a GPU clock for pytest-benchmark, bandwidth.

pytest-benchmark times a function with a *timer* it reads before and after each call.
:func:`gpu_clock` is such a timer that advances only by GPU time: every call of a
function wrapped by :func:`gpu_timed` launches once untimed (so the GPU is busy while
the host enqueues), then times ``repeat`` back-to-back launches between two CUDA
events, synchronises, and adds the time per launch to the clock. So the figure
pytest-benchmark stores (and ``pytest-benchmark compare`` reads) is kernel time on
the device: the host's launch overhead (Python argument checks, the launcher) is
hidden behind the previous launch instead of counted as idle GPU time. Inputs are
about 1 GiB, far larger than the 60 MB L2, so every launch streams from device memory.

The ceiling is a device-to-device copy of the same bytes timed *beside* each kernel
(alternating with it, round by round), not once per row length, so that the two timings
of each ratio see the card in the same state.
"""

from __future__ import annotations

import functools

from . import callables, catalog, dispatch, dtypes, ops
from .gpu import events, synchronize

#: Row lengths and element types of the sweep; N is chosen so that each input is about
#: ``BYTES`` bytes. 65535 is there for rows of odd length (most of them start misaligned).
SWEEP_COLS = (32, 128, 500, 1024, 2048, 4096, 8192, 16384, 32768, 65535, 131072, 1048576)
SWEEP_DTYPES = ("float32", "float16", "bfloat16")
#: The forward's sweep adds three vocabularies' lengths (GPT-2's 50257, Llama 3's 128256, Qwen's
#: 151936) and 262144, the long rows a cluster may hold whole.
FORWARD_COLS = tuple(sorted(SWEEP_COLS + (50257, 128256, 151936, 262144)))
BYTES = 2**30

_elapsed = [0.0]

#: The GPU clock as pytest-benchmark's ``--benchmark-timer`` names it.
TIMER = "softmax_harness.bench.gpu_clock"


def gpu_clock() -> float:
    """Seconds of GPU time measured so far by :func:`gpu_timed` functions (a pytest-benchmark timer)."""
    return _elapsed[0]


def gpu_timed(fn, repeat: int = 1, beside=None):
    """Wrap ``fn``: each call adds the event-timed GPU seconds per launch of ``fn()`` to the clock.
    With ``beside`` (a copy, say), each call then times ``beside()`` the same way, off the clock,
    and appends its seconds per launch to the wrapper's ``beside_seconds``."""
    start, end = events()

    @functools.wraps(fn)
    def timed():
        _elapsed[0] += _launches(fn, repeat, start, end)
        if beside is not None:
            timed.beside_seconds.append(_launches(beside, repeat, start, end))

    timed.beside_seconds = []
    return timed


def clocked(measure):
    """Wrap ``measure`` (a function returning seconds it measured itself: a cold-L2 launch's device
    time, a call's host time): each call adds them to the clock."""

    def timed():
        _elapsed[0] += measure()

    return timed


def _launches(fn, repeat, start, end) -> float:
    """Seconds per launch of ``repeat`` back-to-back launches, queued behind an untimed one."""
    import cupy

    fn()
    start.record()
    for _ in range(repeat):
        fn()
    end.record()
    end.synchronize()
    return cupy.cuda.get_elapsed_time(start, end) / 1e3 / repeat


def shape_for(n_cols: int, itemsize: int = 4, total: int = BYTES) -> tuple[int, int]:
    """(N, C) with N * C * itemsize close to ``total`` bytes."""
    return max(1, total // (itemsize * n_cols)), n_cols


@functools.lru_cache(maxsize=1)
def sweep_input(n_cols: int, dtype: str = "float32"):
    """A ~1 GiB input of standard-normal rows in ``dtype``, and an output buffer (one cached)."""
    import cupy

    fmt = dtypes.of(dtype)
    shape = shape_for(n_cols, fmt.bits // 8)
    x = cupy.random.default_rng(n_cols).standard_normal(shape, dtype=cupy.float32)
    if fmt.name != "float32":
        x = x.astype(fmt.numpy())
    return x, cupy.empty_like(x)


def bytes_moved(x) -> int:
    """The fewest bytes a softmax must move: the input read once and the output written once."""
    return 2 * x.nbytes


def median_seconds(fn, *, warmup: int = 3, repeat: int = 20) -> float:
    """Median GPU seconds of ``fn()`` over ``repeat`` event-timed launches after ``warmup``."""
    return paired_medians(fn, warmup=warmup, repeat=repeat)[0]


def paired_medians(*fns, warmup: int = 3, repeat: int = 20) -> tuple[float, ...]:
    """Median GPU seconds per launch of each of ``fns``, timed in turn ``repeat`` times (five
    launches a timing) after ``warmup`` calls each, so that all see the card in the same state."""
    import statistics

    for fn in fns:
        for _ in range(warmup):
            fn()
    synchronize()
    start, end = events()
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, seen in zip(fns, times, strict=True):
            seen.append(_launches(fn, 5, start, end))
    return tuple(statistics.median(seen) for seen in times)


def copier(x, out):
    """A device-to-device copy of ``x`` into ``out``: the ceiling a softmax is judged against."""
    return lambda: out.__setitem__(Ellipsis, x)


@functools.cache
def copy_seconds(n_cols: int, dtype: str = "float32") -> float:
    """Median time of a device-to-device copy of the sweep input (the ceiling)."""
    return median_seconds(copier(*sweep_input(n_cols, dtype)))


#: Names that ``fractions_of_copy`` times besides variants: the dispatchers and the baselines.
NOT_VARIANTS = (*ops.NAMES, "torch", "triton", "quack", "liger")

#: The ops besides the forward that the sweep measures (their dispatchers and torch's).
SWEEP_OPS = ("softmax_backward", "log_softmax", "log_softmax_backward", "scaled_softmax_bias",
             "scaled_softmax_mask", "scaled_softmax_causal")


@functools.lru_cache(maxsize=1)
def op_inputs(op: str, n_cols: int, dtype: str = "float32") -> tuple:
    """The inputs of ``op`` made on the device from the sweep input of (``n_cols``, ``dtype``)
    (``Op.device_inputs``: a backward's y or z is the softmax or log_softmax of it, computed in
    float32, and its dy the input itself)."""
    import cupy

    x, _ = sweep_input(n_cols, dtype)
    return ops.of(op).device_inputs(cupy, x, dtypes.of(dtype))


def lookup(name: str, root=None):
    """The variant ``name`` declared under ``root`` if it is there, else in ``kernels/``
    (``NAME@DIR``: the one under DIR)."""
    try:
        return catalog.variant(name, root)
    except catalog.UnknownVariantError:  # not staged: the verified one
        if root is None or catalog.split_ref(name)[1] is not None:
            raise
        return catalog.variant(name)


@functools.cache
def callable_launch(ref: str, op: str, dtype: str):
    """``(launch, max_cols)`` of the callable ``module:function[:dtype]`` on device arrays of
    ``dtype``, as the battery calls it (``fn(*inputs, out)``), or None where it is not a subject
    of ``op`` in that type on the GPU (another op, a type it does not declare, NumPy arrays)."""
    base, wanted = callables.split_dtype(ref)
    if wanted not in (None, dtype):
        return None
    try:
        subject = callables.subject(f"{base}:{dtype}")
    except callables.SubjectError:
        return None
    if subject.op != op or subject.xp.__name__ != "cupy":
        return None
    return subject.fn, subject.max_cols


def _takes(fn, *args) -> bool:
    """Whether a peer's ``fn`` runs on these arrays (Quack refuses rows its vectors do not divide,
    Liger rows over 65536 columns)."""
    try:
        fn(*args)
    except Exception:  # noqa: BLE001 - whatever it raises, it does not take them
        return False
    return True


def fractions_of_copy(kernels: list[str], cols: list[int], dtype: str = "float32", root=None,
                      op: str = "softmax") -> list[dict]:
    """For each C: the fraction of a device-to-device copy of the same bytes that each kernel of
    ``op`` (a variant name, the op's name for its dispatcher, ``torch``, ``quack``, ``liger``,
    ``module:function`` for a callable of one's own, or, for the forward, ``triton``) reaches
    on the ~1 GiB sweep input, timed in this process (medians of CUDA-event timings, each
    kernel's in alternation with the copy's). The copy moves the sweep input once (read and
    write); an op moves its inputs' bytes and its output's (a backward's 3/2 of the copy's, a
    mask's a byte an element), and its copy's time is scaled by as much. Kernels that cannot
    take C (or the type) are left out.
    ``root``: look the variants up there first, then in ``kernels/`` (``staging/kernels``, say)."""
    from .baselines import PEERS, TRITON_MAX_COLS, triton_softmax

    rows = []
    for n_cols in cols:
        x, out = sweep_input(n_cols, dtype)
        inputs = op_inputs(op, n_cols, dtype)
        scale = (sum(a.nbytes for a in inputs if getattr(a, "ndim", 0)) + out.nbytes) / bytes_moved(x)
        copy = copy_seconds(n_cols, dtype)
        row = {"op": op, "dtype": dtype, "C": n_cols, "copy_gbps": round(bytes_moved(x) / copy / 1e9)}
        for name in kernels:
            if name == "softmax" and op == "softmax":
                fn = dispatch.softmax
                row["dispatched"] = dispatch.chosen_for(x).name
            elif name == op:
                fn = functools.partial(dispatch.run_op, op)
                row["dispatched"] = dispatch.op_chosen_for(op, inputs[0]).name
            elif name in PEERS:
                fn = PEERS[name].get(op, lambda: None)()
                if fn is None or not _takes(fn, *inputs, out):
                    continue
            elif name == "triton":  # the fp32 baseline, for rows it holds whole
                fn = triton_softmax()
                if fn is None or n_cols > TRITON_MAX_COLS or dtype != "float32" or op != "softmax":
                    continue
            elif callables.is_callable_ref(name):  # a user's callable, in the battery's calling convention
                found = callable_launch(name, op, dtype)
                if found is None or (found[1] is not None and n_cols > found[1]):
                    continue
                fn = found[0]
            else:
                fn = lookup(name, root)
                if fn.spec.op != op or not fn.supports(n_cols, dtype) or not fn.runs_here(x.device.id):
                    continue
            kernel, beside = paired_medians(lambda: fn(*inputs, out), copier(x, out))  # noqa: B023
            row[name] = round(scale * beside / kernel, 3)
        rows.append(row)
    return rows
