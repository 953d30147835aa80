"""An op bound to its operands (softmax_harness/bound.py): the kernel chosen and the operands
checked once, then every call a launch of that kernel on the operands' addresses, on the stream
current at the call, into the one output. On the CPU with CuPy faked (its arrays' fields, its
current stream, its allocation) and the launch recorded; on a GPU (marked) against the float64
reference, from a CUDA graph and on a stream with work queued ahead. And the dispatched
``softmax(x)``, which remembers the layouts it ran in so as to allocate and launch alone in one
seen before."""

from __future__ import annotations

import importlib
import sys
import types

import numpy as np
import pytest
from plans import RecordedPlan


class ndarray:  # noqa: N801 (as CuPy names it: the harness knows a CuPy array by its type's module)
    def __init__(self, shape, ptr, dtype="float32"):
        self.shape, self.ndim, self.dtype = tuple(shape), len(shape), np.dtype(dtype)
        self.strides = (shape[1] * self.dtype.itemsize, self.dtype.itemsize)
        self.size = shape[0] * shape[1]
        self.nbytes = self.size * self.dtype.itemsize
        self.data = types.SimpleNamespace(ptr=ptr)
        self.device = types.SimpleNamespace(id=0)
        self.flags = types.SimpleNamespace(c_contiguous=True)


ndarray.__module__ = "cupy._core.core"


@pytest.fixture
def fake(monkeypatch):
    """CuPy's module as the bound call sees it, an sm_90 device, and the launches recorded as
    (variant, operands, rows, cols, itemsize, device, stream)."""
    variant = importlib.import_module("softmax_harness.variant")  # the module, not the front's function
    stream = types.SimpleNamespace(ptr=7)
    made = []

    def empty_like(x):
        made.append(ndarray(x.shape, 0x7000_0000, x.dtype))
        return made[-1]

    cupy = types.ModuleType("cupy")
    cupy.cuda = types.SimpleNamespace(get_current_stream=lambda: stream)
    cupy.empty_like = empty_like
    cupy.ndarray = lambda shape, dtype: empty_like(types.SimpleNamespace(shape=shape, dtype=dtype))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setattr(importlib.import_module("softmax_harness.dispatch.entry"), "_LAYOUTS", {})
    monkeypatch.setattr(variant, "compute_capability", lambda device_id: 90)
    launches = []

    def launch(self, operands, n_rows, n_cols, itemsize, device_id, stream=None):
        on = getattr(stream, "ptr", None)  # None: a variant's own call, on CuPy's current stream
        launches.append((self.name, operands, n_rows, n_cols, itemsize, device_id, on))

    monkeypatch.setattr(variant.Variant, "launch", launch)
    return types.SimpleNamespace(stream=stream, made=made, launches=launches)


def test_each_call_launches_the_dispatched_kernel_on_the_stream_current_at_the_call(fake):
    from softmax_harness import dispatch
    from softmax_harness.bound import bind

    x = ndarray((8, 128256), 0x1000_0000)
    step = bind("softmax", x)
    assert step.variant is dispatch.chosen_for(x) and step.out is fake.made[0]
    assert step() is step.out
    fake.stream.ptr = 9
    step()
    kernel = dispatch.chosen_for(x).name
    assert fake.launches == [(kernel, (0x1000_0000, 0x7000_0000), 8, 128256, 4, 0, 7),
                             (kernel, (0x1000_0000, 0x7000_0000), 8, 128256, 4, 0, 9)]


@pytest.mark.parametrize("cooperative", [False, True])
def test_after_its_first_call_a_bound_call_launches_the_plan_alone_unless_it_takes_a_workspace(
        fake, monkeypatch, cooperative):
    from softmax_harness.bound import bind

    x = ndarray((8, 4096), 0x1000_0000)
    step = bind("softmax", x)
    plan = RecordedPlan(cooperative)
    monkeypatch.setitem(step.variant._plans, (8, 4096, 4, 0), plan)
    step()
    fake.stream.ptr = 9
    step()
    step()
    through_the_variant = [launch[1:] for launch in fake.launches]
    if cooperative:  # each call through the variant, which hands the plan its workspace
        assert through_the_variant == [((0x1000_0000, 0x7000_0000), 8, 4096, 4, 0, on) for on in (7, 9, 9)]
        assert plan.calls == []
    else:
        assert through_the_variant == [((0x1000_0000, 0x7000_0000), 8, 4096, 4, 0, 7)]
        assert plan.calls == [((0x1000_0000, 0x7000_0000), 9)] * 2


