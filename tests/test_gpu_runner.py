"""The GPU runner's bookkeeping, without a GPU: a child that hangs or crashes is named, the
tests that finished before it are kept, and the run resumes without them."""

from __future__ import annotations

import hashlib
import io
import json
import re

import pytest
from timeouts import waits_out_timeouts

from softmax_harness.properties import merge_tally
from softmax_harness.run.children import run_resuming
from softmax_harness.run.journal import journal_path, read_journal
from softmax_harness.run.schema import SCHEMA

HANGS = """
import time

def test_first():
    pass

def test_hangs():
    time.sleep(120)  # a kernel that never returns, as far as the process can tell

def test_after():
    pass
"""


def test_a_log_file_holds_the_childs_output_while_it_runs_and_after(tmp_path):
    """A log that is a file takes the child's output as it is written (a long GPU run can be
    followed with ``tail -f``): the first test's dot is in the file while the second still
    waits (until the dot is seen, 20 s at most), and the output returned is the file's."""
    import threading
    import time

    from softmax_harness.run.children import run_pytest

    seen_mark = tmp_path / "seen"
    path = tmp_path / "test_child.py"
    path.write_text(f"import os, time\n\ndef test_first():\n    pass\n\ndef test_waits():\n"
                    f"    end = time.monotonic() + 20\n"
                    f"    while not os.path.exists({str(seen_mark)!r}) and time.monotonic() < end:\n"
                    f"        time.sleep(0.05)\n")
    seen, finished = [], threading.Event()

    def watch():  # the file as it stands, until the first test's dot is in it or the child ends
        while not finished.is_set():
            text = (tmp_path / "run.log").read_text()
            if "===== child:" in text and re.search(r"^\.", text.split("\n", 1)[1], re.M):  # a line of dots
                seen.append(text)
                seen_mark.touch()  # the child's second test may end now
                return
            time.sleep(0.05)

    with open(tmp_path / "run.log", "w") as log:
        watcher = threading.Thread(target=watch)
        watcher.start()
        tests, _, output, ended = run_pytest("child", [str(path), "-p", "softmax_harness.pytest_plugin"],
                                             timeout=120, log=log)
        finished.set()
        watcher.join()
        log.write("after\n")
    text = (tmp_path / "run.log").read_text()
    assert seen, f"the child's output reached the file only when it ended: {output[:300]!r}"
    assert output and output in text and text.endswith("\nafter\n")
    assert [t["outcome"] for t in tests] == ["passed", "passed"] and not ended


@waits_out_timeouts
def test_a_hung_test_is_named_and_the_rest_still_runs(tmp_path):
    path = tmp_path / "test_child.py"
    path.write_text(HANGS)
    log = io.StringIO()
    tests, _ = run_resuming("child", [str(path), "-p", "softmax_harness.pytest_plugin"], timeout=9, log=log)
    outcome = {t["nodeid"].split("::")[-1]: t["outcome"] for t in tests}
    assert outcome == {"test_first": "passed", "test_hangs": "error", "test_after": "passed"}, tests
    hung = next(t for t in tests if t["nodeid"].endswith("test_hangs"))
    assert "timed out" in hung["message"] and "while this test was running" in hung["message"]
    assert "resumed 1" in log.getvalue()


def test_the_journal_survives_a_cut_last_line(tmp_path):
    journal = tmp_path / "results.json.journal"
    journal.write_text("\n".join([
        json.dumps({"running": "t::a"}),
        json.dumps({"ended": {"nodeid": "t::a", "outcome": "passed", "duration": 0.1}}),
        json.dumps({"running": "t::b"}),
        '{"ended": {"nodeid": "t::b", "outc',
    ]))
    ended, running = read_journal(journal)
    assert [r["nodeid"] for r in ended] == ["t::a"] and running == ["t::b"]
    assert journal_path("x/results.json") == "x/results.json.journal"


def test_tallies_of_workers_add_up():
    one = {"k": {"checks": 2, "rows": 10, "seconds": 1.0, "max_ulps": 3.0, "max_bound_ratio": 0.2,
                 "failed_checks": 0}}
    two = {"k": {"checks": 1, "rows": 5, "seconds": 0.5, "max_ulps": 1.0, "max_bound_ratio": 0.7,
                 "failed_checks": 1}}
    total = merge_tally(merge_tally({}, one), two)["k"]
    assert total == {"checks": 3, "rows": 15, "seconds": 1.5, "max_ulps": 3.0, "max_bound_ratio": 0.7,
                     "failed_checks": 1}


