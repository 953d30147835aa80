"""Every kernel compiles for sm_80 and sm_90 through NVRTC, without a GPU."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import softmax_harness
from softmax_harness import compiler, occupancy, signature
from softmax_harness.registry import KERNELS_DIR

pytest.importorskip("cuda.bindings.nvrtc", reason="cuda-bindings is not installed (pip install .[test])")

STAGING = Path(__file__).resolve().parent.parent / "staging" / "kernels"  # measured, awaiting the GPU suite
SPECS = [v.spec for v in softmax_harness.variants() + softmax_harness.known_bad()] + (
    softmax_harness.registry.discover(STAGING) if STAGING.is_dir() else [])
FILES = sorted({spec.path for spec in SPECS})
# NVRTC's output does not depend on the Python that drives it: tox compiles every file in one
# environment and, in the others, one file, to show that the bindings work there.
if os.environ.get("SOFTMAX_HARNESS_COMPILE") == "one":
    FILES = FILES[:1]


ARCHS = ("sm_80", "sm_90")
VERBOSE = ("-Xptxas=-v",)


@pytest.fixture(scope="module")
def compiled(request) -> dict:
    """Every (file, arch) that the selected tests below check, compiled once over every CPU."""
    selected = [item.callspec.params for item in request.session.items
                if getattr(item, "originalname", "") == "test_kernel_compiles_without_spills"]
    return compiler.compile_many([(params["path"], params["arch"], VERBOSE) for params in selected])


def _result(path: Path, arch: str, compiled: dict) -> dict:
    result = compiled[(Path(path), arch, VERBOSE)]
    if isinstance(result, Exception):
        raise result
    return result


def _nvrtc() -> str:
    from cuda.bindings import nvrtc

    _, major, minor = nvrtc.nvrtcVersion()
    return f"{major}.{minor}"


def _id(path: Path) -> str:
    """kernels/NAME.cu or staging/kernels/NAME.cu, wherever the package is installed."""
    return str(path.relative_to(STAGING.parent.parent if STAGING in path.parents else KERNELS_DIR.parent))


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("path", FILES, ids=_id)
def test_kernel_compiles_without_spills(path, arch, compiled):
    result = _result(path, arch, compiled)
    assert result["cubin"], "NVRTC returned an empty cubin"
    for kernel in {spec.kernel for spec in SPECS if spec.path == path}:
        assert f"Compiling entry function '{kernel}'" in result["log"], f"{kernel} missing from {path}"
    spills = [s for _, s in compiler.resources(result["log"]).values()]
    # the machine code is NVRTC's: CI's 13.5 compiles every kernel here unspilled, where 13.0 (the
    # device's) spills 4-28 bytes in eleven online split kernels, six of them for sm_90
    assert spills and not any(spills), \
        f"{path} spills registers for {arch} (NVRTC {_nvrtc()}):\n{result['log']}"
    unfit = {spec.name: signature.mismatch(spec, result["cubin"]) for spec in SPECS if spec.path == path}
    assert not any(unfit.values()), unfit  # what a launch hands each kernel is what it takes


SIGNED = "// @variant name=k kernel=k algorithm=safe geometry=block-per-row threads=128 {extra}\n" + \
    'extern "C" __global__ void k({params}) {{ }}\n'


@pytest.mark.parametrize("params,extra,problem", [
    ("const float* x, float* y, long long n, long long c", "",
     "takes 4 parameters of 8, 8, 8, 8 bytes; its header passes 4 (8, 8, 4, 4 bytes"),
    ("const float* x, float* y, int n, int c, int stride", "",
     "takes 5 parameters of 8, 8, 4, 4, 4 bytes; its header passes 4 (8, 8, 4, 4 bytes"),
    ("const float* x, const bool* m, float* y, int n, int c, double s", "op=scaled_softmax_mask",
     "takes 6 parameters of 8, 8, 8, 4, 4, 8 bytes; its header passes 6 (8, 8, 8, 4, 4, 4 bytes"),
    ("int n, int c, const float* x, float* y", "", "takes 4 parameters of 4, 4, 8, 8 bytes"),
])
def test_a_kernel_taking_other_parameters_than_its_header_passes_is_named(tmp_path, params, extra, problem):
    """The driver copies as many bytes as each parameter is wide from what it is handed: an int64
    size, a double scale, a parameter more or another order would read past it."""
    from softmax_harness.registry import parse_file

    path = tmp_path / "k.cu"
    path.write_text(SIGNED.format(params=params, extra=extra))
    (spec,) = parse_file(path)
    cubin = compiler.compile_offline(path, "sm_90", VERBOSE)["cubin"]  # VERBOSE: test_an_empty_log_...
    assert problem in signature.mismatch(spec, cubin)


def test_a_kernel_whose_header_declares_its_own_order_fits(tmp_path):
    from softmax_harness.registry import parse_file

    path = tmp_path / "k.cu"
    params = "int n, int c, const float* x, float* y"
    path.write_text(SIGNED.format(params=params, extra="args=rows,cols,in,out"))
    (spec,) = parse_file(path)
    assert signature.mismatch(spec, compiler.compile_offline(path, "sm_90", VERBOSE)["cubin"]) is None


def test_the_parameters_are_read_from_the_cubin_in_order(tmp_path):
    path = tmp_path / "p.cu"
    path.write_text('extern "C" __global__ void p(const float* a, int b, long long c, float d, double e, '
                    "char f, short g, float* h) { }\n")
    cubin = compiler.compile_offline(path, "sm_90", VERBOSE)["cubin"]
    assert signature.param_sizes(cubin, "p") == (8, 4, 8, 4, 8, 1, 2, 8)
    assert signature.param_sizes(cubin, "q") is None


LOG_WRITE = """
import sys
from pathlib import Path
from softmax_harness import compiler
path = Path(sys.argv[1])
path.write_text('extern "C" __global__ void p(const float* a) { }\\n')
compiler.compile_offline(path, "sm_90")  # no warning and no -Xptxas=-v: an empty log
print(repr(" ".encode()))
"""


def test_an_empty_log_leaves_the_interpreters_bytes_alone(tmp_path):
    """NVRTC writes its log into the buffer it is given; an empty log is one byte, and b" " * 1 is
    the interpreter's own b" ": written, every b" " of the process became b"\\x00" (seen as lost
    spaces in what the process printed next). Run in a child: the damage is the process's."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", LOG_WRITE, str(tmp_path / "p.cu")], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "b' '"


