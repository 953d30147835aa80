"""``gpu-check --since REPORT``, without a GPU: a variant's digest follows everything that decides
the code it runs, and a run since a whole, clean report runs the variants whose digest moved
(and every test that takes no variant) and carries the earlier outcomes of the rest."""

from __future__ import annotations

import io

import pytest

from softmax_harness.run import carry, orchestrate, schema

HEADER = "// @variant name={name} kernel={name} algorithm=safe geometry=block-per-row threads=32\n"
BODY = '#include "inc.cuh"\nextern "C" __global__ void {name}(const float* x, float* y, int n, int c) {{}}\n'


TALLY = {"checks": 2, "rows": 6, "seconds": 0.5, "max_ulps": 3.0, "max_bound_ratio": 0.2, "failed_checks": 0}


def _kernels(tmp_path):
    for name in ("k1", "k2"):
        (tmp_path / f"{name}.cu").write_text(HEADER.format(name=name) + BODY.format(name=name))
    (tmp_path / "inc.cuh").write_text("#pragma once\n")
    (tmp_path / "other.cuh").write_text("#pragma once\n")
    return [f"k1@{tmp_path}", f"k2@{tmp_path}"]


def test_a_variants_digest_follows_its_file_its_includes_and_the_launch_path(tmp_path, monkeypatch):
    refs = _kernels(tmp_path)
    before = carry.variant_digests(refs)
    assert before[refs[0]] != before[refs[1]]  # each its own file
    (tmp_path / "other.cuh").write_text("#pragma once\n// not included by either\n")
    assert carry.variant_digests(refs) == before
    (tmp_path / "k2.cu").write_text((tmp_path / "k2.cu").read_text() + "// edited\n")
    after = carry.variant_digests(refs)
    assert after[refs[0]] == before[refs[0]] and after[refs[1]] != before[refs[1]]
    (tmp_path / "inc.cuh").write_text("#pragma once\n// both include it\n")
    assert all(a != b for a, b in zip(carry.variant_digests(refs).values(), after.values(), strict=True))
    launch = tmp_path / "variant.py"
    launch.write_text("# the launch\n")
    monkeypatch.setattr(carry, "LAUNCH_PATH", (launch,))
    moved = carry.variant_digests(refs)
    launch.write_text("# the launch, changed\n")
    assert all(a != b for a, b in zip(carry.variant_digests(refs).values(), moved.values(), strict=True))


def test_a_variants_digest_follows_its_python_launcher_beside_it(tmp_path):
    header = "// @variant name=k3 kernel=k3 algorithm=safe launcher=k3_launch:launch\n"
    (tmp_path / "k3.cu").write_text(header + BODY.format(name="k3"))
    (tmp_path / "inc.cuh").write_text("#pragma once\n")
    (tmp_path / "k3_launch.py").write_text("def launch(function, x, out):\n    pass\n")
    before = carry.variant_digests([f"k3@{tmp_path}"])
    (tmp_path / "k3_launch.py").write_text("def launch(function, x, out):\n    pass  # edited\n")
    assert carry.variant_digests([f"k3@{tmp_path}"]) != before


def _earlier(refs, digests, bad="bad_early_return"):
    k1, k2 = refs
    sanitizer = {
        "memcheck": {"name": "memcheck", "tool": "memcheck", "variants": [k1, k2], "errors": 0, "ok": True,
                     "seconds": 5.0, "probed": 10},
        f"racecheck_flags_{bad}": {"name": f"racecheck_flags_{bad}", "tool": "racecheck", "variants": [bad],
                                   "errors": 20, "ok": True, "seconds": 2.0},
    }
    tests = [f"t.py::x[{k1}]", f"t.py::x[{k1}-3]", f"t.py::x[{k2}]", "t.py::dispatched[float32]",
             f"known.py::catches_the_defect[{bad}]"]
    return schema.build(
        tests=[{"nodeid": t, "outcome": "passed", "duration": 1.0} for t in tests], sanitizer=sanitizer,
        caught={bad: True}, tally={"k1": TALLY, "k2": TALLY}, environment={"device": "H200"},
        kernels_sha256={"kernels/a.cu": "1"}, profile="dev", seconds=60.0, generated="2026-12-01T00:00:00Z",
        variants_sha256=digests)


