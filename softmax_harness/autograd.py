"""The kernels in training code: :func:`softmax` and :func:`log_softmax` on torch CUDA tensors,
differentiable through ``torch.autograd.Function``s whose forward is the dispatched op and whose
backward the dispatched backward (``dx = y * (dy - sum(dy * y))``, ``dx = dy - exp(z) * sum(dy)``)
from the saved output.

Each call runs on torch's current stream, on CuPy views of the tensors (DLPack, no copy; about
40 µs of host time a call: the small-batch issue's ``torch.library`` entry point removes it).
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


def _along(function, x, dim: int, name: str):
    if not isinstance(x, torch.Tensor) or not x.is_cuda:
        raise TypeError(f"softmax_harness.autograd.{name}: expected a CUDA tensor, got {type(x).__name__}"
                        + (" on the CPU" if isinstance(x, torch.Tensor) else ""))
    moved = x.movedim(dim, -1)
    flat = moved.reshape(-1, moved.shape[-1]) if moved.ndim != 2 else moved
    return function.apply(flat).reshape(moved.shape).movedim(-1, dim)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``torch.softmax(x, dim)`` by the harness's kernels, differentiable (float32, float16,
    bfloat16 CUDA tensors of any shape)."""
    return _along(Softmax, x, dim, "softmax")


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``torch.log_softmax(x, dim)`` by the harness's kernels, differentiable."""
    return _along(LogSoftmax, x, dim, "log_softmax")
