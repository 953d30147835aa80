"""Turning a kernel file into compiled code: source expansion, NVRTC options, CuPy modules.

Local ``#include "x.cuh"`` lines are inlined (with ``#line`` directives, so compiler
messages still name the original file and line). CuPy's cache key is the source
text, so an edit to a shared header also invalidates every cached module that
uses it. The same expanded source and options feed :func:`compile_offline`, which
needs no GPU: it drives NVRTC through ``cuda-bindings``.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from pathlib import Path

from .registry import KERNELS_DIR

# Options we pass to cupy.RawModule ...
OPTIONS = ("--std=c++17",)
# ... and the ones CuPy's cached NVRTC path adds by itself (cupy/cuda/compiler.py):
# flush-to-zero, and host-less code. CuPy also picks -arch=sm_XX of the device.
CUPY_IMPLICIT_OPTIONS = ("-ftz=true", "--device-as-default-execution-space")

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$')


class KernelCompileError(RuntimeError):
    """A kernel file that does not compile; the message names the file and the compiler log."""


def expand_source(path: Path) -> str:
    """The source of ``path`` with its local ``#include "..."`` files inlined, each once in the
    whole expansion (a header that two others include, a diamond, is inlined at its first
    include only), as ``#pragma once`` would have it."""
    path = Path(path).resolve()
    return _expand(path, {}, _staged_root(path))


def sources(path: Path) -> list[Path]:
    """The files that :func:`expand_source` inlines for ``path``, itself first, in the order
    it inlines them."""
    path = Path(path).resolve()
    seen: dict[Path, None] = {}
    _expand(path, seen, _staged_root(path))
    return list(seen)


def _staged_root(path: Path) -> Path | None:
    """The ``staging/kernels`` folder that ``path`` lies in, or None. A file there is compiled as
    if every staged file stood in for its namesake in kernels/: a staged part of include/ finds
    the parts beside its namesake, and kernels/' headers include the staged parts, so that no
    header comes in twice, once staged and once not."""
    for folder in path.parents:
        if folder.name == "kernels" and folder.parent.name == "staging":
            return folder
    return None


def _include(name: str, path: Path, staged: Path | None) -> Path | None:
    """The file that ``#include "name"`` in ``path`` takes: beside it, then the folder above
    (known_bad/, staging/kernels/), then kernels/; under ``staged``, beside its namesake in
    kernels/ too, and a staged file wherever kernels/ has its namesake."""
    folders = [path.parent]
    if staged is not None and staged in path.parents:
        folders.append(KERNELS_DIR / path.parent.relative_to(staged))
    for folder in (*folders, path.parent.parent, KERNELS_DIR):
        candidate = Path(os.path.normpath(folder / name))
        if staged is not None and KERNELS_DIR in candidate.parents:
            namesake = staged / candidate.relative_to(KERNELS_DIR)
            if namesake.is_file():
                return namesake
        if candidate.is_file():
            return candidate
    return None


def _expand(path: Path, seen: dict[Path, None], staged: Path | None) -> str:
    seen[path] = None
    out = [f'#line 1 "{_display(path)}"']
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        match = _INCLUDE.match(line)
        if not match:
            out.append(line)
            continue
        target = _include(match.group(1), path, staged)
        if target is None:
            raise KernelCompileError(f"{_display(path)}:{number}: included file "
                                     f"{match.group(1)!r} not found")
        target = target.resolve()
        if target not in seen:
            out.append(_expand(target, seen, staged))
        out.append(f'#line {number + 1} "{_display(path)}"')
    return "\n".join(out) + "\n"


