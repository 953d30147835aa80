"""Property checks for a softmax kernel, usable with or without pytest.

:func:`check` launches a subject (:class:`~softmax_harness.subject.Subject`: any ``fn(x, out)``
over NumPy or CuPy arrays) on one batch, computes the float64 reference and the bound once
(:class:`Observation`), and evaluates each property of :data:`PROPERTIES`, one function each.
Each failure message names the kernel, the row, the column, the input around it, the expected
and actual output, and ends with a one-line reproduction.

Each property catches a defect that none of the others does (``tests/test_mutation.py`` shows
which). ``order_preserved`` (x_i > x_j implies y_i >= y_j within the two bounds) was merged
away: wherever matches_reference holds it follows, since the reference is monotone
(y_j >= ref_j - b_j >= ref_i - b_j >= y_i - b_i - b_j), so no defect could fail it alone.
``shift_invariant`` (softmax(x + c) = softmax(x) for an exact shift c) was merged into the
inputs: a row around a large constant is the strategies' ``offset`` value kind, which
matches_reference checks against the reference itself, not against another launch.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from . import bounds, dtypes, tally
from .buffers import GUARD, bits
from .observation import (
    Finding,
    Observation,
    as_format,
    first_true,
    host,
    observe,
)
from .subject import Subject
from .tally import TALLY, merge_tally

__all__ = ["PROPERTIES", "TALLY", "Observation", "PropertyFailure", "Report", "Subject", "check",
           "check_recipe", "merge_tally", "observe"]

PROPERTIES = (
    "matches_reference",   # |y - ref| within the stated per-element bound
    "sums_to_one",         # each finite row's float64 sum is 1 within its own slack; 0 <= y <= 1
    "nonfinite_contract",  # NaN exactly where the reference has NaN; masked entries exactly 0
    "all_written",         # no output element keeps the poison pattern
    "no_write_outside",    # guard zones around the output are bitwise intact
    "input_unchanged",     # the input (and its guard zones) is bitwise intact
    "deterministic",       # a repeated launch gives bitwise-identical output
    "rows_independent",    # changing one row leaves every other row's output bitwise unchanged
)


class PropertyFailure(AssertionError):
    """One or more properties failed; ``failures`` maps property name to message."""

    def __init__(self, failures: dict[str, str]):
        self.failures = failures
        super().__init__("\n\n".join(failures.values()))


@dataclass
class Report:
    """What one :func:`check` saw."""

    subject: str
    shape: tuple[int, int]
    offset: int
    out_offset: int | None = None  # None: as misaligned as the input
    max_ulps: float = 0.0
    max_bound_ratio: float = 0.0  # largest |y - ref| / bound; <= 1 passes
    seconds: float = 0.0
    failures: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failures

    def raise_if_failed(self) -> Report:
        if self.failures:
            raise PropertyFailure(self.failures)
        return self


# ---- The properties: each takes an Observation and returns a Finding, or None when it holds.

def all_written(o: Observation) -> Finding | None:
    where = first_true(o.xp, ~o.written)
    return Finding("the output still holds the poison pattern", where) if where else None


def no_write_outside(o: Observation) -> Finding | None:
    if o.first.guards_intact():
        return None
    return Finding(f"a guard zone of {GUARD} elements around the output was written (offsets {o.offsets})")


def input_unchanged(o: Observation) -> Finding | None:
    if o.first.input_intact():
        return None
    return Finding("the input or its guard zone changed during the launch")


def nonfinite_contract(o: Observation) -> Finding | None:
    xp = o.xp  # judged on what the kernel wrote: an element left poisoned is all_written's
    where = first_true(xp, (xp.isnan(o.y64) != ~o.finite) & o.written)
    if where is None:
        masked = (o.x == -xp.inf) & o.finite
        full = o.finite & (o.ref == 0) & xp.all(o.x == -xp.inf, axis=1, keepdims=True)
        where = first_true(xp, (masked | full) & (o.y64 != 0) & o.written)
    if where is None:
        return None
    return Finding("NaN must appear exactly where the reference has it, and masked (-inf) entries must "
                   "be exactly 0", where)


def matches_reference(o: Observation) -> Finding | None:
    where = first_true(o.xp, o.finite & ~(o.err <= o.bound) & o.written)
    return Finding(None, where) if where else None


def sums_to_one(o: Observation) -> Finding | None:
    xp = o.xp
    live = o.live & xp.all(o.written, axis=1)  # a row with poison left in it is all_written's
    if not bool(live.any()):
        return None
    total = xp.where(o.finite, o.y64, 0.0).sum(axis=1)
    sub = o.subject
    slack = bounds.row_sum_slack(o.bound, n_cols=o.x.shape[1], lanes=sub.lanes, algorithm=sub.algorithm,
                                 fast_math=sub.fast_math, xp=xp, dtype=sub.dtype, rounding=sub.rounding,
                                 chain=sub.chain(o.x.shape[1]))
    row_bad = live & ~(xp.abs(total - 1.0) <= slack)
    if bool(row_bad.any()):
        r = int(xp.argmax(row_bad))
        return Finding(f"row {r} sums to {float(total[r])!r} (allowed |sum - 1| <= {float(slack[r]):.3g})")
    where = first_true(xp, live[:, None] & ~((o.y64 >= 0) & (o.y64 <= 1)))
    return Finding("an output lies outside [0, 1]", where) if where else None


def deterministic(o: Observation) -> Finding | None:
    again = o.repeat
    where = first_true(o.xp, bits(o.xp, again.y) != bits(o.xp, o.y))
    if where is None:
        return None
    return Finding("a second launch on the same input gave other bits", where,
                   {"y": again.y, "ref": o.y64, "bound": None})


def rows_independent(o: Observation) -> Finding | None:
    # Rows k (the first, the middle and the last) become their reverse lifted above every other
    # finite value of the batch, so a kernel that leaks anything between rows (a batch-wide max,
    # a shared sum, a neighbour's element) shows it. With five rows or more one launch changes
    # all three and leaves their neighbours as they were; fewer rows get a launch each.
    xp, x32 = o.xp, o.x_host.astype(np.float32)
    n_rows = x32.shape[0]
    if n_rows < 2 or bool((bits(xp, o.repeat.y) != bits(xp, o.y)).any()):
        return None  # judged bitwise: only a kernel that repeats itself (else deterministic fails)
    finite = x32[np.isfinite(x32)]
    top = o.fmt.guard / 3  # far from overflow in the format
    lift = np.float32(min(2.0 * float(np.abs(finite).max()) + 1.0, top)) if finite.size else 1.0
    chosen = sorted({0, n_rows // 2, n_rows - 1})
    for changed_rows in ([chosen] if n_rows >= 5 else [[k] for k in chosen]):
        changed = x32.copy()
        with np.errstate(over="ignore"):
            for k in changed_rows:
                changed[k] = np.where(np.isfinite(changed[k]), changed[k][::-1] / 2 + lift, changed[k])
        other = o.again(changed)
        keep = xp.ones(n_rows, dtype=bool)
        keep[changed_rows] = False
        where = first_true(xp, (bits(xp, other.y) != bits(xp, o.y)) & keep[:, None])
        if where is not None:
            rows = ", ".join(map(str, changed_rows))
            return Finding(f"changing row{'s' if len(changed_rows) > 1 else ''} {rows} changed this "
                           "row's output", where, {"y": other.y, "ref": o.y64, "bound": None})
    return None


#: The properties in the order they are evaluated (the cheap, single-launch ones first).
CHECKS = {
    "all_written": all_written, "no_write_outside": no_write_outside, "input_unchanged": input_unchanged,
    "nonfinite_contract": nonfinite_contract, "matches_reference": matches_reference,
    "sums_to_one": sums_to_one, "deterministic": deterministic,
    "rows_independent": rows_independent,
}
assert set(CHECKS) == set(PROPERTIES)


def _describe(o: Observation, prop: str, finding: Finding, repro: str) -> str:
    shown = {"x": o.x, "y": o.y, "ref": o.ref, "bound": o.bound, **finding.arrays}
    if finding.where is None:
        return f"{prop} failed for {o.subject.name}: {finding.message}\n  reproduce: {repro}"
    xp = o.xp
    x, y, ref = (np.asarray(host(xp, shown[k])) for k in ("x", "y", "ref"))
    row, col = finding.where
    lo, hi = max(0, col - 2), min(x.shape[1], col + 3)
    bound = shown["bound"]
    lines = [
        f"{prop} failed for {o.subject.name} on a {x.shape[0]}x{x.shape[1]} batch: row {row}, column {col}",
        f"  input   x[{row}, {lo}:{hi}] = {np.array2string(x[row, lo:hi], precision=8)}",
        f"  output  y[{row}, {lo}:{hi}] = {np.array2string(y[row, lo:hi], precision=8)}",
        f"  expected y[{row}, {col}] = {ref[row, col]!r}, got {float(y[row, col])!r}"
        + (f" (bound {float(host(xp, bound)[row, col]):.3g})" if bound is not None else ""),
        *([f"  ({finding.message})"] if finding.message else []),
        f"  reproduce: {repro}",
    ]
    return "\n".join(lines)


#: Where a failure's input is saved when no recipe describes it (``--repro-dir``, or the run
#: folder of ``softmax-harness check``); one folder a run, never the temporary folder.
REPRO_DIR = [Path("softmax-harness-repro")]


def set_repro_dir(path) -> None:
    REPRO_DIR[0] = Path(path)


def _repro_line(subject: Subject, x_host: np.ndarray, recipe, offsets: tuple[int, int]) -> str:
    name = subject.repro or subject.name
    if recipe is not None:
        text = json.dumps(asdict(recipe), separators=(",", ":"))
        return f"python -m softmax_harness repro {name} --recipe '{text}'"
    data = np.ascontiguousarray(x_host.astype(np.float32))  # exact; repro casts back to the kernel's type
    folder = REPRO_DIR[0]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"input-{hashlib.sha256(data.tobytes()).hexdigest()[:12]}.npy"
    np.save(path, data)
    out = f" --out-offset {offsets[1]}" if offsets[1] != offsets[0] else ""
    return f"python -m softmax_harness repro {name} --npy {path} --offset {offsets[0]}{out}"


def _errors(o: Observation, report: Report) -> None:
    """The largest error in ulps (over normal references) and as a fraction of the bound."""
    xp = o.xp
    if not bool(o.finite.any()):
        return
    ok = o.finite & o.written & xp.isfinite(o.y64)
    tiny = max(bounds.FLT_TINY, o.fmt.tiny)  # ulps below it are FTZ's or subnormal rounding
    normal = ok & (xp.abs(o.ref) >= tiny)
    report.max_ulps = float(xp.max(xp.where(normal, bounds.ulps(o.y64, o.ref, xp, o.fmt.name), 0.0)))
    report.max_bound_ratio = float(xp.max(xp.where(ok, o.err / o.bound, 0.0)))


def check(subject: Subject, x_host: np.ndarray, *, offset: int = 0, out_offset: int | None = None,
          recipe=None, properties=PROPERTIES) -> Report:
    """Launch ``subject`` on ``x_host`` ((N, C), cast to the subject's dtype) and evaluate
    ``properties``. The input starts ``offset`` elements past an aligned address, the output
    ``out_offset`` (default: ``offset``)."""
    started = time.perf_counter()
    x_host = as_format(x_host, dtypes.of(subject.dtype))
    report = Report(subject.name, x_host.shape, offset, out_offset)
    offsets = (offset, offset if out_offset is None else out_offset)
    repro = None  # written (with a saved input, where needed) only when something fails
    try:
        o = observe(subject, x_host, offsets)
    except Exception as exc:  # a launch error fails the check whatever was asked
        repro = _repro_line(subject, x_host, recipe, offsets)
        report.failures["launch"] = (f"launch failed for {subject.name}: the kernel raised "
                                     f"{type(exc).__name__}: {exc}\n  reproduce: {repro}")
    else:
        if x_host.size:
            _errors(o, report)
            for prop, holds in CHECKS.items():
                finding = holds(o) if prop in properties else None
                if finding is not None:
                    repro = repro or _repro_line(subject, x_host, recipe, offsets)
                    report.failures[prop] = _describe(o, prop, finding, repro)
    report.seconds = time.perf_counter() - started
    tally.record(report.subject, report.shape[0], report.seconds, report.max_ulps, report.max_bound_ratio,
                 bool(report.failures))
    return report


def check_recipe(subject: Subject, recipe, **kwargs) -> Report:
    """:func:`check` on the batch that a :class:`~softmax_harness.strategies.BatchRecipe`
    describes, at its misalignments (its repro line names the recipe)."""
    from .strategies import build_batch

    return check(subject, build_batch(recipe), offset=recipe.offset, out_offset=recipe.out_offset,
                 recipe=recipe, **kwargs)
