"""How a tree's harness launches each of its variants, on a model of a GPU: run as a script over
a copy of the repository (``python launch_trace.py TREE``, refs as a JSON list on stdin, the
answer as JSON on stdout), with the tree's ``softmax_harness`` on the path and a stand-in for
CuPy that answers every question about the device the same way (an H200's 132 multiprocessors and
compute capability 9.0, an occupancy of the threads and shared memory asked) and writes down every
call made of it: the compile (its options; the source handed to NVRTC apart, by digest), the
function's attributes set, the occupancy asked, the allocations, the launches (grid, block,
shared memory, stream, each parameter's value as the harness packed it).

Each variant is called over a fixed set of shapes and types, with and without ``out=``, through
``launch`` on a caller's stream, and on inputs it must refuse. Two trees whose traces of a variant
agree launch it alike on any GPU that answers alike, so a change to the launch path
(``carry.LAUNCH_PATH``) that leaves a variant's trace as it was need not rerun it
(``tools/sass-same``, :mod:`.sass`). Self-contained: it imports nothing of the tree it runs in
but through the tree's own package.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import types

import numpy as np

LOG: list[str] = []
_ALLOCATED = [0]


def show(value) -> str:
    """A value as the trace writes it: the same in any process (no addresses of host objects)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, np.generic):
        return f"{type(value).__name__}({value.item()!r})"
    if isinstance(value, np.dtype):
        return f"dtype({value.name})"
    if isinstance(value, type):
        return value.__name__
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(show(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={show(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, (Fake, Array, Stream)):
        return value._label
    return type(value).__name__


def _address(name: str) -> int:
    """A device address for a stand-in's ``ptr``: fixed by its name, below 2**32, 256-aligned."""
    return (int(hashlib.sha256(name.encode()).hexdigest()[:6], 16) << 8) or 256


class Entered:
    """What a ``with`` block on a device or stream writes into :data:`LOG`."""

    def __enter__(self):
        LOG.append(f"enter {self._label}")
        return self

    def __exit__(self, *exc):
        LOG.append(f"exit {self._label}")
        return False


class Fake(Entered):
    """Any CuPy object: what is called, set or entered on it goes into :data:`LOG`."""

    def __init__(self, label: str, **known):
        object.__setattr__(self, "_label", label)
        for key, value in known.items():
            object.__setattr__(self, key, value)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        value = _address(self._label) if attr == "ptr" else Fake(f"{self._label}.{attr}")
        object.__setattr__(self, attr, value)
        return value

    def __setattr__(self, attr, value):
        LOG.append(f"set {self._label}.{attr} = {show(value)}")
        object.__setattr__(self, attr, value)

    def __call__(self, *args, **kwargs):
        answer = ANSWERS.get(self._label.rsplit(".", 1)[-1])
        if answer not in SELF_WRITTEN:
            LOG.append(f"{self._label}{show(args)} {show(kwargs)}")
        return answer(self, *args, **kwargs) if answer else Fake(f"{self._label}()")

    def __int__(self):
        return 0

    __index__ = __int__


class _Allocating(type):
    """Array's type, CuPy's ``ndarray`` in the model: an array the harness makes (the trace's own
    have a label) goes into the trace as what it is (its shape and type, zeroed or not), whichever
    CuPy function made it: ``empty_like`` of a C-contiguous array and ``ndarray`` of its shape and
    type make the same array, and a launch on it is the same launch."""

    def __call__(cls, shape, dtype=np.float32, *args, zeroed=False, **kwargs):
        array = super().__call__(shape, dtype, *args, **kwargs)
        if kwargs.get("label") is None:
            LOG.append(f"allocate {'zeroed ' if zeroed else ''}{array._label}")
        return array


class Array(metaclass=_Allocating):
    """A CuPy array's face: what the harness reads of one (its type's module starts with cupy)."""

    __module__ = "cupy._core.core"

    def __init__(self, shape, dtype, ptr=None, contiguous=True, label=None):
        _ALLOCATED[0] += 1
        self.shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self.dtype = _dtype(dtype)
        self.ndim = len(self.shape)
        self.size = int(np.prod(self.shape)) if self.shape else 1
        self.itemsize = self.dtype.itemsize
        self.nbytes = self.size * self.itemsize
        strides, step = [], self.itemsize
        for n in reversed(self.shape):
            strides.insert(0, step)
            step *= n
        self.strides = tuple(strides) if contiguous else tuple(2 * s for s in strides)
        self.flags = types.SimpleNamespace(c_contiguous=contiguous)
        self.data = types.SimpleNamespace(ptr=ptr if ptr is not None else (1 << 32) + (_ALLOCATED[0] << 20))
        self.device = types.SimpleNamespace(id=0)
        self._label = label or f"array#{_ALLOCATED[0]}{show(self.shape)}{self.dtype.name}"


def _dtype(name) -> np.dtype:
    if name == "bfloat16":
        import ml_dtypes  # NumPy has no bfloat16 (a dependency of the package)

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def _empty_like(_, x, *args, **kwargs):
    return Array(x.shape, kwargs.get("dtype", x.dtype))


def _empty(_, shape, dtype=np.float32, **kwargs):
    return Array(shape, dtype)


def _zeros_like(_, x, *args, **kwargs):
    return Array(x.shape, kwargs.get("dtype", x.dtype), zeroed=True)


def _zeros(_, shape, dtype=np.float32, **kwargs):
    return Array(shape, dtype, zeroed=True)


def _device(fake, device_id=0, *args):
    attributes = {"MultiProcessorCount": 132, "MaxSharedMemoryPerBlockOptin": 232448}
    return Fake(f"{fake._label}({device_id})", id=device_id, compute_capability="90", attributes=attributes)


class Stream(Entered):
    """A CUDA stream: its handle and whether it is capturing (never), nothing else, as CuPy's."""

    def __init__(self, ptr: int):
        self.ptr = ptr
        self._label = f"stream({ptr:#x})"

    def is_capturing(self) -> bool:
        return False


def _stream(fake, *args, **kwargs):
    return Stream(args[0] if args and isinstance(args[0], int) else _address(fake._label))


def _occupancy(_, function, threads, smem, *args):
    return max(1, min(2048 // max(1, threads), 32, (228 * 1024) // smem if smem else 32))


def _raw_module(fake, *args, code="", **kwargs):
    # the source apart from the trace (``sources``): a kernel file edited, its launch the same
    CODES.append(hashlib.sha256(code.encode()).hexdigest())
    LOG.append(f"{fake._label}{show(args)} {show({**kwargs, 'code': '(the source)'})}")
    return Fake("module")


def _launch(fake, function, gx, gy, gz, bx, by, bz, smem, stream, params, *extra):
    LOG.append(f"{fake._label}{show((function, gx, gy, gz, bx, by, bz, smem, stream, *extra))}")
    # the parameters as the caller packed them (driver.Launch's values), not read through the
    # block's raw addresses: a block shorter than the kernel's list would be read past its end
    launch = sys._getframe(2).f_locals.get("self")
    values = getattr(launch, "_values", None)
    LOG.append(f"  parameters {show([v.value for v in values]) if values is not None else 'unknown'}")


ANSWERS = {"empty_like": _empty_like, "empty": _empty, "zeros": _zeros, "zeros_like": _zeros_like,
           "Device": _device, "get_current_stream": _stream,
           "ExternalStream": _stream, "Stream": _stream,
           "occupancyMaxActiveBlocksPerMultiprocessor": _occupancy, "RawModule": _raw_module,
           "launchKernel": _launch, "launchCooperativeKernel": _launch, "count_nonzero": lambda *a: 0}
CODES: list[str] = []
#: the calls that write themselves into the trace: a launch's argument block lies at a host
#: address, a module's source is recorded apart, and an allocation is written as the array made
SELF_WRITTEN = (_launch, _raw_module, _empty_like, _empty, _zeros_like, _zeros)
TEXT = "--text" in sys.argv  # the traces themselves in the answer, to read
#: the lines of a launch: through the driver (the harness's plans), or a kernel called (a launcher's)
LAUNCHES = ("cupy_backends.cuda.api.driver.launch", "module.get_function()(")


class CompileException(Exception):
    pass


def install() -> None:
    """The stand-ins in ``sys.modules`` as ``cupy`` (its dtypes NumPy's) and CuPy's driver binding."""
    cupy = Fake("cupy")
    for name in ("float16", "float32", "float64", "uint8", "uint32", "int32", "bool_", "dtype", "ndarray"):
        object.__setattr__(cupy, name, getattr(np, name) if name != "ndarray" else Array)
    object.__setattr__(cupy, "__name__", "cupy")
    cupy.cuda.compiler.CompileException = CompileException
    LOG.clear()
    modules = {"cupy": cupy, "cupy.cuda": cupy.cuda, "cupy.cuda.compiler": cupy.cuda.compiler,
               "cupy.cuda.driver": cupy.cuda.driver, "cupy_backends": Fake("cupy_backends")}
    modules["cupy_backends.cuda"] = modules["cupy_backends"].cuda
    modules["cupy_backends.cuda.api"] = modules["cupy_backends.cuda"].api
    modules["cupy_backends.cuda.api.driver"] = modules["cupy_backends.cuda.api"].driver
    sys.modules.update(modules)


def _calls(variant, roles: Roles):
    """(description, call) of each call the trace makes of ``variant``."""
    spec = variant.spec
    longest = spec.max_cols or 2**20 + 3
    cols = sorted({c for c in (1, 31, 32, 1000, 70001, longest // 2 + 1, longest) if c <= longest})
    for dtype in spec.dtypes:
        for n_cols in cols:
            for shape in ((1, n_cols), (7, n_cols), (4096, n_cols)):
                for out in (False, True) if shape[0] == 7 else (False,):
                    yield f"call {dtype} {shape} out={out}", roles.call(shape, dtype, out)
        yield f"launch {dtype} on a caller's stream", roles.on_stream((3, cols[-1]), dtype)
    dtype, shape = spec.dtypes[0], (5, cols[len(cols) // 2])
    seen = (7, cols[min(1, len(cols) - 1)])  # called with out= above
    wrong = {"float64": roles.call(shape, "float64"),
             "3-d": roles.call((2, *shape), dtype),
             "strided": roles.call(shape, dtype, contiguous=False),
             "misaligned": roles.call(shape, dtype, offset=2),
             "out overlapping": roles.call(shape, dtype, "overlap"),
             "scale nan": roles.call(shape, dtype, scale=float("nan")),
             "numpy input": lambda v: v(np.zeros(shape, dtype="float32"), *[0.5] * (len(roles.inputs) - 1)),
             # in a layout that passed before (a harness may remember one): what it does not fix
             "scale nan, its layout passed": roles.call(seen, dtype, True, scale=float("nan")),
             "out overlapping, its layout passed": roles.call(seen, dtype, "inside")}
    yield from ((f"refuse {k}", call) for k, call in wrong.items())


class Roles:
    """A variant's operands by role (its op's inputs), as stand-in arrays at fixed addresses."""

    def __init__(self, inputs, scalar_roles, bool_roles):
        self.inputs, self.scalar, self.bool = inputs, scalar_roles, bool_roles

    def operands(self, shape, dtype, contiguous=True, offset=0, scale=0.5) -> list:
        operands = []
        for i, role in enumerate(self.inputs):
            if role in self.scalar:
                operands.append(scale)
                continue
            kind = np.bool_ if role in self.bool else dtype
            ptr = ((i + 1) << 28) + (offset if i == 0 else 0)
            operands.append(Array(shape, kind, ptr=ptr, contiguous=contiguous, label=f"{role}{show(shape)}"))
        return operands

    def call(self, shape, dtype, out=False, **how):
        """``v(*operands, out=...)``; ``out``: True a buffer of its own, "overlap" the first input,
        "inside" a buffer 16 bytes into the first input."""
        def call(v):
            operands = self.operands(shape, dtype, **how)
            if out == "overlap":
                return v(*operands, out=operands[0])
            if out == "inside":  # 16 bytes into the first input: aligned as any output
                return v(*operands, out=Array(shape, dtype, ptr=operands[0].data.ptr + 16, label="inside"))
            given = Array(shape, dtype, ptr=15 << 28, label=f"out{show(shape)}") if out else None
            return v(*operands, out=given)
        return call

    def on_stream(self, shape, dtype):
        """``v.launch`` on the operands' addresses on a caller's stream, as the torch entry point calls it."""
        def call(v):
            operands = (*self.operands(shape, dtype), Array(shape, dtype, ptr=15 << 28, label="out"))
            v.launch(operands, *shape, _dtype(dtype).itemsize, 0, stream=Stream(0x9000))
        return call


def trace(ref: str, catalog, compiler, ops_base, tree: str) -> dict:
    """The trace of ``ref``'s variant (fresh: nothing cached by an earlier call): its digest, the
    digests of the sources compiled, and its length in lines."""
    LOG.clear()
    CODES.clear()
    _ALLOCATED[0] = 0
    clear = getattr(getattr(compiler, "load_module", None), "cache_clear", None)
    if clear:  # a variant after another of its file compiles it again, into its own trace
        clear()
    variant = catalog.variant(ref)
    spec = variant.spec
    lines = [f"spec {show({k: v for k, v in vars(spec).items() if k not in ('path', 'line')})}"]
    roles = Roles(variant.op.inputs, ops_base.SCALAR_ROLES, ops_base.BOOL_ROLES)
    launched = 0
    for what, call in _calls(variant, roles):
        LOG.clear()
        try:
            result = show(call(variant))
        except Exception as exc:  # the refusals, and whatever the model cannot answer
            result = f"{type(exc).__name__}: {exc}"
        launched += any(line.startswith(LAUNCHES) for line in LOG)
        lines += [what, *LOG, f"-> {result}"]
    text = "\n".join(lines).replace(tree, "<tree>")
    return {"trace": hashlib.sha256(text.encode()).hexdigest(), "sources": sorted(set(CODES)),
            "lines": len(lines), "launched": launched, **({"text": text} if TEXT else {})}


def main() -> None:
    tree = os.path.abspath(sys.argv[1])
    sys.path[0] = tree
    os.chdir(tree)  # the #line directives of the expanded source name files from here
    install()
    from softmax_harness import catalog, compiler
    from softmax_harness.ops import base as ops_base

    if not os.path.abspath(catalog.__file__).startswith(os.path.join(tree, "")):
        sys.exit(f"launch_trace: the harness imported is {os.path.dirname(catalog.__file__)}, not {tree}'s")

    refs = json.load(sys.stdin)
    json.dump({ref: trace(ref, catalog, compiler, ops_base, tree) for ref in refs}, sys.stdout)


if __name__ == "__main__":
    main()