def shard_report(shard, tests, caught=None, racy=None, device="H200"):
    sanitizer = {"memcheck": {"name": "memcheck", "tool": "memcheck", "variants": [t.split("[")[1][:-1]
                                                                                 for t in tests],
                              "errors": 0, "ok": True, "seconds": 1.0, "probed": len(tests)}}
    if racy is not None:
        sanitizer["racecheck_flags_racy_kernel"] = {
            "name": "racecheck_flags_bad_smem_tree_racy", "ok": racy, "errors": 20 if racy else 0,
            "variants": [], "seconds": 2.0}
    return {"schema": SCHEMA, "generated": f"2026-12-0{shard}T00:00:00Z", "seconds": 10.0,
            "hypothesis_profile": "dev",
            "environment": {"device": device}, "kernels_sha256": {"kernels/a.cu": "1"}, "bench": {},
            "gallery": {"caught": caught or {}}, "sanitizer": sanitizer, "shard": f"{shard}/2",
            "tally": {"a": {"checks": 1, "rows": 2, "seconds": 0.1, "max_ulps": 1.0, "max_bound_ratio": 0.1,
                            "failed_checks": 0}},
            "tests": [{"nodeid": t, "outcome": "passed", "duration": 0.1} for t in tests]
            + [{"nodeid": "sanitizer::memcheck", "outcome": "passed", "duration": 1.0}]}


def test_shard_reports_merge_into_one():
    import pytest

    from softmax_harness.run.schema import merge as merge_reports

    one = shard_report(1, ["t.py::x[a]", "t.py::x[b]"], caught={"bad_x": True}, racy=True)
    two = shard_report(2, ["t.py::x[c]"])
    merged = merge_reports([one, two])
    assert merged["summary"] == {"passed": 5, "failed": 0, "skipped": 0, "error": 0, "not run": 0}
    assert merged["sanitizer"]["memcheck"]["variants"] == ["a", "b", "c"]
    assert merged["gallery"]["catch_rate"] == "1/1" and merged["tally"]["a"]["checks"] == 2
    assert merged["merged_from"] == ["1/2", "2/2"]
    with pytest.raises(ValueError, match="a shard is in more than one report"):
        merge_reports([one, one])
    # a test that takes no variant, run by both shards: one outcome counts once, two conflict
    both = shard_report(2, ["t.py::x[c]", "t.py::x[a]"])
    assert merge_reports([one, both])["summary"]["passed"] == 5
    both["tests"][1]["outcome"] = "failed"
    with pytest.raises(ValueError, match=r"t.py::x\[a\] is in more than one report, with other outcomes"):
        merge_reports([one, both])
    with pytest.raises(ValueError, match="different devices"):
        merge_reports([one, shard_report(2, ["t.py::x[c]"], device="A100")])


def test_merge_from_the_command_line(tmp_path):
    from softmax_harness.run.cli import main

    paths = []
    for shard, tests in ((1, ["t.py::x[a]"]), (2, ["t.py::x[b]"])):
        paths.append(tmp_path / f"gpu-{shard}.json")
        paths[-1].write_text(json.dumps(shard_report(shard, tests)))
    out = tmp_path / "gpu.json"
    assert main(["--merge", *map(str, paths), "--out", str(out)]) == 0
    merged = json.loads(out.read_text())
    assert merged["summary"]["passed"] == 3 and merged["schema"] == SCHEMA


def test_a_report_of_another_schema_is_refused_by_name(tmp_path, capsys):
    from softmax_harness.run.cli import main

    old = shard_report(1, ["t.py::x[a]"])
    del old["schema"]  # as the runner wrote reports before it had a version
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    assert main(["--merge", str(path), "--out", str(tmp_path / "gpu.json")]) == 2
    assert f"old.json: a GPU report of schema 1, not {SCHEMA}" in capsys.readouterr().err
    assert not (tmp_path / "gpu.json").exists()


SLOW = """
import time

def test_first():
    pass

def test_slow():
    time.sleep(60)

def test_never_started():
    pass
"""


@waits_out_timeouts
def test_the_deadline_leaves_the_rest_not_run(tmp_path):
    import time

    path = tmp_path / "test_child.py"
    path.write_text(SLOW)
    tests, _ = run_resuming("child", [str(path), "-p", "softmax_harness.pytest_plugin"], timeout=120,
                            log=io.StringIO(), deadline=time.time() + 8)
    outcome = {t["nodeid"].split("::")[-1]: t["outcome"] for t in tests}
    assert outcome == {"test_first": "passed", "test_slow": "not run", "test_never_started": "not run"}


def test_the_rest_of_a_cut_run_merges_into_it():
    from softmax_harness.run.schema import merge as merge_reports

    cut = shard_report(1, ["t.py::x[a]", "t.py::x[b]"])
    cut["tests"][1]["outcome"] = "not run"
    rest = shard_report(2, ["t.py::x[b]"])
    rest["sanitizer"], rest["rest_of"] = {}, "gpu-1.json"
    del rest["shard"]
    merged = merge_reports([cut, rest])
    assert merged["summary"]["not run"] == 0 and merged["summary"]["passed"] == 3
    assert merged["merged_from"] == ["1/2", "rest of gpu-1.json"]
    assert merge_reports([cut, cut | {"tests": [], "shard": "2/2"}])["summary"]["not run"] == 1


def test_a_rest_of_run_replaces_a_failure_and_the_report_keeps_it():
    from softmax_harness.run.schema import merge as merge_reports

    first = shard_report(1, ["t.py::x[a]", "t.py::x[b]"])
    first["tests"][1]["outcome"] = "failed"
    rest = shard_report(2, ["t.py::x[b]"])
    rest["sanitizer"], rest["rest_of"] = {}, "gpu-1.json"
    del rest["shard"]
    merged = merge_reports([rest, first])  # in any order: the rest-of report's outcome counts
    assert merged["summary"]["failed"] == 0 and merged["reruns"] == {"t.py::x[b]": "failed"}
    rest["tests"][0]["outcome"] = "failed"
    assert merge_reports([first, rest])["summary"]["failed"] == 1


