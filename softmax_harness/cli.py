"""Command line: check kernels and callables against the battery, list kernels, reproduce a failure,
and (with a GPU) measure kernels and report benchmark runs.

    softmax-harness check [TARGET...] [--sanitize] [--profile dev]   (a .cu file, a folder, module:function)
    softmax-harness list [--root DIR]
    softmax-harness repro VARIANT --recipe JSON | --npy FILE [--offset K] [--out-offset K] [--skew K]   (GPU)
    softmax-harness report [RUN.json] [--out reports/]
    softmax-harness measure KERNEL... --cols C... [--dtype float16] [--json FILE]   (GPU)

A variant is a name, or NAME@DIR for the one declared under DIR; an unknown name, or no GPU
for a command that needs one, exits with 2 and says which.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

from . import callables, catalog, gpu, ops, profiles, registry
from .ops.base import SCALAR_ROLES
from .report import RunFileError
from .report import add_parser as add_report


def _list(args) -> int:
    for v in catalog.variants(args.root) + catalog.known_bad(args.root):
        s = v.spec
        limit = s.max_cols if s.max_cols else "any"
        bad = f"  KNOWN BAD ({s.catches}): {s.defect}" if s.known_bad else ""
        fast = f" exp={s.exp}" if s.fast_math else ""
        print(f"{v.ref:31s} {s.op:16s} {s.algorithm:7s} {s.geometry:15s} threads={s.threads:<5d} "
              f"max_cols={limit!s:6s}{fast} {s.where}{bad}")
    for path, why in catalog.skipped(args.root):
        print(f"skipped: {path}: {why}")
    refused = catalog.refused(args.root)
    for _, why in refused:
        print(f"refused: {why}")
    return 2 if refused else 0


def _check(args) -> int:
    from .check import run

    return run(args.targets, sanitize=args.sanitize, profile=args.profile, out=args.out,
               timeout=args.timeout, test_timeout=args.test_timeout, select=args.select)


class CommandError(ValueError):
    """An argument that a command cannot take; the message says why in one line."""


def _no_gpu(command: str) -> int:
    print(f"softmax-harness {command}: no CUDA device visible (CuPy sees none, or is not installed); "
          "nothing was run.", file=sys.stderr)
    return 2


def _repro(args) -> int:
    from .properties import check
    from .strategies import BatchRecipe, RowRecipe, build_batch

    if (args.variant is None) == (args.subject is None):
        print("softmax-harness repro: name one variant, or one --subject MODULE:FUNCTION", file=sys.stderr)
        return 2
    if args.variant is not None:
        catalog.variant(args.variant)  # an unknown name first, GPU or not
        if not gpu.available():
            return _no_gpu("repro")
    subject = catalog.subject(args.variant or args.subject)
    if args.recipe:
        try:
            fields = json.loads(args.recipe)
            fields["rows"] = tuple(RowRecipe(**r) for r in fields["rows"])
            recipe = BatchRecipe(**fields)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:  # JSON, or fields of neither recipe
            raise CommandError(f"--recipe is not a batch recipe as a failure prints it "
                               f"({type(exc).__name__}: {exc})") from None
        x, offset, out_offset, skew = build_batch(recipe), recipe.offset, recipe.out_offset, recipe.skew
    else:
        recipe, x = None, _load_inputs(args.npy, subject)
        offset, out_offset, skew = args.offset, args.out_offset, args.skew
    report = check(subject, x, offset=offset, out_offset=out_offset, skew=skew, recipe=recipe)
    offsets = f"offset {offset}" + ("" if out_offset is None else f", out offset {out_offset}") + \
        (f", skew {skew}" if skew else "")
    print(f"{subject.name}: {report.shape[0]}x{report.shape[1]} batch, {offsets}: "
          f"max error {report.max_ulps:.3g} ulps, {report.max_bound_ratio:.3g} of the bound")
    for message in report.failures.values():
        print("\n" + message)
    print("\nall properties hold" if report.ok else f"\n{len(report.failures)} properties failed")
    return 0 if report.ok else 1


def _load_inputs(path: str, subject):
    """The saved input of a failure: an (N, C) array (.npy), or the op's inputs by role (.npz)."""
    try:
        data = np.load(path)
    except (OSError, ValueError) as exc:  # missing, unreadable, or not NumPy's format
        raise CommandError(f"--npy {path}: {exc}") from None
    if isinstance(data, np.ndarray):
        return data
    names = subject.operation.inputs
    missing = [n for n in names if n not in data.files]
    if missing:
        raise callables.SubjectError(f"{path} holds {', '.join(data.files)}; {subject.op} needs "
                                     f"{', '.join(names)}")
    return tuple(data[n].reshape(()) if n in SCALAR_ROLES else data[n] for n in names)


