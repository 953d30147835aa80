"""The kernels in training code (``softmax_harness.autograd``): the gradient through the harness's
forward and backward matches the float64 reference's, and torch's own gradcheck."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("n_cols", [1, 7, 1000, 5000, 20000])
def test_the_gradient_matches_the_float64_reference(torch, n_cols):
    from softmax_harness.autograd import softmax
    from softmax_harness.ops.backward import backward_reference

    rng = np.random.default_rng(n_cols)
    x64 = rng.standard_normal((6, n_cols)) * 4
    w64 = rng.standard_normal((6, n_cols))
    x = torch.tensor(x64, dtype=torch.float32, device="cuda", requires_grad=True)
    w = torch.tensor(w64, dtype=torch.float32, device="cuda")
    (softmax(x) * w).sum().backward()
    x32 = x.detach().double().cpu().numpy()
    y = np.exp(x32 - x32.max(axis=1, keepdims=True))
    y /= y.sum(axis=1, keepdims=True)
    expected = backward_reference(y, w.double().cpu().numpy())
    scale = np.abs(y * w64).sum(axis=1, keepdims=True)  # what the dot product's error scales with
    error = np.abs(x.grad.double().cpu().numpy() - expected)
    assert (error < 1e-5 * scale + 1e-30).all(), float((error / (1e-5 * scale + 1e-30)).max())


def test_gradcheck_on_small_rows(torch):
    from softmax_harness.autograd import Softmax

    x = torch.randn(3, 9, dtype=torch.float32, device="cuda", requires_grad=True)
    assert torch.autograd.gradcheck(Softmax.apply, (x,), eps=1e-2, atol=2e-3, rtol=2e-2,
                                    nondet_tol=0.0, fast_mode=False)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_tensors_of_any_shape_along_any_dim(torch, dtype):
    from softmax_harness.autograd import softmax

    x = torch.randn(2, 50, 3, dtype=getattr(torch, dtype), device="cuda", requires_grad=True)
    y = softmax(x, dim=1)
    ref = torch.softmax(x.float(), dim=1)
    assert y.dtype == x.dtype and y.shape == x.shape
    assert float((y.float() - ref).abs().max()) <= 2 * 2.0 ** -(11 if dtype == "float16" else 8)
    g = torch.randn_like(y)
    y.backward(g)
    expected = torch.autograd.grad(ref, x, g.float())[0]
    assert float((x.grad.float() - expected).abs().max()) <= 0.02 * float(expected.abs().max())


def test_a_cpu_tensor_is_refused_in_one_line(torch):
    from softmax_harness.autograd import softmax

    with pytest.raises(TypeError, match="expected a CUDA tensor, got Tensor on the CPU"):
        softmax(torch.ones(2, 3))


def test_the_log_softmax_gradient_matches_torchs(torch):
    from softmax_harness.autograd import log_softmax

    x = (torch.randn(5, 3000, device="cuda") * 4).requires_grad_()
    g = torch.randn(5, 3000, device="cuda")
    z = log_softmax(x)
    z.backward(g)
    x64 = x.detach().double()
    ref = torch.log_softmax(x64, dim=-1)
    assert float((z.double() - ref).abs().max()) < 1e-5
    expected = g.double() - ref.exp() * g.double().sum(dim=-1, keepdim=True)
    scale = float(g.abs().sum(dim=-1).max())
    assert float((x.grad.double() - expected).abs().max()) < 1e-5 * scale


def _fused_reference(torch, x, scale, bias=None, mask=None, causal=False):
    """softmax(scale * x + bias), masked or causal, in float64 by torch's own autograd."""
    t = scale * x.double()
    if bias is not None:
        t = t + bias.double()
    if mask is not None:
        t = t.masked_fill(mask, float("-inf"))
    if causal:
        cols = torch.arange(x.shape[-1], device=x.device)
        rows = torch.arange(x.shape[0], device=x.device)[:, None] % x.shape[-1]
        t = t.masked_fill(cols[None, :] > rows, float("-inf"))
    return torch.softmax(t, dim=-1)


@pytest.mark.parametrize("form", ["bias", "mask", "causal"])
@pytest.mark.parametrize("n_cols", [7, 1000, 20000])
def test_the_fused_gradient_matches_the_float64_reference(torch, form, n_cols):
    from softmax_harness.autograd import scaled_softmax

    gen = torch.Generator(device="cuda").manual_seed(n_cols)
    x = (torch.randn(6, n_cols, device="cuda", generator=gen) * 3).requires_grad_()
    bias = (torch.randn(6, n_cols, device="cuda", generator=gen)).requires_grad_() if form == "bias" else None
    mask = torch.rand(6, n_cols, device="cuda", generator=gen) < 0.3 if form == "mask" else None
    w = torch.randn(6, n_cols, device="cuda", generator=gen)
    scale = -0.25 if form == "causal" else 0.125
    (scaled_softmax(x, scale, bias=bias, mask=mask, causal=form == "causal") * w).sum().backward()
    x64 = x.detach().double().requires_grad_()
    b64 = bias.detach().double().requires_grad_() if bias is not None else None
    y64 = _fused_reference(torch, x64, scale, b64, mask, form == "causal")
    (y64 * w.double()).sum().backward()
    dot = (y64 * w.double()).abs().sum(dim=-1, keepdim=True).detach()  # what the error scales with
    assert float(((x.grad.double() - x64.grad).abs() / (1e-5 * abs(scale) * dot + 1e-30)).max()) < 1
    if bias is not None:
        assert float(((bias.grad.double() - b64.grad).abs() / (1e-5 * dot + 1e-30)).max()) < 1
    if mask is not None:
        assert bool((x.grad[mask] == 0).all())


def test_fused_gradcheck_on_small_rows(torch):
    from softmax_harness.autograd import ScaledSoftmax

    x = torch.randn(3, 9, dtype=torch.float32, device="cuda", requires_grad=True)
    b = torch.randn(3, 9, dtype=torch.float32, device="cuda", requires_grad=True)
    fused = lambda x, b: ScaledSoftmax.apply(x, b, None, 0.5, False)  # noqa: E731
    assert torch.autograd.gradcheck(fused, (x, b), eps=1e-2, atol=2e-3, rtol=2e-2, nondet_tol=0.0,
                                    fast_mode=False)


def test_a_mask_of_another_shape_is_refused_in_one_line(torch):
    from softmax_harness.autograd import scaled_softmax

    x = torch.ones(2, 3, device="cuda")
    with pytest.raises(ValueError, match=r"the mask has shape \(2, 4\), x \(2, 3\)"):
        scaled_softmax(x, mask=torch.zeros(2, 4, dtype=torch.bool, device="cuda"))
    with pytest.raises(TypeError, match="the mask is torch.float32, not torch.bool"):
        scaled_softmax(x, mask=torch.zeros(2, 3, device="cuda"))