def test_a_run_since_a_report_runs_what_changed_and_carries_the_rest(tmp_path, monkeypatch):
    refs = _kernels(tmp_path)
    k1, k2 = refs
    bad = "bad_early_return"
    digests = carry.variant_digests(refs + [bad])
    path = tmp_path / "gpu.json"
    schema.write(_earlier(refs, {**digests, k2: "an older k2"}), path)
    ran = {}

    def batch(label, args, plan, log, tally, deadline):
        ran[label] = [a.split("=", 1)[1] for a in args if a.startswith("--variant=")]
        return [{"nodeid": f"t.py::x[{k2}]", "outcome": "passed", "duration": 2.0}] if label == "variants" \
            else [{"nodeid": "t.py::dispatched[float32]", "outcome": "failed", "duration": 3.0}]

    def sanitize_all(names, bad, log, tools=None, timeout=300):
        ran["sanitized"] = (names, bad)
        return {"memcheck": {"name": "memcheck", "tool": "memcheck", "variants": names, "errors": 0,
                             "ok": True, "seconds": 1.0, "probed": 4, "output": ""}}

    monkeypatch.setattr(orchestrate, "_batch", batch)
    monkeypatch.setattr(orchestrate, "sanitize_all", sanitize_all)
    plan = orchestrate.Plan(variants=[*refs, bad], since=path, sanitize=True)
    report = orchestrate.run_suite(plan, io.StringIO())
    # only k2 ran (its digest moved); the tests that take no variant ran again, as the gallery's
    assert ran == {"gallery": [], "variants": [k2], "sanitized": ([k2], [])}
    outcomes = {t["nodeid"]: t["outcome"] for t in report["tests"]}
    assert outcomes == {f"t.py::x[{k1}]": "passed", f"t.py::x[{k1}-3]": "passed",
                        f"t.py::x[{k2}]": "passed", f"known.py::catches_the_defect[{bad}]": "passed",
                        "t.py::dispatched[float32]": "failed", "sanitizer::memcheck": "passed",
                        f"sanitizer::racecheck_flags_{bad}": "passed"}
    assert sorted(report["sanitizer"]["memcheck"]["variants"]) == sorted(refs)
    assert report["gallery"]["caught"] == {bad: True}
    assert report["tally"] == {"k1": TALLY}  # k2's earlier tally is not this tree's
    assert report["since"] == {"report": "gpu.json", "generated": "2026-12-01T00:00:00Z", "device": "H200",
                               "suite_changed": "unrecorded"}  # the earlier report has no suite digests
    assert report["variants_sha256"][k2] == digests[k2]
    # a later run since this report would run nothing again but the tests that take no variant
    # (were it clean)
    assert carry.unchanged(report, refs) == refs


def test_the_second_shard_of_a_run_since_a_report_carries_nothing(tmp_path, monkeypatch):
    refs = _kernels(tmp_path)
    path = tmp_path / "gpu.json"
    schema.write(_earlier(refs, carry.variant_digests(refs + ["bad_early_return"])), path)
    monkeypatch.setattr(orchestrate, "_batch", lambda label, *a: [])
    plan = orchestrate.Plan(variants=[*refs, "bad_early_return"], since=path, shard="2/2")
    assert orchestrate.run_suite(plan, io.StringIO())["tests"] == []  # the first shard carries them


def test_a_run_since_a_report_works_out_what_it_carries_once(tmp_path, monkeypatch):
    refs = _kernels(tmp_path)
    bad = "bad_early_return"
    path = tmp_path / "gpu.json"
    schema.write(_earlier(refs, {**carry.variant_digests(refs + [bad]), refs[1]: "an older k2"}), path)
    asked = []
    digests = carry.variant_digests

    def counted(wanted, tree=None):
        asked.append(tuple(wanted))
        return digests(wanted, tree)

    monkeypatch.setattr(carry, "variant_digests", counted)
    monkeypatch.setattr(orchestrate, "_batch", lambda label, *a: [])
    plan = orchestrate.Plan(variants=[*refs, bad], since=path)
    # as gpu-check's CLI: what it will run, said; then the run, which carries the rest
    assert orchestrate.select(plan) == ([refs[1]], [])
    orchestrate.since_lines(plan)
    report = orchestrate.run_suite(plan, io.StringIO())
    assert asked.count((*refs, bad)) == 1  # the report's own digests of the tree are asked apart
    assert len(asked) == 2 and report["variants_sha256"][refs[1]] == digests([refs[1]])[refs[1]]


