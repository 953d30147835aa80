"""``softmax-harness check TARGET...``: the battery on kernels and callables from anywhere, and a
verdict table.

A target is a ``.cu`` file (its declared variants), a folder of them, or ``module:function``
(a Python callable, imported from the current folder); none means the bundled kernels. On a
GPU every subject gets the whole battery (:mod:`softmax_harness.battery`, in a child pytest
process that a crash or a hang cannot take down) and, with ``--sanitize``, compute-sanitizer's
four tools. Without one, the ``.cu`` subjects are compiled offline for sm_80 and sm_90
(registers, spills and the blocks a multiprocessor holds shown), CPU callables get the battery,
and one line names what needed a GPU. Everything a run writes (the pytest record and log, the
inputs that repro lines name) goes into one run folder, printed at the end; the exit status is 0
only when everything that ran passed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from pathlib import Path

from . import callables, catalog, gpu, signature
from .occupancy import blocks_per_sm
from .registry import parse_file
from .targets import Targets, here, resolve
from .verdicts import verdicts


def compile_offline(files: list[Path], report=None) -> tuple[list[str], bool, set[tuple[Path, str]]]:
    """Lines of registers, spills and the blocks a multiprocessor holds for them for each kernel
    of ``files`` on sm_80 and sm_90, and of each variant whose kernel takes other parameters than
    its header passes; whether all compiled without spills and agree; the (file, name) of each
    variant that does not agree, which no launch may take (the driver would read past what it is
    given). ``report(line)``, where given, has each file's lines as soon as they are known: the
    bundled kernels take minutes of NVRTC."""
    from .compiler import KernelCompileError, resources
    from .compiler import compile_offline as nvrtc

    lines, ok, unfit = [], True, set()
    for path in files:
        done = len(lines)
        specs = parse_file(path)
        threads = {spec.kernel: spec.threads for spec in specs}
        for arch in ("sm_80", "sm_90"):
            try:
                result = nvrtc(path, arch, ["-Xptxas=-v"])
            except KernelCompileError as exc:
                log = str(exc).replace(str(path), here(path)).splitlines()
                first = next((line for line in log if ": error" in line), log[-1])  # the last: a count
                lines.append(f"  {here(path)} {arch}: does not compile: {first[:200]}")
                ok = False
                continue
            for kernel, (registers, spills) in resources(result["log"]).items():
                line = f"  {here(path)} {arch} {kernel}: {registers} registers, {spills} bytes spilled"
                if threads.get(kernel):
                    blocks = blocks_per_sm(threads[kernel], registers)
                    plural = "s" * (blocks != 1)
                    line += f", {blocks} block{plural} of {threads[kernel]} threads a multiprocessor"
                lines.append(line)
                ok &= spills == 0
            if arch == "sm_90":  # the parameters are the source's, whatever the architecture
                for spec in specs:
                    why = signature.mismatch(spec, result["cubin"])
                    if why:
                        lines.append(f"  {here(path)} {spec.name}: {why}")
                        unfit.add((path.resolve(), spec.name))
                        ok = False
        if report:
            for line in lines[done:]:
                report(line)
    return lines, ok, unfit


def _declared_in(ref: str) -> tuple[Path, str]:
    """(the file, the name) of the variant ``ref`` (NAME@DIR) names."""
    spec = catalog.variant(ref).spec
    return spec.path.resolve(), spec.name


#: A test's seconds before it is taken for a hang, by Hypothesis profile: the longest battery test
#: of a bundled kernel took 64 s on the H200 under ``dev`` (60 examples; 15 processes sharing
#: the GPU, ``reports/gpu.json``), and ``thorough`` draws 1000.
HANG_SECONDS = {"ci": 300, "dev": 300, "thorough": 3000}


def _new_run_folder(runs: Path) -> Path:
    """``runs/TIME``, made for this run alone: a second check started in the same second (a tox
    matrix, say) gets ``TIME-2``."""
    runs.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(1, 1000):
        folder = runs / (stamp if n == 1 else f"{stamp}-{n}")
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise FileExistsError(f"{runs}: a thousand runs started in {stamp}")


def run(targets: list[str], *, sanitize: bool = False, profile: str = "dev", out: Path | None = None,
        timeout: float | None = None, test_timeout: float | None = None, select: str | None = None) -> int:
    """The command; its exit status. ``test_timeout``: a test's seconds before it is taken for a
    hang (default :data:`HANG_SECONDS` of the profile: ``thorough`` draws 1000 examples a test)."""
    test_timeout = test_timeout or HANG_SECONDS.get(profile, HANG_SECONDS["dev"])
    from .run.children import NONE_RAN, run_by_subject

    found = resolve(targets, timeout=test_timeout)
    for message in found.refused:
        print(f"softmax-harness check: {message}", file=sys.stderr)
    if found.refused and not (found.callables or found.kernels or found.needs_gpu):
        return 2
    if out is not None:
        folder = out.resolve()
        folder.mkdir(parents=True, exist_ok=True)
    else:
        folder = _new_run_folder(Path("softmax-harness-runs").resolve())
    # Hypothesis' example database beside the runs, not in the user's folder: a failure found
    # once is tried first in the next run
    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(folder.parent / ".hypothesis"))
    summary = {"refused": found.refused, "skipped": [f"{here(path)}: {why}" for path, why in found.skipped],
               "not_run": {}}  # verdicts.json: what a CI of the user's reads
    for line in summary["skipped"]:
        print(f"skipped: {line}")
    on_gpu = gpu.available()
    ok = True
    if found.files:
        try:
            head = [f"offline compile (NVRTC, CuPy's options) of {len(found.files)} file"
                    f"{'s' if len(found.files) != 1 else ''}:"]  # once NVRTC is known to be there

            def report(line):
                print(*head, line, sep="\n", flush=True)
                head.clear()

            lines, compiled, unfit = compile_offline(found.files, report=report)
            summary["offline_compile"] = {"ok": compiled, "lines": [line.strip() for line in lines]}
            ok &= compiled
            if unfit:  # a launch would hand them what they do not take
                held = [k for k in found.kernels if _declared_in(k) in unfit]
                print(f"not run: {', '.join(held)} (a kernel unlike its header, above)")
                found.kernels = [k for k in found.kernels if k not in held]
                summary["not_run"].update(dict.fromkeys(held, "a kernel unlike its header"))
        except ImportError:
            print("offline compile skipped: it needs cuda-bindings and nvidia-cuda-nvrtc "
                  "(pip install 'softmax-harness[test]')")
    subjects = found.callables + (found.kernels if on_gpu else [])
    if found.kernels and not on_gpu:
        why = "no CUDA device visible" if importlib.util.find_spec("cupy") else \
            "install cupy-cuda13x and run on a machine with a CUDA GPU"
        print(f"needs a GPU, not run: the battery on {len(found.kernels)} kernel"
              f"{'s' if len(found.kernels) != 1 else ''}"
              f"{' and the sanitizers' if sanitize else ''} ({why})")
        summary["not_run"].update(dict.fromkeys(found.kernels, f"needs a GPU: {why}"))
    for ref, why in found.needs_gpu.items():  # (a GPU would have taken them)
        print(f"needs a GPU, not run: {why}")
        summary["not_run"][ref] = f"needs a GPU: {why}"
    tests, tally = [], {}
    if subjects:
        (folder / "pytest.ini").write_text("[pytest]\n")  # the user's own pytest settings stay out
        tests_file = Path(callables.__file__).with_name("battery.py")
        args = [str(tests_file), "-c", str(folder / "pytest.ini"), f"--rootdir={folder}",
                "-p", "softmax_harness.pytest_plugin", "-p", "no:benchmark",  # (it writes .benchmarks/)
                f"--hypothesis-profile={profile}",
                f"--repro-dir={folder / 'repro'}", f"--hang-timeout={test_timeout:g}",
                "--exit-on-lost-context", *(["-k", select] if select else [])]
        print(f"battery: {len(subjects)} subjects, Hypothesis profile {profile} (its output as it runs: "
              f"{folder / 'pytest.log'}) ...", flush=True)
        with open(folder / "pytest.log", "w") as log:
            deadline = time.time() + timeout if timeout else None  # each test has its hang timeout
            tests, tally = run_by_subject("battery", args, subjects, deadline, log, Path.cwd())
    if sanitize and on_gpu and found.kernels:
        from .run.orchestrate import sanitize_all

        with open(folder / "sanitizer.log", "w") as log:
            results = sanitize_all(found.kernels, [], log)
        ok &= all(r["ok"] for r in results.values())
        summary["sanitizers"] = {run: r["ok"] for run, r in results.items()}  # each tool's run: clean
    table, messages, passed, records = verdicts(tests, tally, Targets(
        kernels=[k for k in found.kernels if k in subjects], callables=found.callables, names=found.names,
        ops=found.ops, strided=found.strided))
    ok &= passed
    if subjects:
        print("", *table, sep="\n")
    for message in messages:
        print("\n" + message)
    print(f"\nrun folder: {folder}")
    nothing = not subjects and "offline_compile" not in summary  # a pass would claim what no check saw
    unselected = bool(select and tests) and all(t.get("message") == NONE_RAN for t in tests)
    if unselected:  # a mistyped -k is the user's error, not the subjects' failure
        print(f"softmax-harness check: --select {select!r} matches none of the battery's tests "
              "(a pytest -k expression over its test names: classic, masked_rows, ...)", file=sys.stderr)
    code = 2 if found.refused or nothing or unselected else 0 if ok else 1
    summary.update(ok=ok and code == 0, exit=code, profile=profile, subjects=records, failures=messages)
    (folder / "verdicts.json").write_text(json.dumps(summary, indent=1) + "\n")
    all_passed = "all checks that ran passed (the rest: not run, above)" if summary["not_run"] else \
        "all checks passed"
    if found.refused:
        print(f"{len(found.refused)} target{'s' if len(found.refused) > 1 else ''} refused (above); "
              + ("the rest passed" if ok else "some checks failed"))
    elif nothing:
        print("nothing was checked (above: what it needs)")
    elif unselected:
        print("nothing was checked (--select matched no test)")
    else:
        print(all_passed if ok else "some checks failed")
    return code
