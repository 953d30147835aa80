"""The benchmark sweep of a GPU run: ``tests/test_bench.py`` under pytest-benchmark, timed by
the GPU clock (:func:`softmax_harness.bench.gpu_clock`, through pytest-benchmark's public
``--benchmark-timer``), saved under ``.benchmarks/`` for ``pytest-benchmark compare``, then
the history pruned (:mod:`softmax_harness.history`) and the report written."""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

from .. import history
from ..bench import TIMER
from ..report import newest_run
from . import spread
from .children import run_pytest
from .schema import ROOT

BENCH_STORAGE = ROOT / ".benchmarks"


def sweep(timeout: float, log, compare_fail: str | None = None, out_dir=ROOT / "reports") -> dict:
    """Run the sweep; what the GPU report records of it."""
    commit = os.environ.get("SOFTMAX_HARNESS_COMMIT")  # the device copy of the tree has no .git
    save = f"--benchmark-save={commit[:12]}" if commit else "--benchmark-autosave"
    cmd = ["tests/test_bench.py", "-m", "bench", save, f"--benchmark-timer={TIMER}",
           f"--benchmark-storage=file://{BENCH_STORAGE}", "--benchmark-columns=median,iqr,rounds",
           "--benchmark-sort=name"]
    previous = sorted(BENCH_STORAGE.rglob("*.json")) if BENCH_STORAGE.is_dir() else []
    if previous:
        cmd += ["--benchmark-compare"]
        if compare_fail:
            cmd += [f"--benchmark-compare-fail={compare_fail}"]
    print(f"gpu-check: benchmark sweep ({'compared with ' + previous[-1].name if previous else 'first run'})",
          flush=True)
    started = time.time()
    got, _, output, _ = run_pytest("bench", cmd, timeout, log)
    bad = [t["nodeid"] for t in got if t["outcome"] in ("failed", "error")]
    if "Performance has regressed" in output:
        bad.append(output[output.index("Performance has regressed"):][:3000])
    print(f"gpu-check: sweep: {len(got)} benchmarks in {time.time() - started:.0f} s"
          + (f", {len(bad)} failures: {bad[:3]}" if bad else ""), flush=True)
    run = _report_and_prune(newest_run(BENCH_STORAGE), out_dir, BENCH_STORAGE)
    return {"run": str(run.relative_to(ROOT)), "benchmarks": len(got), "failures": bad,
            "compared_with": previous[-1].name if previous else None}


def _report_and_prune(run: Path, out_dir, storage: Path) -> Path:
    subprocess.run([sys.executable, "-m", "softmax_harness", "report", str(run), "--out", str(out_dir)],
                   cwd=ROOT, check=False)
    dropped = history.prune(storage, ROOT)
    if dropped:
        print(f"gpu-check: history: {len(dropped)} runs no longer cited removed ({history.RULE})", flush=True)
    return run


_BANDWIDTH = re.compile(r"\[(?:(float16|bfloat16)-)?C(\d+)-")
_SMALL = re.compile(r"\[(latency|host)-(\w+)-(\d+)x(\d+)-")


def input_key(nodeid: str) -> str:
    """The input a benchmark times (its type and shape): the benchmarks of one input go to one
    GPU, which makes it once."""
    small = _SMALL.search(nodeid)
    if small:
        return "{}-{}-{}x{}".format(*small.groups())
    wide = _BANDWIDTH.search(nodeid)
    if wide:
        return f"{wide.group(1) or 'float32'}-C{wide.group(2)}"
    return nodeid


def _collect() -> list[str]:
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--collect-only",
                          "tests/test_bench.py", "-m", "bench"], cwd=ROOT, capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if "::" in line]


def _machine_folder() -> str:
    """pytest-benchmark's folder for this machine's runs (system, interpreter, version, bits)."""
    version = ".".join(platform.python_version_tuple()[:2])
    return f"{platform.system()}-{platform.python_implementation()}-{version}-{platform.architecture()[0]}"


def sweep_spread(gpus: list[dict], log, out_dir=ROOT / "reports", storage: Path = BENCH_STORAGE) -> dict:
    """The sweep over ``gpus``: the benchmarks grouped by the input they time, the groups spread
    over the GPUs by count, each GPU's share in a child pinned to it (so the copy each kernel is
    judged against is timed beside it on the same GPU); the children's runs joined into one saved
    run, each benchmark naming the GPU that measured it (``extra_info["gpu"]``)."""
    ids = _collect()
    by_input: dict[str, list[str]] = {}
    for nodeid in ids:
        by_input.setdefault(input_key(nodeid), []).append(nodeid)
    counts = {key: float(len(found)) for key, found in by_input.items()}
    groups = spread.balance(list(by_input), counts, len(gpus))
    where = Path(storage) / "spread"
    where.mkdir(parents=True, exist_ok=True)
    children = []
    started = time.time()
    for k, (gpu, keys) in enumerate(zip(gpus, groups, strict=True), start=1):
        share = [nodeid for key in keys for nodeid in by_input[key]]
        out = where / f"bench_{k}.json"
        out.unlink(missing_ok=True)
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-m", "bench",
                   f"--benchmark-timer={TIMER}", f"--benchmark-json={out}",
                   "--benchmark-columns=median,rounds", *share]
        env = {**os.environ, "CUDA_VISIBLE_DEVICES": gpu["uuid"]}
        print(f"gpu-check: sweep share {k}/{len(gpus)} on GPU {gpu['index']}: {len(share)} benchmarks",
              flush=True)
        children.append((gpu, share, out, spread.start_child(command, env, out.with_suffix(".out"))))
    joined: dict = {}
    failures, shares = [], []
    for gpu, share, out, child in children:
        code = child.wait()
        log.write(f"===== sweep share on {gpu['uuid']}\n")
        if out.with_suffix(".out").is_file():
            log.write(out.with_suffix(".out").read_text())
        if not out.is_file():
            failures.append(f"the sweep share on GPU {gpu['index']} ({gpu['uuid']}) exited with {code} "
                            "and saved no run")
            continue
        data = json.loads(out.read_text())
        for bench in data["benchmarks"]:
            bench.setdefault("extra_info", {})["gpu"] = {key: gpu[key] for key in ("index", "uuid", "name")}
        if not joined:
            joined = {**data, "benchmarks": []}
        joined["benchmarks"] += data["benchmarks"]
        shares.append({**gpu, "benchmarks": len(data["benchmarks"]), "asked": len(share), "exit": code})
    if not joined:
        return {"run": None, "benchmarks": 0, "failures": failures, "gpus": shares}
    commit = os.environ.get("SOFTMAX_HARNESS_COMMIT")
    folder = Path(storage) / _machine_folder()
    folder.mkdir(parents=True, exist_ok=True)
    numbers = [int(p.name[:4]) for p in folder.glob("[0-9][0-9][0-9][0-9]_*.json")]
    run = folder / f"{max(numbers, default=0) + 1:04d}_{commit[:12] if commit else 'spread'}.json"
    run.write_text(json.dumps(joined, indent=1) + "\n")
    print(f"gpu-check: sweep: {len(joined['benchmarks'])} benchmarks over {len(gpus)} GPUs in "
          f"{time.time() - started:.0f} s -> {run.name}", flush=True)
    _report_and_prune(run, out_dir, Path(storage))
    return {"run": str(run), "benchmarks": len(joined["benchmarks"]), "failures": failures, "gpus": shares,
            "compared_with": None}