@pytest.mark.parametrize("spoil, message", [
    (lambda r: r.pop("variants_sha256"), "records no variant digests"),
    (lambda r: r.update(shard="1/2"), "not a whole, clean report"),
    (lambda r: r["tests"][0].update(outcome="not run") or r.update(summary=schema.summary(r["tests"])),
     "not a whole, clean report"),
    (lambda r: r["sanitizer"]["memcheck"].update(ok=False), "a sanitizer result in it is not clean"),
])
def test_since_refuses_a_report_it_cannot_carry_from(tmp_path, capsys, spoil, message):
    from softmax_harness.run.cli import main

    refs = _kernels(tmp_path)
    earlier = _earlier(refs, carry.variant_digests(refs))
    spoil(earlier)
    schema.write(earlier, tmp_path / "gpu.json")
    assert main(["--since", str(tmp_path / "gpu.json"), "--variant", refs[0]]) == 2
    assert message in capsys.readouterr().err


def test_a_run_since_a_report_of_another_card_says_which_card_judged_what_it_carries(tmp_path, monkeypatch,
                                                                                   capsys):
    """A report since one made on an H200, run on an H100, carries the H200's outcomes under the
    H100's name: the run says so, and the report keeps the card that judged them."""
    refs = _kernels(tmp_path)
    path = tmp_path / "gpu.json"
    schema.write(_earlier(refs, carry.variant_digests(refs + ["bad_early_return"])), path)
    monkeypatch.setattr(orchestrate, "_batch", lambda label, *a: [])
    plan = orchestrate.Plan(variants=[*refs, "bad_early_return"], since=path)
    for here, said in (("H100", True), ("H200", False)):
        monkeypatch.setattr(orchestrate.gpu, "describe", lambda here=here: {"device": here})
        report = orchestrate.run_suite(plan, io.StringIO())
        assert report["since"]["device"] == "H200"
        line = "gpu-check: the carried outcomes were judged on H200 (gpu.json); this run runs on H100\n"
        assert (line in capsys.readouterr().out) is said


def test_a_run_since_a_report_names_the_suite_files_changed_since_it(tmp_path, monkeypatch):
    """A carried outcome was judged by the earlier report's suite: the run says which of the
    suite's files (the strategies, the bounds, the tests) differ from it."""
    refs = _kernels(tmp_path)
    earlier = _earlier(refs, carry.variant_digests(refs + ["bad_early_return"]))
    suite = carry.suite_digests()
    assert "softmax_harness/bounds.py" in suite and "tests/test_kernels.py" in suite
    assert not any(k.startswith("softmax_harness/run/") for k in suite)  # the runner judges nothing
    path = tmp_path / "gpu.json"
    schema.write({**earlier, "suite_sha256": {**suite, "softmax_harness/bounds.py": "older"}}, path)
    monkeypatch.setattr(orchestrate, "_batch", lambda label, *a: [])
    report = orchestrate.run_suite(orchestrate.Plan(variants=[*refs, "bad_early_return"], since=path),
                                   io.StringIO())
    assert report["since"]["suite_changed"] == ["softmax_harness/bounds.py"]
    assert report["suite_sha256"] == suite
    schema.write({**earlier, "suite_sha256": suite}, path)
    report = orchestrate.run_suite(orchestrate.Plan(variants=[*refs, "bad_early_return"], since=path),
                                   io.StringIO())
    assert report["since"]["suite_changed"] == []


@pytest.mark.parametrize("key", ["variants_sha256", "suite_sha256"])
def test_shard_reports_of_other_trees_or_suites_are_not_merged(tmp_path, key):
    refs = _kernels(tmp_path)
    earlier = _earlier(refs, carry.variant_digests(refs))
    one = {**earlier, "suite_sha256": carry.suite_digests(), "shard": "1/2"}
    other = {**one, "shard": "2/2", key: {"a file": "another digest"}}
    assert schema.merge([one, {**one, "shard": "2/2"}])["suite_sha256"] == one["suite_sha256"]
    with pytest.raises(ValueError, match=f"disagree on {key}"):
        schema.merge([one, other])


def _answer(earlier, same):
    """A ``tools/sass-same`` answer for ``earlier`` vouching for ``same``: ref -> (before, now)."""
    return {"report_generated": earlier["generated"], "arch": "sm_90", "toolchain": "NVRTC 13.0",
            "base": "abc", "changed": {},
            "same": {ref: {"before": before, "now": now, "sass": "s"} for ref, (before, now) in same.items()}}


