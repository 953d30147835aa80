"""What the repository keeps beside the code: measurements that something cites, indexed, and a
benchmark history that does not grow by a megabyte a run."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from softmax_harness import history

ROOT = Path(__file__).resolve().parent.parent
MEASUREMENTS = ROOT / "reports" / "measurements"


def _tracked_text() -> str:
    """Every tracked text file outside reports/measurements/, as one string."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    texts = []
    for name in files:
        path = ROOT / name
        if name.startswith("reports/measurements/") or name.startswith(".benchmarks/") or not path.is_file():
            continue
        try:
            texts.append(path.read_text())
        except UnicodeDecodeError:
            continue
    return "\n".join(texts)


def _indexed() -> set[str]:
    return set(re.findall(r"`([\w.-]+\.(?:json|jsonl|txt|md))`", (MEASUREMENTS / "INDEX.md").read_text()))


def test_every_measurement_is_indexed_and_every_indexed_one_exists():
    present = {p.name for p in MEASUREMENTS.iterdir() if p.is_file() and p.name != "INDEX.md"}
    assert not present - _indexed(), f"not in reports/measurements/INDEX.md: {sorted(present - _indexed())}"
    assert not _indexed() - present, f"INDEX.md lists files that are gone: {sorted(_indexed() - present)}"


def test_every_measurement_is_cited_outside_the_index():
    text = _tracked_text()
    uncited = [name for name in sorted(_indexed())
               if name not in text and not any(re.fullmatch(g.replace("*", r"[\w-]*"), name)
                                               for g in re.findall(r"[\w-]*\*[\w-]*\.json", text))]
    assert not uncited, f"measurements nothing cites (remove them: git keeps them): {uncited}"


def test_the_benchmark_history_keeps_only_what_is_cited():
    kept = history.kept(ROOT / ".benchmarks", ROOT)
    extra = sorted(p.name for p in history.runs(ROOT / ".benchmarks") if p not in kept)
    assert not extra, f".benchmarks/ holds runs nothing cites ({history.RULE}): {extra}"


def test_the_retention_rule_keeps_the_newest_and_the_cited(tmp_path):
    store = tmp_path / ".benchmarks" / "Linux"
    store.mkdir(parents=True)
    for name in ("0001_aaaaaaaaaaaa.json", "0002_bbbbbbbbbbbb.json", "0003_cccccccccccc.json",
                 "0004_dddddddddddd.json"):
        (store / name).write_text("{}")
    (tmp_path / "README.md").write_text("In run 0001 it reached ...\nRun 0002 (a sentence's first word).\n")
    assert [p.name for p in history.kept(tmp_path / ".benchmarks", tmp_path)] == \
        ["0001_aaaaaaaaaaaa.json", "0002_bbbbbbbbbbbb.json", "0004_dddddddddddd.json"]
    assert [p.name for p in history.prune(tmp_path / ".benchmarks", tmp_path)] == ["0003_cccccccccccc.json"]
    assert sorted(p.name for p in store.iterdir()) == \
        ["0001_aaaaaaaaaaaa.json", "0002_bbbbbbbbbbbb.json", "0004_dddddddddddd.json"]


def test_every_staged_change_still_applies_to_the_tree():
    """``staging/promote.sh`` applies each staged patch and diff together with the others when the
    GPU suite can run: a later commit that moved the lines they change would stop it there (and
    ``staging/measure.sh`` the diffs under ``trial/`` to a copy of kernels/)."""
    staging = ROOT / "staging"
    staged = [p for pattern in ("*.patch", "*.diff", "trial/*.diff") for p in sorted(staging.glob(pattern))]
    for path in staged:
        done = subprocess.run(["git", "apply", "--check", str(path)], cwd=ROOT, capture_output=True,
                              text=True)
        assert done.returncode == 0, f"{path.name} no longer applies: {done.stderr}"
