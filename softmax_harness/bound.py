"""An op of the dispatcher bound to its operands, for a loop that runs it again and again on the
same buffers (a decoder's logits, rewritten in place each step): the choice of kernel, the
operands' checks, the output's allocation and the launch's parameters are done once, and a call
is the launch alone, on the caller's current stream. Beside its launch, a dispatched call spends
its host time on exactly those (reports/measurements/host_overhead_few_rows.json: 11.5-12 µs a
call from CuPy arrays on the H200's host, 4.9-5.4 of it the launch)::

    step = bind("softmax", logits)   # the result lands in step.out
    for _ in range(steps):
        ...                            # the next logits written into `logits`
        step()

The operands must outlive the bound call and keep their addresses: the same arrays, rewritten in
place, as a CUDA graph's are (a bound call captures like any other launch).
"""

from __future__ import annotations

from . import dispatch
from .ops.base import SCALAR_ROLES

#: The ops :func:`bind` takes: the forward softmax and each op of :data:`dispatch.OP_TABLES`.
OPS = ("softmax", *dispatch.OP_TABLES)


class Bound:
    """``op`` on fixed operands, made by :func:`bind` (or the torch entry point's ``bind``):
    ``bound()`` launches it again on the current stream and returns :attr:`out`."""

    __slots__ = ("op", "variant", "inputs", "out", "_launch", "_stream")

    def __init__(self, op: str, variant, inputs: tuple, out, launch, stream):
        self.op, self.variant, self.inputs, self.out = op, variant, inputs, out
        self._launch = launch  # launch(stream)
        self._stream = stream  # () -> the caller's current stream (its handle as .ptr)

    def __call__(self):
        self._launch(self._stream())
        return self.out

    def __repr__(self) -> str:
        on = self.variant.name if self.variant is not None else "no kernel (an empty batch)"
        return f"<Bound {self.op} on {on}, shape {tuple(self.out.shape)} {self.out.dtype}>"


def launcher(variant, operands, shape, itemsize: int, device_id: int):
    """``launch(stream)``: ``variant`` on ``operands`` (the inputs' device addresses and scalars,
    then the output's address) over ``shape``, its launch plan made on the first call; nothing
    for an empty ``shape``."""
    n_rows, n_cols = shape
    if not n_rows or not n_cols:
        return _nothing
    return _Launch(variant, tuple(operands), (n_rows, n_cols, itemsize, device_id))


class _Launch:
    """``variant.launch`` on fixed operands; from the second call on, the launch plan the first
    made called directly where the launch takes no workspace of the stream's (``variant.launch``
    would look it up again each call)."""

    __slots__ = ("variant", "operands", "key", "plan")

    def __init__(self, variant, operands: tuple, key: tuple):
        self.variant, self.operands, self.key, self.plan = variant, operands, key, None

    def __call__(self, stream) -> None:
        plan = self.plan
        if plan is not None:
            plan(self.operands, stream.ptr)
            return
        self.variant.launch(self.operands, *self.key, stream)
        self.plan = dispatch.direct_plan(self.variant, *self.key)


def _nothing(stream) -> None:
    pass


def bind(op: str, *inputs, out=None) -> Bound:
    """``op`` (a name of :data:`OPS`) bound to its CuPy inputs, in the op's order
    (``softmax_harness.ops.of(op).inputs``: x; y, dy; x, bias, scale; ...), and to ``out`` (made
    here where not given): the variant is chosen and the operands checked here, once."""
    if not isinstance(op, str):  # bind(x): an array where the op's name goes
        raise TypeError(f"bind: the first argument names the op ({', '.join(OPS)}), "
                        f"got a {type(op).__name__}")
    if op not in OPS:
        raise ValueError(f"bind: unknown op {op!r} (known: {', '.join(OPS)})")
    if not inputs:
        raise TypeError(f"bind: {op} takes its input arrays, got none")
    x = inputs[0]
    variant = dispatch.chosen_for(x) if op == "softmax" else dispatch.op_chosen_for(op, x)
    roles = variant.op.inputs
    if len(inputs) != len(roles):
        raise TypeError(f"bind: {op} takes {len(roles)} input{'s' if len(roles) > 1 else ''} "
                        f"({', '.join(roles)}), got {len(inputs)} (out goes by keyword)")
    variant.check_input(*inputs, out=out)
    import cupy

    if out is None:
        out = cupy.empty_like(x)
    if variant.spec.launcher is not None:  # a launcher of the header's own launches it
        def launch(stream):
            variant(*inputs, out=out)
    else:
        operands = [a if role in SCALAR_ROLES else a.data.ptr for role, a in zip(roles, inputs, strict=True)]
        launch = launcher(variant, (*operands, out.data.ptr), x.shape, x.dtype.itemsize, x.device.id)
    return Bound(op, variant, inputs, out, launch, cupy.cuda.get_current_stream)
