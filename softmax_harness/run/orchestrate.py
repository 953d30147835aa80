"""The steps of one GPU run, in the order that lets a run with a deadline always come back
with a report: the known-bad gallery (each hunt in a child of its own) with the GPU tests
that take no variant (once: with the first shard), then every correct variant's tests (the long
part, which ``--deadline`` may cut short); the sanitizers run beside both from the start (they
keep the GPU mostly idle, and take a few minutes whatever else runs)."""

from __future__ import annotations

import concurrent.futures
import importlib.util
import io
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import catalog, gpu
from ..properties import merge_tally
from . import carry, schema
from .children import run_resuming
from .sanitize import TOOLS, sanitize


@dataclass
class Plan:
    """What one run does (the command line's options)."""

    out: Path = schema.REPORT
    profile: str = "dev"
    timeout: float = 900
    test_timeout: float = 300
    workers: int = 0
    variants: list[str] = field(default_factory=list)  # empty: all
    shard: str | None = None
    group: str | None = None  # "K/N": the variants named are group K of a run spread over N GPUs
    named: bool = False  # with group: the spread run's variants were named, not the whole suite
    deadline: float | None = None
    rest_of: Path | None = None
    since: Path | None = None  # a whole, clean earlier report: carry the unchanged variants' outcomes
    same_sass: Path | None = None  # with since: tools/sass-same's answer, the moved variants it vouches for
    sanitize: bool = False
    sanitizer_timeout: float = 300  # seconds for each sanitizer process
    # what --since found, once a run: the tree does not move under it (digests take ~1 s)
    _found: dict = field(default_factory=dict, init=False, repr=False, compare=False)


def _named(plan: Plan) -> tuple[list[str], list[str]]:
    """(correct variants, known-bad kernels) the command line names (every one by default)."""
    wanted = plan.variants or None
    return ([v.ref for v in catalog.select("variant", wanted)],
            [v.ref for v in catalog.select("bad_variant", wanted)])


@dataclass
class _Since:
    """What ``--since`` finds for the refs named: its report, ``--same-sass``'s answer (None
    without it) and the moved refs it vouches for, their digests now, and those it carries."""

    earlier: dict
    answer: dict | None
    vouched: dict
    now: dict[str, str]
    same: set[str]


def _since(plan: Plan, refs: list[str]) -> _Since:
    key = tuple(refs)
    if key not in plan._found:
        earlier = _base(plan)
        answer, vouched = _same_sass(plan, earlier)
        now = carry.variant_digests(refs)
        plan._found[key] = _Since(earlier, answer, vouched, now,
                                  set(carry.unchanged(earlier, refs, vouched, now)))
    return plan._found[key]


def select(plan: Plan) -> tuple[list[str], list[str]]:
    """(correct variants, known-bad kernels) that the run covers, as the command line names them."""
    names, bad = _named(plan)
    if plan.since:
        same = _since(plan, names + bad).same
        names, bad = [n for n in names if n not in same], [b for b in bad if b not in same]
    names, bad = _shard_of(plan, names, bad)
    if plan.group:
        k, _ = _fraction(plan.group)
        bad = bad if k == 1 else []
    return names, bad


def _shard_of(plan: Plan, names: list[str], bad: list[str]) -> tuple[list[str], list[str]]:
    """The share of ``names`` and ``bad`` that ``--shard`` K/N takes (the known-bad with 1/N)."""
    if not plan.shard:
        return names, bad
    k, n = _fraction(plan.shard)
    return names[k - 1::n], bad if k == 1 else []


