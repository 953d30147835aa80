"""Which variants still run the machine code an earlier report tested though their sources moved
since it (``tools/sass-same``, read by ``gpu-check --since REPORT --same-sass FILE``).

An edit to a shared header for a few kernels moves the digest of every variant that includes it
(:mod:`.carry`), and ``--since`` reruns them all: 150 variants and 6036 tests for
``include/scaled.cuh``, where the edit changed 43 kernels' machine code. Here the tree the report
tested (a commit's files, each moved variant's sources checked against the report's digests) and
this one are compiled offline for the report's GPU, as the suite compiles them (NVRTC, CuPy's
options), and each kernel's SASS is read apart from the others' (cuobjdump). A variant is vouched
for where its kernel's SASS and its ``@variant`` line are the same in both, and so is the way the
harness launches it. The answer names this machine's NVRTC, which need not be the device's. Over
the ``kept_chunks`` promotion it vouched for 116 of the 159 moved variants and left the 43 that a
per-function diff by hand had found changed (reports/measurements/sass_same_kept_chunks.txt).

A change to the launch path (:data:`.carry.LAUNCH_PATH`: the header's parser, the compiler, the
launch) moves every variant's digest. Then each tree's harness is run over its variants on a model
of the GPU (:mod:`.launch_trace`: the source and options handed to NVRTC, the function's
attributes, the grids, the parameters, the allocations, the refusals), and a variant whose trace
is the same in both trees and whose source handed to NVRTC is too needs no compile; one whose
source moved is compiled from each tree's expansion, as above.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from .. import catalog, compiler
from ..registry import KERNELS_DIR
from . import carry

# an instruction's line (its offset, its text, the first half of its encoding) and the line below
# with the second half (its scheduling: stalls, the barriers it sets and waits on)
_INSTRUCTION = re.compile(r"\s+/\*[0-9a-f]{4,}\*/|\s+/\* 0x[0-9a-f]{16} \*/\s*$")
_FUNCTION = re.compile(r"\s+Function : (\S+)")


def cuobjdump() -> str:
    """The cuobjdump of the nvidia-cuda-cuobjdump wheel, else the toolkit's on PATH."""
    wheel = Path(sysconfig.get_paths()["purelib"]) / "nvidia" / "cu13" / "bin" / "cuobjdump"
    found = str(wheel) if wheel.is_file() else shutil.which("cuobjdump")
    if not found:
        raise RuntimeError("no cuobjdump (pip install nvidia-cuda-cuobjdump)")
    return found


def disassemble(cubin: bytes) -> str:
    """``cuobjdump -sass`` of ``cubin`` (RuntimeError with its message where it fails: it runs
    nvdisasm, the nvidia-cuda-nvdisasm wheel's or the toolkit's)."""
    with tempfile.NamedTemporaryFile(suffix=".cubin") as handle:
        handle.write(cubin)
        handle.flush()
        done = subprocess.run([cuobjdump(), "-sass", handle.name], capture_output=True, text=True)
    if done.returncode:
        problem = (done.stderr or done.stdout).strip().splitlines()
        raise RuntimeError(f"cuobjdump -sass failed: {problem[-1] if problem else done.returncode} "
                           "(pip install nvidia-cuda-nvdisasm)")
    return done.stdout


def functions(listing: str) -> dict[str, str]:
    """kernel -> its instructions, from a ``cuobjdump -sass`` listing (the listing's header,
    which names the file, left out), each line's runs of spaces one space: cuobjdump pads its
    columns to the longest instruction of the whole listing, so a kernel added beside another
    would otherwise move the other's text without moving its code."""
    found: dict[str, list[str]] = {}
    lines = None
    for line in listing.splitlines():
        if match := _FUNCTION.match(line):
            lines = found.setdefault(match.group(1), [])
        elif lines is not None and _INSTRUCTION.match(line):
            lines.append(" ".join(line.split()))
    return {name: "\n".join(body) for name, body in found.items()}


def _kernels_of(paths: list[Path], arch: str, workers: int | None) -> dict[Path, dict[str, str]]:
    """path -> :func:`functions` of its compile for ``arch`` (in ``workers`` processes); the
    first compile error raised."""
    listings = {}
    # -Xptxas=-v changes no instruction; its log is never empty (tests/test_compile.py's empty log)
    jobs = [(p, arch, ("-Xptxas=-v",)) for p in paths]
    for (path, _, _), result in compiler.compile_many(jobs, workers).items():
        if isinstance(result, Exception):
            raise result
        listings[path] = functions(disassemble(result["cubin"]))
    return listings


def header_line(path: Path, name: str) -> str | None:
    """The ``@variant`` line that declares ``name`` in ``path``."""
    pattern = re.compile(rf"@variant\s+name={re.escape(name)}(\s|$)")
    return next((line.strip() for line in path.read_text().splitlines() if pattern.search(line)), None)


