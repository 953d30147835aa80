"""The torch entry point's routing, without a GPU (torch and CuPy installed): a call needing no
gradient goes straight to the launch, anything else (a gradient, ``torch.compile``'s tracing, fake
tensors) through the ``torch.library`` operator; a CPU tensor is refused in one line either way."""

from __future__ import annotations

import pytest
from plans import RecordedPlan

torch = pytest.importorskip("torch")
pytest.importorskip("cupy")


@pytest.fixture(scope="module")
def ours():
    from softmax_harness import torch as entry

    return entry


def test_a_cpu_tensor_is_refused_in_one_line_by_each_op(ours):
    x = torch.ones(2, 3)
    for call in (lambda: ours.softmax(x), lambda: ours.log_softmax(x.requires_grad_()),
                 lambda: ours.softmax_backward(x, x), lambda: ours.log_softmax_backward(x, x)):
        refused = r"^softmax_harness\.torch\.\w+: expected a CUDA tensor, got one on cpu$"
        with pytest.raises(TypeError, match=refused):
            call()


def test_only_a_plain_tensor_needing_no_gradient_skips_the_operator(ours, monkeypatch):
    from torch._subclasses.fake_tensor import FakeTensorMode

    routed = []
    monkeypatch.setattr(ours, "_run", lambda op, tensors, dim: routed.append(op) or tensors[0])
    monkeypatch.setattr(ours, "_forward", lambda op, x, dim: routed.append(op) or x)
    cuda_like = torch.ones(2, 3)
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))
    ours.softmax(cuda_like)
    assert routed == ["softmax"]
    with pytest.raises(TypeError):  # needs a gradient: the operator, whose CPU kernel refuses it
        ours.softmax(cuda_like.clone().requires_grad_())
    with torch.no_grad():
        ours.log_softmax(cuda_like.clone().requires_grad_())
    assert routed == ["softmax", "log_softmax"]
    with FakeTensorMode():  # a fake tensor: the operator's fake kernel gives the shape
        assert ours.softmax(torch.empty(4, 10)).shape == (4, 10)
    assert routed == ["softmax", "log_softmax"]


def test_torch_compile_traces_the_operator_without_a_graph_break(ours):
    from torch._dynamo.utils import counters

    counters.clear()
    compiled = torch.compile(lambda x: ours.softmax(x * 2.0) + 1.0, fullgraph=True, backend="eager")
    with pytest.raises(TypeError, match="expected a CUDA tensor"):  # traced, then run on the CPU
        compiled(torch.ones(4, 10))
    assert not counters["graph_break"]


def test_while_torch_compile_traces_the_eager_test_reads_nothing_dynamo_cannot_trace(ours, monkeypatch):
    """The dispatch modes' count is an int from torch's C API, which Dynamo cannot trace: a CUDA
    tensor (a CPU one answering ``is_cuda``) under tracing is routed before it is read."""
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))
    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
    monkeypatch.setattr(ours, "_dispatch_modes", lambda: pytest.fail("read the dispatch modes while tracing"))
    assert not ours._eager(torch.ones(4, 10))


def test_a_bad_binding_is_refused_in_one_line(ours):
    x = torch.ones(2, 3)
    with pytest.raises(ValueError, match=r"^softmax_harness\.torch\.bind: unknown op 'softplus' \(known: "):
        ours.bind("softplus", x)
    with pytest.raises(TypeError, match=r"^softmax_harness\.torch\.bind: the first argument names the op "
                                        r"\(softmax, .*\), got a Tensor$"):
        ours.bind(x)
    arity = r"^softmax_harness\.torch\.softmax_backward: bind takes 2 tensors, got 1$"
    with pytest.raises(TypeError, match=arity):
        ours.bind("softmax_backward", x)
    device = r"^softmax_harness\.torch\.softmax: expected a CUDA tensor, got one on cpu$"
    with pytest.raises(TypeError, match=device):
        ours.bind("softmax", x)


