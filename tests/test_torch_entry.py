"""The torch entry point's routing, without a GPU (torch and CuPy installed): a call needing no
gradient goes straight to the launch, anything else (a gradient, ``torch.compile``'s tracing, fake
tensors) through the ``torch.library`` operator; a CPU tensor is refused in one line either way."""

from __future__ import annotations

import pytest

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


def test_a_bad_binding_is_refused_in_one_line(ours):
    x = torch.ones(2, 3)
    with pytest.raises(ValueError, match=r"^softmax_harness\.torch\.bind: unknown op 'softplus' \(known: "):
        ours.bind("softplus", x)
    arity = r"^softmax_harness\.torch\.softmax_backward: bind takes 2 tensors, got 1$"
    with pytest.raises(TypeError, match=arity):
        ours.bind("softmax_backward", x)
    device = r"^softmax_harness\.torch\.softmax: expected a CUDA tensor, got one on cpu$"
    with pytest.raises(TypeError, match=device):
        ours.bind("softmax", x)
