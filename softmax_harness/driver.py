"""A kernel launch through the CUDA driver on arguments packed once a launch plan.

CuPy's ``Function.__call__`` converts every argument on every call: about 6 µs of host time a
launch on the H200, most of a dispatched call's (reports/measurements/host_overhead_breakdown.json).
A :class:`Launch` keeps the kernel's argument block (``void* params[]`` and the values they point
at) from one call to the next, writes only the operands' addresses and the scalars into it, and
hands it to the driver's ``cuLaunchKernel`` (``cuLaunchCooperativeKernel`` for a kernel whose
blocks must all be resident) through CuPy's own binding, which raises CuPy's ``CUDADriverError``
naming the driver's error.
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np

POINTER, INT32, FLOAT32 = "pointer", "int32", "float32"
_CTYPES = {POINTER: ctypes.c_uint64, INT32: ctypes.c_int32, FLOAT32: ctypes.c_float}


def address(operand) -> int:
    """The device address of ``operand``: an int, a NumPy integer, or an array with ``.data.ptr``
    (CuPy)."""
    if operand.__class__ is int:
        return operand
    if isinstance(operand, np.integer):
        return int(operand)
    try:
        return operand.data.ptr
    except AttributeError:
        raise TypeError(f"expected a device array or address, got {type(operand).__name__}") from None


class Launch:
    """One kernel on one grid: ``slots``, the kernel's parameters in order, each ``(kind, source)``
    with ``kind`` one of :data:`POINTER`, :data:`INT32`, :data:`FLOAT32` and ``source`` either the
    index of an operand (an ``int``) or the constant value itself (anything else, e.g. a NumPy
    scalar). Called with ``(operands, stream)``, it writes the operands into their slots and
    launches on the stream handle. ``driver`` is the module with ``launchKernel`` and
    ``launchCooperativeKernel`` (CuPy's, unless a test gives its own)."""

    __slots__ = ("function", "grid", "block", "shared_mem", "cooperative", "_values", "_params",
                 "_params_address", "_pointers", "_floats", "_lock", "_launch", "_head", "_tail")

    def __init__(self, function: int, grid, block, shared_mem: int, slots, *, cooperative=False,
                 driver=None):
        if driver is None:
            from cupy_backends.cuda.api import driver
        self.function = int(function)
        self.grid = tuple(grid) + (1,) * (3 - len(grid))
        self.block = tuple(block) + (1,) * (3 - len(block))
        self.shared_mem = int(shared_mem)
        self.cooperative = cooperative
        self._values = []
        pointers, floats = [], []
        for kind, source in slots:
            value = _CTYPES[kind]()
            if source.__class__ is int:
                if kind == INT32:
                    raise ValueError("an int32 parameter is a constant of the plan, not an operand")
                (pointers if kind == POINTER else floats).append((source, value))
            else:
                value.value = source.item() if isinstance(source, np.generic) else source
            self._values.append(value)
        self._pointers = tuple(pointers)
        self._floats = tuple(floats)
        self._params = (ctypes.c_void_p * max(1, len(self._values)))(
            *(ctypes.addressof(v) for v in self._values))
        self._params_address = ctypes.addressof(self._params)
        self._launch = driver.launchCooperativeKernel if cooperative else driver.launchKernel
        # the driver's arguments but the stream, as a call passes them: the function, the grid, the
        # block and the shared memory before it, the argument block (and no extras) after; a
        # call 0.84 -> 0.68 µs on fakes (reports/measurements/host_python_share_launch.txt)
        self._head = (self.function, *self.grid, *self.block, self.shared_mem)
        self._tail = (self._params_address,) if cooperative else (self._params_address, 0)
        # Every call of the plan writes the same argument block, and the binding lets go of the
        # GIL while it launches: one call at a time, writes and launch together.
        self._lock = threading.Lock()

    def __call__(self, operands, stream: int) -> None:
        with self._lock:
            for index, value in self._pointers:
                operand = operands[index]
                value.value = operand if operand.__class__ is int else address(operand)
            for index, value in self._floats:
                value.value = operands[index]
            self._launch(*self._head, stream, *self._tail)