def _display(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def source_digest(path: Path) -> str:
    return hashlib.sha256(expand_source(path).encode()).hexdigest()


@functools.cache
def load_module(path: Path, _digest: str):
    """Compile one kernel file through ``cupy.RawModule`` (NVRTC); cached per process."""
    import cupy

    module = cupy.RawModule(code=expand_source(path), options=OPTIONS, backend="nvrtc")
    try:
        module.compile()
    except cupy.cuda.compiler.CompileException as exc:
        raise KernelCompileError(f"{path} does not compile:\n{exc}") from None
    return module


def get_function(path: Path, kernel: str):
    """The compiled ``extern "C"`` function ``kernel`` of ``path``."""
    module = load_module(Path(path), source_digest(path))
    try:
        return module.get_function(kernel)
    except Exception as exc:  # CuPy raises CUDADriverError for a missing symbol
        raise KernelCompileError(f"{path}: no kernel named {kernel!r} ({exc})") from None


def _pip_header_dirs() -> list[str]:
    """The CUDA runtime's and CCCL's headers as pip installs them (nvidia-cuda-runtime,
    nvidia-cuda-cccl), found by cuda-pathfinder; none when it is not installed."""
    try:
        from cuda import pathfinder
    except ImportError:
        return []
    found = []
    for library in ("cudart", "cccl"):
        try:
            where = pathfinder.find_nvidia_header_directory(library)
        except Exception:  # pathfinder raises for a library it cannot place
            where = None
        if where:
            found.append(str(where))
    return found


def cuda_include_dirs() -> list[str]:
    """Header folders for offline compiles (``cooperative_groups`` needs the runtime's headers and
    CCCL's): the pip-installed ones first, then ``$CUDA_PATH`` and ``/usr/local/cuda``."""
    dirs = _pip_header_dirs()
    for root in filter(None, [os.environ.get("CUDA_PATH", ""), "/usr/local/cuda"]):
        for sub in ("include", "include/cccl"):
            candidate = Path(root) / sub
            if candidate.is_dir():
                dirs.append(str(candidate))
    return list(dict.fromkeys(dirs))


def compile_offline(path: Path, arch: str = "sm_90", extra_options=()) -> dict:
    """Compile ``path`` to a cubin with NVRTC, no GPU needed.

    Uses the same expanded source and options as the CuPy path. Returns
    ``{"cubin": bytes, "log": str}``; the log holds ``-Xptxas=-v`` resource lines
    (registers, spills) when asked for through ``extra_options``.
    """
    from cuda.bindings import nvrtc

    def check(result, what):
        err = result[0] if isinstance(result, tuple) else result
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise KernelCompileError(f"{path}: NVRTC {what} failed: {err}")
        return result[1:] if isinstance(result, tuple) else ()

    source = expand_source(path).encode()
    (prog,) = check(nvrtc.nvrtcCreateProgram(source, str(path).encode(), 0, [], []), "create")
    options = [*OPTIONS, *CUPY_IMPLICIT_OPTIONS, f"-arch={arch}", *extra_options]
    options += [f"-I{d}" for d in cuda_include_dirs()]
    try:
        err = nvrtc.nvrtcCompileProgram(prog, len(options), [o.encode() for o in options])[0]
        (size,) = check(nvrtc.nvrtcGetProgramLogSize(prog), "log size")
        # NVRTC writes into the buffer: never one the interpreter shares (an empty log has size 1,
        # and b" " * 1 is b" " itself: written, every b" " of the process became b"\x00")
        log = bytes(size + 1)
        check(nvrtc.nvrtcGetProgramLog(prog, log), "log")
        log = log.decode(errors="replace").rstrip("\x00").strip()
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise KernelCompileError(f"{path} does not compile for {arch}:\n{log}")
        (size,) = check(nvrtc.nvrtcGetCUBINSize(prog), "cubin size")
        cubin = b" " * size
        check(nvrtc.nvrtcGetCUBIN(prog, cubin), "cubin")
        return {"cubin": cubin, "log": log}
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _compile_job(job) -> dict | KernelCompileError:
    path, arch, extra_options = job
    try:
        return compile_offline(path, arch, extra_options)
    except KernelCompileError as exc:
        return exc


def compile_many(jobs, workers: int | None = None) -> dict:
    """:func:`compile_offline` of each ``(path, arch, extra_options)`` of ``jobs`` in ``workers``
    processes (one per CPU by default; NVRTC compiles in the calling thread): job -> its result,
    or the ``KernelCompileError`` it raised."""
    import concurrent.futures
    import multiprocessing

    jobs = [(Path(path), arch, tuple(extra)) for path, arch, extra in jobs]
    workers = min(len(jobs), workers or os.cpu_count() or 1)
    if workers <= 1:
        return {job: _compile_job(job) for job in jobs}
    spawn = multiprocessing.get_context("spawn")  # not forked from a process that may hold a CUDA context
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=spawn) as pool:
        return dict(zip(jobs, pool.map(_compile_job, jobs), strict=True))


def resources(log: str) -> dict[str, tuple[int, int]]:
    """kernel -> (registers, bytes of spill stores), from a ``-Xptxas=-v`` compile log."""
    found = re.findall(r"Compiling entry function '(\w+)'.*?(\d+) bytes spill stores.*?Used (\d+) registers",
                       log, flags=re.S)
    return {kernel: (int(registers), int(spills)) for kernel, spills, registers in found}