def since_lines(plan: Plan) -> list[str]:
    """What ``--since`` leaves to run, said before anything runs: how many of the variants and
    known-bad kernels named (every one by default) move, how many of those this shard takes, and
    where the moved ones could be carried by their machine code but are not: no ``--same-sass``,
    or an answer that does not speak for them (made before they last moved)."""
    if not plan.since:
        return []
    correct, known_bad = _named(plan)
    refs = correct + known_bad
    since = _since(plan, refs)
    same = since.same
    moving = [ref for ref in refs if ref not in same]
    here = sum(len(part) for part in _shard_of(plan, [r for r in correct if r not in same],
                                                [b for b in known_bad if b not in same]))
    lines = [f"gpu-check: since {plan.since.name}: {len(moving)} of {len(refs)} variants and known-bad "
             f"kernels to run" + (f", {here} of them in shard {plan.shard}" if plan.shard else "")]
    if since.answer is None:
        if moving:
            lines.append(f"gpu-check: no --same-sass: those whose sources moved run even where their machine "
                         f"code did not (tools/sass-same {plan.since} REV says which)")
    else:
        silent = carry.unspoken(since.answer, since.earlier, moving, since.now)
        if silent:
            lines.append(f"gpu-check: {plan.same_sass.name} does not speak for {len(silent)} of them as they "
                         f"are now (e.g. {silent[0]}): made before they last moved? Remake it from this "
                         f"tree: tools/sass-same {plan.since} REV")
    return lines


def _base(plan: Plan) -> dict:
    """The report ``--since`` names, checked to be one to carry outcomes from."""
    if plan.rest_of:
        raise ValueError("--since and --rest-of: a rest-of run finishes one tree's report, carrying nothing")
    earlier = schema.load(plan.since)
    carry.check_base(earlier, plan.since.name)
    return earlier


def _same_sass(plan: Plan, earlier: dict) -> tuple[dict | None, dict]:
    """``--same-sass``'s answer (None without it) and the moved variants it vouches for
    (:func:`.carry.vouched_by`)."""
    if not plan.same_sass:
        return None, {}
    answer = carry.read_same_sass(plan.same_sass)
    return answer, carry.vouched_by(answer, earlier, plan.same_sass.name)


def _carried(plan: Plan, here: str | None) -> dict | None:
    """What this run takes over from ``--since``'s report: the variants it does not run (the
    first shard or group only, so that a merge counts them once); ``here``, this run's card."""
    if not plan.since or not _first_part(plan):
        return None
    correct, known_bad = _named(plan)
    found = _since(plan, correct + known_bad)
    earlier, answer, vouched = found.earlier, found.answer, found.vouched
    same = found.same  # what select() left out, every shard
    changed = carry.suite_changes(earlier)
    if changed:
        print(f"gpu-check: the carried outcomes were judged by {plan.since.name}'s suite; changed since: "
              f"{changed if isinstance(changed, str) else ', '.join(changed)}", flush=True)
    judged_on = earlier["environment"].get("device")
    if judged_on and here and judged_on != here:
        print(f"gpu-check: the carried outcomes were judged on {judged_on} ({plan.since.name}); this run "
              f"runs on {here}", flush=True)
    since = {"report": plan.since.name, "generated": earlier["generated"], "device": judged_on,
             "suite_changed": changed}
    if answer is not None:
        by_sass = sorted(same & vouched.keys())  # it vouches for moved variants only
        launch = answer.get("launch_path")  # the launch path moved too: each variant's launch traced
        print(f"gpu-check: {len(by_sass)} variants whose sources moved carried: {plan.same_sass.name} "
              f"found their machine code unchanged ({answer['arch']}, {answer['toolchain']})"
              + (f", and their launch ({launch})" if launch else ""), flush=True)
        since["same_sass"] = {"file": plan.same_sass.name, "base": answer.get("base"), "arch": answer["arch"],
                              "toolchain": answer["toolchain"], "variants": by_sass,
                              **({"launch_path": launch} if launch else {})}
    return {**carry.carried(earlier, [n for n in correct if n in same],
                            [b for b in known_bad if b in same], TOOLS), "from": since}


def _gallery_here(plan: Plan) -> bool:
    """Whether this run runs the tests that take no variant: the whole suite, its first shard or
    group, or a run since a report; not a run of the variants named (``--variant``: their own
    tests, and the hunts of the known-bad kernels among them; in a spread, ``named``), nor one that
    finishes another."""
    spread_of_all = bool(plan.group) and not plan.named
    return _first_part(plan) and not plan.rest_of and (not plan.variants or spread_of_all or bool(plan.since))


