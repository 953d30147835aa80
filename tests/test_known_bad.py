"""The known-bad gallery: every planted defect is caught by the property it declares."""

from __future__ import annotations

import pytest

from softmax_harness.run import gallery
from softmax_harness.run.isolation import IsolatedFailure, run_isolated

pytestmark = pytest.mark.gpu


def test_the_declared_property_catches_the_defect(bad_variant, record_property):
    """Each hunt runs in a child process: a kernel that crashes the context fails alone."""
    result = run_isolated(gallery.hunt, bad_variant.ref, "ci", timeout=300,  # NAME@DIR outside kernels/
                          what=f"the hunt for {bad_variant.name}")
    record_property("caught", result["caught"])
    assert result["caught"], (
        f"{bad_variant.name} ({bad_variant.spec.defect}) was not caught by "
        f"{result['catches']} in {result['examples']} examples; got: {result['message'] or 'no failure'}")


def _crash():
    import cupy

    kernel = cupy.RawKernel(r'''extern "C" __global__ void wild(float* p) { p[1LL << 40] = 1.0f; }''',
                            "wild")
    kernel((1,), (1,), (cupy.empty(1, cupy.float32),))
    cupy.cuda.Device().synchronize()


def test_a_crashing_kernel_fails_alone():
    with pytest.raises(IsolatedFailure, match="raised|died"):
        run_isolated(_crash, timeout=120, what="the wild kernel")
    import cupy  # this process's context is untouched

    assert float(cupy.arange(4, dtype=cupy.float32).sum()) == 6.0
