"""The suite over every GPU of a host: the variants in groups of near-equal test time (as an
earlier report recorded it), one child run a group, pinned to its own GPU with
``CUDA_VISIBLE_DEVICES`` and with its own workers and sanitizer runs; the gallery and the tests
that take no variant go with the first group. A child that crashes or hangs is recorded as an
error of its group and the others run on; their reports are merged into one, which names every
device and the variants it ran."""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from . import schema
from .orchestrate import Plan, select

_FIELDS = ("index", "uuid", "name", "driver")


def visible_gpus(env=None) -> list[dict]:
    """Index, UUID, name and driver of each GPU this process may use: ``nvidia-smi``'s list, in
    ``CUDA_VISIBLE_DEVICES``'s order where it is set (indices or UUIDs, up to the first that
    names none, as CUDA reads it). Empty where ``nvidia-smi`` is missing."""
    env = os.environ if env is None else env
    try:
        query = ["nvidia-smi", "--query-gpu=index,uuid,name,driver_version", "--format=csv,noheader"]
        out = subprocess.run(query, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return []
    gpus = [dict(zip(_FIELDS, (f.strip() for f in line.split(",")), strict=True))
            for line in out.stdout.splitlines() if line.count(",") == 3]
    wanted = env.get("CUDA_VISIBLE_DEVICES")
    if wanted is None:
        return gpus
    kept = []
    for item in (w.strip() for w in wanted.split(",")):
        match = [g for g in gpus if item and (g["index"] == item or g["uuid"].startswith(item))]
        if not match:
            break
        kept.append(match[0])
    return kept


def _variant_of(nodeid: str, known: set[str]) -> str | None:
    """The variant a test's id names (its parameters are joined by '-'), or None."""
    params = nodeid.partition("[")[2].rstrip("]")
    return next((token for token in params.split("-") if token in known), None)


def recorded_seconds(report: dict, names: list[str],
                     bad: list[str] | None = None) -> tuple[dict[str, float], float]:
    """Each variant's test seconds in an earlier ``report``, and the seconds of what the first group
    carries besides: the tests that name none of ``names`` (the gallery and the tests that take no
    variant) in a run of every variant, or, given ``bad`` (a run of named variants, which runs no
    other test), the hunts of those known-bad kernels alone; sanitizer runs left out."""
    known, hunted = set(names), None if bad is None else set(bad)
    seconds = dict.fromkeys(names, 0.0)
    other = 0.0
    for t in report.get("tests", ()):
        if t["nodeid"].startswith("sanitizer::"):
            continue
        variant = _variant_of(t["nodeid"], known)
        if variant is not None:
            seconds[variant] += t.get("duration") or 0.0
        elif hunted is None or _variant_of(t["nodeid"], hunted) is not None:
            other += t.get("duration") or 0.0
    return seconds, other


def balance(names: list[str], seconds: dict[str, float], n: int, first_load: float = 0.0) -> list[list[str]]:
    """``names`` in ``n`` groups of near-equal total seconds: the longest first, each to the group
    with the least so far (a variant the report has not timed counts as the median one);
    ``first_load``, what the first group carries besides (the gallery)."""
    timed = [s for s in seconds.values() if s > 0]
    typical = statistics.median(timed) if timed else 1.0
    cost = {v: seconds.get(v) or typical for v in names}
    loads = [first_load] + [0.0] * (n - 1)
    groups: list[list[str]] = [[] for _ in range(n)]
    for v in sorted(names, key=lambda v: (-cost[v], v)):
        k = min(range(n), key=lambda i: (loads[i], i))
        groups[k].append(v)
        loads[k] += cost[v]
    return groups


def child_command(plan: Plan, refs: list[str], k: int, n: int, out: Path) -> list[str]:
    """The runner's command line for group ``k`` of ``n``: these variants, this plan's settings."""
    command = [sys.executable, "-m", "softmax_harness.run", "--group", f"{k}/{n}", "--out", str(out),
               "--log", str(out.with_suffix(".log")), "--profile", plan.profile,
               "--timeout", f"{plan.timeout:g}", "--test-timeout", f"{plan.test_timeout:g}",
               "--workers", str(plan.workers), "--one-gpu"]
    if plan.sanitize:
        command.append("--sanitize")
    if plan.deadline:
        command += ["--deadline", f"{plan.deadline:g}"]
    if plan.variants:
        command.append("--named")
    return command + [f"--variant={ref}" for ref in refs]


def start_child(command: list[str], env: dict, output: Path) -> subprocess.Popen:
    """A child in the repository's root, its output into ``output``."""
    with open(output, "w") as sink:
        return subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT, cwd=schema.ROOT)


