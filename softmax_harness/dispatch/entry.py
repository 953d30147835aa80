"""The dispatched ops on CuPy arrays: each checks its first operand, takes the variant
:mod:`.choice` picks and runs it; the forward remembers the layouts it ran in."""

from __future__ import annotations

from ..variant import _cupy, _is_cupy_array
from .choice import choose, choose_op


def _device(x, what: str = ""):
    """x's device, once x is known for a CuPy array (else a TypeError naming what it is, a torch
    tensor told where it goes)."""
    if getattr(x, "dtype", None) is None or not _is_cupy_array(x):
        kind = type(x)
        package = kind.__module__.split(".")[0]
        name = kind.__name__ if package == "builtins" else f"{package}.{kind.__name__}"
        hint = " (for torch tensors: softmax_harness.torch)" if package == "torch" else ""
        raise TypeError(f"{what}expected a cupy.ndarray, got {name}{hint}")
    return getattr(getattr(x, "device", None), "id", None)


def op_chosen_for(op: str, x):
    """The variant ``op`` (a name of :data:`.ladders.OP_TABLES`) runs on CuPy arrays whose first is ``x``."""
    device = _device(x, f"{op}: ")  # refuses anything but an array first
    if x.ndim != 2:
        raise ValueError(f"{op}: expected a 2-d (rows, cols) array, got ndim={x.ndim} shape={tuple(x.shape)}")
    return choose_op(op, x.shape[-1], device, x.dtype, aligned=rows_aligned(x))


def run_op(op: str, *inputs, out=None):
    """``op`` (a name of :data:`.ladders.OP_TABLES`) on its inputs, by the variant :func:`choose_op` picks."""
    return op_chosen_for(op, inputs[0])(*inputs, out=out)


def softmax_backward(y, dy, out=None):
    """dx = y * (dy - sum(dy * y)) over the last axis of CuPy (N, C) arrays (``y`` the forward's
    output, ``dy`` the incoming gradient), by the fastest variant for C and the element type."""
    return op_chosen_for("softmax_backward", y)(y, dy, out=out)


def log_softmax_backward(z, dy, out=None):
    """dx = dy - exp(z) * sum(dy) over the last axis of CuPy (N, C) arrays (``z`` the forward's
    log_softmax output, ``dy`` the incoming gradient), by the fastest variant for C and the type."""
    return op_chosen_for("log_softmax_backward", z)(z, dy, out=out)


def log_softmax(x, out=None):
    """log_softmax over the last axis of a CuPy (N, C) array, by the fastest variant for C and the
    element type."""
    return op_chosen_for("log_softmax", x)(x, out=out)


def scaled_softmax(x, scale=1.0, *, bias=None, mask=None, causal=False, out=None):
    """softmax(scale * x + bias) over the last axis of a CuPy (N, C) array, with ``bias`` (of x's
    shape and type), or ``mask`` (bool, of x's shape: True masks an element out) or ``causal``
    (row r keeps columns 0 .. r % C), at most one of the three; by the fastest variant for C and
    the element type."""
    if (bias is not None) + (mask is not None) + bool(causal) > 1:
        raise ValueError("scaled_softmax takes one of bias=, mask= and causal=True")
    if mask is not None:
        return op_chosen_for("scaled_softmax_mask", x)(x, mask, scale, out=out)
    if causal:
        return op_chosen_for("scaled_softmax_causal", x)(x, scale, out=out)
    if bias is None:
        import cupy

        bias = cupy.zeros_like(x)
    return op_chosen_for("scaled_softmax_bias", x)(x, bias, scale, out=out)