def test_a_run_since_a_report_carries_the_moved_variants_whose_sass_the_answer_vouches_for(tmp_path,
                                                                                           monkeypatch):
    refs = _kernels(tmp_path)
    k1, k2 = refs
    bad = "bad_early_return"
    digests = carry.variant_digests(refs + [bad])
    path, answer = tmp_path / "gpu.json", tmp_path / "same_sass.json"
    earlier = _earlier(refs, {**digests, k1: "an older k1", k2: "an older k2"})
    schema.write(earlier, path)
    schema.write(_answer(earlier, {k2: ("an older k2", digests[k2])}), answer)
    ran = {}
    monkeypatch.setattr(orchestrate, "_batch", lambda label, args, *rest: ran.setdefault(label, [
        a.split("=", 1)[1] for a in args if a.startswith("--variant=")]) and [])
    report = orchestrate.run_suite(orchestrate.Plan(variants=[*refs, bad], since=path, same_sass=answer),
                                   io.StringIO())
    assert ran["variants"] == [k1]  # k2's sources moved, its machine code did not
    assert f"t.py::x[{k2}]" in {t["nodeid"] for t in report["tests"]}
    assert report["since"]["same_sass"] == {"file": "same_sass.json", "base": "abc", "arch": "sm_90",
                                            "toolchain": "NVRTC 13.0", "variants": [k2]}
    # k2 edited after the answer was made: the answer no longer speaks for what would run
    (tmp_path / "k2.cu").write_text((tmp_path / "k2.cu").read_text() + "// edited again\n")
    vouched = carry.vouched_by(_answer(earlier, {k2: ("an older k2", digests[k2])}), earlier, "a")
    assert carry.unchanged(earlier, refs, vouched) == []


def test_a_run_since_a_report_says_what_it_will_run_and_an_answer_made_before_the_last_move(tmp_path, capsys,
                                                                                             monkeypatch):
    from softmax_harness import gpu
    from softmax_harness.run.cli import main

    monkeypatch.setattr(gpu, "available", lambda: False)  # said before the GPU question; nothing runs
    refs = _kernels(tmp_path)
    k1, k2 = refs
    digests = carry.variant_digests(refs)
    earlier = _earlier(refs, {k1: "an older k1", k2: "an older k2"})
    schema.write(earlier, tmp_path / "gpu.json")
    since = ["--since", str(tmp_path / "gpu.json"), "--variant", k1, "--variant", k2, "--out",
             str(tmp_path / "out.json")]
    main(since)
    said = capsys.readouterr().out
    assert "2 of 2 variants and known-bad kernels to run" in said and "no --same-sass" in said
    # an answer for this tree: k2's machine code the same, k1's changed; it speaks for both
    fresh = {**_answer(earlier, {k2: ("an older k2", digests[k2])}), "changed": {k1: "its SASS changed"}}
    schema.write(fresh, tmp_path / "fresh.json")
    main([*since, "--same-sass", str(tmp_path / "fresh.json"), "--shard", "1/2"])
    said = capsys.readouterr().out
    assert "1 of 2 variants and known-bad kernels to run, 1 of them in shard 1/2" in said
    assert "does not speak for" not in said
    # the answer of the change before: k2 vouched for as it was then, k1 not named
    schema.write(_answer(earlier, {k2: ("an older k2", "k2 before its last edit")}), tmp_path / "stale.json")
    main([*since, "--same-sass", str(tmp_path / "stale.json")])
    said = capsys.readouterr().out
    assert "2 of 2 variants" in said and "stale.json does not speak for 2 of them" in said


def test_a_same_sass_answer_for_another_report_or_without_since_is_refused(tmp_path, capsys):
    from softmax_harness.run.cli import main

    refs = _kernels(tmp_path)
    earlier = _earlier(refs, carry.variant_digests(refs))
    schema.write(earlier, tmp_path / "gpu.json")
    schema.write({**_answer(earlier, {}), "report_generated": "2026-11-30T00:00:00Z"}, tmp_path / "same.json")
    argv = ["--variant", refs[0], "--same-sass", str(tmp_path / "same.json")]
    assert main(["--since", str(tmp_path / "gpu.json"), *argv]) == 2
    assert "made for the report generated 2026-11-30T00:00:00Z" in capsys.readouterr().err
    assert main(argv) == 2
    assert "name one" in capsys.readouterr().err
    (tmp_path / "same.json").write_text("{}")
    assert main(["--since", str(tmp_path / "gpu.json"), *argv]) == 2
    assert "not an answer of tools/sass-same" in capsys.readouterr().err