def test_a_call_checks_and_chooses_nothing_again(fake, monkeypatch):
    from softmax_harness import dispatch
    from softmax_harness.bound import bind
    from softmax_harness.variant import Variant

    x, out = ndarray((1, 32000), 0x1000_0000, "float16"), ndarray((1, 32000), 0x2000_0000, "float16")
    step = bind("softmax", x, out=out)

    def no(*args, **kwargs):
        raise AssertionError("checked or chosen again")

    monkeypatch.setattr(Variant, "check_input", no)
    monkeypatch.setattr(dispatch, "chosen_for", no)
    assert step() is out and fake.made == []
    assert fake.launches[0][1] == (0x1000_0000, 0x2000_0000)


def test_an_ops_scalar_goes_to_the_launch_as_given_between_the_addresses(fake):
    from softmax_harness import dispatch
    from softmax_harness.bound import bind

    x = ndarray((4, 4096), 0x1000_0000)
    step = bind("scaled_softmax_causal", x, 0.125)
    step()
    assert step.variant is dispatch.op_chosen_for("scaled_softmax_causal", x)
    assert fake.launches[0][1] == (0x1000_0000, 0.125, 0x7000_0000)


def test_a_call_in_a_layout_passed_before_is_still_refused_for_its_values(fake):
    """A variant remembers the operands' layouts it passed (their types, shapes, strides and
    alignment): a call again in one checks only what the layout leaves open, the output's
    overlap and the scale's value, and launches nothing when either is wrong."""
    from softmax_harness import dispatch

    x, out = ndarray((4, 4096), 0x1000_0000), ndarray((4, 4096), 0x2000_0000)
    scaled = dispatch.op_chosen_for("scaled_softmax_bias", x)
    bias = ndarray((4, 4096), 0x3000_0000)
    assert scaled(x, bias, 0.5, out=out) is out
    inside = ndarray((4, 4096), 0x1000_0000 + 4096)  # aligned as out was, 4 KiB into x
    with pytest.raises(ValueError, match="out overlaps input in"):
        scaled(x, bias, 0.5, out=inside)
    for bad in (float("nan"), float("inf")):
        with pytest.raises(TypeError, match="scale must be a finite real number"):
            scaled(x, bias, bad, out=out)
    assert scaled(x, bias, 2.0, out=out) is out
    assert [launch[1] for launch in fake.launches] == [(0x1000_0000, 0x3000_0000, 0.5, 0x2000_0000),
                                                       (0x1000_0000, 0x3000_0000, 2.0, 0x2000_0000)]


def test_a_kernel_with_a_launcher_of_its_own_is_refused_a_launch_on_addresses(monkeypatch):
    """``launch`` takes addresses and a grid of the harness's making; a kernel declared with
    ``launcher=`` chooses its own grid, so a launch of it is refused in one line (before anything
    is compiled), where it divided by zero."""
    from softmax_harness import catalog

    variant = catalog.variant("bad_own_stream")
    with pytest.raises(TypeError, match=r"^softmax variant 'bad_own_stream': launches through its "
                                        r"launcher=own_stream_launch:launch: call it on arrays"):
        variant.launch((0x1000, 0x2000), 4, 256, 4, 0, types.SimpleNamespace(ptr=0))


def test_an_empty_batch_launches_nothing(fake):
    from softmax_harness.bound import bind

    step = bind("softmax", ndarray((0, 4096), 0x1000_0000))
    assert step() is step.out and fake.launches == []


