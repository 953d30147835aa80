"""The dispatched ops inside a CUDA graph: captured on a fresh stream (their kernels compiled
before, outside the capture, as code that captures does), replayed on new inputs, and judged
against the float64 reference within the bound of the variant dispatched to. A path that reads a
result back to the host, or allocates, while the stream is captured breaks the capture."""

from __future__ import annotations

import contextlib

import pytest

pytestmark = pytest.mark.gpu

OPS = ("softmax_backward", "log_softmax", "log_softmax_backward", "scaled_softmax_bias",
       "scaled_softmax_mask", "scaled_softmax_causal")


def _fresh(op, n_rows, n_cols, fmt, seed):
    import cupy

    normal = cupy.random.default_rng(seed).standard_normal((n_rows, n_cols), dtype=cupy.float32)
    return op.device_inputs(cupy, normal.astype(fmt.numpy()), fmt)


def replays_within_the_bound(op_name: str, chosen, run, n_rows: int, n_cols: int, dtype: str):
    """Capture ``run(*inputs, out=out)`` (``chosen``: the variant it dispatches to), replay it
    twice on new inputs copied into the captured buffers, and check each result."""
    import cupy

    from softmax_harness import dtypes, ops
    from softmax_harness.observation import bound_ratio
    from softmax_harness.subject import Subject

    fmt, op = dtypes.of(dtype), ops.of(op_name)
    subject = Subject.of(chosen)
    inputs = _fresh(op, n_rows, n_cols, fmt, 0)
    out = cupy.empty((n_rows, n_cols), dtype=fmt.numpy())
    run(*inputs, out=out)  # compiled, and the launch's settings looked up, outside the capture
    cupy.cuda.Device().synchronize()
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        try:
            run(*inputs, out=out)
        except Exception:
            with contextlib.suppress(Exception):  # the capture's own error is not the finding
                stream.end_capture()
            raise
        graph = stream.end_capture()
    for seed in (1, 2):
        for held, new in zip(inputs, _fresh(op, n_rows, n_cols, fmt, seed), strict=True):
            if getattr(held, "ndim", 0):
                held[...] = new
        out.view(fmt.uint)[...] = fmt.poison
        cupy.cuda.Device().synchronize()
        graph.launch(stream)
        stream.synchronize()
        worst = float(cupy.nan_to_num(bound_ratio(subject, op, inputs, out), nan=cupy.inf).max())
        assert worst <= 1, f"{op_name} through {chosen.name}, replay {seed}: {worst:.3g} times the bound"


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("n_rows,n_cols", [(64, 1000), (8, 128256), (2, 2**20)])
def test_softmax_replays_from_a_cuda_graph(dtype, n_rows, n_cols):
    """A register tile, and the split-row kernel, whose workspace is made on a stream's first
    launch: in a capture, without reading it back."""
    import cupy

    from softmax_harness import dispatch

    chosen = dispatch.choose(n_cols, cupy.cuda.Device().id, dtype, n_rows=n_rows)
    replays_within_the_bound("softmax", chosen, lambda x, out: dispatch.softmax(x, out=out),
                             n_rows, n_cols, dtype)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("n_cols", [1000, 100000])
def test_each_op_replays_from_a_cuda_graph(op, n_cols):
    import cupy

    from softmax_harness import dispatch

    chosen = dispatch.choose_op(op, n_cols, cupy.cuda.Device().id, "float32")
    replays_within_the_bound(op, chosen, lambda *inputs, out: dispatch.run_op(op, *inputs, out=out),
                             8, n_cols, "float32")