def _first_part(plan: Plan) -> bool:
    """Whether this run is the whole run, or its first shard or group (the one the gallery and
    the tests that take no variant go with)."""
    return all(_fraction(p)[0] == 1 for p in (plan.shard, plan.group) if p)


def _fraction(text: str) -> tuple[int, int]:
    """K and N of "K/N" (1 <= K <= N)."""
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"expected K/N, got {text!r}") from None
    if not 1 <= k <= n:
        raise ValueError(f"expected K/N with 1 <= K <= N, got {text!r}")
    return k, n


def _batch(label: str, pytest_args: list[str], plan: Plan, log, tally: dict, deadline) -> list[dict]:
    print(f"gpu-check: {label} ...", flush=True)
    got, t = run_resuming(label, pytest_args, plan.timeout, log, deadline=deadline)
    merge_tally(tally, t)
    print(f"gpu-check: {label}: " + ", ".join(
        f"{sum(r['outcome'] == o for r in got)} {o}" for o in schema.OUTCOMES), flush=True)
    return got


#: tool -> the processes that share its variants. Racecheck tracks every shared-memory access
#: and is the slow one: over the 342 variants of commit 880e389, 8 processes beside the tests
#: passed the 300 s each is allowed; alone on the GPU (a --rest-of run) they took 342 s at most
#: (reports/gpu.json; hence --sanitizer-timeout).
PARTS = {"racecheck": 8}


def _parts(names: list[str], n: int) -> list[list[str]]:
    """``names`` dealt into at most ``n`` non-empty parts (every n-th name, so that the slow
    kernels of a family spread over them); one empty part when there are no names."""
    return [names[k::n] for k in range(min(n, len(names)))] or [names]


def _joined(a: dict, b: dict) -> dict:
    """Two parts of one tool's run as one result: its errors are unknown if either part's are,
    and it took as long as the longer part (they run at once)."""
    errors = None if None in (a["errors"], b["errors"]) else a["errors"] + b["errors"]
    return {**a, "variants": a["variants"] + b["variants"], "errors": errors, "ok": a["ok"] and b["ok"],
            "probed": a.get("probed", 0) + b.get("probed", 0), "seconds": max(a["seconds"], b["seconds"]),
            "output": f"{a['output']}\n{b['output']}"}


def sanitize_all(names: list[str], bad: list[str], log, tools: dict[str, list[str]] | None = None,
                 timeout: float = 300) -> dict:
    """Every tool over every correct variant (zero reports required), and each known-bad kernel
    that declares ``sanitizer=TOOL`` under that tool (which must flag it); ``tools``, tool -> its
    variants, in place of every tool over ``names`` (the tools a ``--rest-of`` run runs again).
    The runs are independent child processes and the sanitizers keep the GPU mostly idle, so they
    run at once (the longest, racecheck on the racy kernel, sets the time)."""
    over = {tool: names for tool in TOOLS} if tools is None else tools
    jobs = [(tool, tool, part, False)
            for tool, refs in over.items() for part in _parts(refs, PARTS.get(tool, 1))]
    for v in (catalog.variant(ref) for ref in bad):
        if v.spec.sanitizer is not None:
            jobs.append((f"{v.spec.sanitizer}_flags_{v.name}", v.spec.sanitizer, [v.ref], True))
    for tool, refs in over.items():
        parts = len(_parts(refs, PARTS.get(tool, 1)))
        print(f"gpu-check: compute-sanitizer --tool={tool} over {len(refs)} variants"
              + (f" in {parts} processes" if parts > 1 else "") + " ...", flush=True)
    for _, tool, refs, must_flag in jobs:
        if must_flag:
            print(f"gpu-check: compute-sanitizer --tool={tool} over {refs[0]} ...", flush=True)

    def one(job):
        key, tool, refs, must_flag = job
        started = time.time()
        r = sanitize(tool, refs, timeout)
        ok = bool(r["errors"]) if must_flag else r["ok"]
        return key, {**r, "ok": ok, "name": key, "seconds": round(time.time() - started, 1)}, must_flag

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        done = list(pool.map(one, jobs))
    results = {}
    for key, value, must_flag in done:
        what = f"{value['tool']} on {value['variants'][0]} (must flag it)" if must_flag else value["tool"]
        log.write(f"===== sanitizer {what}\n{value['output']}\n")  # each part's output once
        if key in results:  # another part of the same tool
            value = _joined(results[key], value)
        results[key] = value
    for key, value in results.items():
        print(f"gpu-check: sanitizer {key}: errors={value['errors']} ok={value['ok']} "
              f"({value['seconds']} s)", flush=True)
    return results