@pytest.mark.parametrize("call, refused, kind", [
    (lambda b, x: b("softplus", x), r"^bind: unknown op 'softplus' \(known: softmax, softmax_backward, ",
     ValueError),
    (lambda b, x: b("softmax_backward", x), r"^bind: softmax_backward takes 2 inputs \(y, dy\), got 1",
     TypeError),
    (lambda b, x: b("softmax", x, x), r"^bind: softmax takes 1 input \(in\), got 2 \(out goes by keyword\)$",
     TypeError),
    (lambda b, x: b("softmax"), r"^bind: softmax takes its input arrays, got none$", TypeError),
    (lambda b, x: b(x), r"^bind: the first argument names the op \(softmax, .*\), got a ndarray$", TypeError),
    (lambda b, x: b("softmax", x, out=x), r"out overlaps the input \(in place is not supported\)$",
     ValueError),
    (lambda b, x: b("softmax", ndarray((2, 64), 0x1000_0000, "float64")), r"dtype float64 is not supported",
     TypeError),
    (lambda b, x: b("scaled_softmax_causal", x, float("nan")), r"scale must be a finite real number",
     TypeError),
])
def test_a_bad_binding_is_refused_in_one_line(fake, call, refused, kind):
    from softmax_harness.bound import bind

    with pytest.raises(kind, match=refused) as caught:
        call(bind, ndarray((2, 64), 0x1000_0000))
    assert "\n" not in str(caught.value)
    assert fake.launches == []


# ---- on a GPU -------------------------------------------------------------------------------

SHAPES = [(1, 32000), (8, 128256), (64, 1000), (2, 2**20)]


def _within_the_bound(step, inputs) -> bool:
    import cupy

    from softmax_harness import ops
    from softmax_harness.observation import bound_ratio
    from softmax_harness.subject import Subject

    worst = bound_ratio(Subject.of(step.variant), ops.of(step.op), inputs, step.out)
    return float(cupy.nan_to_num(worst, nan=cupy.inf).max()) <= 1


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("n_rows,n_cols", SHAPES)
def test_a_bound_softmax_follows_its_input_rewritten_in_place_and_replays_from_a_graph(dtype, n_rows,
                                                                                      n_cols):
    """Each call computes the input as it is at the call (within the chosen variant's bound),
    directly and replayed from a CUDA graph captured on a fresh stream."""
    import cupy

    from softmax_harness import dtypes
    from softmax_harness.bound import bind

    fmt = dtypes.of(dtype)

    def fresh(seed):
        normal = cupy.random.default_rng(seed).standard_normal((n_rows, n_cols), dtype=cupy.float32)
        return normal.astype(fmt.numpy())

    x = fresh(0)
    step = bind("softmax", x)
    for seed in (1, 2):
        x[...] = fresh(seed)
        step()
        assert _within_the_bound(step, (x,)), f"call on input {seed} through {step.variant.name}"
    cupy.cuda.Device().synchronize()
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        step()
        graph = stream.end_capture()
    for seed in (3, 4):
        x[...] = fresh(seed)
        step.out.view(fmt.uint)[...] = fmt.poison
        cupy.cuda.Device().synchronize()
        graph.launch(stream)
        stream.synchronize()
        assert _within_the_bound(step, (x,)), f"replay on input {seed} through {step.variant.name}"


@pytest.mark.gpu
@pytest.mark.parametrize("n_rows,n_cols", [(1, 32000), (8, 128256)])
def test_a_bound_call_launches_on_the_callers_stream_behind_its_queued_work(n_rows, n_cols):
    """Under a non-blocking stream, with every multiprocessor held by a kernel on another, the
    output is whole once the caller's stream is done (a launch on any other stream is not)."""
    import cupy

    from softmax_harness import dtypes
    from softmax_harness.bound import bind
    from softmax_harness.streams import _hold

    fmt = dtypes.of("float32")
    x = cupy.random.default_rng(0).standard_normal((n_rows, n_cols), dtype=cupy.float32)
    step = bind("softmax", x)
    step()
    cupy.cuda.Device().synchronize()
    step.out.view(fmt.uint)[...] = fmt.poison
    cupy.cuda.Device().synchronize()
    spin, caller = cupy.cuda.Stream(non_blocking=True), cupy.cuda.Stream(non_blocking=True)
    _hold(cupy, spin)
    with caller:
        step()
    caller.synchronize()
    seen = step.out.get(stream=caller)
    cupy.cuda.Device().synchronize()
    unwritten = (seen.view(np.uint32) == fmt.poison).any()
    assert not unwritten, f"{step.variant.name}: not whole when its stream was"