@pytest.mark.skipif(not (STAGING / "softmax.cuh").is_file(), reason="no staged softmax.cuh")
def test_staged_header_compiles_every_kernel_without_spills(tmp_path):
    """A staged shared header, with every kernel file of kernels/ beside it (sm_90)."""
    shutil.copy(STAGING / "softmax.cuh", tmp_path)
    for path in sorted(KERNELS_DIR.glob("*.cu")):
        result = compiler.compile_offline(shutil.copy(path, tmp_path), "sm_90", ["-Xptxas=-v"])
        spills = [s for _, s in compiler.resources(result["log"]).values()]
        assert result["cubin"] and spills and not any(spills), \
            f"{path.name} with the staged header:\n{result['log']}"


#: The staged parts of the shared header that replace one of kernels/include/ (compiled where
#: every file is).
REPLACED = sorted(p.name for p in STAGING.glob("include/*.cuh")
                  if (KERNELS_DIR / "include" / p.name).exists()) if len(FILES) > 1 else []


def _includes(path: Path, header: str) -> bool:
    """Whether ``path`` includes include/``header``, directly or through another header."""
    return any(line.startswith("#line 1 ") and line.endswith(f'include/{header}"')
               for line in compiler.expand_source(path).splitlines())


@pytest.mark.parametrize("header", REPLACED)
def test_staged_part_compiles_every_kernel_that_includes_it(header, tmp_path):
    """A staged part of the shared header that replaces one of kernels/include/, under each kernel
    file that includes it (directly or through another header) once every staged file is in place
    in a copy of kernels/ (sm_90): a part written for its own staged kernels must keep what the
    others use."""
    tree = Path(shutil.copytree(KERNELS_DIR, tmp_path / "kernels"))
    shutil.copytree(STAGING, tree, dirs_exist_ok=True)
    users = [p for p in sorted(tree.rglob("*.cu")) if _includes(p, header)]
    assert users, f"no kernel of kernels/ includes include/{header}"
    compiled = compiler.compile_many([(path, "sm_90", VERBOSE) for path in users])
    for path in users:
        result = _result(path, "sm_90", compiled)
        spills = [s for _, s in compiler.resources(result["log"]).values()]
        assert result["cubin"] and spills and not any(spills), \
            f"{path.relative_to(tree)} with the staged include/{header}:\n{result['log']}"