def toolchain() -> str:
    """This machine's NVRTC and cuobjdump versions."""
    from cuda.bindings import nvrtc

    _, major, minor = nvrtc.nvrtcVersion()
    dump = subprocess.run([cuobjdump(), "--version"], capture_output=True, text=True).stdout.strip()
    return f"NVRTC {major}.{minor}; {dump.splitlines()[-1] if dump else 'cuobjdump'}"


def same_machine_code(earlier: dict, tree: Path, arch: str = "sm_90", workers: int | None = None,
                      refs: list[str] | None = None) -> dict:
    """What ``tools/sass-same`` writes: of the variants (``refs``, default every correct and
    known-bad one) whose digest moved since ``earlier`` (a report of the files in ``tree``),
    those whose kernel compiles to the same SASS for ``arch`` here as in ``tree`` (``same``:
    ref -> the digests before and now, and the SASS's), and the rest (``changed``: ref -> why).
    ValueError where ``tree`` is not what ``earlier`` tested."""
    recorded = earlier["variants_sha256"]
    if refs is None:
        refs = [v.ref for kind in ("variant", "bad_variant") for v in catalog.select(kind)]
    now = carry.variant_digests([r for r in refs if r in recorded])
    moved = sorted(r for r, digest in now.items() if digest != recorded[r])
    answer = {"report_generated": earlier["generated"], "arch": arch, "toolchain": toolchain(),
              "same": {}, "changed": {}}
    before = carry.variant_digests(moved, tree)
    strangers = [r for r in moved if before.get(r) != recorded[r]]
    if strangers and len(strangers) == len(moved):
        raise ValueError(f"{tree} is not the tree the report tested: the sources of {len(strangers)} "
                         f"variant(s) differ from its digests ({', '.join(strangers[:3])}...)")
    # a few: digested otherwise when the report was made (a file a digest takes in since): rerun
    answer["changed"] = dict.fromkeys(strangers, "its digest in that tree is not the report's")
    moved = [r for r in moved if r not in answer["changed"]]
    traces = None
    if carry.launch_path_digest(tree) != carry.launch_path_digest():
        try:
            traces = launch_traces(moved, tree), launch_traces(moved, harness_tree())
        except RuntimeError as exc:
            answer["changed"].update(dict.fromkeys(moved, f"the launch path moved and was not traced: {exc}"))
            return answer
        answer["launch_path"] = "moved: each variant's launch traced in both trees (run/launch_trace.py)"
    specs = {r: catalog.variant(r).spec for r in moved}
    compile_now = []
    for ref, spec in specs.items():
        path, old = spec.path.resolve(), carry.in_tree(spec.path.resolve(), tree)
        name = catalog.split_ref(ref)[0]
        if header_line(path, name) != header_line(old, name):
            answer["changed"][ref] = "its @variant line changed"
        elif traces and traces[0][ref]["trace"] != traces[1][ref]["trace"]:
            answer["changed"][ref] = "its launch moved (its trace differs)"
        elif traces and not traces[1][ref]["launched"]:  # the model failed before any launch
            answer["changed"][ref] = "its trace reached no launch"
        elif traces and traces[0][ref]["sources"] == traces[1][ref]["sources"]:
            answer["same"][ref] = {"before": recorded[ref], "now": now[ref],
                                   "launch": traces[1][ref]["trace"], "source": traces[1][ref]["sources"]}
        elif traces and not (_expands_to(old, tree, traces[0][ref]["sources"])
                             and _expands_to(path, harness_tree(), traces[1][ref]["sources"])):
            answer["changed"][ref] = "the expansion of its source moved"
        else:
            compile_now.append(ref)
    files = sorted({specs[r].path.resolve() for r in compile_now})
    listings = _kernels_of([p for path in files for p in (path, carry.in_tree(path, tree))], arch, workers)
    for ref in compile_now:
        spec = specs[ref]
        path, old = spec.path.resolve(), carry.in_tree(spec.path.resolve(), tree)
        sass, sass_before = listings[path].get(spec.kernel), listings[old].get(spec.kernel)
        if sass is None or sass != sass_before:
            answer["changed"][ref] = "its SASS changed"
        else:
            answer["same"][ref] = {"before": recorded[ref], "now": now[ref],
                                   "sass": hashlib.sha256(sass.encode()).hexdigest(),
                                   **({"launch": traces[1][ref]["trace"]} if traces else {})}
    return answer


def harness_tree() -> Path:
    """The folder that holds the package this harness runs from (the repository, beside
    ``kernels/``; or where it is installed, its kernels inside it): a tree as
    :func:`.carry.in_tree` maps files into one."""
    return Path(compiler.__file__).resolve().parent.parent