@pytest.mark.gpu
@pytest.mark.parametrize("op", ["softmax", "log_softmax", "softmax_backward", "log_softmax_backward"])
def test_a_bound_torch_op_follows_its_tensors_rewritten_in_place(op):
    """The torch entry point's bound call against torch's own op, twice on new values."""
    torch = pytest.importorskip("torch")
    from softmax_harness.torch import bind

    def fresh(seed):
        g = torch.Generator(device="cuda").manual_seed(seed)
        return torch.randn(8, 128256, device="cuda", generator=g)

    backward = op.endswith("backward")
    forward = torch.log_softmax if op.startswith("log_") else torch.softmax
    tensors = (forward(fresh(0), -1), fresh(1)) if backward else (fresh(0),)
    step = bind(op, *tensors)
    for seed in (2, 3):
        tensors[0].copy_(forward(fresh(seed), -1) if backward else fresh(seed))
        if backward:
            tensors[1].copy_(fresh(seed + 10))
        first, *rest = (t.double() for t in tensors)
        if not backward:
            want = forward(first, -1)
        elif op == "softmax_backward":
            want = first * (rest[0] - (rest[0] * first).sum(-1, keepdim=True))
        else:
            want = rest[0] - first.exp() * rest[0].sum(-1, keepdim=True)
        got = step().double()
        torch.cuda.synchronize()
        assert torch.allclose(got, want, rtol=1e-4, atol=1e-6), f"{op} on {step.variant.name}, values {seed}"


def test_a_dispatched_softmax_in_a_layout_seen_before_allocates_and_launches_alone(fake, monkeypatch):
    from softmax_harness import dispatch
    from softmax_harness.variant import Variant

    x = ndarray((8, 4096), 0x1000_0000, "float16")
    first = dispatch.softmax(x)
    kernel = dispatch.chosen_for(x).name

    def no(*args, **kwargs):
        raise AssertionError("checked or chosen again")

    monkeypatch.setattr(Variant, "check_input", no)
    monkeypatch.setattr(Variant, "_checked", no)
    monkeypatch.setattr(dispatch.entry, "chosen_for", no)
    again = ndarray((8, 4096), 0x4000_0000, "float16")  # another array, the same layout
    second = dispatch.softmax(again)
    assert first is fake.made[0] and second is fake.made[1]
    assert [launch[:4] for launch in fake.launches] == [(kernel, (0x1000_0000, 0x7000_0000), 8, 4096),
                                                        (kernel, (0x4000_0000, 0x7000_0000), 8, 4096)]


@pytest.mark.parametrize("cooperative", [False, True])
def test_a_dispatched_softmax_in_a_layout_seen_before_launches_the_plan_alone_unless_it_takes_a_workspace(
        fake, monkeypatch, cooperative):
    from softmax_harness import dispatch

    x = ndarray((8, 4096), 0x1000_0000)
    plan = RecordedPlan(cooperative)
    monkeypatch.setitem(dispatch.chosen_for(x)._plans, (8, 4096, 4, 0), plan)
    dispatch.softmax(x)
    fake.stream.ptr = 9
    dispatch.softmax(ndarray((8, 4096), 0x4000_0000))
    through_the_variant = [launch[1] for launch in fake.launches]
    if cooperative:
        assert through_the_variant == [(0x1000_0000, 0x7000_0000), (0x4000_0000, 0x7000_0000)]
        assert plan.calls == []
    else:
        assert through_the_variant == [(0x1000_0000, 0x7000_0000)]
        assert plan.calls == [((0x4000_0000, 0x7000_0000), 9)]


