"""The GPU report (``reports/gpu.json``): its one schema and its one builder, used by a run
and by the merge of shard reports alike.

A report records the sha256 of every file under ``kernels/`` (and under DIR for variants named
``NAME@DIR``), each variant's digest (:mod:`.carry`: what ``--since`` compares), the device and
its software versions, every test's outcome and duration, the per-kernel error tally, the
gallery's catches and the sanitizer results. ``schema`` is its version: a reader refuses a
report of another version instead of misreading it.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from ..catalog import split_ref
from ..properties import merge_tally
from ..registry import KERNELS_DIR

SCHEMA = 2
#: The repository the runner works in (``tools/gpu-check`` starts there): its ``tests/`` run,
#: its ``reports/`` and ``.benchmarks/`` receive the results.
ROOT = Path.cwd()
REPORT = ROOT / "reports" / "gpu.json"
OUTCOMES = ("passed", "failed", "skipped", "error", "not run")


def source_files(root: Path) -> list[Path]:
    """Every file under ``root`` but Python's bytecode caches (a launcher module imported by a
    test leaves one beside it)."""
    return [p for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]


def kernel_digests(root: Path = KERNELS_DIR) -> dict[str, str]:
    """sha256 of every file under ``kernels/``, keyed by its path relative to the repository."""
    return {str(p.relative_to(root.parent)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in source_files(root)}


def elsewhere_digests(names: list[str]) -> dict[str, str]:
    """sha256 of every file under each DIR of the ``NAME@DIR`` variants among ``names`` (staged
    files, say), keyed by path (relative to the repository where it is inside)."""
    digests = {}
    for where in sorted({split_ref(n)[1] for n in names} - {None}):
        for p in source_files(where.resolve()):
            key = p.relative_to(ROOT) if p.is_relative_to(ROOT) else p
            digests[str(key)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return digests


def summary(tests: list[dict]) -> dict:
    return {o: sum(t["outcome"] == o for t in tests) for o in OUTCOMES}


def clean(counts: dict) -> bool:
    """Nothing failed, errored or was left unrun."""
    return counts["failed"] == counts["error"] == counts["not run"] == 0


def sanitizer_tests(sanitizer: dict) -> list[dict]:
    """One test record per sanitizer result."""
    return [{"nodeid": f"sanitizer::{r['name']}", "duration": r["seconds"],
             "outcome": "passed" if r["ok"] else "failed",
             **({} if r["ok"] else {"message": r.get("output", "")[-3000:]})} for r in sanitizer.values()]


def gallery_catches(tests: list[dict], bad: list[str]) -> dict[str, bool]:
    """Whether each known-bad kernel's hunt caught its defect (its hunts ran, and all passed)."""
    caught = {}
    for name in bad:
        mine = [t for t in tests if f"[{name}]" in t["nodeid"] and "catches_the_defect" in t["nodeid"]]
        caught[name] = bool(mine) and all(t["outcome"] == "passed" for t in mine)
    return caught


def build(*, tests: list[dict], sanitizer: dict, caught: dict[str, bool], tally: dict, environment: dict,
          kernels_sha256: dict, profile: str, seconds: float, generated: str | None = None,
          bench: dict | None = None, **extra) -> dict:
    """The report. ``tests`` are the pytest records (the sanitizer's are added here), ``extra``
    the keys of a partial run (``shard``, ``rest_of``, ``elsewhere_sha256``, ``merged_from``)."""
    tests = [t for t in tests if not t["nodeid"].startswith("sanitizer::")] + sanitizer_tests(sanitizer)
    return {
        "schema": SCHEMA,
        "generated": generated or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(seconds, 1),
        "hypothesis_profile": profile,
        "environment": environment,
        "kernels_sha256": kernels_sha256,
        "summary": summary(tests),
        "bench": bench or {},
        "gallery": {"caught": caught, "catch_rate": f"{sum(caught.values())}/{len(caught)}"},
        "sanitizer": {k: {kk: vv for kk, vv in v.items() if kk != "output"} for k, v in sanitizer.items()},
        "tally": tally,
        "tests": sorted(tests, key=lambda t: t["nodeid"]),
        **{k: v for k, v in extra.items() if v},
    }


def load(path: Path) -> dict:
    """A report written by :func:`write`; ValueError for one of another schema version."""
    report = json.loads(Path(path).read_text())
    if report.get("schema") != SCHEMA:
        raise ValueError(f"{path}: a GPU report of schema {report.get('schema', 1)}, not {SCHEMA} "
                         "(made by another version of the runner: run it again)")
    return report