LISTING = """
Fatbin elf code:
================
arch = sm_90
host = linux

\tcode for sm_90
\t\tFunction : kb
\t.headerflags\t@"EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;          /* 0x00000a00ff017b82 */
                                                                   /* 0x000fe20000000800 */
        /*0010*/                   EXIT ;                          /* 0x000000000000794d */
                                                                   /* 0x000fea0003800000 */
\t\t..........

\t\tFunction : ka
        /*0000*/                   EXIT ;                          /* 0x000000000000794d */
                                                                   /* 0x000fea0003800000 */
"""


def test_each_kernels_sass_is_read_apart_with_its_scheduling_and_without_the_listings_header():
    from softmax_harness.run import sass

    kernels = sass.functions(LISTING)
    assert list(kernels) == ["kb", "ka"]
    assert [" ".join(line.split()) for line in kernels["ka"].splitlines()] == [
        "/*0000*/ EXIT ; /* 0x000000000000794d */", "/* 0x000fea0003800000 */"]
    assert "LDC" in kernels["kb"] and "headerflags" not in kernels["kb"] and "sm_90" not in kernels["kb"]
    # the same instructions scheduled otherwise (another stall count) are another kernel
    assert sass.functions(LISTING.replace("0x000fea0003800000", "0x000fe40003800000"))["ka"] != kernels["ka"]


def test_a_kernels_sass_does_not_move_with_the_listings_column_widths():
    from softmax_harness.run import sass

    # a longer instruction elsewhere in the file widens every line's padding
    wider = LISTING.replace(" ;          /*", " ;                /*")
    wider = wider.replace("      /* 0x000f", "            /* 0x000f")
    assert wider != LISTING
    assert sass.functions(wider) == sass.functions(LISTING)
    assert sass.functions(wider.replace("EXIT ;", "EXIT;"))["ka"] != sass.functions(LISTING)["ka"]


def test_instructions_past_the_first_64_kib_of_a_kernel_are_read_too():
    from softmax_harness.run import sass

    far = LISTING.replace("/*0010*/                   EXIT", "/*10010*/                  EXIT")
    other = far.replace("/*10010*/                  EXIT", "/*10010*/                  NOP ")
    assert "EXIT" in sass.functions(far)["kb"]
    assert sass.functions(other)["kb"] != sass.functions(far)["kb"]


def _tree(root, inc, headers=None):
    """A repository copy in ``root``: three kernels including inc.cuh (only ka calls it)."""
    (root / "kernels").mkdir(parents=True)
    (root / "softmax_harness").mkdir()
    (root / "softmax_harness" / "variant.py").write_text("# the launch\n")
    (root / "kernels" / "inc.cuh").write_text(inc)
    body = {"ka": "y[i] = helper(x[i]);", "kb": "y[i] = 2.0f * x[i];", "kc": "y[i] = x[i] - 1.0f;"}
    for name, line in body.items():
        header = (headers or {}).get(name, HEADER.format(name=name))
        (root / "kernels" / f"{name}.cu").write_text(
            header + '#include "inc.cuh"\nextern "C" __global__ void ' + name +
            "(const float* x, float* y, int n, int c) {\n    int i = threadIdx.x;\n"
            "    if (i < c) " + line + "\n}\n")
    return [f"{name}@{root / 'kernels'}" for name in body]


