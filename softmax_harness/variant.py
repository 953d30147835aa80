"""A kernel variant as a callable: input checks, output allocation, launch geometry."""

from __future__ import annotations

import contextlib
import functools
import math
import sys
from pathlib import Path

import numpy as np

from . import compiler, driver, dtypes, ops
from .ops.base import BOOL_ROLES, SCALAR_ROLES
from .reference import array_module
from .registry import KERNELS_DIR, VariantSpec

INT32_MAX = 2**31 - 1
#: CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: a cluster of more than 8 blocks (16 on
#: Hopper) launches only where its function allows it.
NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14


#: type -> whether it is CuPy's: a call asks it of each operand, and asking the type's module
#: each time took half of check_input's own Python (6.1 µs against 3.1 remembered, on fakes:
#: reports/measurements/host_python_share.txt).
_CUPY_TYPES: dict[type, bool] = {}


def _is_cupy_array(x) -> bool:
    kind = type(x)
    known = _CUPY_TYPES.get(kind)
    if known is None:
        known = _CUPY_TYPES[kind] = array_module(x) is not np
    return known


_NUMBERS = (int, float, np.integer, np.floating)


def _layout(arrays, out) -> tuple:
    """(layout, addresses) in one pass over a call's operands. The layout is what decides whether
    they pass every check but an output's overlap and the scalars' values: each CuPy array's
    (type, dtype, shape, strides, address modulo 16, which fixes its alignment), ``float`` for a
    number, None for no output; None where an operand is anything else (then every check runs).
    The addresses: each input array's device address, each number as given."""
    key, addresses = [], []
    for a in arrays:
        if _is_cupy_array(a):
            ptr = a.data.ptr
            key.append((type(a), a.dtype, a.shape, a.strides, ptr & 15))
            addresses.append(ptr)
        elif isinstance(a, _NUMBERS):
            key.append(float)
            addresses.append(a)
        else:
            return None, None
    if out is None:
        key.append(None)
    elif _is_cupy_array(out):
        key.append((type(out), out.dtype, out.shape, out.strides, out.data.ptr & 15))
    else:
        return None, None
    return tuple(key), tuple(addresses)


def _cupy():
    """CuPy, imported at a call's first need (the package imports without it): an ``import``
    statement run again each call cost 0.2-0.3 µs of it (tools/host-python-share)."""
    cupy = sys.modules.get("cupy")
    if cupy is None:
        import cupy
    return cupy


@functools.cache
def multiprocessor_count(device_id: int) -> int:
    import cupy

    return cupy.cuda.Device(device_id).attributes["MultiProcessorCount"]


