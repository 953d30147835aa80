"""The dispatched kernels as torch operators: ``torch.ops.softmax_harness.softmax``,
``log_softmax`` and their backwards, defined with ``torch.library``, differentiable, with fake
(meta) implementations so that ``torch.compile`` traces through them without a graph break.

Each call launches the variant that :mod:`~softmax_harness.dispatch` picks straight on the
tensors' device addresses, on torch's current stream (so inside a ``torch.cuda.graph`` capture
too): no DLPack round trip and no CuPy array a call. Tensors of any shape, float32, float16 or
bfloat16, along any ``dim`` (a dim other than the last is moved there and back, with a copy each
way).
"""

from __future__ import annotations

import functools

import cupy
import torch

from . import dispatch
from .bound import Bound, launcher
from .variant import INT32_MAX

_TYPES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}

_LIB = torch.library.Library("softmax_harness", "DEF")
#: op -> the name of its first input (the backwards take the forward's output and the gradient).
_FIRST = {"softmax": "x", "log_softmax": "x", "softmax_backward": "y", "log_softmax_backward": "z"}
for _op, _first in _FIRST.items():
    _second = ", Tensor dy" if _op.endswith("backward") else ""
    _LIB.define(f"{_op}(Tensor {_first}{_second}, int dim=-1) -> Tensor")


class _Stream:
    """A stream handle where CuPy's launch reads one (``.ptr``), and the allocator of a split-row
    kernel's workspace on it (``zeros``): torch's, which a ``torch.cuda.graph`` capture takes into
    its pool."""

    __slots__ = ("ptr",)

    def __init__(self, ptr: int):
        self.ptr = ptr

    @staticmethod
    def zeros(size: int, device_id: int) -> tuple[torch.Tensor, int]:
        """A zeroed workspace of ``size`` 32-bit words, and what the kernel is passed of it (its
        address)."""
        owner = torch.zeros(size, dtype=torch.int32, device=f"cuda:{device_id}")
        return owner, owner.data_ptr()


_cupy_device = cupy.cuda.runtime.getDevice


@functools.cache
def _stream(handle: int) -> _Stream:
    return _Stream(handle)


try:
    _raw_stream = torch._C._cuda_getCurrentRawStream  # the handle alone: no Stream object a call
except AttributeError:  # pragma: no cover - older torch
    def _raw_stream(device_index):
        return torch.cuda.current_stream(device_index).cuda_stream


def _variant(op: str, n_cols: int, n_rows: int, device_index: int, dtype: str, aligned: bool):
    if op == "softmax":  # the dispatcher remembers its choices
        return dispatch.choose(n_cols, device_index, dtype, aligned=aligned, n_rows=n_rows)
    return dispatch.choose_op(op, n_cols, device_index, dtype, aligned=aligned)


def _problem(op: str, message: str, kind=ValueError):
    return kind(f"softmax_harness.torch.{op}: {message}")


def _check(op: str, tensors, dim: int) -> None:
    first = tensors[0]
    for t in tensors:
        if not isinstance(t, torch.Tensor):
            raise _problem(op, f"expected a torch.Tensor, got {type(t).__name__}", TypeError)
        if t.device.type != "cuda":
            raise _problem(op, f"expected a CUDA tensor, got one on {t.device}", TypeError)
        if t.dtype not in _TYPES:
            raise _problem(op, f"dtype {t.dtype} is not supported (float32, float16, bfloat16)", TypeError)
        if t.shape != first.shape or t.dtype != first.dtype or t.device != first.device:
            raise _problem(op, f"dy is {t.dtype} {tuple(t.shape)} on {t.device}, the output "
                           f"{first.dtype} {tuple(first.shape)} on {first.device}: they must match")
    if first.ndim == 0 or not -first.ndim <= dim < first.ndim:
        raise _problem(op, f"dim {dim} is out of range for shape {tuple(first.shape)}", IndexError)


#: The layouts a call along the last dim of contiguous tensors passed in: (op, dim, the first
#: tensor's address modulo 16, and each tensor's shape, dtype, device and contiguity: a forward's
#: in the key itself, a backward's a tuple a tensor) -> (its launch, the device). Everything
#: ``_check`` and the choice read is in the key, so a call in a layout seen before only allocates
#: and launches: the checks, the choice and the shape's arithmetic were half of a call's host time
#: outside the allocation and the driver (5.9 -> 3.4 µs on fakes:
#: reports/measurements/torch_python_share_layouts.txt).
_LAYOUTS: dict[tuple, tuple] = {}


def _forward(op: str, x: torch.Tensor, dim: int) -> torch.Tensor:
    """``_run`` of a forward (one tensor), the layout's key made inline and the launch plan called
    directly (:func:`_launch_of`): a call 3.40 -> 2.42 µs on fakes, a CPU allocation of 0.9 µs
    included (reports/measurements/torch_python_share_forward.txt)."""
    address = x.data_ptr()
    layout = op, dim, address & 15, x.shape, x.dtype, x.device, x.is_contiguous()
    known = _LAYOUTS.get(layout)
    if known is None:
        return _run_checked(op, (x,), dim, layout)
    launch, device = known
    out = torch.empty_like(x)
    _on_device(device, launch, (address, out.data_ptr()), _raw_stream(device))
    return out


