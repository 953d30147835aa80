"""The launch through the driver (softmax_harness/driver.py): the kernel's parameters packed in
order, the operands written into their slots on every call, on the caller's stream. On the CPU,
against a driver that records what it is handed."""

from __future__ import annotations

import ctypes
import threading

import numpy as np
import pytest

from softmax_harness import driver
from softmax_harness.driver import FLOAT32, INT32, POINTER, Launch


class RecordingDriver:
    """Stands in for CuPy's binding: reads the parameter block as the driver would."""

    def __init__(self, kinds):
        self.kinds = kinds
        self.calls = []

    def _read(self, params):
        block = (ctypes.c_void_p * len(self.kinds)).from_address(params)
        types = {POINTER: ctypes.c_uint64, INT32: ctypes.c_int32, FLOAT32: ctypes.c_float}
        return [types[k].from_address(block[i]).value for i, k in enumerate(self.kinds)]

    def launchKernel(self, f, gx, gy, gz, bx, by, bz, smem, stream, params, extra):  # noqa: N802
        self.calls.append(("plain", f, (gx, gy, gz), (bx, by, bz), smem, stream, self._read(params), extra))

    def launchCooperativeKernel(self, f, gx, gy, gz, bx, by, bz, smem, stream, params):  # noqa: N802
        self.calls.append(("cooperative", f, (gx, gy, gz), (bx, by, bz), smem, stream, self._read(params)))


class FakeArray:
    """What the launch reads of a CuPy array: ``.data.ptr``."""

    def __init__(self, ptr):
        self.data = type("Memory", (), {"ptr": ptr})()


def test_the_parameters_go_in_the_kernels_order_with_the_operands_of_each_call():
    slots = [(POINTER, 0), (POINTER, 2), (INT32, np.int32(7)), (INT32, np.int32(4096)), (FLOAT32, 1)]
    fake = RecordingDriver([k for k, _ in slots])
    launch = Launch(0xF00, (7,), (256,), 1024, slots, driver=fake)
    launch((FakeArray(0x1000), 0.5, FakeArray(0x2000)), 0)
    launch((np.uint64(0x3000), 2, 0x4000), 5)
    assert fake.calls == [
        ("plain", 0xF00, (7, 1, 1), (256, 1, 1), 1024, 0, [0x1000, 0x2000, 7, 4096, 0.5], 0),
        ("plain", 0xF00, (7, 1, 1), (256, 1, 1), 1024, 5, [0x3000, 0x4000, 7, 4096, 2.0], 0),
    ]


def test_a_scalar_is_passed_as_float32():
    fake = RecordingDriver([FLOAT32])
    Launch(1, (1,), (32,), 0, [(FLOAT32, 0)], driver=fake)((0.1,), 0)
    assert fake.calls[0][6] == [float(np.float32(0.1))]


def test_a_cooperative_launch_goes_to_the_cooperative_entry():
    slots = [(POINTER, 0), (POINTER, 1), (INT32, np.int32(3)), (INT32, np.int32(9)),
             (POINTER, 2), (INT32, np.int32(4))]  # a split-row kernel's: the workspace, the parts
    fake = RecordingDriver([k for k, _ in slots])
    Launch(2, (528,), (256,), 50000, slots, cooperative=True, driver=fake)((0x10, 0x20, 0x30), 9)
    assert fake.calls == [("cooperative", 2, (528, 1, 1), (256, 1, 1), 50000, 9, [0x10, 0x20, 3, 9, 0x30, 4])]


def test_an_operand_that_is_no_address_is_named():
    fake = RecordingDriver([POINTER])
    with pytest.raises(TypeError, match="expected a device array or address, got str"):
        Launch(1, (1,), (32,), 0, [(POINTER, 0)], driver=fake)(("x",), 0)
    with pytest.raises(ValueError, match="int32 parameter is a constant"):
        Launch(1, (1,), (32,), 0, [(INT32, 0)], driver=fake)


def test_address_reads_ints_numpy_integers_and_arrays():
    assert driver.address(5) == 5
    assert driver.address(np.uint64(2**40)) == 2**40
    assert driver.address(FakeArray(0x77)) == 0x77


def test_threads_launching_one_plan_do_not_mix_their_operands():
    """The argument block is shared: each launch must see its own call's operands."""
    seen = []

    class Slow(RecordingDriver):
        def launchKernel(self, f, gx, gy, gz, bx, by, bz, smem, stream, params, extra):  # noqa: N802
            first = self._read(params)
            threading.Event().wait(0.001)  # another thread would write its operands now
            seen.append((stream, first, self._read(params)))

    launch = Launch(1, (1,), (32,), 0, [(POINTER, 0)], driver=Slow([POINTER]))
    threads = [threading.Thread(target=lambda i=i: [launch((0x100 * (i + 1),), i) for _ in range(20)])
               for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 80
    assert all(before == after == [0x100 * (stream + 1)] for stream, before, after in seen)
