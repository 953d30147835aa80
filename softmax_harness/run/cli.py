"""The GPU runner's command line (``tools/gpu-check``): the whole GPU suite into
``reports/gpu.json``, shards and their merge, the benchmark sweep."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import catalog, gpu
from . import schema
from .orchestrate import Plan, run_suite, sanitize_all, select, since_lines
from .spread import run_spread, visible_gpus
from .sweep import sweep, sweep_spread


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gpu-check", description="The whole GPU suite into reports/gpu.json.")
    p.add_argument("--out", type=Path, default=schema.REPORT)
    p.add_argument("--log", type=Path, default=None, help="full pytest output (default: beside --out)")
    p.add_argument("--profile", default="dev", help="Hypothesis profile: ci, dev or thorough")
    p.add_argument("--timeout", type=float, default=900, help="seconds per child process")
    p.add_argument("--test-timeout", type=float, default=300, help="seconds per test (pytest-timeout)")
    p.add_argument("--workers", type=int, default=0,
                   help="pytest-xdist processes for the variants' tests (default 0: one process)")
    p.add_argument("--variant", action="append", default=[],
                   help="only these variants' tests, and the hunts of the known-bad kernels among them, "
                        "not the tests that take no variant (NAME@DIR: the one declared under DIR, a staged "
                        "file, say; the report records the hashes of DIR's files beside those of kernels/)")
    p.add_argument("--shard", default=None, metavar="K/N",
                   help="only the K-th of N shares of the variants (the gallery goes with 1/N): "
                        "for device calls with a time limit; join the reports with --merge")
    p.add_argument("--one-gpu", action="store_true",
                   help="run on the first visible GPU only (by default the suite and the sweep are "
                        "spread over every visible GPU: a group of variants a GPU, balanced by "
                        "--balance-from; the sweep's inputs by count)")
    p.add_argument("--groups-per-gpu", type=int, default=1, metavar="K",
                   help="K groups of variants on each visible GPU at once, a child each (default 1); on "
                        "one GPU, 2 runs the spread of several GPUs there: its children, their merge and "
                        "the report's devices (not with --bench: a sweep times each kernel alone on its GPU)")
    p.add_argument("--balance-from", type=Path, default=schema.REPORT, metavar="REPORT",
                   help="the report whose test durations balance the groups over the GPUs "
                        "(default: reports/gpu.json; without it, by count)")
    p.add_argument("--group", default=None, metavar="K/N",
                   help="the variants named are group K of a run spread over N GPUs (the gallery goes "
                        "with 1/N); set by the spread run for each of its children")
    p.add_argument("--named", action="store_true",
                   help="with --group: the spread run was of variants named (--variant), so its first "
                        "group runs the hunts of the known-bad kernels among them, not the tests that "
                        "take no variant; set by the spread run")
    p.add_argument("--merge", nargs="+", type=Path, default=None, metavar="REPORT",
                   help="join shard reports of one tree into --out (no GPU needed)")
    p.add_argument("--same-content", nargs=2, type=Path, default=None, metavar=("REPORT", "OTHER"),
                   help="whether two reports found the same (every test's outcome, the gallery, the "
                        "sanitizers, the digests; the tallies under the derandomised ci profile), apart "
                        "from times and devices: a run spread over GPUs against one on one GPU (no GPU "
                        "needed)")
    p.add_argument("--deadline", type=float, default=None, metavar="SECONDS",
                   help="stop the tests still to run after this many seconds and write the report "
                        "(they are recorded as 'not run'; finish them with --rest-of)")
    p.add_argument("--rest-of", type=Path, default=None, metavar="REPORT",
                   help="run only the tests that REPORT records as 'not run', failed or errored (no "
                        "gallery), and with --sanitize the sanitizers it records as failed, over their "
                        "variants; join the reports with --merge, where the reruns' outcomes count "
                        "and the earlier ones are kept under 'reruns'")
    p.add_argument("--since", type=Path, default=None, metavar="REPORT",
                   help="run only the variants (and known-bad kernels) whose sources differ from those "
                        "REPORT (a whole, clean report, such as reports/gpu.json) recorded, with every "
                        "test that takes no variant, and carry REPORT's outcomes, sanitizer results and "
                        "tallies for the rest (on one GPU)")
    p.add_argument("--same-sass", type=Path, default=None, metavar="FILE",
                   help="with --since: carry as well the variants whose sources moved but whose "
                        "machine code FILE (tools/sass-same REPORT REV) found the same as REPORT's")
    p.add_argument("--no-tests", action="store_true", help="skip the test suite")
    p.add_argument("--bench", action="store_true",
                   help="run the benchmark sweep, save it under .benchmarks/ and write reports/bench.*")
    p.add_argument("--compare-fail", default=None, metavar="EXPR",
                   help="with --bench: fail on a regression against the last saved run, e.g. "
                        "median:20%% (pick a threshold above the noise of two runs of one version)")
    p.add_argument("--sanitize", action="store_true",
                   help="also run compute-sanitizer (memcheck, racecheck, initcheck, synccheck)")
    p.add_argument("--sanitizer-timeout", type=float, default=300, metavar="SECONDS",
                   help="seconds for each sanitizer process (racecheck's parts run at once)")
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.same_content:
            first, second = (schema.load(path) for path in args.same_content)
            found = schema.differences(first, second)
            for line in found:
                print(f"gpu-check: {line}")
            if not found:
                print(f"gpu-check: {args.same_content[0]} and {args.same_content[1]} found the same "
                      f"({len(first['tests'])} tests)")
            return 1 if found else 0
        if args.merge:
            report = schema.merge([schema.load(path) for path in args.merge])
            schema.write(report, args.out)
            print(f"gpu-check: merged {len(args.merge)} reports: {report['summary']} -> {args.out}")
            return 0 if schema.clean(report["summary"]) else 1
        plan = Plan(out=args.out, profile=args.profile, timeout=args.timeout, test_timeout=args.test_timeout,
                    workers=args.workers, variants=args.variant, shard=args.shard, group=args.group,
                    named=args.named, deadline=args.deadline, rest_of=args.rest_of, since=args.since,
                    same_sass=args.same_sass, sanitize=args.sanitize,
                    sanitizer_timeout=args.sanitizer_timeout)
        if args.same_sass and not args.since:
            raise ValueError("--same-sass vouches for variants against --since's report: name one")
        if args.groups_per_gpu < 1:
            raise ValueError(f"--groups-per-gpu takes a count of 1 or more, not {args.groups_per_gpu}")
        if args.groups_per_gpu > 1 and args.bench:
            raise ValueError("--groups-per-gpu shares a GPU between children; the sweep times each kernel "
                             "alone on its GPU: not with --bench")
        one_child = [f"--{k.replace('_', '-')}" for k in ("one_gpu", "shard", "group", "rest_of", "since")
                     if getattr(args, k)]
        if args.groups_per_gpu > 1 and one_child:
            raise ValueError(f"--groups-per-gpu spreads the suite over children; {one_child[0]} runs it "
                             "in one")
        names, bad = select(plan)  # an unknown name is an error before any GPU question
        for line in since_lines(plan):
            print(line, flush=True)
    except (OSError, ValueError, catalog.UnknownVariantError) as exc:  # OSError: a report not read
        print(f"gpu-check: {exc}", file=sys.stderr)
        return 2
    if not gpu.available():
        print("gpu-check: no CUDA device visible (CuPy sees none); nothing was run.", file=sys.stderr)
        return 2
    log_path = args.log or args.out.with_suffix(".log")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    alone = args.one_gpu or args.shard or args.group or args.rest_of or args.since
    gpus = [] if alone else [g for g in visible_gpus() for _ in range(args.groups_per_gpu)]
    with open(log_path, "w") as log:
        bench = {}
        if args.bench and len(gpus) > 1:
            if args.compare_fail:
                print("gpu-check: --compare-fail compares a one-GPU sweep (--one-gpu); not this one",
                      file=sys.stderr)
            bench = sweep_spread(gpus, log, args.out.parent)
        elif args.bench:
            bench = sweep(args.timeout, log, args.compare_fail, args.out.parent)
        if args.no_tests:
            sanitizer = sanitize_all(names, bad, log, timeout=args.sanitizer_timeout) if args.sanitize else {}
            ok = all(r["ok"] for r in sanitizer.values()) and not bench.get("failures")
            return 0 if ok else 1
        if len(gpus) > 1:
            report = run_spread(plan, gpus, log, earlier=args.balance_from, bench=bench)
        else:
            report = run_suite(plan, log, bench)
    schema.write(report, args.out)
    print(f"gpu-check: {report['summary']} in {report['seconds']} s -> {args.out} (log: {log_path})")
    return 0 if schema.clean(report["summary"]) and not bench.get("failures") else 1
