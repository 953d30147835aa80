"""The benchmark sweep of a GPU run: ``tests/test_bench.py`` under pytest-benchmark, timed by
the GPU clock (:func:`softmax_harness.bench.gpu_clock`, through pytest-benchmark's public
``--benchmark-timer``), saved under ``.benchmarks/`` for ``pytest-benchmark compare``, then
the history pruned (:mod:`softmax_harness.history`) and the report written."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from .. import history
from ..bench import TIMER
from ..report import newest_run
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
    run = newest_run(BENCH_STORAGE)
    subprocess.run([sys.executable, "-m", "softmax_harness", "report", str(run), "--out", str(out_dir)],
                   cwd=ROOT, check=False)
    dropped = history.prune(BENCH_STORAGE, ROOT)
    if dropped:
        print(f"gpu-check: history: {len(dropped)} runs no longer cited removed ({history.RULE})", flush=True)
    return {"run": str(run.relative_to(ROOT)), "benchmarks": len(got), "failures": bad,
            "compared_with": previous[-1].name if previous else None}