def _timed_out(report, tool="racecheck"):
    """``report`` with ``tool`` past its time limit over the report's variants."""
    variants = report["sanitizer"]["memcheck"]["variants"]
    report["sanitizer"][tool] = {"name": tool, "tool": tool, "variants": variants, "errors": None,
                                 "ok": False, "seconds": 300.0, "probed": 0}
    return report


def test_a_sanitizer_run_again_by_a_rest_of_run_replaces_the_one_that_failed():
    """Racecheck passed its time limit in both shards; the rest-of run that ran it again over all
    their variants decides, and the merged report is clean. A rest-of run over fewer variants
    than failed leaves the tool failed."""
    from softmax_harness.run.schema import merge as merge_reports

    one = _timed_out(shard_report(1, ["t.py::x[a]", "t.py::x[b]"]))
    two = _timed_out(shard_report(2, ["t.py::x[c]"]))
    assert merge_reports([one, two])["summary"]["failed"] == 1
    rest = shard_report(3, [])
    del rest["shard"]
    rest["rest_of"], rest["tests"] = "gpu.json", []
    rest["sanitizer"] = {"racecheck": {"name": "racecheck", "tool": "racecheck", "variants": ["c", "a", "b"],
                                       "errors": 0, "ok": True, "seconds": 120.0, "probed": 3}}
    merged = merge_reports([rest, one, two])
    assert merged["summary"]["failed"] == 0
    assert merged["sanitizer"]["racecheck"]["ok"] and merged["sanitizer"]["racecheck"]["errors"] == 0
    assert sorted(merged["sanitizer"]["memcheck"]["variants"]) == ["a", "b", "c"]
    rest["sanitizer"]["racecheck"]["variants"] = ["a"]
    assert merge_reports([one, two, rest])["summary"]["failed"] == 1


def test_a_rest_of_run_runs_again_the_sanitizers_that_failed(monkeypatch, tmp_path):
    import io

    from softmax_harness.run import orchestrate, schema

    earlier = _timed_out(shard_report(1, ["t.py::x[a]", "t.py::x[b]"]))
    earlier["tests"][0]["outcome"] = "not run"
    path = tmp_path / "gpu_1.json"
    schema.write(earlier, path)
    seen = {}

    def sanitize_all(names, bad, log, tools=None, timeout=300):
        seen.update(names=names, bad=bad, tools=tools, timeout=timeout)
        return {}

    def batch(label, args, plan, log, tally, deadline):
        seen.setdefault("batches", []).append((label, [a for a in args if "::" in a]))
        return []

    monkeypatch.setattr(orchestrate, "sanitize_all", sanitize_all)
    monkeypatch.setattr(orchestrate, "_batch", batch)
    orchestrate.run_suite(orchestrate.Plan(rest_of=path, sanitize=True, sanitizer_timeout=540), io.StringIO())
    assert seen["tools"] == {"racecheck": ["a", "b"]} and seen["names"] == seen["bad"] == []
    assert seen["timeout"] == 540  # --sanitizer-timeout: a rerun alone on the GPU may take longer
    assert seen["batches"] == [("variants", ["t.py::x[a]"])]


def test_a_report_on_variants_elsewhere_records_their_files(tmp_path):
    """gpu-check --variant NAME@DIR hashes DIR's files too (keys as kernel_digests gives them for
    the repository's own files), so that a staged report can be matched to the files promoted."""
    from softmax_harness.registry import KERNELS_DIR
    from softmax_harness.run.schema import elsewhere_digests, kernel_digests

    assert elsewhere_digests(["online_warp", "safe_warp"]) == {}
    live = elsewhere_digests([f"online_warp@{KERNELS_DIR}", f"safe_warp@{KERNELS_DIR}"])
    assert sorted(live.values()) == sorted(kernel_digests().values())
    (tmp_path / "k.cu").write_text("// k\n")
    (digest,) = elsewhere_digests([f"k@{tmp_path}"]).items()
    assert digest == (str(tmp_path.resolve() / "k.cu"), hashlib.sha256(b"// k\n").hexdigest())