def _run(op: str, tensors, dim: int) -> torch.Tensor:
    """``op`` along ``dim`` of ``tensors`` (one, or the output and the gradient)."""
    if len(tensors) == 1:
        return _forward(op, tensors[0], dim)
    layout = (op, dim, tensors[0].data_ptr() & 15,
              *[(t.shape, t.dtype, t.device, t.is_contiguous()) for t in tensors])
    known = _LAYOUTS.get(layout)
    if known is None:
        return _run_checked(op, tensors, dim, layout)
    launch, device = known
    out = torch.empty_like(tensors[0])
    addresses = [t.data_ptr() for t in tensors]
    addresses.append(out.data_ptr())
    _on_device(device, launch, addresses, _raw_stream(device))
    return out


def _run_checked(op: str, tensors, dim: int, layout: tuple) -> torch.Tensor:
    """``_run`` in a layout not seen before: checked, chosen, and remembered where it needs no copy."""
    _check(op, tensors, dim)
    first = tensors[0]
    last = dim in (-1, first.ndim - 1)
    whole = [last and t.is_contiguous() for t in tensors]
    rows = [t if w else t.movedim(dim, -1).contiguous() for t, w in zip(tensors, whole, strict=True)]
    out = torch.empty_like(rows[0])
    plan = _planned(op, rows, out)
    if plan is not None:
        variant, addresses, shape, size, device = plan
        _on_device(device, variant.launch, addresses, *shape, size, device, _stream(_raw_stream(device)))
        if all(whole):
            if len(_LAYOUTS) >= 256:  # a few layouts in a loop; a sweep over many needs no memory
                _LAYOUTS.clear()
            _LAYOUTS[layout] = _launch_of(variant, shape, size, device), device
    return out if last else out.movedim(-1, dim).contiguous()


def _launch_of(variant, shape, size: int, device: int):
    """``launch(addresses, stream handle)`` of ``variant`` over ``shape`` on ``device``: the launch
    plan its first launch made (:class:`~softmax_harness.driver.Launch`), called directly where the
    launch takes no workspace of the stream's: ``variant.launch`` would look it up again each call."""
    plan = dispatch.direct_plan(variant, *shape, size, device)
    if plan is not None:
        return plan
    return lambda addresses, handle: variant.launch(addresses, *shape, size, device, _stream(handle))


def _on_device(device: int, fn, *args) -> None:
    """``fn(*args)`` with CuPy's current device the tensors' (their kernels' functions belong to
    it), switched only where it is another."""
    if device == _cupy_device():
        fn(*args)
    else:
        with cupy.cuda.Device(device):
            fn(*args)


def _planned(op: str, rows, out):
    """What a launch of ``op`` on ``rows`` (contiguous along their last dim) into ``out`` takes:
    (the variant, the operands' addresses, (rows, cols), the element size, the device); None for
    an empty batch."""
    n_cols = rows[0].shape[-1]
    n_rows = rows[0].numel() // n_cols if n_cols else 0
    if not n_rows or not n_cols:
        return None
    if n_rows > INT32_MAX // 8 or n_cols > INT32_MAX:  # a cluster kernel's grid: 8 blocks a row
        raise _problem(op, f"{n_rows} rows of {n_cols} columns are past the kernels' 32-bit grid")
    size = rows[0].element_size()
    addresses = [t.data_ptr() for t in (*rows, out)]
    first = rows[0]
    device = first.device.index if first.device.index is not None else torch.cuda.current_device()
    aligned = addresses[0] % 16 == 0 and n_cols * size % 16 == 0
    try:
        variant = _variant(op, n_cols, n_rows, device, _TYPES[first.dtype], aligned)
    except LookupError as exc:
        raise _problem(op, str(exc)) from None
    return variant, addresses, (n_rows, n_cols), size, device