def test_compile_error_names_file_and_line(tmp_path):
    bad = tmp_path / "broken.cu"
    bad.write_text('// @variant name=b kernel=b algorithm=safe geometry=block-per-row threads=32\n'
                   '#include "softmax.cuh"\n'
                   'extern "C" __global__ void b(const float* x) {\n'
                   '    float y = undeclared_thing;\n'
                   '}\n')
    (tmp_path / "softmax.cuh").write_text((KERNELS_DIR / "softmax.cuh").read_text())
    with pytest.raises(compiler.KernelCompileError, match=r"broken\.cu\(4\).*undeclared_thing"):
        compiler.compile_offline(bad, "sm_90")


def test_missing_include_names_file_and_line(tmp_path):
    bad = tmp_path / "lonely.cu"
    bad.write_text('// header\n#include "nowhere.cuh"\n')
    with pytest.raises(compiler.KernelCompileError, match=r"lonely\.cu:2: included file 'nowhere.cuh'"):
        compiler.expand_source(bad)


def test_expanded_source_inlines_the_shared_header_once():
    source = compiler.expand_source(KERNELS_DIR / "online_warp.cu")
    assert source.count("struct MaxSum {") == 1
    assert "#include" not in source.replace("#include <", "")



def test_a_header_included_twice_is_inlined_once(tmp_path):
    """A diamond: two headers include one, and the kernel includes both; the shared header's
    text appears once in the expansion (a second copy would redefine its functions)."""
    from softmax_harness.compiler import expand_source

    (tmp_path / "base.cuh").write_text("int shared_definition();\n")
    (tmp_path / "left.cuh").write_text('#include "base.cuh"\nint left();\n')
    (tmp_path / "right.cuh").write_text('#include "base.cuh"\nint right();\n')
    (tmp_path / "k.cu").write_text('#include "left.cuh"\n#include "right.cuh"\n#include "left.cuh"\n')
    text = expand_source(tmp_path / "k.cu")
    assert text.count("int shared_definition();") == 1
    assert text.count("int left();") == 1 and text.count("int right();") == 1


def test_the_shared_header_parts_are_each_inlined_once():
    from softmax_harness.compiler import expand_source

    text = expand_source(KERNELS_DIR / "online_onepass_vec4.cu")
    assert text.count("struct MaxSum {") == 1 and text.count("struct RowTile {") == 1


def test_a_staged_file_compiles_with_every_staged_part_in_place_of_its_namesake(tmp_path):
    """Under staging/kernels/, a staged part of include/ finds the parts beside its namesake in
    kernels/include/, and kernels/' headers take it in place of that namesake: one RowTile, the
    staged one."""
    staged = tmp_path / "staging" / "kernels"
    (staged / "include").mkdir(parents=True)
    part = (KERNELS_DIR / "include" / "tile.cuh").read_text()
    assert '#include "reduce.cuh"' in part  # a sibling that only kernels/include/ has
    (staged / "include" / "tile.cuh").write_text("// the staged part\n" + part)
    (staged / "k.cu").write_text('#include "softmax.cuh"\n#include "include/tile.cuh"\n')
    text = compiler.expand_source(staged / "k.cu")
    assert text.count("// the staged part") == 1 and text.count("struct RowTile {") == 1
    assert text.count("struct MaxSum {") == 1
    # outside staging/kernels, kernels/' own parts
    (tmp_path / "k.cu").write_text((staged / "k.cu").read_text())
    assert "// the staged part" not in compiler.expand_source(tmp_path / "k.cu")


@pytest.mark.parametrize("threads,registers,blocks", [
    (512, 97, 1),    # log_softmax's 16-bit tile sized 32768: 13 allocation units a warp, 4 warps a quarter
    (512, 64, 2),    # the forward's of that size
    (512, 42, 2),    # 48 a thread allocated: 10 warps a quarter, 40 a multiprocessor
    (512, 40, 3),
    (1024, 64, 1),
    (128, 255, 2),
    (288, 32, 7),    # 9 warps: the threads allow 7 blocks
    (32, 16, 32),    # the blocks' own limit
])
def test_blocks_per_multiprocessor_follow_the_register_allocation(threads, registers, blocks):
    """The offline check's occupancy (``softmax-harness check`` without a GPU, ``tools/registers``):
    a warp's registers go in units of 256 within one quarter of the register file, as the
    occupancy calculator counts them."""
    assert occupancy.blocks_per_sm(threads, registers) == blocks