def test_the_variants_batch_collects_only_the_tests_that_take_a_variant():
    """The runner's variant batch (``--variant-tests-only``) leaves the tests that take no variant
    to the gallery's batch, so that a run, or its shards, run each of those once."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "-m", "gpu", "--no-variants", "--variant=online_warp", "--variant-tests-only",
                           "tests/test_kernels.py", "tests/test_autograd.py"],
                          cwd=root, capture_output=True, text=True, timeout=300)
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    # (NOTSET: a fixture of a kind online_warp is not, a split-row kernel's, left empty)
    assert ids and all("online_warp" in i or "NOTSET" in i for i in ids), done.stdout[-2000:]
    assert not any("test_autograd" in i or "dispatched" in i for i in ids)


def test_the_sanitizers_run_beside_the_gallery_and_the_variants(monkeypatch):
    """The sanitizers start with the run and the gallery's and the variants' batches spread over
    the workers, so that none of the three waits for another; the sanitizers' output still lands
    in the log, after the batches'."""
    import io
    import threading

    from softmax_harness.run import orchestrate

    sanitizing = threading.Event()
    batches = []

    def batch(label, args, plan, log, tally, deadline):
        assert sanitizing.wait(10), f"the {label} batch started before the sanitizers"
        batches.append((label, args))
        log.write(f"{label} output\n")
        return []

    def sanitize_all(names, bad, log, tools=None, timeout=300):
        sanitizing.set()
        log.write("sanitizer output\n")
        return {"memcheck": {"name": "memcheck", "tool": "memcheck", "errors": 0, "ok": True, "seconds": 1.0,
                             "variants": names, "output": ""}}

    find_spec = orchestrate.importlib.util.find_spec  # as where pytest-xdist is installed
    monkeypatch.setattr(orchestrate.importlib.util, "find_spec",
                        lambda name, *args: object() if name == "xdist" else find_spec(name, *args))
    monkeypatch.setattr(orchestrate, "_batch", batch)
    monkeypatch.setattr(orchestrate, "sanitize_all", sanitize_all)
    monkeypatch.setattr(orchestrate, "select", lambda plan: (["online_warp"], ["bad_early_return"]))
    log = io.StringIO()
    report = orchestrate.run_suite(orchestrate.Plan(workers=3, sanitize=True), log)
    assert [label for label, _ in batches] == ["gallery", "variants"]
    assert all(args[args.index("-n") + 1] == "3" for _, args in batches)
    assert log.getvalue() == "gallery output\nvariants output\nsanitizer output\n"
    assert report["sanitizer"]["memcheck"]["ok"]


def test_racecheck_runs_in_parts_and_one_part_past_its_time_leaves_the_others_counted(monkeypatch):
    """Racecheck over half the suite passed the 300 s one process is allowed, and the whole tool
    came back unknown: its variants go to several processes at once, and the tool's result is
    theirs together (unknown only if a part's is)."""
    import io
    import threading

    from softmax_harness.run import orchestrate

    calls, lock = [], threading.Lock()

    def sanitize(tool, refs, timeout):
        with lock:
            calls.append((tool, list(refs)))
        late = tool == "racecheck" and "v5" in refs
        return {"tool": tool, "variants": refs, "errors": None if late else 0, "probed": len(refs),
                "ok": not late, "output": "timed out after 300 s" if late else ""}

    monkeypatch.setattr(orchestrate, "sanitize", sanitize)
    names = [f"v{i}" for i in range(10)]
    log = io.StringIO()
    results = orchestrate.sanitize_all(names, [], log)
    assert log.getvalue().count("timed out after 300 s") == 1  # each part's output written once
    race = [refs for tool, refs in calls if tool == "racecheck"]
    assert len(race) == orchestrate.PARTS["racecheck"] and sorted(sum(race, [])) == sorted(names)
    assert [refs for tool, refs in calls if tool == "memcheck"] == [names]
    assert sorted(results["racecheck"]["variants"]) == sorted(names)
    assert results["racecheck"]["errors"] is None and not results["racecheck"]["ok"]
    assert results["memcheck"]["ok"] and results["memcheck"]["errors"] == 0
    assert orchestrate._parts(["a"], 4) == [["a"]] and orchestrate._parts([], 4) == [[]]


def test_a_cut_run_leaves_out_the_empty_parameter_sets_it_collected(tmp_path):
    """A variant batch collects a test whose parameters the --variant options left empty as
    ``[NOTSET]``; named to a later --rest-of run, which collects it with parameters, pytest finds
    no such test and runs none of the rest."""
    import json

    from softmax_harness.run.journal import read_collected

    journal = tmp_path / "r.json.journal"
    journal.write_text(json.dumps({"collected": ["t.py::a[x]", "t.py::b[NOTSET]", "t.py::c"]}) + "\n")
    assert read_collected(journal) == ["t.py::a[x]", "t.py::c"]


def test_a_merge_leaves_out_the_empty_parameter_set_an_older_cut_report_counted_as_not_run():
    """Reports cut before read_collected dropped ``[NOTSET]`` ids hold one as 'not run'; their
    rest-of run never runs it (there is no such test), so the merge must not count it."""
    from softmax_harness.run.schema import merge as merge_reports

    cut = shard_report(1, ["t.py::x[a]", "t.py::y[NOTSET]"])
    cut["tests"][1]["outcome"] = "not run"
    merged = merge_reports([cut])
    assert merged["summary"]["not run"] == 0 and merged["summary"]["passed"] == 2