def _driver_version() -> str:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        return out.stdout.strip().splitlines()[0]
    except Exception as exc:  # no nvidia-smi: say so rather than guess
        return f"unknown ({exc.__class__.__name__})"


def run_suite(plan: Plan, log, bench: dict | None = None) -> dict:
    """Run the suite as ``plan`` says, writing the children's output to ``log``; the report."""
    started = time.time()
    deadline = started + plan.deadline if plan.deadline else None
    names, bad = select(plan)
    common = ["-m", "gpu", f"--hypothesis-profile={plan.profile}"]
    if importlib.util.find_spec("pytest_timeout"):
        # A hung kernel blocks inside CUDA, where no signal reaches Python: the thread method
        # ends the process (under pytest-xdist, the worker), and the run resumes without it.
        common += [f"--timeout={plan.test_timeout:g}", "--timeout-method=thread"]
    tests, tally = [], {}
    rest, again = [], None
    if plan.rest_of:
        earlier = schema.load(plan.rest_of)
        rest = [t["nodeid"] for t in earlier["tests"]
                if t["outcome"] in schema.RERUN and not t["nodeid"].startswith("sanitizer::")
                and not t["nodeid"].endswith("[NOTSET]")]  # as read_collected, for older reports
        again = schema.sanitizers_to_rerun(earlier, TOOLS)
        names, bad = [], []
    spread = ["-n", str(plan.workers)] if plan.workers and importlib.util.find_spec("xdist") else []
    sanitizer_log = io.StringIO()
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as beside:
        sanitizing = beside.submit(sanitize_all, names, bad, sanitizer_log, again, plan.sanitizer_timeout) \
            if plan.sanitize and (names or again) else None
        everything = _gallery_here(plan)  # else the hunts alone
        if bad or everything:
            hunts_only = [] if everything else ["--variant-tests-only"]
            tests += _batch("gallery", ["tests", *common, *spread, "--no-variants", *hunts_only,
                                        *(f"--variant={n}" for n in bad)], plan, log, tally, deadline)
        chosen = [*common, *spread, *rest] if rest else \
            ["tests", *common, *spread, "--no-variants", "--variant-tests-only",
             *(f"--variant={n}" for n in names)]
        if names or rest:
            tests += _batch("variants", chosen, plan, log, tally, deadline)
        sanitizer = sanitizing.result() if sanitizing else {}
    log.write(sanitizer_log.getvalue())
    caught = schema.gallery_catches(tests, bad)
    environment = {**gpu.describe(), "driver": _driver_version(), "python": sys.version.split()[0]}
    taken = _carried(plan, environment.get("device"))
    if taken:
        tests += taken["tests"]
        for key, result in taken["sanitizer"].items():
            sanitizer[key] = _joined(result, sanitizer[key]) if key in sanitizer else result
        caught = {**taken["caught"], **caught}
        merge_tally(tally, taken["tally"])
    everything = {v.ref: None for wanted in (None, plan.variants or None)  # and NAME@DIR's named
                  for kind in ("variant", "bad_variant") for v in catalog.select(kind, wanted)}
    return schema.build(
        tests=tests, sanitizer=sanitizer, caught=caught, tally=tally,
        environment=environment,
        kernels_sha256=schema.kernel_digests(), profile=plan.profile, seconds=time.time() - started,
        bench=bench, elsewhere_sha256=schema.elsewhere_digests(names), shard=plan.shard or plan.group,
        rest_of=plan.rest_of.name if plan.rest_of else None, since=taken["from"] if taken else None,
        variants_sha256=carry.variant_digests(list(everything)), suite_sha256=carry.suite_digests())