def bind(op: str, *tensors: torch.Tensor) -> Bound:
    """``op`` (softmax, log_softmax or a backward) along the last dim of contiguous CUDA
    ``tensors`` (x; or the forward's output and the gradient), bound to them and to an output made
    here (:class:`~softmax_harness.bound.Bound`): ``bound()`` launches on torch's current stream
    with no check, choice or allocation a call, and returns ``bound.out``. The tensors must keep
    their storage (rewritten in place, as a CUDA graph's are); autograd records nothing (for
    inference loops: the operators above are differentiable)."""
    if not isinstance(op, str):  # bind(x): a tensor where the op's name goes
        raise TypeError(f"softmax_harness.torch.bind: the first argument names the op "
                        f"({', '.join(_FIRST)}), got a {type(op).__name__}")
    if op not in _FIRST:
        raise ValueError(f"softmax_harness.torch.bind: unknown op {op!r} (known: {', '.join(_FIRST)})")
    arity = 2 if op.endswith("backward") else 1
    if len(tensors) != arity:
        raise _problem(op, f"bind takes {arity} tensor{'s' if arity > 1 else ''}, got {len(tensors)}",
                       TypeError)
    _check(op, tensors, -1)
    if not all(t.is_contiguous() for t in tensors):
        raise _problem(op, "bind takes contiguous tensors, the op along their last dim (a bound call "
                       "makes no copies)")
    out = torch.empty_like(tensors[0])
    plan = _planned(op, tensors, out)
    if plan is None:
        return Bound(op, None, tensors, out, launcher(None, (), (0, 0), 0, 0), lambda: None)
    variant, addresses, shape, size, device = plan
    launch = functools.partial(_on_device, device, launcher(variant, addresses, shape, size, device))
    return Bound(op, variant, tensors, out, launch, lambda: _stream(_raw_stream(device)))


def _impl(op: str, run):
    """``run(op, tensors, dim)`` in the operator's own signature."""
    if op.endswith("backward"):
        return lambda y, dy, dim=-1: run(op, (y, dy), dim)
    return lambda x, dim=-1: run(op, (x,), dim)


def _refuse(op: str, tensors, dim: int):
    _check(op, tensors, dim)  # names the device (or the dtype)
    raise _problem(op, "expected CUDA tensors", TypeError)


def _fake(op: str):
    def like(first, *rest, dim=-1):
        return torch.empty_like(first, memory_format=torch.contiguous_format)

    return like


for _op in _FIRST:
    _LIB.impl(_op, _impl(_op, _run), "CUDA")
    _LIB.impl(_op, _impl(_op, _refuse), "CPU")
    torch.library.register_fake(f"softmax_harness::{_op}", _fake(_op), lib=_LIB)

_ops = torch.ops.softmax_harness


def _keep_output(ctx, inputs, output):
    ctx.save_for_backward(output)
    ctx.dim = inputs[1] if len(inputs) > 1 else -1


def _softmax_gradient(ctx, dy):
    (y,) = ctx.saved_tensors
    return _ops.softmax_backward.default(y, dy, ctx.dim), None


def _log_softmax_gradient(ctx, dy):
    (z,) = ctx.saved_tensors
    return _ops.log_softmax_backward.default(z, dy, ctx.dim), None


torch.library.register_autograd("softmax_harness::softmax", _softmax_gradient,
                                setup_context=_keep_output, lib=_LIB)
torch.library.register_autograd("softmax_harness::log_softmax", _log_softmax_gradient,
                                setup_context=_keep_output, lib=_LIB)

_softmax = _ops.softmax.default
_log_softmax = _ops.log_softmax.default
_softmax_backward = _ops.softmax_backward.default
_log_softmax_backward = _ops.log_softmax_backward.default


_dispatch_modes = getattr(torch._C, "_len_torch_dispatch_stack", lambda: 0)


def _eager(x) -> bool:
    """Whether a call can skip torch's dispatcher and launch at once: a plain CUDA tensor that
    needs no gradient, outside ``torch.compile``'s tracing and any dispatch mode (fake tensors,
    ``make_fx``). The dispatcher and the autograd wrapper of a Python-defined operator cost
    8.5-22 µs of host time a call (reports/measurements/host_overhead_breakdown.json). Whether
    ``torch.compile`` is tracing comes first: Dynamo folds it to True, and cannot trace the
    dispatch modes' count (an int from torch's C API) that a later test reads."""
    return (not torch.compiler.is_compiling() and type(x) is torch.Tensor and x.is_cuda
            and not (x.requires_grad and torch.is_grad_enabled()) and not _dispatch_modes())


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``torch.softmax(x, dim)`` by the harness's dispatched kernel; differentiable, capturable in
    a CUDA graph, traced by ``torch.compile`` as one operator."""
    return _forward("softmax", x, dim) if _eager(x) else _softmax(x, dim)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``torch.log_softmax(x, dim)`` by the harness's dispatched kernel; differentiable."""
    return _forward("log_softmax", x, dim) if _eager(x) else _log_softmax(x, dim)


def softmax_backward(y: torch.Tensor, dy: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``dx = y * (dy - sum(dy * y))`` along ``dim``: the softmax's gradient from its output ``y``."""
    return _run("softmax_backward", (y, dy), dim) if _eager(y) and _eager(dy) else \
        _softmax_backward(y, dy, dim)


def log_softmax_backward(z: torch.Tensor, dy: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``dx = dy - exp(z) * sum(dy)`` along ``dim``: log_softmax's gradient from its output ``z``."""
    return _run("log_softmax_backward", (z, dy), dim) if _eager(z) and _eager(dy) else \
        _log_softmax_backward(z, dy, dim)


__all__ = ["bind", "log_softmax", "log_softmax_backward", "softmax", "softmax_backward"]