def test_at_most_two_batches_past_element_2_31_build_at_once(tmp_path):
    """The 8 GiB batches of parallel test processes take one of two locks: two build at once,
    never three."""
    import threading
    import time

    from softmax_harness.large_batch import slot

    guard, inside, most = threading.Lock(), [0], [0]

    def build():
        with slot(2, tmp_path / "lock"):
            with guard:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.2)
            with guard:
                inside[0] -= 1

    threads = [threading.Thread(target=build) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert most[0] == 2 and inside[0] == 0


SMI = """0, GPU-aaaa0000-0000-0000-0000-000000000000, NVIDIA H200, 580.1
1, GPU-bbbb0000-0000-0000-0000-000000000000, NVIDIA H200, 580.1
2, GPU-cccc0000-0000-0000-0000-000000000000, NVIDIA H200, 580.1
3, GPU-dddd0000-0000-0000-0000-000000000000, NVIDIA H200, 580.1
"""


def faked_gpus() -> list[dict]:
    from softmax_harness.run import spread

    return [dict(zip(spread._FIELDS, (f.strip() for f in line.split(",")), strict=True))
            for line in SMI.splitlines()]


class Finished:
    """A child process that has ended with ``code``."""

    def __init__(self, code: int):
        self.code = code

    def wait(self) -> int:
        return self.code


def test_the_visible_gpus_follow_cuda_visible_devices(monkeypatch):
    import subprocess

    from softmax_harness.run import spread

    monkeypatch.setattr(spread.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, SMI, ""))
    assert [g["index"] for g in spread.visible_gpus({})] == ["0", "1", "2", "3"]
    # indices or UUID prefixes, in that order, up to the first that names no GPU (as CUDA reads it)
    chosen = spread.visible_gpus({"CUDA_VISIBLE_DEVICES": "2,GPU-bbbb,7,3"})
    assert [(g["index"], g["name"]) for g in chosen] == [("2", "NVIDIA H200"), ("1", "NVIDIA H200")]
    assert spread.visible_gpus({"CUDA_VISIBLE_DEVICES": ""}) == []


def test_the_groups_hold_every_variant_once_and_balance_the_recorded_seconds():
    import random

    from softmax_harness.run.spread import balance

    rng = random.Random(0)
    names = [f"v{i}" for i in range(300)]
    seconds = {v: rng.lognormvariate(0, 1) for v in names[:280]}  # 20 never timed: the median each
    typical = sorted(seconds.values())[140]
    for n in (2, 4, 8):
        groups = balance(names, seconds, n, first_load=30.0)
        assert sorted(v for g in groups for v in g) == sorted(names)
        loads = [sum(seconds.get(v, typical) for v in g) + 30.0 * (k == 0) for k, g in enumerate(groups)]
        ideal = max(sum(loads) / n, max(seconds.values()))  # no grouping does better than this
        assert max(loads) <= 1.05 * ideal, (n, loads)


def _report_for(command):
    """What a child run of ``command`` (a spread run's child) would report: a test a variant, and
    the gallery's hunts where it was given known-bad kernels."""
    from softmax_harness import catalog
    from softmax_harness.run import schema

    refs = [a.split("=", 1)[1] for a in command if a.startswith("--variant=")]
    bad = {v.name for v in catalog.known_bad()}
    tests = [{"nodeid": f"tests/test_kernels.py::test_x[{r}]", "outcome": "passed", "duration": 1.0}
             for r in refs if r not in bad]
    tests += [{"nodeid": f"tests/test_known_bad.py::test_caught[{r}]", "outcome": "passed", "duration": 1.0}
              for r in refs if r in bad]
    group = command[command.index("--group") + 1]
    return schema.build(tests=tests, sanitizer={}, caught={r: True for r in refs if r in bad}, tally={},
                        environment={"device": "NVIDIA H200"}, kernels_sha256=schema.kernel_digests(),
                        profile="dev", seconds=float(len(tests)), shard=group)


def _children_on_one_gpu(monkeypatch) -> list[str]:
    """One faked GPU, and each child the spread starts writing :func:`_report_for` its command at
    once; the list it returns gathers the GPU each child was pinned to."""
    from pathlib import Path

    from softmax_harness.run import cli, schema, spread

    pinned = []

    def start(command, env, output):
        pinned.append(env["CUDA_VISIBLE_DEVICES"])
        output.write_text("child output\n")
        schema.write(_report_for(command), Path(command[command.index("--out") + 1]))
        return Finished(0)

    one = faked_gpus()[:1]
    monkeypatch.setattr(cli, "visible_gpus", lambda: one)
    monkeypatch.setattr(cli.gpu, "available", lambda: True)
    monkeypatch.setattr(spread, "start_child", start)
    return pinned


