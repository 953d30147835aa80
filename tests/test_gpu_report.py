"""The committed GPU report speaks for the kernels in the tree and shows no failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from softmax_harness.run.schema import SCHEMA, kernel_digests

REPORT = Path(__file__).resolve().parent.parent / "reports" / "gpu.json"

REFRESH = ("Refresh it on a machine with a CUDA GPU: `tools/gpu-check`, then commit reports/gpu.json "
           "(see README, 'Running on a GPU').")


def load():
    assert REPORT.is_file(), f"{REPORT} is missing. {REFRESH}"
    return json.loads(REPORT.read_text())


def test_report_matches_the_kernels_in_the_tree():
    recorded, current = load()["kernels_sha256"], kernel_digests()
    changed = sorted(p for p in recorded.keys() | current.keys() if recorded.get(p) != current.get(p))
    assert not changed, f"reports/gpu.json was made for other kernel files: {changed}. {REFRESH}"


def test_report_matches_each_variants_sources():
    """Each variant's digest (its file, what it includes, the launch path: run/carry.py), which
    is what a run with --since carries outcomes by."""
    from softmax_harness import catalog
    from softmax_harness.run.carry import variant_digests

    recorded = load().get("variants_sha256")
    if recorded is None:
        pytest.skip("reports/gpu.json predates the variant digests")
    current = variant_digests([v.ref for v in catalog.select("variant") + catalog.select("bad_variant")])
    changed = sorted(r for r in recorded.keys() | current.keys() if recorded.get(r) != current.get(r))
    assert not changed, f"reports/gpu.json was made for other sources of {changed}. {REFRESH}"


def test_report_shows_no_failures():
    report = load()
    summary = report["summary"]
    bad = [t["nodeid"] for t in report["tests"] if t["outcome"] in ("failed", "error")]
    assert summary["failed"] == summary["error"] == 0, f"GPU failures: {bad[:20]}. {REFRESH}"
    assert summary["passed"] > 0, f"the GPU report ran no test. {REFRESH}"
    assert not summary.get("not run"), f"{summary['not run']} tests were cut by --deadline. {REFRESH}"


def test_report_is_of_the_current_schema():
    assert load().get("schema") == SCHEMA, f"reports/gpu.json is of another schema version. {REFRESH}"


def test_report_names_the_device():
    env = load()["environment"]
    for key in ("device", "driver", "cuda_runtime", "cupy", "nvrtc"):
        assert env.get(key), f"reports/gpu.json lacks environment.{key}. {REFRESH}"


def test_the_committed_same_sass_answer_is_for_this_report():
    """reports/same_sass.json (``tools/sass-same``), which ``gpu-check --since reports/gpu.json
    --same-sass`` reads, answers for the committed report: one made for an earlier report is
    refused there, and the next --since run stops before it tests anything."""
    answer = REPORT.with_name("same_sass.json")
    if not answer.is_file():
        pytest.skip("no reports/same_sass.json")
    made_for = json.loads(answer.read_text())["report_generated"]
    assert made_for == load()["generated"], (
        f"reports/same_sass.json was made for the report generated {made_for}: run "
        "`tools/sass-same reports/gpu.json REV` (REV: the commit the report tested) and commit it")
