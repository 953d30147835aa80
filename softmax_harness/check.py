"""``softmax-harness check TARGET...``: the battery on kernels and callables from anywhere, and a
verdict table.

A target is a ``.cu`` file (its declared variants), a folder of them, or ``module:function``
(a Python callable, imported from the current folder); none means the bundled kernels. On a
GPU every subject gets the whole battery (:mod:`softmax_harness.battery`, in a child pytest
process that a crash or a hang cannot take down) and, with ``--sanitize``, compute-sanitizer's
four tools. Without one, the ``.cu`` subjects are compiled offline for sm_80 and sm_90
(registers and spills shown), CPU callables get the battery, and one line names what needed a
GPU. Everything a run writes (the pytest record and log, the inputs that repro lines name) goes
into one run folder, printed at the end; the exit status is 0 only when everything that ran passed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import callables, catalog, gpu, ops, signature
from .registry import KERNELS_DIR, HeaderError, NoHeaderError, parse_file


class TargetError(ValueError):
    """A target that cannot be checked; the message says why in one line."""


@dataclass
class Targets:
    """What the command line named: subjects by reference, the kernel files behind them."""

    kernels: list[str] = field(default_factory=list)  # NAME@DIR
    callables: list[str] = field(default_factory=list)  # module:function
    files: list[Path] = field(default_factory=list)  # the .cu files of the kernels
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)  # reference -> the subject's name (its tally key)
    ops: dict[str, str] = field(default_factory=dict)  # reference -> the op it computes
    strided: set[str] = field(default_factory=set)  # the subjects given rows of a stride (strided_rows)
    refused: list[str] = field(default_factory=list)  # a line for each target that names no subject


def _here(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path.resolve())


def resolve(targets: list[str], timeout: float = 300) -> Targets:
    """The subjects ``targets`` name; a target that names none is refused with a line that says why
    (``Targets.refused``), and the others are still taken. A callable is loaded (and probed) in a
    child process (:func:`_callable`), ``timeout`` seconds at most."""
    found = Targets()
    for given in targets or [str(KERNELS_DIR)]:
        if callables.is_callable_ref(given) and not Path(given).exists():
            for record in _callable(given, timeout):  # one for each element type
                if "error" in record:
                    found.refused.append(record["error"])
                    continue
                ref = record["ref"]
                found.names[ref], found.ops[ref] = record["name"], record["op"]
                if record["strided"]:
                    found.strided.add(ref)
                found.callables.append(ref)
            continue
        try:
            _resolve_file(given, found)
        except TargetError as exc:
            found.refused.append(str(exc))
    # a subject named twice (a file and its folder, a callable given again) is checked once
    found.kernels, found.callables = list(dict.fromkeys(found.kernels)), list(dict.fromkeys(found.callables))
    found.files = list(dict.fromkeys(found.files))
    return found


def _callable(given: str, timeout: float) -> list[dict]:
    """:func:`callables.describe` of ``given``, in a child process: importing a user's module and
    calling it once (to find its arrays) may crash or hang, which refuses that target alone.
    Where it does, its import and then each element type apart tell which."""
    from .run.isolation import IsolatedFailure, run_isolated

    probed = "(imported, and called on a 2 x 8 input where it does not declare its arrays)"
    try:
        return run_isolated(callables.describe, given, timeout=timeout, what=f"subject {given!r} {probed}")
    except IsolatedFailure as exc:
        first = exc
    try:
        refs = run_isolated(callables.expand, given, timeout=timeout,
                            what=f"subject {given!r} (its module imported)")
    except IsolatedFailure as exc:
        return [{"ref": given, "error": str(exc)}]
    if refs == [given]:
        return [{"ref": given, "error": str(first)}]
    found = []
    for ref in refs:
        try:
            found += run_isolated(callables.describe, ref, timeout=timeout, what=f"subject {ref!r} {probed}")
        except IsolatedFailure as exc:
            found.append({"ref": ref, "error": str(exc)})
    return found


def _resolve_file(target: str, found: Targets) -> None:
    """Add the kernels that ``target`` (a ``.cu`` file or a folder) declares to ``found``, or raise
    TargetError before adding anything."""
    path = Path(target)
    if path.is_file() and path.suffix == ".cu":
        try:
            specs = parse_file(path)
        except NoHeaderError:
            raise TargetError(f"{target}: no '// @variant ...' header declares a kernel in it") from None
        except HeaderError as exc:
            raise TargetError(str(exc)) from None
        for spec in specs:
            ref = f"{spec.name}@{_here(path.parent)}"
            found.kernels.append(ref)
            found.names[ref], found.ops[ref] = spec.name, spec.op
        found.files.append(path.resolve())
    elif path.is_dir():
        try:
            variants = catalog.variants(path)
        except (HeaderError, catalog.UnknownVariantError) as exc:
            raise TargetError(str(exc)) from None
        for v in variants:
            found.kernels.append(f"{v.name}@{_here(path)}")
            found.names[found.kernels[-1]], found.ops[found.kernels[-1]] = v.name, v.spec.op
        found.files += sorted({v.spec.path for v in variants})
        found.skipped += catalog.skipped(path)
    else:
        raise TargetError(f"unknown target {target!r}: not a .cu file, a folder or module:function")


def compile_offline(files: list[Path]) -> tuple[list[str], bool, set[tuple[Path, str]]]:
    """Lines of registers and spills for each kernel of ``files`` on sm_80 and sm_90, and of each
    variant whose kernel takes other parameters than its header passes; whether all compiled
    without spills and agree; the (file, name) of each variant that does not agree, which no
    launch may take (the driver would read past what it is given)."""
    from .compiler import KernelCompileError, resources
    from .compiler import compile_offline as nvrtc

    lines, ok, unfit = [], True, set()
    for path in files:
        for arch in ("sm_80", "sm_90"):
            try:
                result = nvrtc(path, arch, ["-Xptxas=-v"])
            except KernelCompileError as exc:
                log = str(exc).replace(str(path), _here(path)).splitlines()
                first = next((line for line in log if ": error" in line), log[-1])  # the last: a count
                lines.append(f"  {_here(path)} {arch}: does not compile: {first[:200]}")
                ok = False
                continue
            for kernel, (registers, spills) in resources(result["log"]).items():
                lines.append(f"  {_here(path)} {arch} {kernel}: {registers} registers, "
                             f"{spills} bytes spilled")
                ok &= spills == 0
            if arch == "sm_90":  # the parameters are the source's, whatever the architecture
                for spec in parse_file(path):
                    why = signature.mismatch(spec, result["cubin"])
                    if why:
                        lines.append(f"  {_here(path)} {spec.name}: {why}")
                        unfit.add((path.resolve(), spec.name))
                        ok = False
    return lines, ok, unfit


def _declared_in(ref: str) -> tuple[Path, str]:
    """(the file, the name) of the variant ``ref`` (NAME@DIR) names."""
    spec = catalog.variant(ref).spec
    return spec.path.resolve(), spec.name


SHORT = {"matches_reference": "matches", "sums_to_one": "sums",
         "nonfinite_contract": "nonfinite", "all_written": "written",
         "no_write_outside": "outside", "input_unchanged": "input", "deterministic": "determ",
         "rows_independent": "rows", "launch": "launch", "sums_to_zero": "sum0",
         "linear_in_dy": "linear", "nonpositive": "le0", "logsumexp_zero": "lse0",
         "ignores_masked": "unread", "strided_rows": "stride"}
assert set(SHORT) == {*ops.ALL_PROPERTIES, "launch"}


def verdicts(tests: list[dict], tally: dict, targets: Targets) -> tuple[list[str], list[str], bool,
                                                                       list[dict]]:
    """The verdict table (subject x property), the failure messages, whether all passed, and the
    table's rows as records (``verdicts.json``: each subject's op, its verdict on each property
    that judges it, its tests, largest error and time)."""
    present = {ops.of(targets.ops.get(ref, "softmax")).name for ref in [*targets.kernels, *targets.callables]}
    columns = [p for p in ops.ALL_PROPERTIES if any(p in ops.of(name).properties for name in present)
               and (p != "strided_rows" or targets.strided)]
    columns.append("launch")
    head = f"{'subject':32s} " + " ".join(f"{SHORT[p]:>9s}" for p in columns) + \
        f" {'tests':>6s} {'ulps':>8s} {'/bound':>7s} {'seconds':>8s}"
    table, messages, ok, records = [head], [], True, []
    for ref in [*targets.kernels, *targets.callables]:
        mine = [t for t in tests if t.get("subject") == ref]
        failed = {p for t in mine for p in t.get("properties", [])}
        broken = [t for t in mine if t["outcome"] in ("failed", "error") and not t.get("properties")]
        if broken:
            failed.add("launch")  # a crash, a hang, or an error outside the properties
        ran = [t for t in mine if t["outcome"] in ("passed", "failed", "error")]
        cells = []
        own = set(ops.of(targets.ops.get(ref, "softmax")).properties) - {"strided_rows"} | {"launch"}
        if ref in targets.strided:
            own.add("strided_rows")
        for p in columns:
            cells.append("-" if not ran or p not in own else ("FAIL" if p in failed else "pass"))
        t = tally.get(targets.names.get(ref, ref), {})
        seconds = sum(x["duration"] for x in mine)
        table.append(f"{ref[:32]:32s} " + " ".join(f"{c:>9s}" for c in cells) +
                     f" {len(ran):6d} {t.get('max_ulps', 0):8.3g} {t.get('max_bound_ratio', 0):7.3g} "
                     f"{seconds:8.1f}")
        records.append({"subject": ref, "op": targets.ops.get(ref, "softmax"),
                        "properties": {p: c for p, c in zip(columns, cells, strict=True) if c != "-"},
                        "tests": len(ran), "max_ulps": t.get("max_ulps", 0.0),
                        "max_bound_ratio": t.get("max_bound_ratio", 0.0), "seconds": round(seconds, 3)})
        ok &= not failed and not any(x["outcome"] in ("failed", "error") for x in mine)
        shown = set()
        for x in mine:
            for p in x.get("properties", []):
                if p not in shown:
                    shown.add(p)
                    messages.append(_failure_text(x.get("message", ""), p) or x["nodeid"])
        for x in broken[:1]:
            text = x.get("message", "")
            messages.append(f"{ref}, {x['nodeid'].rpartition('::')[2]}: "
                            f"{text[:2000] if x.get('lost') else text[-1500:]}")
        for x in [x for x in mine if x.get("context_lost")][:1]:
            messages.append(f"{ref}: {x['nodeid'].rpartition('::')[2]} lost the CUDA context "
                            f"({x['context_lost']}); its later tests did not run")
        unrun = [x for x in mine if x["outcome"] == "not run"]
        if unrun:  # a verdict on part of the battery is no verdict
            ok = False
            messages.append(f"{ref}: {len(unrun)} of its tests not run ({unrun[0].get('message', '')})")
    for x in tests:  # the child itself broke (pytest's internal error), in no subject's test
        if not x.get("subject") and x["outcome"] in ("failed", "error"):
            ok = False
            messages.append(f"{x['nodeid']}: {x.get('message', '')[-1500:]}")
    return table, messages, ok, records


def _failure_text(message: str, prop: str) -> str:
    """The block of ``message`` that reports ``prop``: what failed where, and its repro line."""
    lines = [re.sub(r"^E\s+", "", line) for line in message.splitlines()]
    start = next((i for i, line in enumerate(lines) if f"{prop} failed for" in line), None)
    if start is None:
        return ""
    lines[start] = lines[start][lines[start].index(f"{prop} failed for"):]
    end = next((i for i in range(start, len(lines)) if "reproduce:" in lines[i]), len(lines) - 1)
    return "\n".join(lines[start:end + 1])


def run_battery(subjects: list[str], args: list[str], deadline: float, log) -> tuple[list[dict], dict]:
    """The battery's tests on ``subjects`` in a child pytest (``args``), and its tally. A subject
    whose test crashes the child, hangs it or loses its CUDA context fails that test, and the
    child starts again without that subject and without the tests already done: one subject
    never stops the others'. A child that dies outside any test, over several subjects, is
    started again over each alone. What the ``deadline`` stops is "not run"."""
    from .properties import merge_tally
    from .run.carry import runs_on
    from .run.children import run_pytest

    tests, tally, done, left, alone = [], {}, [], list(subjects), False
    while left and time.time() < deadline - 1:
        group = left[:1] if alone else left
        more, more_tally, _, ended = run_pytest(
            "battery", [*args, *(f"--subject={ref}" for ref in group), *(f"--deselect={n}" for n in done)],
            deadline - time.time(), log, deadline, cwd=Path.cwd())
        merge_tally(tally, more_tally)
        if not ended:  # the child finished (or the deadline stopped it)
            tests += more
            left = [ref for ref in left if ref not in group]
            continue
        culprits = set()
        for record in more:
            ref = record.get("subject") or next((r for r in group if runs_on(record["nodeid"], {r})), None)
            if ref is not None:
                record["subject"] = ref
                if record.get("lost") or record.get("context_lost"):
                    culprits.add(ref)
        if not culprits and len(group) > 1:  # it died outside any test: one subject at a time
            more = [record for record in more if "subject" in record]
            alone = True
        elif not culprits:
            for record in more:
                record["subject"] = group[0]
            culprits.add(group[0])
        print(f"check: the battery's process ended early ({', '.join(sorted(culprits)) or 'in no test'}); "
              "the others go on in a fresh one", flush=True)
        tests += more
        done += [record["nodeid"] for record in more]
        left = [ref for ref in left if ref not in culprits]
    tests += [{"nodeid": f"battery::{ref}", "subject": ref, "outcome": "not run", "duration": 0.0,
               "message": "the check's --timeout ran out before its tests"} for ref in left]
    return tests, tally


def run(targets: list[str], *, sanitize: bool = False, profile: str = "dev", out: Path | None = None,
        timeout: float = 1800, test_timeout: float = 300, select: str | None = None) -> int:
    """The command; its exit status."""
    sys.path.insert(0, os.getcwd())  # module:function targets import from here, as under pytest
    found = resolve(targets, timeout=test_timeout)
    for message in found.refused:
        print(f"softmax-harness check: {message}", file=sys.stderr)
    if found.refused and not (found.callables or found.kernels):
        return 2
    folder = (out or Path("softmax-harness-runs") / time.strftime("%Y%m%d-%H%M%S")).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    summary = {"refused": found.refused, "skipped": [f"{_here(path)}: {why}" for path, why in found.skipped],
               "not_run": {}}  # verdicts.json: what a CI of the user's reads
    for line in summary["skipped"]:
        print(f"skipped: {line}")
    on_gpu = gpu.available()
    ok = True
    if found.files:
        try:
            lines, compiled, unfit = compile_offline(found.files)
            print("offline compile (NVRTC, CuPy's options):", *lines, sep="\n")
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
    tests, tally = [], {}
    if subjects:
        (folder / "pytest.ini").write_text("[pytest]\n")  # the user's own pytest settings stay out
        here = Path(callables.__file__).with_name("battery.py")
        args = [str(here), "-c", str(folder / "pytest.ini"), f"--rootdir={folder}",
                "-p", "softmax_harness.pytest_plugin", f"--hypothesis-profile={profile}",
                f"--repro-dir={folder / 'repro'}", f"--hang-timeout={test_timeout:g}",
                "--exit-on-lost-context", *(["-k", select] if select else [])]
        print(f"battery: {len(subjects)} subjects, Hypothesis profile {profile} ...", flush=True)
        with open(folder / "pytest.log", "w") as log:
            tests, tally = run_battery(subjects, args, time.time() + timeout, log)
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
    code = 2 if found.refused or nothing else 0 if ok else 1
    summary.update(ok=ok and code == 0, exit=code, profile=profile, subjects=records, failures=messages)
    (folder / "verdicts.json").write_text(json.dumps(summary, indent=1) + "\n")
    passed = "all checks that ran passed (the rest: not run, above)" if summary["not_run"] else \
        "all checks passed"
    if found.refused:
        print(f"{len(found.refused)} target{'s' if len(found.refused) > 1 else ''} refused (above); "
              + ("the rest passed" if ok else "some checks failed"))
    elif nothing:
        print("nothing was checked (above: what it needs)")
    else:
        print(passed if ok else "some checks failed")
    return code
