"""Is there a CUDA device, and what is it; the timing helpers that the benchmarks share."""

from __future__ import annotations

import functools
import sys

SKIP_REASON = "no CUDA device"


@functools.cache
def available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def context_lost() -> str | None:
    """Why this process's CUDA context can no longer be used, or None (or no GPU in use). After a
    sticky error (an illegal address, a misaligned one, a trap) every call on the context fails
    with it, so one synchronisation tells; an error that leaves the context usable (a refused
    launch, a bad argument) does not show here."""
    if "cupy" not in sys.modules or not available():
        return None
    import cupy

    try:
        cupy.cuda.runtime.deviceSynchronize()
    except Exception as exc:  # noqa: BLE001  (CuPy's runtime and driver errors alike)
        return f"{type(exc).__name__}: {exc}"
    return None


def describe() -> dict:
    """Device name, driver, CUDA runtime, CuPy and NVRTC versions (empty without a GPU)."""
    if not available():
        return {}
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(0)
    driver = cupy.cuda.runtime.driverGetVersion()
    runtime = cupy.cuda.runtime.runtimeGetVersion()
    nvrtc = cupy.cuda.nvrtc.getVersion()
    raw = props.get("uuid", b"")
    uuid = bytes(raw).hex() if isinstance(raw, (bytes, bytearray)) and len(raw) == 16 else ""
    return {
        "device": props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
        **({"uuid": f"GPU-{uuid[:8]}-{uuid[8:12]}-{uuid[12:16]}-{uuid[16:20]}-{uuid[20:]}"} if uuid else {}),
        "compute_capability": f"{props['major']}.{props['minor']}",
        "multiprocessors": props["multiProcessorCount"],
        "l2_bytes": props["l2CacheSize"],
        "memory_bytes": props["totalGlobalMem"],
        "cuda_driver": f"{driver // 1000}.{driver % 1000 // 10}",
        "cuda_runtime": f"{runtime // 1000}.{runtime % 1000 // 10}",
        "cupy": cupy.__version__,
        "nvrtc": ".".join(map(str, nvrtc)),
    }


def release_memory() -> None:
    """Hand the memory CuPy's pools keep back to the device (between tests, so that many test
    processes can share one GPU)."""
    if available():
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
        cupy.get_default_pinned_memory_pool().free_all_blocks()


def events():
    """A pair of CUDA events (start, end) on the current device."""
    import cupy

    return cupy.cuda.Event(), cupy.cuda.Event()


def synchronize() -> None:
    """Wait for all work on the current device."""
    import cupy

    cupy.cuda.Device().synchronize()