def _ref_in(ref: str, tree: Path) -> str:
    """``ref`` as ``tree`` names it: NAME@DIR with DIR's copy in ``tree``."""
    name, where = catalog.split_ref(ref)
    return ref if where is None else f"{name}@{carry.in_tree(where, tree)}"


def launch_traces(refs: list[str], tree: Path) -> dict[str, dict]:
    """ref -> how ``tree``'s harness launches it (:mod:`.launch_trace`, run there in a process of
    its own): the trace's digest and the digests of the sources it hands to NVRTC. RuntimeError
    where the trace cannot run there."""
    there = {ref: _ref_in(ref, tree) for ref in refs}
    done = subprocess.run([sys.executable, str(Path(__file__).with_name("launch_trace.py")), str(tree)],
                          input=json.dumps(list(there.values())), capture_output=True, text=True, cwd=tree)
    if done.returncode:
        problem = done.stderr.strip().splitlines()
        raise RuntimeError(f"launch_trace in {tree}: {problem[-1] if problem else done.returncode}")
    traced = json.loads(done.stdout)
    return {ref: traced[name] for ref, name in there.items()}


@contextlib.contextmanager
def _in_folder(folder: Path):
    home = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(home)


def _expands_to(path: Path, tree: Path, digests: list[str]) -> bool:
    """Whether this harness expands ``path`` (run from ``tree``, as the trace was) into the source
    whose digest the trace recorded: then compiling the file here compiles what that tree runs."""
    with _in_folder(tree):
        return [compiler.source_digest(path)] == digests


def staged_changes(staging: Path, arch: str = "sm_90", workers: int | None = None) -> list[str]:
    """The variants of kernels/ (correct and known-bad) whose kernel compiles to other SASS for
    ``arch`` with the files under ``staging`` (``trial/``'s aside) in place of their namesakes:
    those a staged shared header or kernel file changes (``staging/retest``)."""
    staging = Path(staging).resolve()
    staged = [p.relative_to(staging) for p in staging.rglob("*") if p.is_file()]
    staged = [p for p in staged if p.parts[0] != "trial"]

    def overlay(tree: Path) -> set[Path]:
        for rel in staged:
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(staging / rel, tree / rel)
        return {tree / rel for rel in staged}

    return _changed_by(overlay, arch, workers)


def diff_changes(diff: Path, arch: str = "sm_90", workers: int | None = None) -> list[str]:
    """As :func:`staged_changes`, for a trial kept as a diff onto kernels/ (``staging/trial/*.diff``,
    its paths as ``git diff`` writes them, ``b/kernels/...``): the variants whose SASS it changes."""
    diff = Path(diff).resolve()
    touched = [Path(line[6:].split("\t")[0].strip()) for line in diff.read_text().splitlines()
               if line.startswith("+++ b/")]
    if not touched or any(p.parts[0] != "kernels" for p in touched):
        raise RuntimeError(f"{diff.name}: expected a diff of files under kernels/, "
                           "with git diff's a/ and b/ paths")

    def overlay(tree: Path) -> set[Path]:
        done = subprocess.run(["patch", "--batch", "--forward", "-s", "-p2", "-d", str(tree),
                               "-i", str(diff)], capture_output=True, text=True)
        if done.returncode:
            why = (done.stdout + done.stderr).strip()
            raise RuntimeError(f"{diff.name} does not apply to kernels/: {why}")
        return {tree / Path(*p.parts[1:]) for p in touched}

    return _changed_by(overlay, arch, workers)


def _changed_by(overlay, arch: str, workers: int | None) -> list[str]:
    """The variants of kernels/ (correct and known-bad) whose kernel's SASS for ``arch`` differs in
    a copy of kernels/ that ``overlay(copy)`` changes (returning the files it changed). Only the
    kernel files that include a changed file, or are one, are compiled."""
    kernels = KERNELS_DIR.resolve()
    variants = [v for v in catalog.variants() + catalog.known_bad()
                if v.spec.path.resolve().is_relative_to(kernels)]
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp).resolve() / "kernels"
        shutil.copytree(kernels, tree)
        overlaid = overlay(tree)
        twin = {}  # a kernel file of kernels/ -> its copy with the changes in place, where they touch it
        for path in {v.spec.path.resolve() for v in variants}:
            copy = tree / path.relative_to(kernels)
            if overlaid & set(compiler.sources(copy)):
                twin[path] = copy
        listings = _kernels_of([p for pair in twin.items() for p in pair], arch, workers)
    return [v.name for v in variants if (path := v.spec.path.resolve()) in twin
            and listings[path].get(v.spec.kernel) != listings[twin[path]].get(v.spec.kernel)]