#: The layouts a dispatched ``softmax`` ran in: (x's type, dtype, shape, strides, address modulo
#: 16, device, and the same of ``out`` where given) -> (the variant, its launch plan where the
#: launch takes no workspace, rows, columns, element size, x's bytes, out's bytes). The choice and
#: the variant's checks read nothing else of a forward's operands but whether out overlaps x,
#: checked each call, so a call in a layout seen before allocates (where no out is given) and
#: launches alone, as the torch entry point's (``torch._LAYOUTS``): a call's Python 2.88 -> 0.87 µs
#: on fakes, 2.97 -> 0.98 with out= (reports/measurements/host_python_share_dispatch_layouts.txt).
_LAYOUTS: dict[tuple, tuple] = {}


def softmax(x, out=None):
    """Softmax over the last axis of a CuPy (N, C) array of float32, float16 or bfloat16, by the
    fastest variant for C and the element type."""
    try:
        address, device = x.data.ptr, x.device.id
        layout = (x.__class__, x.dtype, x.shape, x.strides, address & 15, device)
        if out is not None:
            target = out.data.ptr
            layout += (out.__class__, out.dtype, out.shape, out.strides, target & 15)
    except AttributeError:  # not CuPy arrays: the checked call names what they are
        return chosen_for(x)(x, out=out)
    known = _LAYOUTS.get(layout)
    if known is None:
        return _softmax_checked(x, out, layout)
    variant, plan, n_rows, n_cols, itemsize, x_bytes, out_bytes = known
    cupy = _cupy()
    if out is None:
        out = cupy.ndarray(x.shape, x.dtype)
        target = out.data.ptr
    elif address < target + out_bytes and target < address + x_bytes:
        return variant(x, out=out)  # which names the overlap
    if plan is not None:
        plan((address, target), cupy.cuda.get_current_stream().ptr)
    else:
        variant.launch((address, target), n_rows, n_cols, itemsize, device)
    return out


def _softmax_checked(x, out, layout: tuple):
    """``softmax`` in a layout not seen before: chosen, checked, and remembered where it launched
    a kernel of kernels/ (a known-bad kernel's launcher of its own is never taken here), with the
    launch plan its launch made where it takes no workspace: called directly, it saves the
    variant's lookup of it (a call 0.83 -> 0.61 µs on fakes: host_python_share_dispatch_plan.txt)."""
    variant = chosen_for(x)
    y = variant(x, out=out)
    if x.ndim == 2 and x.size and variant.spec.launcher is None:
        if len(_LAYOUTS) >= 256:  # a few layouts in a loop; a sweep over many needs no memory
            _LAYOUTS.clear()
        plan = direct_plan(variant, *x.shape, x.dtype.itemsize, x.device.id)
        _LAYOUTS[layout] = variant, plan, *x.shape, x.dtype.itemsize, x.nbytes, y.nbytes
    return y


def direct_plan(variant, n_rows: int, n_cols: int, itemsize: int, device_id: int):
    """The launch plan an earlier ``variant.launch`` made over (``n_rows``, ``n_cols``) on the
    device, called as ``plan(operands, stream_handle)``, where it takes no workspace; None before
    that launch, or for a split-row kernel (``variant.launch`` hands it its workspace). For the
    callers that launch one layout again and again (the remembered layouts here and in the torch
    entry, a bound call): no lookup a call."""
    plan = variant._plans.get((n_rows, n_cols, itemsize, device_id))
    return plan if plan is not None and not plan.cooperative else None


def chosen_for(x):
    """The variant that ``softmax(x)`` runs."""
    device = _device(x, "softmax: ")
    n_cols = x.shape[-1] if x.ndim >= 1 else 0
    return choose(n_cols, device, x.dtype, aligned=rows_aligned(x), n_rows=x.size // n_cols if n_cols else 0)


def rows_aligned(x) -> bool:
    """Whether every row of ``x`` (an array with ``.data.ptr``) starts at a 16-byte boundary."""
    ptr = getattr(getattr(x, "data", None), "ptr", 0)
    return ptr % 16 == 0 and (x.shape[-1] * x.dtype.itemsize if x.ndim else 0) % 16 == 0