def test_the_suite_spreads_over_a_faked_count_of_gpus(monkeypatch, tmp_path):
    """Four GPUs faked: a child a GPU pinned by CUDA_VISIBLE_DEVICES, every variant in exactly one
    group, the gallery with the first; the third child crashes without a report, which is
    recorded as an error of its GPU while the others' reports merge."""
    import io
    from pathlib import Path

    from softmax_harness import catalog
    from softmax_harness.run import orchestrate, schema, spread

    started = []

    def start(command, env, output):
        started.append((command, env["CUDA_VISIBLE_DEVICES"]))
        output.write_text("child output\n")
        out = Path(command[command.index("--out") + 1])
        if command[command.index("--group") + 1] == "3/4":
            return Finished(139)  # killed before it wrote a report
        schema.write(_report_for(command), out)
        return Finished(0)

    gpus = faked_gpus()
    monkeypatch.setattr(spread, "start_child", start)
    plan = orchestrate.Plan(out=tmp_path / "gpu.json", workers=3, sanitize=True)
    report = spread.run_spread(plan, gpus, io.StringIO())
    assert sorted(env for _, env in started) == sorted(g["uuid"] for g in gpus)
    for command, _ in started:
        assert "--one-gpu" in command and "--sanitize" in command
        assert command[command.index("--workers") + 1] == "3"
    names = [v.ref for v in catalog.select("variant")]
    groups = [d["variants"] for d in report["devices"]]
    assert sorted(v for g in groups for v in g) == sorted(names)
    assert max(map(len, groups)) - min(map(len, groups)) <= 1  # no earlier report: balanced by count
    assert report["devices"][0]["gallery"] and not any(d["gallery"] for d in report["devices"][1:])
    crashed = report["devices"][2]
    assert crashed["exit"] == 139 and crashed["summary"]["error"] == 1
    errors = [t for t in report["tests"] if t["outcome"] == "error"]
    assert [t["nodeid"] for t in errors] == [f"gpu::{gpus[2]['uuid']}"]
    assert "exited with 139" in errors[0]["longrepr"]
    ran = {t["nodeid"] for t in report["tests"]}
    assert all(f"tests/test_kernels.py::test_x[{v}]" in ran for k in (0, 1, 3) for v in groups[k])
    assert report["gallery"]["catch_rate"] == f"{len(catalog.known_bad())}/{len(catalog.known_bad())}"
    assert report["merged_from"] == ["1/4", "2/4", "3/4", "4/4"] and report["wall_seconds"] >= 0


def test_groups_per_gpu_spread_the_suite_over_children_sharing_one_gpu(monkeypatch, tmp_path):
    """One GPU and --groups-per-gpu 2: two children, both pinned to it, every variant in one of
    them, the report naming the GPU once a group (how a host of one GPU runs the spread)."""

    from softmax_harness import catalog
    from softmax_harness.run import cli, schema

    pinned = _children_on_one_gpu(monkeypatch)
    out = tmp_path / "gpu.json"
    args = ["--out", str(out), "--balance-from", str(tmp_path / "none.json")]
    assert cli.main([*args, "--groups-per-gpu", "2"]) == 0
    report = schema.load(out)
    uuid = faked_gpus()[0]["uuid"]
    assert pinned == [uuid, uuid]
    assert [(d["uuid"], d["group"]) for d in report["devices"]] == [(uuid, "1/2"), (uuid, "2/2")]
    names = sorted(v.ref for v in catalog.select("variant"))
    assert sorted(v for d in report["devices"] for v in d["variants"]) == names


def test_a_spread_of_named_variants_balances_them_by_their_own_seconds(monkeypatch, tmp_path):
    """The H100's rehearsal: four variants and a known-bad kernel over two children, balanced by
    reports/gpu.json, which put all four in the second (the first carried the report's every
    other test). Now the first carries the known-bad kernel's hunts alone, and the two groups'
    seconds in the report, so counted, differ by no more than the longest variant's."""

    from softmax_harness.run import cli, schema

    _children_on_one_gpu(monkeypatch)
    few = ["onepass_vec4_c1024", "split_row_smem_f32", "cluster_push_c65536", "scaled_bias_online_split"]
    out = tmp_path / "two.json"
    args = ["--out", str(out), "--groups-per-gpu", "2", "--balance-from", str(schema.REPORT)]
    assert cli.main([*args, *(f"--variant={v}" for v in [*few, "bad_own_stream"])]) == 0
    devices = schema.load(out)["devices"]
    assert sorted(v for d in devices for v in d["variants"]) == sorted(few)
    assert devices[0]["gallery"] == ["bad_own_stream"]

    tests = [t for t in schema.load(schema.REPORT)["tests"] if not t["nodeid"].startswith("sanitizer::")]

    def seconds(name):  # the report's tests that take `name` among their parameters
        return sum(t.get("duration") or 0.0 for t in tests
                   if name in t["nodeid"].partition("[")[2][:-1].split("-"))

    loads = [sum(map(seconds, d["variants"])) for d in devices]
    loads[0] += seconds("bad_own_stream")
    assert max(loads) - min(loads) <= max(map(seconds, few)), loads


@pytest.mark.parametrize("extra, message", [
    (["--groups-per-gpu", "0"], "gpu-check: --groups-per-gpu takes a count of 1 or more, not 0"),
    (["--groups-per-gpu", "2", "--bench"], "gpu-check: --groups-per-gpu shares a GPU between children; "
                                            "the sweep times each kernel alone on its GPU: not with --bench"),
    (["--groups-per-gpu", "2", "--since", "reports/gpu.json"],
     "gpu-check: --groups-per-gpu spreads the suite over children; --since runs it in one"),
])
def test_groups_per_gpu_is_refused_in_one_line_where_it_cannot_hold(capsys, extra, message):
    from softmax_harness.run import cli

    assert cli.main(extra) == 2
    assert capsys.readouterr().err == message + "\n"


