"""Baselines measured beside our kernels in the same run: torch's softmax, its backward, log_softmax
and the fused forward written in torch; a Triton softmax; and the peers' kernels where they are
installed (Quack's CuTe DSL softmax and backward, ``quack-kernels``; Liger's Triton softmax and
backward, ``liger-kernel``, rows up to 65536)."""

from __future__ import annotations

import functools


def as_torch(x):
    """A zero-copy torch view of a CuPy array (bfloat16 through an int16 view: DLPack export
    of CuPy's bfloat16 is not to be relied on)."""
    import torch

    if x.dtype.name == "bfloat16":
        import cupy

        return torch.from_dlpack(x.view(cupy.int16)).view(torch.bfloat16)
    return torch.from_dlpack(x)


def torch_softmax():
    """``fn(x, out)`` running torch.softmax on CuPy arrays (zero-copy through DLPack), or None."""
    try:
        import torch
    except ImportError:
        return None

    def run(x, out):  # torch.softmax has no out=: it allocates (from its caching allocator)
        return torch.softmax(as_torch(x), dim=-1)

    return run


def _torch_backward(name: str):
    """``fn(out, dy, dx)`` running torch's ``name`` (``_softmax_backward_data`` or
    ``_log_softmax_backward_data``: what autograd calls) on CuPy arrays, or None."""
    try:
        import torch
    except ImportError:
        return None
    backward = getattr(torch, name)

    def run(out, dy, dx):
        t = as_torch(out)
        return backward(as_torch(dy), t, -1, t.dtype)

    return run


def torch_softmax_backward():
    """``fn(y, dy, out)``: torch's softmax backward on CuPy arrays, or None."""
    return _torch_backward("_softmax_backward_data")


def torch_log_softmax():
    """``fn(x, out)`` running torch.log_softmax on CuPy arrays, or None."""
    try:
        import torch
    except ImportError:
        return None

    def run(x, out):
        return torch.log_softmax(as_torch(x), dim=-1)

    return run


def torch_log_softmax_backward():
    """``fn(z, dy, out)``: torch's log_softmax backward on CuPy arrays, or None."""
    return _torch_backward("_log_softmax_backward_data")


def _torch_scaled(form: str):
    """``fn(x, bias|mask, scale, out)`` or ``fn(x, scale, out)``: the fused forward as torch code
    writes it unfused (``scale * x + bias``, ``masked_fill``, a causal ``triu`` mask), or None."""
    try:
        import torch
    except ImportError:
        return None

    def run(x, *rest):
        *second, scale, _out = rest
        t = as_torch(x) * float(scale)
        if form == "bias":
            t = t + as_torch(second[0])
        elif form == "mask":
            t = t.masked_fill(as_torch(second[0]), float("-inf"))
        else:
            n_rows, n_cols = t.shape
            rows = torch.arange(n_rows, device=t.device) % n_cols
            t = t.masked_fill(torch.arange(n_cols, device=t.device)[None, :] > rows[:, None], float("-inf"))
        return torch.softmax(t, dim=-1)

    return run


#: op -> the torch baseline of that op.
TORCH = {"softmax": torch_softmax, "softmax_backward": torch_softmax_backward,
         "log_softmax": torch_log_softmax, "log_softmax_backward": torch_log_softmax_backward,
         **{f"scaled_softmax_{form}": functools.partial(_torch_scaled, form)
            for form in ("bias", "mask", "causal")}}


@functools.lru_cache(maxsize=1)
def triton_rows_kernel():
    """(triton, kernel): Triton's one-program-a-row softmax, ``kernel[(n_rows,)](x, y, x_stride,
    y_stride, n_cols, BLOCK=next_power_of_2(n_cols))`` on torch tensors (rows up to
    ``TRITON_MAX_COLS``, each contiguous along itself, any distance apart)."""
    import triton
    import triton.language as tl

    @triton.jit
    def softmax_rows(x_ptr, y_ptr, x_stride, y_stride, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(y_ptr + row * y_stride + cols, e / tl.sum(e, axis=0), mask=mask)

    return triton, softmax_rows


TRITON_MAX_COLS = 32768


def triton_rows(x, out):
    """``launch()``: :func:`triton_rows_kernel` over the (N, C) torch tensors ``x`` into ``out``, at
    their own row strides; ImportError without Triton, ValueError for rows it does not take."""
    triton, kernel = triton_rows_kernel()
    n_rows, n_cols = x.shape
    if n_cols > TRITON_MAX_COLS:
        raise ValueError(f"the Triton row kernel holds whole rows: C <= {TRITON_MAX_COLS}")
    if x.stride(-1) != 1 or out.stride(-1) != 1:
        raise ValueError("the Triton row kernel takes rows contiguous along themselves (stride 1)")
    block = triton.next_power_of_2(n_cols)
    warps = 4 if block <= 2048 else 8 if block <= 8192 else 16
    launch = kernel[(n_rows,)]
    return lambda: launch(x, out, x.stride(0), out.stride(0), n_cols, BLOCK=block, num_warps=warps)


def triton_softmax():
    """``fn(x, out)``: one Triton program per row holding the whole row (C <= 32768), or None."""
    try:
        import torch  # noqa: F401  (as_torch hands the arrays over through torch)

        triton_rows_kernel()
    except Exception:
        return None

    def run(x, out):
        triton_rows(as_torch(x), as_torch(out))()
        return out

    return run


def quack_softmax():
    """``fn(x, out)``: Quack's softmax forward (``quack.softmax._softmax_fwd``), or None."""
    try:
        from quack.softmax import _softmax_fwd
    except Exception:  # not installed, or its CUTLASS DSL does not load here
        return None

    def run(x, out):
        _softmax_fwd(as_torch(x), as_torch(out))
        return out

    return run


def quack_softmax_backward():
    """``fn(y, dy, out)``: Quack's softmax backward (``quack.softmax._softmax_backward``), or None."""
    try:
        from quack.softmax import _softmax_backward
    except Exception:
        return None

    def run(y, dy, out):
        _softmax_backward(as_torch(dy), as_torch(y), as_torch(out))
        return out

    return run


LIGER_MAX_COLS = 65536  # liger_kernel.ops.utils.calculate_settings refuses longer rows


def _liger_settings(n_cols):
    from liger_kernel.ops.utils import calculate_settings

    if n_cols > LIGER_MAX_COLS:
        raise ValueError(f"Liger's softmax takes rows up to {LIGER_MAX_COLS} columns")
    return calculate_settings(n_cols)


def liger_softmax():
    """``fn(x, out)``: Liger's Triton softmax forward (it allocates its output), or None."""
    try:
        from liger_kernel.ops.softmax import _softmax_forward
    except Exception:
        return None

    def run(x, out):
        _liger_settings(x.shape[1])
        return _softmax_forward(as_torch(x))[0]

    return run


def liger_softmax_backward():
    """``fn(y, dy, out)``: Liger's Triton softmax backward (it allocates dx), or None."""
    try:
        from liger_kernel.ops.softmax import _softmax_backward
    except Exception:
        return None

    def run(y, dy, out):
        block, warps = _liger_settings(y.shape[1])
        return _softmax_backward(as_torch(dy), as_torch(y), block, warps, block < y.shape[1])

    return run


#: peer -> op -> its baseline of that op (the ops it has).
PEERS = {
    "torch": TORCH,
    "quack": {"softmax": quack_softmax, "softmax_backward": quack_softmax_backward},
    "liger": {"softmax": liger_softmax, "softmax_backward": liger_softmax_backward},
}
