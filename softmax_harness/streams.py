"""Whether a subject's work is done when the caller's stream is: a kernel must launch on the
stream that is current when it is called (``cupy.cuda.get_current_stream()``).

A kernel launched on a stream of its own, or on the legacy default stream, passes every other
check, since the harness waits for its launches; it fails its caller, who queues the next
kernel on their own stream and reads the output before it is written. Timing decides whether
that shows, so :func:`check` makes it show: it fills every multiprocessor with a kernel that
spins for a few milliseconds on a stream of its own, calls the subject under a fresh
non-blocking stream, waits for that stream only and copies the output to the host at once
(the copy engine does not wait for the multiprocessors), after a first call that compiled the
kernel and made its allocations. A kernel on the caller's stream
cannot start before the spin ends, and the wait covers it; one on any other stream has not run.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .buffers import Buffers, bits
from .observation import as_format

N_ROWS, N_COLS = 256, 1000
HOLD_MS = 20.0  # far longer than a launch takes the host

_HOLD = r"""
extern "C" __global__ void hold(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}
"""


def _hold(xp, stream) -> None:
    """Occupy every thread slot of every multiprocessor for ``HOLD_MS`` on ``stream``."""
    device = xp.cuda.Device()
    attrs = device.attributes
    per_sm = attrs["MaxThreadsPerMultiProcessor"] // 1024 or 1
    cycles = int(HOLD_MS * attrs["ClockRate"])  # the clock rate is in kHz
    kernel = xp.RawKernel(_HOLD, "hold")
    kernel((attrs["MultiProcessorCount"] * per_sm,), (1024,), (np.int64(cycles),), stream=stream)


def check(subject, n_rows: int = N_ROWS, n_cols: int | None = None) -> tuple[str, str] | None:
    """("all_written", message) if the output is not complete once the caller's stream is, else None."""
    xp = subject.xp
    n_cols = n_cols or (N_COLS if subject.supports(N_COLS) else subject.max_cols)
    fmt = dtypes.of(subject.dtype)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n_rows, n_cols)).astype(np.float32)
    inputs = tuple(as_format(a, fmt) for a in subject.operation.build(x, None, subject.convention))
    buffers = Buffers(xp, inputs, (0, 0))
    subject.fn(*buffers.inputs, buffers.y)  # compiled, and its allocations made, before the trial
    xp.cuda.Device().synchronize()
    bits(xp, buffers.dst)[...] = buffers.poison
    xp.cuda.Device().synchronize()
    spin = xp.cuda.Stream(non_blocking=True)
    caller = xp.cuda.Stream(non_blocking=True)
    _hold(xp, spin)
    with caller:
        subject.fn(*buffers.inputs, buffers.y)
    caller.synchronize()
    seen = buffers.y.get(stream=caller)  # a copy-engine transfer: it does not wait for the spin
    xp.cuda.Device().synchronize()
    poisoned = bits(np, seen) == fmt.poison
    if not bool(poisoned.any()):
        return None
    later = bool((bits(xp, buffers.y) != fmt.poison).all())
    r, c = divmod(int(np.argmax(poisoned.ravel())), n_cols)
    return "all_written", (
        f"{subject.name}: when the caller's stream had finished, row {r} of a ({n_rows}, {n_cols}) batch "
        f"was unwritten from column {c}" + (", and written only later: it launches on another stream, not "
                                           "on cupy.cuda.get_current_stream()" if later else ""))