def _measure(args) -> int:
    from .bench import NOT_VARIANTS, fractions_of_copy, lookup

    for name in args.kernels:  # unknown names first, GPU or not
        if callables.is_callable_ref(name):
            callables.load(callables.split_dtype(name)[0])
        elif name not in NOT_VARIANTS:
            lookup(name, args.root)
    if not gpu.available():
        return _no_gpu("measure")
    rows = []
    for dtype in args.dtype:
        for row in fractions_of_copy(args.kernels, args.cols, dtype, args.root, op=args.op):
            print(json.dumps(row), flush=True)
            rows.append(row)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(rows, handle, indent=1)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="softmax-harness", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    checking = sub.add_parser("check", help="the battery on kernels and callables, and a verdict table")
    checking.add_argument("targets", nargs="*", metavar="TARGET",
                          help="a .cu file, a folder of them, or module:function (default: the "
                               "bundled kernels)")
    checking.add_argument("--sanitize", action="store_true", help="also compute-sanitizer's four tools (GPU)")
    checking.add_argument("--profile", default="dev", choices=profiles.NAMES, help="Hypothesis profile")
    checking.add_argument("--out", type=Path, default=None,
                          help="the run folder (default softmax-harness-runs/TIME in the current folder)")
    checking.add_argument("--timeout", type=float, default=0,
                          help="seconds for the whole battery (0, the default: no limit); the tests "
                               "left then are not run, and the check fails")
    checking.add_argument("--test-timeout", type=float, default=None,
                          help="seconds a test (or loading a callable) may take before it is taken "
                               "for a hang (300; 3000 under --profile thorough)")
    checking.add_argument("--select", default=None, metavar="EXPR",
                          help="only the battery's tests that match EXPR (pytest -k), e.g. classic")
    checking.set_defaults(run=_check)
    listing = sub.add_parser("list", help="every declared kernel variant")
    listing.add_argument("--root", type=Path, default=None,
                         help="the variants declared under this directory instead (e.g. staging/kernels)")
    listing.set_defaults(run=_list)
    repro = sub.add_parser("repro", help="re-run every property on one input")
    repro.add_argument("variant", nargs="?",
                       help="a variant name, or NAME@DIR for the one declared under DIR")
    repro.add_argument("--subject", metavar="MODULE:FUNCTION", help="a Python callable instead of a variant")
    source = repro.add_mutually_exclusive_group(required=True)
    source.add_argument("--recipe", help="a BatchRecipe as JSON (failure messages print it)")
    source.add_argument("--npy", help="an (N, C) float32 array saved with numpy.save (.npz: the op's "
                                      "inputs by role, as a failure saves them)")
    repro.add_argument("--offset", type=int, default=0, help="misalignment in elements (with --npy)")
    repro.add_argument("--out-offset", type=int, default=None,
                       help="the output's misalignment, if not the input's (with --npy)")
    repro.add_argument("--skew", type=int, default=0,
                       help="each later input this many elements further misaligned (with --npy)")
    repro.set_defaults(run=_repro)
    add_report(sub)
    measure = sub.add_parser("measure", help="fraction of copy bandwidth of kernels at given row "
                             "lengths, timed in one process (~1 GiB inputs; needs a GPU)")
    measure.add_argument("kernels", nargs="+",
                         help="variant names (NAME@DIR: the one declared under DIR, e.g. a staged "
                              "file beside the verified one), the op's name (its dispatcher), 'torch', "
                              "'triton' (fp32), 'quack', 'liger' (where installed), module:function (a "
                              "callable of your own, called as the battery calls it)")
    measure.add_argument("--cols", nargs="+", type=int, required=True)
    measure.add_argument("--dtype", nargs="+", default=["float32"], choices=registry.DTYPES)
    measure.add_argument("--op", default="softmax", choices=ops.NAMES,
                         help="the op the kernels compute (the dispatcher goes by the op's name)")
    measure.add_argument("--json", help="also write the rows to this file")
    measure.add_argument("--root", type=Path, default=None,
                         help="look the variants up here first, then in kernels/ (e.g. staging/kernels)")
    measure.set_defaults(run=_measure)
    args = parser.parse_args(argv)
    if os.getcwd() not in sys.path:  # module:function names import from here, as under python -m
        sys.path.insert(0, os.getcwd())
    try:
        return args.run(args)
    except (catalog.UnknownVariantError, callables.SubjectError, CommandError, RunFileError) as exc:
        print(f"softmax-harness {args.command}: {exc.args[0]}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader left (`| head`): what it took is all that was wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit's flush is quiet
        return 0
    except OSError as exc:  # a file the command was given, or looked for
        why = f"{exc.strerror}: {exc.filename}" if exc.filename else str(exc)
        print(f"softmax-harness {args.command}: {why}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