def test_a_dispatched_softmax_chooses_and_checks_again_in_any_other_layout(fake, monkeypatch):
    """Everything the choice and the checks read is in the layout: the type, the shape (rows
    too: a few rows take other kernels), the strides, the alignment, the device."""
    from softmax_harness import dispatch

    chosen = []
    choose = dispatch.chosen_for
    monkeypatch.setattr(dispatch.entry, "chosen_for", lambda x: chosen.append(x) or choose(x))
    x = ndarray((8, 4096), 0x1000_0000)
    dispatch.softmax(x)
    others = [ndarray((8, 4096), 0x1000_0000, "float16"), ndarray((8, 4100), 0x1000_0000),
              ndarray((4096, 4096), 0x1000_0000), ndarray((8, 4096), 0x1000_0008)]
    on_another_device = ndarray((8, 4096), 0x1000_0000)
    on_another_device.device = types.SimpleNamespace(id=1)
    wide = ndarray((8, 4096), 0x1000_0000)
    wide.strides, wide.flags.c_contiguous = (8192 * 4, 4), False
    for other in [*others, on_another_device]:
        dispatch.softmax(other)
        dispatch.softmax(other)  # then remembered
    for _ in range(2):  # refused each time: never remembered
        with pytest.raises(ValueError, match="is not C-contiguous"):
            dispatch.softmax(wide)
    assert chosen == [x, *others, on_another_device, wide, wide]
    assert fake.launches[-1][5] == 1  # the device's own plan
    assert dispatch.softmax(ndarray((0, 4096), 0x1000_0000)) is fake.made[-1]  # nothing to launch
    assert len(fake.launches) == 1 + 2 * 5


def test_a_dispatched_softmax_refuses_a_bad_input_every_time_in_one_line(fake):
    from softmax_harness import dispatch

    tensor = type("Tensor", (), {"__module__": "torch", "dtype": "float32", "ndim": 2, "shape": (8, 64)})
    one_d = ndarray((1, 64), 0x1000_0000)
    one_d.shape, one_d.ndim = (64,), 1
    for _ in range(2):
        with pytest.raises(TypeError, match="^softmax: expected a cupy.ndarray, got list$"):
            dispatch.softmax([[1.0, 2.0]])
        with pytest.raises(TypeError, match=r"^softmax: expected a cupy.ndarray, got numpy.ndarray$"):
            dispatch.softmax(np.zeros((8, 64), np.float32))
        with pytest.raises(TypeError, match=r"^log_softmax: expected a cupy.ndarray, got torch.Tensor "
                                            r"\(for torch tensors: softmax_harness.torch\)$"):
            dispatch.log_softmax(tensor())
        with pytest.raises(ValueError, match=r"^softmax_backward: expected a 2-d \(rows, cols\) array, got "
                                             r"ndim=1 shape=\(64,\)$"):
            dispatch.softmax_backward(one_d, one_d)
        with pytest.raises(TypeError, match="dtype float64 is not supported"):
            dispatch.softmax(ndarray((8, 4096), 0x1000_0000, "float64"))
        with pytest.raises(ValueError, match="not aligned to its element size"):
            dispatch.softmax(ndarray((8, 4096), 0x1000_0001))
    assert fake.launches == []


def test_a_dispatched_softmax_into_an_out_of_a_layout_seen_before_still_refuses_an_overlap(fake, monkeypatch):
    """With ``out=`` the layout takes in out's too; whether out overlaps x is not a layout's, and
    is checked every call: an overlapping out is refused, each time, and nothing launches."""
    from softmax_harness import dispatch

    x, out = ndarray((4, 4096), 0x1000_0000), ndarray((4, 4096), 0x2000_0000)
    assert dispatch.softmax(x, out=out) is out
    inside = ndarray((4, 4096), 0x1000_0000 + 4096)  # aligned as out was, 4 KiB into x
    for _ in range(2):
        for overlapping in (inside, x):
            with pytest.raises(ValueError, match="out overlaps the input"):
                dispatch.softmax(x, out=overlapping)
    monkeypatch.setattr(dispatch.entry, "chosen_for", lambda x: pytest.fail("chosen again"))
    after = ndarray((4, 4096), 0x1000_0000 + 4 * 4096 * 4)  # just past x: no overlap
    assert dispatch.softmax(x, out=after) is after
    assert [launch[1] for launch in fake.launches] == [(0x1000_0000, 0x2000_0000),
                                                       (0x1000_0000, after.data.ptr)]