@pytest.fixture
def launches(ours, monkeypatch):
    """CPU tensors taken for CUDA ones on an sm_90 device 0; each launch recorded (the variant's
    name, the addresses, rows, cols) instead of run; no layout remembered yet."""
    import importlib

    from softmax_harness.dispatch import choice

    # the module (the package's front names its function `variant`, which hides it as an attribute)
    variant = importlib.import_module("softmax_harness.variant")
    cuda0 = torch.device("cuda", 0)
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))
    monkeypatch.setattr(torch.Tensor, "device", property(lambda self: cuda0))
    monkeypatch.setattr(ours, "_raw_stream", lambda device: 0)
    monkeypatch.setattr(ours, "_cupy_device", lambda: 0)
    monkeypatch.setattr(variant, "compute_capability", lambda device_id: 90)
    seen = []

    def launch(self, operands, rows, cols, size, device, stream=None):
        seen.append((self.name, tuple(operands), rows, cols))

    monkeypatch.setattr(variant.Variant, "launch", launch)
    monkeypatch.setattr(ours, "_LAYOUTS", {})
    yield seen
    choice._choose.cache_clear()
    choice._choose_op.cache_clear()


@pytest.fixture
def choices(ours, monkeypatch):
    """Each time a call checks its tensors and chooses its variant: (op, dtype, aligned)."""
    made = []
    check, choose = ours._check, ours._variant

    def checked(op, tensors, dim):
        made.append(op)
        return check(op, tensors, dim)

    def chosen(op, n_cols, n_rows, device, dtype, aligned):
        made.append((op, dtype, aligned))
        return choose(op, n_cols, n_rows, device, dtype, aligned)

    monkeypatch.setattr(ours, "_check", checked)
    monkeypatch.setattr(ours, "_variant", chosen)
    return made


def test_a_call_in_a_layout_seen_before_only_allocates_and_launches(ours, launches, choices):
    first, again = torch.randn(8, 4096), torch.randn(8, 4096)
    out_first = ours.softmax(first)
    out_again = ours.softmax(again)
    assert choices == ["softmax", ("softmax", "float32", True)]  # the first call's alone
    (name, addresses, rows, cols), repeat = launches
    assert repeat == (name, (again.data_ptr(), out_again.data_ptr()), 8, 4096)
    assert addresses == (first.data_ptr(), out_first.data_ptr())
    assert out_again.shape == again.shape and out_again.dtype == again.dtype


def test_a_layout_unlike_every_one_seen_is_checked_and_chosen_again(ours, launches, choices):
    ours.softmax(torch.randn(8, 4096))
    ours.softmax(torch.randn(8, 4096).to(torch.bfloat16))
    misaligned = torch.randn(8 * 4096 + 1)[1:].view(8, 4096)  # contiguous, 4 bytes past a boundary
    ours.softmax(misaligned)
    ours.softmax(torch.randn(8, 4096), dim=0)  # along another dim: copies, never remembered
    ours.softmax(torch.randn(8, 4096), dim=0)
    chosen = [c for c in choices if isinstance(c, tuple)]
    assert chosen == [("softmax", "float32", True), ("softmax", "bfloat16", True),
                      ("softmax", "float32", False), ("softmax", "float32", True),
                      ("softmax", "float32", True)]
    assert launches[2][1][0] == misaligned.data_ptr()


def test_a_gradient_unlike_the_output_is_refused_after_a_remembered_backward(ours, launches, choices):
    y, dy = torch.rand(4, 1000), torch.randn(4, 1000)
    ours.softmax_backward(y, dy)
    ours.softmax_backward(y, dy)
    assert len(launches) == 2 and choices.count("softmax_backward") == 1
    unlike = r"^softmax_harness\.torch\.softmax_backward: dy is torch\.bfloat16 \(4, 1000\) on cuda:0, " \
             r"the output torch\.float32 \(4, 1000\) on cuda:0: they must match$"
    with pytest.raises(ValueError, match=unlike):
        ours.softmax_backward(y, dy.to(torch.bfloat16))
    with pytest.raises(ValueError, match="they must match"):
        ours.softmax_backward(y, torch.randn(4, 999))
    assert len(launches) == 2


@pytest.mark.parametrize("cooperative", [False, True])
def test_a_call_in_a_layout_seen_before_launches_the_plan_alone_unless_it_takes_a_workspace(
        ours, launches, monkeypatch, cooperative):
    from softmax_harness import dispatch

    plan = RecordedPlan(cooperative)
    variant = dispatch.choose(4096, 0, "float32", aligned=True, n_rows=8)
    monkeypatch.setitem(variant._plans, (8, 4096, 4, 0), plan)
    first, again = torch.randn(8, 4096), torch.randn(8, 4096)
    ours.softmax(first)
    out = ours.softmax(again)
    if cooperative:  # each call through the variant, which hands the plan its workspace
        assert [launch[1][0] for launch in launches] == [first.data_ptr(), again.data_ptr()]
        assert plan.calls == []
    else:
        assert len(launches) == 1 and plan.calls == [((again.data_ptr(), out.data_ptr()), 0)]