def test_a_spread_run_finds_what_a_one_gpu_run_does_and_a_change_is_named(monkeypatch, tmp_path, capsys):
    """--same-content: the report of two children sharing a GPU against one child's over the same
    tests finds the same (times, groups and devices apart); an outcome, a catch or a sanitizer's
    verdict that differs is named, and a tally only under the derandomised ci profile."""

    from softmax_harness import catalog
    from softmax_harness.run import cli, schema

    _children_on_one_gpu(monkeypatch)
    two, one = tmp_path / "two.json", tmp_path / "one.json"
    spread_run = ["--out", str(two), "--groups-per-gpu", "2", "--balance-from", str(tmp_path / "no.json")]
    assert cli.main(spread_run) == 0
    refs = [v.ref for v in catalog.select("variant")] + [v.name for v in catalog.known_bad()]
    schema.write(_report_for(["--group", "1/1", *(f"--variant={r}" for r in refs)]), one)
    assert cli.main(["--same-content", str(two), str(one)]) == 0
    assert capsys.readouterr().out.endswith(f"found the same ({len(schema.load(two)['tests'])} tests)\n")

    report = schema.load(one)
    first, bad = report["tests"][0]["nodeid"], catalog.known_bad()[0].name
    report["tests"][0]["outcome"] = "failed"
    report["gallery"]["caught"][bad] = False
    report["tally"] = {"k": {"rows": 10, "seconds": 1.0}}
    report["sanitizer"] = {"memcheck": {"ok": False, "errors": 2, "variants": ["v"], "seconds": 1.0}}
    schema.write(report, one)
    assert cli.main(["--same-content", str(two), str(one)]) == 1
    said = capsys.readouterr().out.splitlines()
    assert said == [f"gpu-check: tests {first}: passed against failed",
                    f"gpu-check: gallery {bad}: True against False",
                    "gpu-check: sanitizer memcheck: absent against "
                    "{'ok': False, 'errors': 2, 'variants': ['v']}"]
    report["hypothesis_profile"] = "ci"
    assert any(line.startswith("tally k: absent against") for line in
               schema.differences(schema.load(two) | {"hypothesis_profile": "ci"}, report))
    assert cli.main(["--same-content", str(two), str(tmp_path / "missing.json")]) == 2


def test_a_spread_run_balances_by_the_earlier_report():
    """The variants that took long in the earlier report are spread first; the gallery's time
    counts against the first group."""
    from softmax_harness import catalog
    from softmax_harness.run import spread

    names = [v.ref for v in catalog.select("variant")]
    slow = names[:4]
    tests = [{"nodeid": f"tests/test_kernels.py::test_x[{v}-float32]", "outcome": "passed",
              "duration": 100.0 if v in slow else 1.0} for v in names]
    tests.append({"nodeid": "tests/test_known_bad.py::test_gallery", "outcome": "passed", "duration": 50.0})
    seconds, other = spread.recorded_seconds({"tests": tests}, names)
    assert seconds[slow[0]] == 100.0 and seconds[names[-1]] == 1.0 and other == 50.0
    groups = spread.balance(names, seconds, 4, first_load=other)
    assert sorted(sum(v in slow for v in g) for g in groups) == [1, 1, 1, 1]
    assert len(groups[0]) < len(groups[1])  # the gallery's 50 s leave it fewer variants
    # a run of named variants (the H100's rehearsal put its 4 in one group): the first carries the
    # hunts of its own known-bad kernels, not the whole gallery and the other variants' tests
    tests.append({"nodeid": "tests/test_known_bad.py::test_catches_the_defect[bad_own_stream]",
                  "outcome": "passed", "duration": 7.0})
    named, other = spread.recorded_seconds({"tests": tests}, slow, ["bad_own_stream"])
    assert named == dict.fromkeys(slow, 100.0) and other == 7.0
    assert spread.recorded_seconds({"tests": tests}, slow)[1] == 50.0 + 7.0 + len(names) - len(slow)


def test_a_group_child_runs_the_gallery_only_as_the_first_group(monkeypatch):
    import io

    import pytest

    from softmax_harness.run import orchestrate

    labels = []
    monkeypatch.setattr(orchestrate, "_batch", lambda label, *a: labels.append(label) or [])
    wanted = ["online_warp", "bad_early_return"]
    assert orchestrate.select(orchestrate.Plan(group="1/3", variants=wanted)) == (["online_warp"],
                                                                                 ["bad_early_return"])
    assert orchestrate.select(orchestrate.Plan(group="2/3", variants=wanted)) == (["online_warp"], [])
    report = orchestrate.run_suite(orchestrate.Plan(group="2/3", variants=wanted), io.StringIO())
    assert labels == ["variants"] and report["shard"] == "2/3"
    labels.clear()
    orchestrate.run_suite(orchestrate.Plan(group="1/3", variants=["online_warp"]), io.StringIO())
    assert labels == ["gallery", "variants"]  # the first group runs the tests that take no variant
    with pytest.raises(ValueError, match="expected K/N with 1 <= K <= N, got '4/3'"):
        orchestrate.select(orchestrate.Plan(group="4/3"))


