"""One batch past element 2^31 (2^32 for a 16-bit kernel: the same 8 GiB), on the GPU.

A kernel that forms a row's offset in 32 bits (``int row * n_cols``, ``unsigned``) passes every
batch the strategies draw and faults, or writes the wrong rows, here. The batch is too large for
the host-side checks, so it is built on the device (standard normal rows, the outputs first
filled with the format's poison, a NaN payload) and judged on the rows around the 32-bit
boundaries and the last: against the float64 reference and the bound, and for being written at
all. Batches this large take one of ``SLOTS`` locks, so that parallel test processes on one GPU
build at most that many at a time (two of 32 GiB each fit an H200 beside the other tests).
"""

from __future__ import annotations

import contextlib
import fcntl
import tempfile
import time
from pathlib import Path

import numpy as np

from . import dtypes
from .buffers import bits
from .observation import bound_ratio

LOCK = Path(tempfile.gettempdir()) / "softmax-harness-large-batch.lock"
SLOTS = 2
N_COLS = 4096
MEMORY_WAIT_S = 120.0  # for another slot's batch to go, before the device is called too small


def shape_for(subject) -> tuple[int, int]:
    """Rows of ``N_COLS`` (or the subject's longest) reaching two rows past element 2^31 (fp32)
    or 2^32 (16-bit)."""
    n_cols = N_COLS if subject.supports(N_COLS) else subject.max_cols
    past = 2**31 if dtypes.of(subject.dtype).bits == 32 else 2**32
    return past // n_cols + 2, n_cols


@contextlib.contextmanager
def slot(slots: int = SLOTS, lock: Path = LOCK):
    """Hold one of ``slots`` lock files (``lock`` with the slot's number) for the block: a process
    waits while all are held."""
    while True:
        for k in range(slots):
            with open(lock.with_name(f"{lock.name}.{k}"), "w") as f:
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue
                try:
                    yield k
                    return
                finally:
                    fcntl.flock(f, fcntl.LOCK_UN)
        time.sleep(0.05)


def _wait_for_memory(xp, need: int) -> None:
    """Until the device has ``need`` bytes free with a quarter to spare (another slot's batch may
    be leaving); ``MemoryError`` after ``MEMORY_WAIT_S``, or at once if the device holds less."""
    give_up = time.monotonic() + MEMORY_WAIT_S
    while True:
        free, total = xp.cuda.Device().mem_info
        if need * 1.25 <= free:
            return
        if need * 1.25 > total or time.monotonic() > give_up:
            raise MemoryError(f"a batch of {need / 2**30:.1f} GiB does not fit: {free / 2**30:.1f} GiB free")
        time.sleep(0.5)


def _normal_rows(xp, n_rows: int, n_cols: int, fmt):
    """Standard normal rows in ``fmt``, made a slice at a time (no float32 copy of it all);
    bfloat16 rounded to nearest even from the float32 bits."""
    x = xp.empty((n_rows, n_cols), dtype=fmt.uint)
    step = max(1, 2**27 // n_cols)
    for start in range(0, n_rows, step):
        chunk = xp.random.standard_normal((min(step, n_rows - start), n_cols), dtype=np.float32)
        if fmt.bits == 32:
            x[start:start + len(chunk)] = chunk.view(fmt.uint)
        elif fmt.name == "float16":
            x[start:start + len(chunk)] = chunk.astype(np.float16).view(fmt.uint)
        else:
            u = chunk.view(np.uint32)
            x[start:start + len(chunk)] = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return x.view(fmt.numpy())


def check_ref(ref: str) -> tuple[str, str] | None:
    """:func:`check` on the subject that ``ref`` names (for a child process)."""
    from . import catalog

    return check(catalog.subject(ref))


def check(subject) -> tuple[str, str] | None:
    """(property, message) for the first failure on the batch past element 2^31, or None.
    Raises ``MemoryError`` where the device has too little free memory for it."""
    xp = subject.xp
    fmt = dtypes.of(subject.dtype)
    dtype = fmt.numpy()
    n_rows, n_cols = shape_for(subject)
    op = subject.operation
    need = (len(op.arrays) + 1) * n_rows * n_cols * dtype.itemsize
    with slot():
        _wait_for_memory(xp, need)
        inputs = out = None
        try:
            inputs = op.device_inputs(xp, _normal_rows(xp, n_rows, n_cols, fmt), fmt)
            out = xp.full((n_rows, n_cols), fmt.poison, dtype=fmt.uint).view(dtype)
            try:
                subject.fn(*inputs, out)
                xp.cuda.Device().synchronize()
            except Exception as exc:  # noqa: BLE001 - the kernel's own failure is the finding
                return "launch", (f"{subject.name} on a ({n_rows}, {n_cols}) {subject.dtype} batch "
                                  f"(past element 2^31): {type(exc).__name__}: {exc}")
            boundary = (2**31 if dtype.itemsize == 4 else 2**32) // n_cols
            rows = sorted({0, boundary - 1, boundary, boundary + 1, n_rows - 1})
            ys = out[rows]
            unwritten = bits(xp, ys) == fmt.poison
            if bool(unwritten.any()):
                r, c = divmod(int(xp.argmax(unwritten.ravel())), n_cols)
                return "all_written", (f"{subject.name} left row {rows[r]} (of {n_rows}, {n_cols} columns) "
                                       f"unwritten from column {c}: a 32-bit row offset?")
            ratio = bound_ratio(subject, op.at_rows(rows),
                                tuple(a[rows] if getattr(a, "ndim", 0) else a for a in inputs), ys)
            worst = float(xp.nan_to_num(ratio, nan=xp.inf).max())
            if worst > 1:
                r = int(xp.argmax(ratio.max(axis=1)))
                return "matches_reference", (f"{subject.name}: row {rows[r]} of a ({n_rows}, {n_cols}) batch "
                                             f"is {worst:.3g} times its bound: a 32-bit row offset?")
            return None
        finally:
            del inputs, out
            with contextlib.suppress(Exception):
                xp.get_default_memory_pool().free_all_blocks()
