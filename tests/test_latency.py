"""The small-batch sweep's inputs (no GPU: CuPy stood in for): every contender at a shape is timed
on the same rows and output, so that where they lie in memory does not tell contenders apart."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from softmax_harness import baselines, latency


@pytest.fixture
def fake_cupy(monkeypatch):
    """A CuPy of NumPy arrays, enough for :func:`latency.inputs`; its cache emptied around the test."""
    fake = types.SimpleNamespace(float32=np.float32, empty_like=np.empty_like,
                                 random=types.SimpleNamespace(default_rng=np.random.default_rng))
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setattr(baselines, "as_torch", lambda a: ("torch view of", id(a)))
    latency.inputs.cache_clear()
    yield fake
    latency.inputs.cache_clear()


def test_the_contenders_at_a_shape_share_their_rows_and_output(fake_cupy):
    x, out, xt, outt = latency.inputs((8, 4096), "float32")
    again = latency.inputs((8, 4096), "float32")
    assert again[0] is x and again[1] is out and again[2:] == (xt, outt)
    assert x.shape == out.shape == (8, 4096) and x.dtype == np.float32


def test_another_shape_or_type_gets_inputs_of_its_own(fake_cupy):
    x = latency.inputs((8, 4096), "float32")[0]
    assert latency.inputs((8, 2048), "float32")[0] is not x
    assert latency.inputs((8, 4096), "bfloat16")[0].dtype != np.float32


@pytest.mark.parametrize("text,problem", [("8y4096", "is not a shape NxC"), ("0x4096", "at least 1"),
                                          ("8x4096x2", "is not a shape NxC")])
def test_a_shape_that_is_not_rows_by_columns_is_named(text, problem):
    import argparse

    assert latency.shape_arg("8X4096") == (8, 4096)
    with pytest.raises(argparse.ArgumentTypeError, match=problem):
        latency.shape_arg(text)