def split_plan(n_rows: int, n_cols: int, tile: int, blocks: int, threads: int, chunk: int) -> tuple[int, int]:
    """(groups, parts) for a split-row launch: as many rows at a time as ``blocks`` resident
    blocks of ``tile`` elements hold (ceil(n_cols / tile) blocks a row), and the blocks left
    over spread over those rows rather than idle (down to one ``chunk`` a thread). Fewer rows at
    a time over more blocks would take more rounds, and every round costs a barrier: measured
    far slower (reports/measurements/plan_cost_model_ab.json)."""
    least = -(-n_cols // tile)
    if not blocks:
        raise ValueError("no block of it fits on a multiprocessor of this device (its threads, registers "
                         "or shared memory)")
    if least > blocks:
        raise ValueError(f"rows of {n_cols} columns need {least} resident blocks of {tile} elements; "
                         f"this device holds {blocks}")
    groups = min(n_rows, blocks // least)
    return groups, max(least, min(blocks // groups, -(-n_cols // (threads * chunk))))


@functools.cache
def compute_capability(device_id: int) -> int:
    import cupy

    return int(cupy.cuda.Device(device_id).compute_capability)


class Variant:
    """One declared kernel variant; call it as ``v(x, out=None)`` on a CuPy (N, C) array (with its
    op's inputs: ``v(y, dy, out=None)`` for a backward, ``v(x, mask, scale, out=None)`` for the
    masked fused forward)."""

    def __init__(self, spec: VariantSpec):
        self.spec = spec
        self._function = None
        self._launch_fn = None  # launcher=: the imported Python launcher
        self._smem_asked = 0  # the dynamic shared memory the compiled function may take
        self._resident: dict[int, int] = {}  # split-row: blocks that fit on each device at once
        self._workspaces: dict[tuple[int, int], object] = {}  # split-row: one per (device, stream)
        self._workspace_args: dict[tuple[int, int], object] = {}  # what the kernel is passed of each
        self._layouts: set[tuple] = set()  # the operands' layouts check_input has passed
        self._plans: dict[tuple, driver.Launch] = {}  # (rows, cols, itemsize, device) -> its launch

    name = property(lambda self: self.spec.name)
    algorithm = property(lambda self: self.spec.algorithm)
    max_cols = property(lambda self: self.spec.max_cols)
    dtypes = property(lambda self: self.spec.dtypes)
    convention = property(lambda self: self.spec.convention)

    @property
    def ref(self) -> str:
        """How to name this variant on a command line: NAME, or NAME@DIR outside kernels/."""
        if self.spec.path.resolve().is_relative_to(KERNELS_DIR.resolve()):
            return self.name
        return self.ref_at

    @property
    def ref_at(self) -> str:
        """NAME@DIR, DIR relative to the current folder where it lies inside it."""
        where = self.spec.path.parent
        with contextlib.suppress(ValueError):
            where = where.relative_to(Path.cwd())
        return f"{self.name}@{where}"

    def __repr__(self) -> str:
        return f"<Variant {self.name} ({self.spec.algorithm}, {self.spec.geometry}) at {self.spec.where}>"

    def supports(self, n_cols: int, dtype=None) -> bool:
        """Whether rows of ``n_cols`` elements (of ``dtype``, when given) are within this variant's
        limits."""
        return (dtype is None or dtypes.name_of(dtype) in self.dtypes) and \
            (self.max_cols is None or n_cols <= self.max_cols)

    def runs_here(self, device_id: int = 0) -> bool:
        """Whether the device is new enough (``min_sm``)."""
        return compute_capability(device_id) >= self.spec.min_sm

    def compile(self):
        """Compile (once per process and file) and return the CuPy kernel function."""
        if self._function is None:
            self._function = compiler.get_function(self.spec.path, self.spec.kernel)
        return self._function

    @functools.cached_property
    def op(self):
        """Its :class:`~softmax_harness.ops.Op`."""
        return ops.of(self.spec.op)

    def _error(self, kind, problem: str):
        return kind(f"{self.spec.op} variant {self.name!r}: {problem}")

    def _arrays(self, arrays, out):
        """The input arrays and the output of a call, ``out`` given by keyword or after the inputs."""
        names = self.op.inputs
        if out is None and len(arrays) == len(names) + 1:
            *arrays, out = arrays
        if len(arrays) != len(names):
            raise self._error(TypeError, f"takes {len(names)} input array{'s' if len(names) > 1 else ''} "
                              f"({', '.join(names)}) and out=, got {len(arrays)}")
        return tuple(arrays), out

    def check_input(self, *arrays, out=None) -> None:
        """Raise TypeError/ValueError naming the variant and the problem, or return. A layout of
        the operands (their types, shapes and strides) checked once is remembered: a call again in
        it checks only what the layout does not fix (alignment, overlap, the scalars)."""
        self._checked(*self._arrays(arrays, out))

    def _checked(self, arrays, out) -> tuple:
        """:meth:`check_input` on ``arrays`` and ``out``; the inputs' device addresses (ints, the
        scalars as given), read once for the checks and the launch. Operands in a layout checked
        before (:func:`_layout`) have left to check only the scalars' values and the output's
        overlap; anything amiss there takes every check, which names it."""
        layout, addresses = _layout(arrays, out)
        if layout is None or layout not in self._layouts:
            self._check_layout(arrays, out)
            addresses = self._check_values(arrays, out)
            if layout is not None:
                if len(self._layouts) >= 64:
                    self._layouts.clear()
                self._layouts.add(layout)
            return addresses
        for i in self._scalar_at:
            if not math.isfinite(addresses[i]):
                return self._check_values(arrays, out)
        if out is not None:
            lo_o = out.data.ptr
            hi_o = lo_o + out.nbytes
            for i in self._array_at:
                lo_x = addresses[i]
                if lo_o < lo_x + arrays[i].nbytes and lo_x < hi_o:
                    return self._check_values(arrays, out)
        return addresses

    @functools.cached_property
    def _scalar_at(self) -> tuple[int, ...]:
        """The positions of the op's scalar inputs (``scale``)."""
        return tuple(i for i, name in enumerate(self.op.inputs) if name in SCALAR_ROLES)

    @functools.cached_property
    def _array_at(self) -> tuple[int, ...]:
        """The positions of the op's array inputs."""
        return tuple(i for i, name in enumerate(self.op.inputs) if name not in SCALAR_ROLES)

    def _check_layout(self, arrays, out) -> None:
        """What the operands' types, shapes and strides decide."""
        x = arrays[0]
        if not _is_cupy_array(x):
            raise self._error(TypeError, f"expected a cupy.ndarray, got {type(x).__name__}")
        if x.dtype.name not in self.dtypes:
            raise self._error(TypeError, f"dtype {x.dtype.name} is not supported "
                              f"(supported: {', '.join(self.dtypes)})")
        if x.ndim != 2:
            raise self._error(ValueError, f"expected a 2-d (rows, cols) array, got ndim={x.ndim} "
                              f"shape={tuple(x.shape)}")
        if not x.flags.c_contiguous:
            raise self._error(ValueError, f"input of shape {tuple(x.shape)} with strides "
                              f"{x.strides} is not C-contiguous (use cupy.ascontiguousarray)")
        n_rows, n_cols = x.shape
        if self.max_cols is not None and n_cols > self.max_cols:
            raise self._error(ValueError, f"rows of {n_cols} columns exceed its max_cols={self.max_cols}")
        if n_rows * self.spec.cluster > INT32_MAX or n_cols > INT32_MAX:
            raise self._error(ValueError, f"shape {tuple(x.shape)} has a dimension above 2**31 - 1")
        for name, other in zip(self.op.inputs[1:], arrays[1:], strict=True):
            if name in SCALAR_ROLES:
                continue
            want = np.dtype(bool) if name in BOOL_ROLES else x.dtype
            if not _is_cupy_array(other):
                raise self._error(TypeError, f"{name} must be a cupy.ndarray, got {type(other).__name__}")
            if other.shape != x.shape or other.dtype != want:
                raise self._error(ValueError, f"{name} has shape {tuple(other.shape)} and dtype "
                                  f"{other.dtype}, expected {tuple(x.shape)} (as {self.op.inputs[0]}) "
                                  f"and {want}")
            if not other.flags.c_contiguous:
                raise self._error(ValueError, f"{name} is not C-contiguous and aligned to its element size")
        if out is None:
            return
        if not _is_cupy_array(out):
            raise self._error(TypeError, f"out must be a cupy.ndarray, got {type(out).__name__}")
        if out.shape != x.shape or out.dtype != x.dtype:
            raise self._error(ValueError, f"out has shape {tuple(out.shape)} and dtype {out.dtype}, "
                              f"expected {tuple(x.shape)} and {x.dtype}")
        if not out.flags.c_contiguous:
            raise self._error(ValueError, "out is not C-contiguous")

    def _check_values(self, arrays, out) -> tuple:
        """What differs from call to call in one layout: the arrays' alignment, the output's
        overlap with an input, the scalars; the inputs' addresses (the scalars as given)."""
        names = self.op.inputs
        addresses = []
        for i, (name, a) in enumerate(zip(names, arrays, strict=True)):
            if name in SCALAR_ROLES:
                real = isinstance(a, (int, float, np.integer, np.floating)) or \
                    (isinstance(a, np.ndarray) and a.ndim == 0 and a.dtype.kind in "iuf")
                if not real or not np.isfinite(a):
                    raise self._error(TypeError, f"{name} must be a finite real number, got {a!r}")
                addresses.append(a)
                continue
            ptr = a.data.ptr
            if ptr % a.dtype.itemsize:
                raise self._error(ValueError, "input is not aligned to its element size" if i == 0 else
                                  f"{name} is not C-contiguous and aligned to its element size")
            addresses.append(ptr)
        if out is None:
            return tuple(addresses)
        lo_o = out.data.ptr
        if lo_o % out.dtype.itemsize:
            raise self._error(ValueError, "out is not aligned to its element size")
        hi_o = lo_o + out.nbytes
        for name, a, lo_x in zip(names, arrays, addresses, strict=True):
            if name in SCALAR_ROLES:
                continue
            size = a.nbytes
            if size and lo_o < lo_x + size and lo_x < hi_o:
                role = "the input" if len(arrays) == 1 else f"input {name}"
                raise self._error(ValueError, f"out overlaps {role} (in place is not supported)")
        return tuple(addresses)

    def launch_config(self, n_rows: int, n_cols: int, device_id: int = 0):
        """(grid, block, shared_mem_bytes) for a launch over ``n_rows`` rows."""
        spec = self.spec
        if spec.geometry == "cluster-per-row":
            return (n_rows * spec.cluster,), (spec.threads,), spec.smem
        if spec.geometry == "split-row":
            return (spec.blocks_per_sm * multiprocessor_count(device_id),), (spec.threads,), spec.smem
        grid = -(-n_rows // spec.rows_per_block)
        if spec.geometry == "grid-stride":
            grid = min(grid, spec.blocks_per_sm * multiprocessor_count(device_id))
        smem = spec.smem_per_col * n_cols * spec.rows_per_block + spec.smem
        return (grid,), (spec.threads,), smem

    def __call__(self, *arrays, out=None):
        arrays, out = self._arrays(arrays, out)
        addresses = self._checked(arrays, out)
        x = arrays[0]
        if out is None:  # x is C-contiguous: the same array as empty_like's, without its Python
            out = _cupy().ndarray(x.shape, x.dtype)
        n_rows, n_cols = x.shape
        if n_rows == 0 or n_cols == 0:
            return out
        if self.spec.launcher is not None:
            self._require_device(x.device.id)
            self._launcher()(self.compile(), *arrays, out)
            return out
        self.launch((*addresses, out.data.ptr), n_rows, n_cols, x.dtype.itemsize, x.device.id)
        return out

    def _require_device(self, device_id: int) -> None:
        if not self.runs_here(device_id):
            raise self._error(RuntimeError, f"needs compute capability {self.spec.min_sm / 10:.1f} "
                              f"or newer (this device: {compute_capability(device_id) / 10:.1f})")

    def launch(self, operands, n_rows: int, n_cols: int, itemsize: int, device_id: int, stream=None) -> None:
        """Launch over (``n_rows``, ``n_cols``) elements of ``itemsize`` bytes on ``operands``: the
        op's inputs then the output, as CuPy arrays or device addresses (ints), scalars
        as numbers; on ``stream`` (anything with the stream's handle as ``.ptr``, and where it has
        ``zeros(size, device_id) -> (owner, argument)``, the allocator of a split-row workspace on
        it; None: CuPy's current stream and allocator). Checks nothing: callers check the operands
        (:meth:`check_input`, or the torch entry point's own)."""
        plan = self._plans.get((n_rows, n_cols, itemsize, device_id))
        if plan is None:
            plan = self._plan(n_rows, n_cols, itemsize, device_id)
        if stream is None:
            stream = _cupy().cuda.get_current_stream()
        if not plan.cooperative:
            plan(operands, stream.ptr)
            return
        key = (device_id, stream.ptr)
        workspace = self._workspace_args.get(key)
        first = workspace is None
        if first:
            owner, workspace = self._first_workspace(device_id, stream)
        plan((*operands, workspace), stream.ptr)
        if first:
            self._check_workspace(device_id, stream, owner)
            self._workspace_args[key] = workspace

    def _plan(self, n_rows: int, n_cols: int, itemsize: int, device_id: int):
        """The launch over (``n_rows``, ``n_cols``) on the device, made once
        (:class:`~softmax_harness.driver.Launch`): the compiled function, grid, block, shared
        memory and the kernel's parameters in order (an operand, or a constant), with a split-row
        launch's workspace and blocks a row (``split_plan``, over the blocks that fit at once: the
        occupancy API decides, as a profiler or sanitizer may take registers)."""
        if self.spec.launcher is not None:  # its grid is the launcher's to choose
            raise self._error(TypeError, f"launches through its launcher={self.spec.launcher}: call it "
                              "on arrays, not launch() on addresses")
        import cupy

        self._require_device(device_id)
        function = self.compile()
        spec = self.spec
        grid, block, smem = self.launch_config(n_rows, n_cols, device_id)
        with cupy.cuda.Device(device_id):
            kernel = getattr(function, "kernel", function)  # RawKernel -> this device's Function
            # past the default 48 KB a block (the kernel's own __shared__ bytes counted) a launch must ask
            if smem > self._smem_asked and smem + int(function.shared_size_bytes) > 48 * 1024:
                function.max_dynamic_shared_size_bytes = self._smem_asked = smem
            if spec.cluster > 8:  # so must a cluster past the portable size
                cupy.cuda.driver.funcSetAttribute(kernel.ptr, NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)
            parts = None
            if spec.geometry == "split-row":
                if device_id not in self._resident:
                    occupancy = cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor
                    per_sm = occupancy(kernel.ptr, block[0], smem)
                    self._resident[device_id] = per_sm * multiprocessor_count(device_id)
                blocks = min(grid[0], self._resident[device_id])
                chunk = 16 // itemsize
                try:
                    groups, n_parts = split_plan(n_rows, n_cols, spec.tile, blocks, block[0], chunk)
                except ValueError as exc:
                    raise self._error(ValueError, str(exc)) from None
                grid, parts = (groups * n_parts,), np.int32(n_parts)
        inputs = (*self.op.inputs, "out")
        where = {role: i for i, role in enumerate(inputs)}
        constants = {"rows": np.int32(n_rows), "cols": np.int32(n_cols), "stride": np.int32(n_cols)}
        slots = [(driver.FLOAT32 if role in SCALAR_ROLES else driver.POINTER, where[role]) if role in where
                 else (driver.INT32, constants[role]) for role in spec.args]
        if parts is not None:  # then the workspace, passed after the operands, and the blocks a row
            slots += [(driver.POINTER, len(inputs)), (driver.INT32, parts)]
        if len(self._plans) >= 64:  # a few shapes in a loop; a sweep over many needs no cache
            self._plans.clear()
        plan = driver.Launch(kernel.ptr, grid, block, smem, slots, cooperative=parts is not None)
        self._plans[(n_rows, n_cols, itemsize, device_id)] = plan
        return plan

    def _first_workspace(self, device_id: int, stream):
        """A zeroed workspace for the split-row kernel's first launch on ``stream``, and its address
        (what the kernel is passed): from the stream's own allocator where it brings one
        (``zeros``), else from CuPy's, made on the stream itself."""
        import cupy

        size = 7 * self._resident[device_id] + 2
        make = getattr(stream, "zeros", None)
        if make is not None:
            return make(size, device_id)
        with cupy.cuda.Device(device_id), cupy.cuda.ExternalStream(stream.ptr, device_id):
            workspace = cupy.zeros(size, dtype=cupy.uint32)
        return workspace, workspace.data.ptr

    def _check_workspace(self, device_id: int, stream, workspace) -> None:
        """Once a stream: a kernel that leaves its workspace dirty would wreck the next launch. Not
        while the stream is captured into a CUDA graph, where reading it back would break the
        capture (the suite checks every split-row kernel outside one). The workspace is kept here
        (a torch caller's, a torch tensor)."""
        import cupy

        handle = cupy.cuda.ExternalStream(stream.ptr, device_id)
        if not handle.is_capturing():
            if hasattr(workspace, "data_ptr"):  # a torch tensor
                dirty = int(workspace.count_nonzero())
            else:
                with cupy.cuda.Device(device_id), handle:
                    dirty = int(cupy.count_nonzero(workspace))
            if dirty:
                raise self._error(RuntimeError, "left its workspace non-zero; a split-row kernel must zero "
                                  "it before it exits (the next launch reuses it)")
        self._workspaces[(device_id, stream.ptr)] = workspace

    def _launcher(self):
        """The header's ``launcher=module:function``, imported once; the module is looked up
        beside the kernel file too, where a user keeps a kernel's launcher."""
        if self._launch_fn is None:
            import sys

            from .callables import load

            folder = str(self.spec.path.resolve().parent)
            if folder not in sys.path:
                sys.path.append(folder)
            self._launch_fn = load(self.spec.launcher, what=f"softmax variant {self.name!r}: launcher")
        return self._launch_fn
