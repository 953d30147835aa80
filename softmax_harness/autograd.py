"""The kernels in training code: :func:`softmax`, :func:`log_softmax` and :func:`scaled_softmax` on
torch CUDA tensors, differentiable through ``torch.autograd.Function``s whose forward is the
dispatched op and whose backward the dispatched backward (``dx = y * (dy - sum(dy * y))``,
``dx = dy - exp(z) * sum(dy)``) from the saved output. The fused forward's gradient is the softmax
backward's g: ``scale * g`` for x, g for the bias; a masked element's g is 0 (its y is).

Each call runs on torch's current stream, on CuPy views of the tensors (DLPack, no copy; about
40 µs of host time a call). :mod:`softmax_harness.torch` has softmax and log_softmax as
``torch.library`` operators launched on the tensors' addresses instead, traced by
``torch.compile``; the fused forward is here only.
"""

from __future__ import annotations

import torch

from . import dispatch, dtypes


def _cupy(t: torch.Tensor):
    """A CuPy view of a contiguous CUDA tensor (bfloat16 through an int16 view)."""
    import cupy

    t = t.detach()  # DLPack refuses a tensor that requires grad; the Function tracks the graph
    if t.dtype == torch.bfloat16:
        return cupy.from_dlpack(t.view(torch.int16)).view(dtypes.of("bfloat16").numpy())
    return cupy.from_dlpack(t)


def _run(kernel, *tensors: torch.Tensor) -> torch.Tensor:
    """``kernel(*arrays, out=...)`` on 2-d views of ``tensors`` on torch's current stream."""
    import cupy

    out = torch.empty_like(tensors[0])
    stream = cupy.cuda.ExternalStream(torch.cuda.current_stream(tensors[0].device).cuda_stream)
    with cupy.cuda.Device(tensors[0].device.index), stream:
        kernel(*(_cupy(t) for t in tensors), out=_cupy(out))
    return out


def _function(name: str, forward, backward) -> type:
    """A ``torch.autograd.Function`` over the last axis of a 2-d CUDA tensor: ``forward(x)``, and
    ``backward(out, dy)`` from the saved output."""

    def run_forward(ctx, x):
        out = _run(forward, x.contiguous())
        ctx.save_for_backward(out)
        return out

    def run_backward(ctx, dy):
        (out,) = ctx.saved_tensors
        return _run(backward, out, dy.contiguous())

    return type(name, (torch.autograd.Function,), {
        "__doc__": f"{name} over the last axis of a 2-d CUDA tensor, with the harness's backward.",
        "forward": staticmethod(run_forward), "backward": staticmethod(run_backward)})


Softmax = _function("Softmax", dispatch.softmax, dispatch.softmax_backward)
LogSoftmax = _function("LogSoftmax", dispatch.log_softmax, dispatch.log_softmax_backward)


class ScaledSoftmax(torch.autograd.Function):
    """softmax(scale * x + bias) (or with a bool mask, or causal) over the last axis of a 2-d CUDA
    tensor, with the harness's forward and softmax backward. ``bias`` and ``mask`` are None or of
    x's shape; the scale is a Python number and takes no gradient."""

    @staticmethod
    def forward(ctx, x, bias, mask, scale, causal):
        def fused(x, *rest, out):
            b, m = (rest[0], None) if bias is not None else (None, rest[0] if rest else None)
            return dispatch.scaled_softmax(x, scale, bias=b, mask=m, causal=causal, out=out)

        second = [t.contiguous() for t in (bias, mask) if t is not None]
        y = _run(fused, x.contiguous(), *second)
        ctx.save_for_backward(y)
        ctx.scale, ctx.with_bias = scale, bias is not None
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensors
        g = _run(dispatch.softmax_backward, y, dy.contiguous())
        return g * ctx.scale, (g if ctx.with_bias and ctx.needs_input_grad[1] else None), None, None, None


def _checked(x, name: str):
    if not isinstance(x, torch.Tensor) or not x.is_cuda:
        raise TypeError(f"softmax_harness.autograd.{name}: expected a CUDA tensor, got {type(x).__name__}"
                        + (" on the CPU" if isinstance(x, torch.Tensor) else ""))


def _rows(t: torch.Tensor, dim: int) -> torch.Tensor:
    moved = t.movedim(dim, -1)
    return moved.reshape(-1, moved.shape[-1]) if moved.ndim != 2 else moved


def _along(function, x, dim: int, name: str):
    _checked(x, name)
    moved = x.movedim(dim, -1)
    return function.apply(_rows(x, dim)).reshape(moved.shape).movedim(-1, dim)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``torch.softmax(x, dim)`` by the harness's kernels, differentiable (float32, float16,
    bfloat16 CUDA tensors of any shape)."""
    return _along(Softmax, x, dim, "softmax")


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``torch.log_softmax(x, dim)`` by the harness's kernels, differentiable."""
    return _along(LogSoftmax, x, dim, "log_softmax")


def scaled_softmax(x: torch.Tensor, scale: float = 1.0, *, bias: torch.Tensor | None = None,
                   mask: torch.Tensor | None = None, causal: bool = False, dim: int = -1) -> torch.Tensor:
    """``softmax(scale * x + bias)`` along ``dim`` by the harness's fused kernels, differentiable in x
    and the bias; ``mask`` (bool, True masks an element out) or ``causal`` (row r keeps columns
    0 .. r % C of the rows laid out as 2-d) instead of a bias, at most one of the three."""
    _checked(x, "scaled_softmax")
    for other, what in ((bias, "bias"), (mask, "mask")):
        if other is not None and other.shape != x.shape:
            raise ValueError(f"softmax_harness.autograd.scaled_softmax: the {what} has shape "
                             f"{tuple(other.shape)}, x {tuple(x.shape)}")
    if mask is not None and mask.dtype != torch.bool:
        raise TypeError(f"softmax_harness.autograd.scaled_softmax: the mask is {mask.dtype}, not torch.bool")
    moved = x.movedim(dim, -1)
    rows = [None if t is None else _rows(t, dim) for t in (bias, mask)]
    y = ScaledSoftmax.apply(_rows(x, dim), *rows, float(scale), bool(causal))
    return y.reshape(moved.shape).movedim(-1, dim)
