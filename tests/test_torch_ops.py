"""The torch entry point (``softmax_harness.torch``, ``torch.library`` operators): each op on torch
tensors within the bound of the variant dispatched to, against the float64 reference; on torch's
current stream; under ``torch.compile`` without a graph break; inside a ``torch.cuda.graph``
capture; differentiable (gradcheck); and every bad input refused in one line."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu

FORWARD = ("softmax", "log_softmax")
BACKWARD = {"softmax": "softmax_backward", "log_softmax": "log_softmax_backward"}


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


@pytest.fixture(scope="module")
def ours(torch):
    from softmax_harness import torch as entry

    return entry


def within_the_bound(torch, op_name: str, tensors, out) -> float:
    """The worst |out - reference| / bound of the variant the op dispatches to, over every element
    (CuPy views of the tensors)."""
    import cupy

    from softmax_harness import dispatch, ops
    from softmax_harness.autograd import _cupy as view  # a CuPy view (bfloat16 through int16)
    from softmax_harness.observation import bound_ratio
    from softmax_harness.subject import Subject

    arrays = tuple(view(t.reshape(-1, t.shape[-1])) for t in tensors)
    dtype = arrays[0].dtype.name
    n_cols = arrays[0].shape[-1]
    aligned = dispatch.rows_aligned(arrays[0])
    n_rows = arrays[0].shape[0]  # a few long rows take a cluster kernel of their own
    chosen = (dispatch.choose(n_cols, 0, dtype, aligned=aligned, n_rows=n_rows) if op_name == "softmax"
              else dispatch.choose_op(op_name, n_cols, 0, dtype, aligned=aligned))
    ratio = bound_ratio(Subject.of(chosen), ops.of(op_name), arrays, view(out.reshape(-1, n_cols)))
    return float(cupy.nan_to_num(ratio, nan=cupy.inf).max())


def _inputs(torch, op_name, shape, dtype, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(shape, generator=g, device="cuda", dtype=torch.float32) * 3
    if op_name == "softmax_backward":
        return (torch.softmax(x, -1).to(dtype), torch.randn(shape, generator=g, device="cuda").to(dtype))
    if op_name == "log_softmax_backward":
        return (torch.log_softmax(x, -1).to(dtype), torch.randn(shape, generator=g, device="cuda").to(dtype))
    return (x.to(dtype),)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(1, 32000), (8, 128256), (64, 4096), (3, 5, 1000), (2, 2**20)])
@pytest.mark.parametrize("op_name", [*FORWARD, *BACKWARD.values()])
def test_each_op_on_torch_tensors_is_within_the_bound(torch, ours, op_name, shape, dtype):
    tensors = _inputs(torch, op_name, shape, getattr(torch, dtype))
    out = getattr(ours, op_name)(*tensors)
    assert out.shape == tensors[0].shape and out.dtype == tensors[0].dtype
    worst = within_the_bound(torch, op_name, tensors, out)
    assert worst <= 1, f"{op_name} {dtype} {shape}: {worst:.3g} times the bound"


def test_a_dim_other_than_the_last(torch, ours):
    x = torch.randn(4, 300, 6, device="cuda")
    y = ours.softmax(x, dim=1)
    assert y.is_contiguous() and y.shape == x.shape
    assert float((y - torch.softmax(x.double(), dim=1)).abs().max()) < 1e-6


def test_it_runs_on_torchs_current_stream(torch, ours):
    """Work queued ahead on a side stream (a long fill of x) must be seen: a launch on another
    stream would read x before the fill."""
    x = torch.zeros(64, 200_000, device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)  # ~25 ms of cycles ahead of the fill
        x.fill_(1.0)
        x[:, 0] = 20.0
        y = ours.softmax(x)
    side.synchronize()
    expected = torch.softmax(x.double(), -1)  # y[:, 0] ~ 0.999; with x read before the fill, 5e-6
    assert float((y - expected).abs().max()) < 1e-5


def test_torch_compile_traces_it_as_one_operator(torch, ours):
    from torch._dynamo.utils import counters

    counters.clear()

    def f(x):
        return ours.softmax(x * 2.0) + 1.0

    compiled = torch.compile(f, fullgraph=True)  # fullgraph: a graph break would raise
    x = torch.randn(16, 5000, device="cuda")
    assert float((compiled(x) - (torch.softmax(x * 2.0, -1) + 1.0)).abs().max()) < 1e-6
    assert not counters["graph_break"]


@pytest.mark.parametrize("n_rows,n_cols", [(8, 1000), (8, 128256), (2, 2**20)])
def test_it_replays_from_a_torch_cuda_graph(torch, ours, n_rows, n_cols):
    """Captured on torch's capture stream (the split-row kernel's workspace made in the capture),
    replayed on new inputs copied in."""
    x = torch.randn(n_rows, n_cols, device="cuda")
    ours.softmax(x)  # compiled and planned outside the capture, as code that captures does
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = ours.softmax(x)
    for seed in (1, 2):
        fresh = torch.Generator("cuda").manual_seed(seed)
        x.copy_(torch.randn(n_rows, n_cols, device="cuda", generator=fresh) * 5)
        y.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        worst = within_the_bound(torch, "softmax", (x,), y)
        assert worst <= 1, f"replay {seed}: {worst:.3g} times the bound"


@pytest.mark.parametrize("op_name", FORWARD)
def test_gradcheck_on_small_rows(torch, ours, op_name):
    x = torch.randn(3, 9, dtype=torch.float32, device="cuda", requires_grad=True)
    assert torch.autograd.gradcheck(getattr(ours, op_name), (x,), eps=1e-2, atol=2e-3, rtol=2e-2,
                                    nondet_tol=0.0, fast_mode=False)


@pytest.mark.parametrize("op_name", FORWARD)
def test_the_gradient_matches_torchs_in_float64(torch, ours, op_name):
    x = (torch.randn(5, 3000, device="cuda") * 4).requires_grad_()
    g = torch.randn(5, 3000, device="cuda")
    getattr(ours, op_name)(x).backward(g)
    x64 = x.detach().double().requires_grad_()
    getattr(torch, op_name)(x64, dim=-1).backward(g.double())
    assert float((x.grad.double() - x64.grad).abs().max()) < 1e-5 * float(x64.grad.abs().max()) + 1e-6


@pytest.mark.parametrize("call,message", [
    (lambda torch, ours: ours.softmax(torch.ones(2, 3)), "expected a CUDA tensor, got one on cpu"),
    (lambda torch, ours: ours.softmax(torch.ones(2, 3, device="cuda", dtype=torch.float64)),
     "dtype torch.float64 is not supported"),
    (lambda torch, ours: ours.softmax(torch.ones(2, 3, device="cuda"), dim=2), "dim 2 is out of range"),
    (lambda torch, ours: ours.softmax_backward(torch.ones(2, 3, device="cuda"),
                                               torch.ones(2, 4, device="cuda")), "must match"),
])
def test_a_bad_input_is_refused_in_one_line(torch, ours, call, message):
    with pytest.raises((TypeError, ValueError, IndexError)) as caught:
        call(torch, ours)
    text = str(caught.value)
    assert message in text and "softmax_harness.torch." in text and "\n" not in text.strip(), text