def _crashed(gpu: dict, k: int, n: int, plan: Plan, why: str) -> dict:
    """The report of a group whose child wrote none: one error naming the GPU and why."""
    test = {"nodeid": f"gpu::{gpu['uuid']}", "outcome": "error", "duration": 0.0, "longrepr": why}
    return schema.build(tests=[test], sanitizer={}, caught={}, tally={}, environment={"device": gpu["name"]},
                        kernels_sha256=schema.kernel_digests(), profile=plan.profile, seconds=0.0,
                        shard=f"{k}/{n}")


def run_spread(plan: Plan, gpus: list[dict], log, earlier: Path | None = None,
               bench: dict | None = None) -> dict:
    """The suite as ``plan`` says, a group of variants on each of ``gpus`` at once; the merged
    report, with ``devices`` (each GPU, its group and what it ran) and ``wall_seconds``."""
    started = time.time()
    names, bad = select(plan)
    seconds, gallery = {}, 0.0
    if earlier is not None and Path(earlier).is_file():
        with contextlib.suppress(ValueError):  # a report of another schema: balanced by count
            seconds, gallery = recorded_seconds(schema.load(earlier), names, bad if plan.variants else None)
    n = len(gpus)
    groups = balance(names, seconds, n, first_load=gallery if bad else 0.0)
    where = Path(plan.out).with_suffix(".gpus")
    where.mkdir(parents=True, exist_ok=True)
    children = []
    for k, (gpu, group) in enumerate(zip(gpus, groups, strict=True), start=1):
        refs = group + (bad if k == 1 else [])
        out = where / f"gpu_{k}.json"
        out.unlink(missing_ok=True)
        env = {**os.environ, "CUDA_VISIBLE_DEVICES": gpu["uuid"]}
        print(f"gpu-check: group {k}/{n} on GPU {gpu['index']} ({gpu['uuid']}): {len(group)} variants"
              + (f" and the gallery of {len(bad)}" if k == 1 and bad else ""), flush=True)
        children.append((k, gpu, group, out, start_child(child_command(plan, refs, k, n, out), env,
                                                     out.with_suffix(".out"))))
    reports, devices = [], []
    for k, gpu, group, out, child in children:
        code = child.wait()
        try:
            report = schema.load(out)
        except FileNotFoundError:
            report = _crashed(gpu, k, n, plan, f"the child exited with {code} and wrote no report")
        except ValueError as exc:
            report = _crashed(gpu, k, n, plan, f"its report could not be read: {exc}")
        log.write(f"===== group {k}/{n} on {gpu['uuid']}\n")
        for path in (out.with_suffix(".log"), out.with_suffix(".out")):
            if path.is_file():
                log.write(path.read_text())
        reports.append(report)
        devices.append({**gpu, "group": f"{k}/{n}", "variants": group, "gallery": bad if k == 1 else [],
                        "seconds": report["seconds"], "summary": report["summary"],
                        "exit": code})
    merged = schema.merge(reports)
    merged["devices"] = devices
    merged["wall_seconds"] = round(time.time() - started, 1)
    if bench:
        merged["bench"] = bench
    return merged