def write(report: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")


def _merge_sanitizer(reports: list[dict]) -> dict:
    """The shards' results of each tool joined; then a ``--rest-of`` report's result of a tool
    replaces the joined one where it ran over every variant of it (a tool run again after it
    failed), and joins it elsewhere."""
    sanitizer: dict[str, dict] = {}
    for r in sorted(reports, key=lambda r: bool(r.get("rest_of"))):
        for key, result in r["sanitizer"].items():
            again = r.get("rest_of") and key in sanitizer and \
                set(result["variants"]) >= set(sanitizer[key]["variants"])
            if key not in sanitizer or again:
                sanitizer[key] = dict(result)
                continue
            mine = sanitizer[key]
            mine["variants"] = mine["variants"] + result["variants"]
            mine["errors"] = None if None in (mine["errors"], result["errors"]) else \
                mine["errors"] + result["errors"]
            mine["ok"] = mine["ok"] and result["ok"]
            mine["seconds"] = round(mine["seconds"] + result["seconds"], 1)
            mine["probed"] = mine.get("probed", 0) + result.get("probed", 0)
    return sanitizer


#: A tally's fields that say what was found (its ``seconds`` say how long it took).
_TALLY_FOUND = ("checks", "failed_checks", "rows", "max_ulps", "max_bound_ratio")


def content(report: dict) -> dict:
    """What a run found, apart from how and where it ran (times, devices, groups, shards, logs):
    the digests it ran on, its Hypothesis profile, each test's outcome, the gallery's catches, each
    sanitizer's verdict over its variants and each kernel's tally. A run spread over several GPUs
    and a run on one find the same where the suite is deterministic: the tallies under a profile
    that draws at random (``dev``) differ from run to run, so :func:`differences` leaves them out."""
    return {
        "digests": {k: report.get(k) for k in ("kernels_sha256", "variants_sha256", "suite_sha256")},
        "profile": report["hypothesis_profile"],
        "tests": {t["nodeid"]: t["outcome"] for t in report["tests"]
                  if not t["nodeid"].startswith("sanitizer::")},
        "gallery": dict(report["gallery"]["caught"]),
        "sanitizer": {k: {"ok": r["ok"], "errors": r.get("errors"), "variants": sorted(r["variants"])}
                      for k, r in report["sanitizer"].items()},
        "tally": {k: {f: t.get(f) for f in _TALLY_FOUND} for k, t in report["tally"].items()},
    }


def differences(first: dict, second: dict, most: int = 20) -> list[str]:
    """Where two reports differ in :func:`content`, a line each (the first ``most``, then a count of
    the rest); empty where they found the same."""
    a, b = content(first), content(second)
    found = [f"{key} differ" for key in a["digests"] if a["digests"][key] != b["digests"][key]]
    if a["profile"] != b["profile"]:
        found.append(f"Hypothesis profile {a['profile']} against {b['profile']}")
    derandomised = a["profile"] == b["profile"] == "ci"
    for part in ("tests", "gallery", "sanitizer") + (("tally",) if derandomised else ()):
        for key in sorted(a[part].keys() | b[part].keys()):
            mine, theirs = a[part].get(key, "absent"), b[part].get(key, "absent")
            if mine != theirs:
                found.append(f"{part} {key}: {mine} against {theirs}")
    return found[:most] + ([f"... and {len(found) - most} more"] if len(found) > most else [])


#: The outcomes that ``--rest-of`` runs again.
RERUN = ("not run", "failed", "error")


def sanitizers_to_rerun(report: dict, tools) -> dict[str, list[str]]:
    """tool -> the variants of each of ``tools`` whose run over the correct variants failed in
    ``report`` (reported errors, a crash, or its time limit passed): what ``--rest-of`` runs again."""
    return {key: list(r["variants"]) for key, r in report.get("sanitizer", {}).items()
            if key in tools and not r["ok"]}


def merge(reports: list[dict]) -> dict:
    """One report from the shard reports of one tree (same kernels, device and profile); a test
    that one report did not reach (``--deadline``) counts where another ran it, and a test that
    failed counts as a ``--rest-of`` report ran it again (the earlier outcome is kept under
    ``reruns``). A test run twice with one outcome counts once; with two, outside a rest-of
    report, the reports conflict."""
    first = reports[0]
    for key in ("schema", "kernels_sha256", "hypothesis_profile"):
        if any(r.get(key) != first.get(key) for r in reports):
            raise ValueError(f"the reports disagree on {key}: they were not made from one tree and setting")
    recorded = {}  # the digests each report records: a crashed child's report has none
    for key in ("variants_sha256", "suite_sha256"):
        recorded[key] = [r[key] for r in reports if r.get(key)]
        if any(d != recorded[key][0] for d in recorded[key]):
            raise ValueError(f"the reports disagree on {key}: they were not made from one tree and suite")
    if any(r["environment"].get("device") != first["environment"].get("device") for r in reports):
        raise ValueError("the reports were made on different devices")
    shards = [r["shard"] for r in reports if r.get("shard")]
    if len(set(shards)) != len(shards):
        raise ValueError(f"a shard is in more than one report ({', '.join(sorted(shards))})")
    final: dict[str, dict] = {}
    reruns: dict[str, str] = {}
    for rerun in (False, True):  # the rest-of reports last: their outcomes replace the others'
        for t in (t for r in reports if bool(r.get("rest_of")) == rerun for t in r["tests"]):
            node, before = t["nodeid"], final.get(t["nodeid"])
            if node.startswith("sanitizer::") or (node.endswith("[NOTSET]") and t["outcome"] == "not run"):
                continue  # NOTSET "not run": an empty parameter set older reports counted (read_collected)
            if before is None or before["outcome"] == "not run":
                final[node] = t
            elif t["outcome"] not in ("not run", before["outcome"]):
                if not rerun:
                    raise ValueError(f"{node} is in more than one report, with other outcomes")
                reruns[node] = before["outcome"]
                final[node] = t
    tests = list(final.values())
    tally: dict = {}
    for r in reports:
        merge_tally(tally, r["tally"])
    elsewhere = {k: v for r in reports for k, v in r.get("elsewhere_sha256", {}).items()}
    return build(
        tests=tests, sanitizer=_merge_sanitizer(reports), tally=tally,
        caught={name: ok for r in reports for name, ok in r["gallery"]["caught"].items()},
        environment=first["environment"], kernels_sha256=first["kernels_sha256"],
        profile=first["hypothesis_profile"], seconds=sum(r["seconds"] for r in reports),
        generated=max(r["generated"] for r in reports),
        bench=next((r["bench"] for r in reports if r["bench"]), {}), elsewhere_sha256=elsewhere,
        **{key: values[0] if values else None for key, values in recorded.items()},
        since=next((r["since"] for r in reports if r.get("since")), None),
        merged_from=sorted(r.get("shard") or (f"rest of {r['rest_of']}" if r.get("rest_of") else "all")
                           for r in reports), reruns=reruns)