def test_a_run_of_named_variants_runs_their_tests_only(monkeypatch):
    """``--variant`` (a staged kernel's check, say) runs the variants' tests, and the hunts of the
    known-bad kernels named, not every test that takes no variant."""
    import io

    from softmax_harness.run import orchestrate

    batches = []
    monkeypatch.setattr(orchestrate, "_batch", lambda label, args, *a: batches.append((label, args)) or [])
    orchestrate.run_suite(orchestrate.Plan(variants=["online_warp"]), io.StringIO())
    assert [label for label, _ in batches] == ["variants"]
    batches.clear()
    orchestrate.run_suite(orchestrate.Plan(variants=["online_warp", "bad_early_return"]), io.StringIO())
    assert [label for label, _ in batches] == ["gallery", "variants"]
    # the hunts alone: --no-variants keeps every test that takes none unless told otherwise
    assert {"--variant=bad_early_return", "--variant-tests-only"} <= set(batches[0][1])
    batches.clear()
    orchestrate.run_suite(orchestrate.Plan(), io.StringIO())  # the whole suite: the gallery whole
    assert batches[0][0] == "gallery" and "--variant-tests-only" not in batches[0][1]


def test_a_spread_of_named_variants_runs_no_test_that_takes_none(monkeypatch):
    """The H100's rehearsal: a named run on one child spent its deadline on the 196 tests that take
    no variant, which a run of named variants leaves out; its spread's first group ran them too.
    Now a spread's children know the run was named, and its first group runs the hunts alone."""
    from pathlib import Path

    from softmax_harness.run import orchestrate, spread

    plan = orchestrate.Plan(variants=["online_warp", "bad_early_return"])
    child = spread.child_command(plan, ["online_warp", "bad_early_return"], 1, 2, Path("g.json"))
    assert "--named" in child
    assert "--named" not in spread.child_command(orchestrate.Plan(), ["online_warp"], 1, 2, Path("g.json"))
    batches = []
    monkeypatch.setattr(orchestrate, "_batch", lambda label, args, *a: batches.append((label, args)) or [])
    first = orchestrate.Plan(group="1/2", named=True, variants=["online_warp", "bad_early_return"])
    orchestrate.run_suite(first, io.StringIO())
    assert [label for label, _ in batches] == ["gallery", "variants"]
    assert "--variant-tests-only" in batches[0][1]
    batches.clear()
    orchestrate.run_suite(orchestrate.Plan(group="1/2", named=True, variants=["online_warp"]), io.StringIO())
    assert [label for label, _ in batches] == ["variants"]


def test_the_sweep_spreads_its_inputs_over_a_faked_count_of_gpus(monkeypatch, tmp_path):
    """Each input (type and shape) is timed on one GPU, every benchmark once; the shares join
    into one saved run in which each benchmark names the GPU that measured it. A share whose
    child saved nothing is a failure of the sweep, not of the others."""
    import io
    import json
    from pathlib import Path

    from softmax_harness.run import spread, sweep

    kernels = ("copy", "online_warp", "torch.softmax")
    ids = [f"tests/test_bench.py::test_softmax_bandwidth[{p}C{c}-{k}]"
           for p in ("", "bfloat16-") for c in (32, 1024, 65535) for k in kernels]
    ids += [f"tests/test_bench.py::test_latency[latency-{d}-{n}x32000-{w}]"
            for d in ("float32", "bfloat16") for n in (1, 8) for w in ("torch", "quack")]
    assert sweep.input_key(ids[0]) == "float32-C32" and sweep.input_key(ids[-1]) == "latency-bfloat16-8x32000"
    gpus = faked_gpus()
    seen = []

    def start(command, env, output):
        share = [a for a in command if a.startswith("tests/")]
        seen.append((env["CUDA_VISIBLE_DEVICES"], share))
        out = Path(next(a for a in command if a.startswith("--benchmark-json=")).split("=", 1)[1])
        if env["CUDA_VISIBLE_DEVICES"] == gpus[3]["uuid"]:
            return Finished(1)  # saved nothing
        benchmarks = [{"fullname": i, "extra_info": {}, "stats": {}} for i in share]
        out.write_text(json.dumps({"machine_info": {}, "commit_info": {}, "datetime": "now",
                                   "benchmarks": benchmarks}))
        return Finished(0)

    monkeypatch.setattr(sweep, "_collect", lambda: ids)
    monkeypatch.setattr(spread, "start_child", start)
    monkeypatch.setattr(sweep, "_report_and_prune", lambda run, out_dir, storage: run)
    result = sweep.sweep_spread(gpus, io.StringIO(), tmp_path / "reports", storage=tmp_path / "bench")
    assert sorted(i for _, share in seen for i in share) == sorted(ids)
    owner = {}
    for uuid, share in seen:
        for i in share:
            assert owner.setdefault(sweep.input_key(i), uuid) == uuid  # one input, one GPU
    assert len({uuid for uuid, share in seen if share}) == 4
    run = json.loads(Path(result["run"]).read_text())
    lost = {i for uuid, share in seen if uuid == gpus[3]["uuid"] for i in share}
    assert sorted(b["fullname"] for b in run["benchmarks"]) == sorted(set(ids) - lost)
    assert {b["extra_info"]["gpu"]["uuid"] for b in run["benchmarks"]} == {g["uuid"] for g in gpus[:3]}
    assert result["failures"] and "GPU 3" in result["failures"][0]
    assert Path(result["run"]).name.startswith("0001_")