def test_sass_same_vouches_only_for_kernels_whose_machine_code_and_header_did_not_move(tmp_path, monkeypatch,
                                                                                         disassembly):
    """An edit to a shared header that only one kernel's code uses: the offline compile finds the
    other kernels' SASS unchanged (one's @variant line changed, so it is not vouched for)."""
    from softmax_harness.run import sass

    helper = "static __device__ __forceinline__ float helper(float v) {{ return v + {}; }}\n"
    base, now = tmp_path / "base", tmp_path / "now"
    _tree(base, helper.format("1.0f"))
    other_header = HEADER.format(name="kc").replace("threads=32", "threads=64")
    refs = _tree(now, helper.format("2.0f"), {"kc": other_header})
    monkeypatch.setattr(carry, "ROOT", now)
    monkeypatch.setattr(carry, "LAUNCH_PATH", (now / "softmax_harness" / "variant.py",))
    ka, kb, kc = refs
    earlier = {"generated": "2026-12-01T00:00:00Z", "variants_sha256": carry.variant_digests(refs, base)}
    # compiled in processes of their own (workers=2): NVRTC run in this process left the listing
    # of `softmax-harness list` without its column gaps in a later test, under Python 3.12
    answer = sass.same_machine_code(earlier, base, workers=2, refs=refs)
    assert set(answer["same"]) == {kb}
    assert answer["changed"] == {ka: "its SASS changed", kc: "its @variant line changed"}
    assert answer["same"][kb]["before"] == earlier["variants_sha256"][kb] != answer["same"][kb]["now"]
    with pytest.raises(ValueError, match="not the tree the report tested"):
        sass.same_machine_code({**earlier, "variants_sha256": {r: "other" for r in refs}}, base, workers=2,
                               refs=refs)
    # one digest recorded otherwise (a file a digest takes in since): that variant reruns, no more
    other_kb = {**earlier, "variants_sha256": {**earlier["variants_sha256"], kb: "other"}}
    one_off = sass.same_machine_code(other_kb, base, workers=2, refs=refs)
    assert one_off["changed"] == {**answer["changed"], kb: "its digest in that tree is not the report's"}
    # the launch path moved since, in a tree with no harness to trace it in: nothing vouched for
    (now / "softmax_harness" / "variant.py").write_text("# another launch\n")
    moved = sass.same_machine_code(earlier, base, workers=2, refs=refs)
    assert moved["same"] == {} and set(moved["changed"]) == set(refs)
    assert all("the launch path moved and was not traced" in why for why in moved["changed"].values())


def test_the_staged_files_change_only_the_variants_whose_kernel_compiles_otherwise(tmp_path, disassembly):
    """``tools/sass-same --staged``: a staged copy of a kernel file that only reworded a comment
    changes no variant's SASS; one whose arithmetic moved changes its kernel's."""
    from softmax_harness.registry import KERNELS_DIR
    from softmax_harness.run import sass

    source = (KERNELS_DIR / "online_warp.cu").read_text()
    (tmp_path / "online_warp.cu").write_text(source + "// reworded\n")
    (tmp_path / "trial").mkdir()
    (tmp_path / "trial" / "online_warp.cu").write_text(source.replace("xr[i], s)", "2.0f * xr[i], s)"))
    assert sass.staged_changes(tmp_path, workers=2) == []  # trial/ is not staged in place
    (tmp_path / "online_warp.cu").write_text(source.replace("xr[i], s)", "2.0f * xr[i], s)"))
    assert sass.staged_changes(tmp_path, workers=2) == ["online_warp"]


def _diff_of(path, before: str, after: str) -> str:
    """``git diff``'s form of an edit to ``path`` (relative to the repository root)."""
    import difflib

    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 f"a/{path}", f"b/{path}")
    return "".join(lines)


def test_a_trial_diff_changes_only_the_variants_whose_kernel_compiles_otherwise(tmp_path, disassembly):
    """``tools/sass-same --diff``: a diff onto kernels/ that only rewords a comment changes no
    variant's SASS; one whose arithmetic moved changes its kernel's; one that does not apply, or
    that edits files outside kernels/, is refused in one line naming it."""
    from softmax_harness.registry import KERNELS_DIR
    from softmax_harness.run import sass

    source = (KERNELS_DIR / "online_warp.cu").read_text()
    reworded = tmp_path / "reworded.diff"
    reworded.write_text(_diff_of("kernels/online_warp.cu", source, source + "// reworded\n"))
    assert sass.diff_changes(reworded, workers=2) == []
    moved = tmp_path / "moved.diff"
    doubled = source.replace("xr[i], s)", "2.0f * xr[i], s)")
    moved.write_text(_diff_of("kernels/online_warp.cu", source, doubled))
    assert sass.diff_changes(moved, workers=2) == ["online_warp"]
    stale = tmp_path / "stale.diff"
    stale.write_text(_diff_of("kernels/online_warp.cu", source.replace("xr[i], s)", "x"), source))
    with pytest.raises(RuntimeError, match="stale.diff does not apply to kernels/"):
        sass.diff_changes(stale, workers=2)
    outside = tmp_path / "outside.diff"
    outside.write_text(_diff_of("softmax_harness/dispatch.py", "a\n", "b\n"))
    with pytest.raises(RuntimeError, match="outside.diff: expected a diff of files under kernels/"):
        sass.diff_changes(outside, workers=2)
