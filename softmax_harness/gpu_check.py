"""The GPU runner: the whole GPU suite, one child process per kernel, into ``reports/gpu.json``.

The correct variants' tests run in one pytest child (``--workers N`` spreads them over
pytest-xdist processes); each hunt of the known-bad gallery runs in a child of its own.
A test that crashes its process or hangs (a per-test timeout ends the process) is
recorded as an error that names it, and the run resumes without the tests already done.
The report records the sha256 of every file under ``kernels/``, the device and
its software versions, the time, and every test's outcome and duration.

    python -m softmax_harness.gpu_check [--profile dev] [--out reports/gpu.json]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import gpu
from .properties import merge_tally
from .pytest_plugin import journal_path, read_collected, read_journal
from .registry import KERNELS_DIR

ROOT = KERNELS_DIR.parent
REPORT = ROOT / "reports" / "gpu.json"
OUTCOMES = ("passed", "failed", "skipped", "error", "not run")


def kernel_digests(root: Path = KERNELS_DIR) -> dict[str, str]:
    """sha256 of every file under ``kernels/``, keyed by its path relative to the repository."""
    return {
        str(p.relative_to(root.parent)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*")) if p.is_file()
    }


def elsewhere_digests(names: list[str]) -> dict[str, str]:
    """sha256 of every file under each DIR of the ``NAME@DIR`` variants among ``names`` (staged
    files, say), keyed by path (relative to the repository where it is inside)."""
    from . import split_ref

    digests = {}
    dirs = {split_ref(n)[1] for n in names} - {None}
    for where in sorted(dirs):
        for p in sorted(where.resolve().rglob("*")):
            if p.is_file():
                key = p.relative_to(ROOT) if p.is_relative_to(ROOT) else p
                digests[str(key)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return digests


def _driver_version() -> str:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        return out.stdout.strip().splitlines()[0]
    except Exception as exc:  # no nvidia-smi: say so rather than guess
        return f"unknown ({exc.__class__.__name__})"


def run_pytest(label: str, args: list[str], timeout: float, log,
               deadline: float | None = None) -> tuple[list[dict], dict, str, list[str]]:
    """Run pytest in a child; return its test records, tally, output, and the node ids that
    ended or were running if the child was killed or crashed (empty when it finished).
    A child still running at ``deadline`` (a ``time.time()``) is stopped; the tests it was
    running then are recorded as "not run" and are not in the returned node ids."""
    cut = deadline is not None and deadline - time.time() < timeout
    if cut:
        timeout = max(1.0, deadline - time.time())
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results.json"
        cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfE", "--durations=15",
               f"--results-json={results}", *args]
        started = time.time()
        try:
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
            output, code = proc.stdout + proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as exc:
            output = (exc.stdout or b"").decode(errors="replace") if isinstance(exc.stdout, bytes) \
                else (exc.stdout or "")
            code = None
        shown = [a for a in args if not a.startswith("--deselect=")]
        log.write(f"===== {label}: {' '.join(shown)}\n{output}\n")
        log.flush()
        elapsed = time.time() - started
        if results.is_file() and code is not None:
            data = json.loads(results.read_text())
            tests = [t for t in data["tests"] if "empty parameter set" not in t.get("reason", "")]
            if code not in (0, 1, 5):  # pytest itself broke (internal error, usage error)
                tests.append({"nodeid": f"{label}::pytest", "outcome": "error", "duration": elapsed,
                              "message": f"pytest exited with code {code}:\n{output[-3000:]}"})
            return tests, data.get("tally", {}), output, []
        why = f"timed out after {timeout:.0f} s" if code is None else f"exited with code {code}"
        ended, running = read_journal(journal_path(results))
        if cut and code is None:  # the run's deadline, not a hang: the rest did not run
            finished = {t["nodeid"] for t in ended}
            rest = [n for n in read_collected(journal_path(results)) if n not in finished] or running
            log.write(f"===== {label}: stopped at the deadline; {len(rest)} tests not run\n")
            return ended + [{"nodeid": n, "outcome": "not run", "duration": 0.0,
                             "message": "stopped at the run's --deadline"} for n in rest], {}, \
                output, []
        lost = [{"nodeid": nodeid, "outcome": "error", "duration": elapsed,
                 "message": f"the test process {why} while this test was running (a crash or a "
                            f"hung kernel):\n{output[-3000:]}"} for nodeid in running]
        if not ended and not lost:
            lost = [{"nodeid": f"{label}::run", "outcome": "error", "duration": elapsed,
                     "message": f"the test process {why} before any test ran:\n{output[-3000:]}"}]
        return ended + lost, {}, output, [t["nodeid"] for t in ended + lost]


def run_resuming(label: str, args: list[str], timeout: float, log, attempts: int = 5,
                 deadline: float | None = None):
    """:func:`run_pytest`, resumed without the tests already done whenever the child is killed or
    crashes (the test that was running is recorded as an error), at most ``attempts`` times,
    and not after ``deadline``."""
    tests, tally, _, done = run_pytest(label, args, timeout, log, deadline)
    for attempt in range(1, attempts + 1):
        if not done or any(t["nodeid"].endswith("::run") for t in tests) or \
                (deadline is not None and deadline - time.time() < 10):
            break
        print(f"gpu-check: {label}: the child stopped after {len(done)} tests; resuming without them",
              flush=True)
        more, more_tally, _, newly = run_pytest(f"{label} (resumed {attempt})",
                                                [*args, *(f"--deselect={n}" for n in done)], timeout, log,
                                                deadline)
        tests += more
        merge_tally(tally, more_tally)
        done = [*done, *newly] if newly else []
    return tests, tally


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="gpu-check", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPORT)
    parser.add_argument("--log", type=Path, default=None, help="full pytest output (default: beside --out)")
    parser.add_argument("--profile", default="dev", help="Hypothesis profile: ci, dev or thorough")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per child process")
    parser.add_argument("--test-timeout", type=float, default=300, help="seconds per test (pytest-timeout)")
    parser.add_argument("--workers", type=int, default=0,
                        help="pytest-xdist processes for the variants' tests (default 0: one process)")
    parser.add_argument("--variant", action="append", default=[],
                        help="only these variants (NAME@DIR: the one declared under DIR, a staged file, say; "
                             "the report records the hashes of DIR's files beside those of kernels/)")
    parser.add_argument("--shard", default=None, metavar="K/N",
                        help="only the K-th of N shares of the variants (the gallery goes with 1/N): "
                             "for device calls with a time limit; join the reports with --merge")
    parser.add_argument("--merge", nargs="+", type=Path, default=None, metavar="REPORT",
                        help="join shard reports of one tree into --out (no GPU needed)")
    parser.add_argument("--deadline", type=float, default=None, metavar="SECONDS",
                        help="stop the tests still to run after this many seconds and write the report "
                             "(they are recorded as 'not run'; finish them with --rest-of)")
    parser.add_argument("--rest-of", type=Path, default=None, metavar="REPORT",
                        help="run only the tests that REPORT records as 'not run' (no gallery, no "
                             "sanitizer); join the two reports with --merge")
    parser.add_argument("--no-tests", action="store_true", help="skip the test suite")
    parser.add_argument("--bench", action="store_true",
                        help="run the benchmark sweep, save it under .benchmarks/ and write reports/bench.*")
    parser.add_argument("--compare-fail", default=None, metavar="EXPR",
                        help="with --bench: fail on a regression against the last saved run, e.g. "
                             "median:20%% (pick a threshold above the noise of two runs of one version)")
    parser.add_argument("--sanitize", action="store_true",
                        help="also run compute-sanitizer (memcheck, racecheck, initcheck, synccheck)")
    args = parser.parse_args(argv)

    if args.merge:
        report = merge_reports([json.loads(path.read_text()) for path in args.merge])
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
        print(f"gpu-check: merged {len(args.merge)} reports: {report['summary']} -> {args.out}")
        return 0 if _clean(report["summary"]) else 1
    if not gpu.available():
        print("gpu-check: no CUDA device visible (CuPy sees none); nothing was run.", file=sys.stderr)
        return 2
    import softmax_harness

    started = time.time()
    deadline = started + args.deadline if args.deadline else None
    chosen = lambda vs: [v.name for v in vs if not args.variant or v.name in args.variant]  # noqa: E731
    names = chosen(softmax_harness.variants()) + [n for n in args.variant if "@" in n]  # NAME@DIR: staged
    bad = chosen(softmax_harness.known_bad())
    if args.shard:
        k, n = (int(part) for part in args.shard.split("/"))
        names, bad = names[k - 1::n], bad if k == 1 else []
    common = ["-m", "gpu", f"--hypothesis-profile={args.profile}"]
    log_path = args.log or args.out.with_suffix(".log")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    tests, tally = [], {}
    if importlib.util.find_spec("pytest_timeout"):
        # A hung kernel blocks inside CUDA, where no signal reaches Python: the thread method
        # ends the process (under pytest-xdist, the worker), and the run resumes without it.
        common += [f"--timeout={args.test_timeout:g}", "--timeout-method=thread"]
    with open(log_path, "w") as log:
        bench = _bench(args, log) if args.bench else {}
        if args.no_tests:
            sanitizer = _sanitize(names, log, racy=bool(bad)) if args.sanitize else {}
            ok = all(r["ok"] for r in sanitizer.values()) and not bench.get("failures")
            return 0 if ok else 1
        # The gallery (each hunt in a child of its own) with the remaining GPU tests in one child,
        # the sanitizer, then all correct variants in one child (the long part, which --deadline
        # may cut short).
        rest = []
        if args.rest_of:
            rest = [t["nodeid"] for t in json.loads(args.rest_of.read_text())["tests"]
                    if t["outcome"] == "not run"]
            names, bad = [], []
        if bad or not (args.shard or args.rest_of):
            tests += _batch("gallery", ["tests", *common, *(f"--variant={n}" for n in bad + ["__none__"])],
                            args, log, tally, deadline)
        sanitizer = _sanitize(names, log, racy=bool(bad)) if args.sanitize and names else {}
        spread = ["-n", str(args.workers)] if args.workers and importlib.util.find_spec("xdist") else []
        chosen_tests = [*common, *spread, *rest] if rest else \
            ["tests", *common, *spread, *(f"--variant={n}" for n in names)]
        if names or rest:
            tests += _batch("variants", chosen_tests, args, log, tally, deadline)

    tests += _sanitizer_tests(sanitizer)

    gallery = {}
    for name in bad:
        mine = [t for t in tests if f"[{name}]" in t["nodeid"] and "catches_the_defect" in t["nodeid"]]
        gallery[name] = bool(mine) and all(t["outcome"] == "passed" for t in mine)
    summary = _summary(tests)
    report = {
        "generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(time.time() - started, 1),
        "hypothesis_profile": args.profile,
        "environment": {**gpu.describe(), "driver": _driver_version(), "python": sys.version.split()[0]},
        "kernels_sha256": kernel_digests(),
        **({"elsewhere_sha256": elsewhere_digests(names)} if any("@" in n for n in names) else {}),
        "summary": summary,
        "bench": bench,
        "gallery": {"caught": gallery, "catch_rate": f"{sum(gallery.values())}/{len(gallery)}"},
        "sanitizer": {k: {kk: vv for kk, vv in v.items() if kk != "output"} for k, v in sanitizer.items()},
        "tally": tally,
        "tests": sorted(tests, key=lambda t: t["nodeid"]),
        **({"shard": args.shard} if args.shard else {}),
        **({"rest_of": args.rest_of.name} if args.rest_of else {}),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    print(f"gpu-check: {summary} in {report['seconds']} s -> {args.out} (log: {log_path})")
    return 0 if _clean(summary) and not bench.get("failures") else 1


def _batch(label: str, pytest_args: list[str], args, log, tally: dict, deadline) -> list[dict]:
    print(f"gpu-check: {label} ...", flush=True)
    got, t = run_resuming(label, pytest_args, args.timeout, log, deadline=deadline)
    merge_tally(tally, t)
    print(f"gpu-check: {label}: " + ", ".join(
        f"{sum(r['outcome'] == o for r in got)} {o}" for o in OUTCOMES), flush=True)
    return got


def _clean(summary: dict) -> bool:
    """Nothing failed, errored or was left unrun."""
    return summary["failed"] == summary["error"] == summary["not run"] == 0


def _summary(tests: list[dict]) -> dict:
    return {o: sum(t["outcome"] == o for t in tests) for o in OUTCOMES}


def _sanitizer_tests(sanitizer: dict) -> list[dict]:
    """One test record per sanitizer result."""
    return [{"nodeid": f"sanitizer::{r['name']}", "duration": r["seconds"],
             "outcome": "passed" if r["ok"] else "failed",
             **({} if r["ok"] else {"message": r.get("output", "")[-3000:]})} for r in sanitizer.values()]


def merge_reports(reports: list[dict]) -> dict:
    """One report from the shard reports of one tree (same kernels, device and profile)."""
    first = reports[0]
    for key in ("kernels_sha256", "hypothesis_profile"):
        if any(r[key] != first[key] for r in reports):
            raise ValueError(f"the reports disagree on {key}: they were not made from one tree and setting")
    if any(r["environment"].get("device") != first["environment"].get("device") for r in reports):
        raise ValueError("the reports were made on different devices")
    sanitizer: dict[str, dict] = {}
    for r in reports:
        for key, result in r["sanitizer"].items():
            if key not in sanitizer:
                sanitizer[key] = dict(result)
                continue
            mine = sanitizer[key]
            mine["variants"] = mine["variants"] + result["variants"]
            mine["errors"] = None if None in (mine["errors"], result["errors"]) else \
                mine["errors"] + result["errors"]
            mine["ok"] = mine["ok"] and result["ok"]
            mine["seconds"] = round(mine["seconds"] + result["seconds"], 1)
            mine["probed"] = mine.get("probed", 0) + result.get("probed", 0)
    ran = [t for r in reports for t in r["tests"] if not t["nodeid"].startswith("sanitizer::")]
    seen: set[str] = set()
    for t in ran:
        if t["outcome"] == "not run":
            continue
        if t["nodeid"] in seen:
            raise ValueError(f"{t['nodeid']} is in more than one report")
        seen.add(t["nodeid"])
    # a test one report did not reach (--deadline) counts where another ran it (--rest-of)
    tests = [t for t in ran if t["outcome"] != "not run"]
    tests += {t["nodeid"]: t for t in ran if t["outcome"] == "not run" and t["nodeid"] not in seen}.values()
    tests += _sanitizer_tests(sanitizer)
    caught = {name: ok for r in reports for name, ok in r["gallery"]["caught"].items()}
    tally: dict = {}
    for r in reports:
        merge_tally(tally, r["tally"])
    return {
        "generated": max(r["generated"] for r in reports),
        "seconds": round(sum(r["seconds"] for r in reports), 1),
        "hypothesis_profile": first["hypothesis_profile"],
        "environment": first["environment"],
        "kernels_sha256": first["kernels_sha256"],
        "summary": _summary(tests),
        "bench": next((r["bench"] for r in reports if r["bench"]), {}),
        "gallery": {"caught": caught, "catch_rate": f"{sum(caught.values())}/{len(caught)}"},
        "sanitizer": sanitizer,
        "tally": tally,
        "tests": sorted(tests, key=lambda t: t["nodeid"]),
        "merged_from": sorted(r.get("shard") or (f"rest of {r['rest_of']}" if r.get("rest_of") else "all")
                              for r in reports),
    }


BENCH_STORAGE = ROOT / ".benchmarks"


def _bench(args, log) -> dict:
    """The sweep under pytest-benchmark, saved for `pytest-benchmark compare`, then the report."""
    from .report import newest_run

    commit = os.environ.get("SOFTMAX_HARNESS_COMMIT")  # the device copy of the tree has no .git
    save = f"--benchmark-save={commit[:12]}" if commit else "--benchmark-autosave"
    cmd = ["tests/test_bench.py", "-m", "bench", save,
           f"--benchmark-storage=file://{BENCH_STORAGE}", "--benchmark-columns=median,iqr,rounds",
           "--benchmark-sort=name"]
    previous = sorted(BENCH_STORAGE.rglob("*.json")) if BENCH_STORAGE.is_dir() else []
    if previous:
        cmd += ["--benchmark-compare"]
        if args.compare_fail:
            cmd += [f"--benchmark-compare-fail={args.compare_fail}"]
    print(f"gpu-check: benchmark sweep ({'compared with ' + previous[-1].name if previous else 'first run'})",
          flush=True)
    started = time.time()
    got, _, output, _ = run_pytest("bench", cmd, args.timeout, log)
    bad = [t["nodeid"] for t in got if t["outcome"] in ("failed", "error")]
    if "Performance has regressed" in output:
        bad.append(output[output.index("Performance has regressed"):][:3000])
    print(f"gpu-check: sweep: {len(got)} benchmarks in {time.time() - started:.0f} s"
          + (f", {len(bad)} failures: {bad[:3]}" if bad else ""), flush=True)
    run = newest_run(BENCH_STORAGE)
    subprocess.run([sys.executable, "-m", "softmax_harness", "report", str(run),
                    "--out", str(args.out.parent)], cwd=ROOT, check=False)
    return {"run": str(run.relative_to(ROOT)), "benchmarks": len(got), "failures": bad,
            "compared_with": previous[-1].name if previous else None}


def _sanitize(names: list[str], log, racy: bool = True) -> dict:
    """Every tool over every correct variant (zero reports required), and (``racy``) racecheck
    over the racy gallery kernel (which it must flag)."""
    from .sanitize import TOOLS, sanitize

    results = {}
    for tool in TOOLS:
        started = time.time()
        print(f"gpu-check: compute-sanitizer --tool={tool} over {len(names)} variants ...", flush=True)
        r = sanitize(tool, names)
        results[tool] = {**r, "name": tool, "seconds": round(time.time() - started, 1)}
        log.write(f"===== sanitizer {tool}\n{r['output']}\n")
    if racy:
        started = time.time()
        r = sanitize("racecheck", ["bad_smem_tree_racy"])
        flagged = bool(r["errors"])
        results["racecheck_flags_racy_kernel"] = {
            **r, "ok": flagged, "name": "racecheck_flags_bad_smem_tree_racy",
            "seconds": round(time.time() - started, 1)}
        log.write(f"===== sanitizer racecheck on bad_smem_tree_racy\n{r['output']}\n")
    for key, value in results.items():
        print(f"gpu-check: sanitizer {key}: errors={value['errors']} ok={value['ok']}", flush=True)
    return results


if __name__ == "__main__":
    sys.exit(main())
