"""Property checks for a kernel of any op, usable with or without pytest.

:func:`check` launches a subject (:class:`~softmax_harness.subject.Subject`: any
``fn(*inputs, out)`` over NumPy or CuPy arrays) on one batch, computes its op's float64
reference and bound once (:class:`Observation`), and evaluates each property of the op
(``Op.properties``: the shared ones here, one function each, and the op's own in
:mod:`softmax_harness.ops`). Each failure message names the kernel, the row, the column, the
input around it, the expected and actual output, and ends with a one-line reproduction.

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

from . import bounds, dtypes, ops, tally
from .buffers import GUARD, bits, launch
from .observation import (
    Finding,
    Observation,
    as64,
    as_format,
    first_true,
    host,
    observe,
)
from .subject import Subject
from .tally import TALLY, merge_tally

__all__ = ["PROPERTIES", "TALLY", "Observation", "PropertyFailure", "Report", "Subject", "check",
           "check_recipe", "merge_tally", "observe"]

#: The forward softmax's properties; every op's are ``ops.of(name).properties``.
PROPERTIES = ops.SOFTMAX.properties


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
    return Finding(f"a guard zone of {GUARD} elements around the output was written "
                   f"(offsets {o.offsets[:2]})")


def input_unchanged(o: Observation) -> Finding | None:
    if o.first.input_intact():
        return None
    return Finding("the input or its guard zone changed during the launch")


def _off_contract(o: Observation, ref):
    """Where the output's NaN and infinities differ from those ``ref`` has (a finite result past
    twice the format's largest finite value is stored as its infinity)."""
    xp = o.xp
    infinite = xp.isinf(ref) | (xp.abs(ref) > 2 * o.fmt.largest)
    want = xp.where(infinite, xp.copysign(xp.inf, ref), ref)
    return ((xp.isnan(o.y64) != xp.isnan(ref)) | (infinite & (o.y64 != want))) & o.written


def nonfinite_contract(o: Observation) -> Finding | None:
    xp = o.xp  # judged on what the kernel wrote: an element left poisoned is all_written's
    off = _off_contract(o, o.ref)
    if bool(off.any()) and o.ref_flushed is not None:
        # a subnormal input read as 0 (flush-to-zero) may change them: a subnormal y beside an
        # infinite dy gives 0 * inf = NaN, not -inf; either reading of the inputs is right
        off &= _off_contract(o, o.ref_flushed)
    where = first_true(xp, off)
    if where is None:
        fixed = o.subject.operation.exact(o)
        if fixed is not None:
            where = first_true(xp, fixed[0] & (o.y64 != fixed[1]) & o.written)
    if where is None:
        return None
    return Finding("NaN and infinities must appear exactly where the reference has them, and the "
                   f"values the contract fixes (a masked entry's) must be exact ({o.subject.op})", where)


def matches_reference(o: Observation) -> Finding | None:
    where = first_true(o.xp, o.finite & ~(o.err <= o.bound) & o.written)
    return Finding(None, where) if where else None


def deterministic(o: Observation) -> Finding | None:
    again = o.repeat
    where = first_true(o.xp, bits(o.xp, again.y) != bits(o.xp, o.y))
    if where is None:
        return None
    return Finding("a second launch on the same input gave other bits", where,
                   {"y": again.y, "ref": o.y64, "bound": None})


def rows_independent(o: Observation) -> Finding | None:
    # Rows k (the first, the middle and the last) change as the op says (a forward's become their
    # reverse lifted above every other finite value of the batch), so a kernel that leaks anything
    # between rows (a batch-wide max, a shared sum, a neighbour's element) shows it. With five rows
    # or more one launch changes all three and leaves their neighbours as they were; fewer rows
    # get a launch each.
    xp = o.xp
    n_rows = o.x_host.shape[0]
    if n_rows < 2 or bool((bits(xp, o.repeat.y) != bits(xp, o.y)).any()):
        return None  # judged bitwise: only a kernel that repeats itself (else deterministic fails)
    chosen = sorted({0, n_rows // 2, n_rows - 1})
    for changed_rows in ([chosen] if n_rows >= 5 else [[k] for k in chosen]):
        other = o.again(o.subject.operation.perturb(o.inputs_host, changed_rows, o.fmt))
        keep = xp.ones(n_rows, dtype=bool)
        keep[changed_rows] = False
        where = first_true(xp, (bits(xp, other.y) != bits(xp, o.y)) & keep[:, None])
        if where is not None:
            rows = ", ".join(map(str, changed_rows))
            return Finding(f"changing row{'s' if len(changed_rows) > 1 else ''} {rows} changed this "
                           "row's output", where, {"y": other.y, "ref": o.y64, "bound": None})
    return None


#: How many elements further apart than their length ``strided_rows`` lays the rows: an odd
#: count, so that the rows are misaligned unlike each other too.
PITCH = 5


def strided_rows(o: Observation) -> Finding | None:
    """A subject that takes any array (a callable: a view of a wider array is an input like any
    other) computes the same op on rows that lie ``PITCH`` elements further apart than their
    length, or refuses them with an error: a silent misreading (rows read as contiguous, the
    gaps' huge values among them) is what fails, judged where the contiguous rows' output was
    right (what is wrong either way is the other properties' to name). A declared kernel's
    signature has no stride."""
    xp = o.xp
    if not o.subject.strided or o.x_host.shape[0] < 2:
        return None
    try:
        other = launch(o.subject, o.inputs_host, o.offsets, PITCH)
    except Exception as exc:  # noqa: BLE001  (a refusal, whatever it raises, is an answer ...)
        if not _device_fault(exc):
            return None
        why = (str(exc).strip().splitlines() or [""])[0][:200]  # ... but a fault on the device is not
        return Finding(f"rows {PITCH} elements apart past their length (a view of a wider array) made the "
                       f"device fault ({type(exc).__name__}: {why})")

    def wrong(y):
        with np.errstate(invalid="ignore"):
            same = (y == o.ref) | (xp.isnan(y) & xp.isnan(o.ref))  # where the reference is not finite
            return xp.where(o.finite, ~(xp.abs(y - o.ref) <= o.bound), ~same)

    where = first_true(xp, wrong(as64(xp, other.y)) & ~wrong(o.y64))
    if where is None:
        return None
    return Finding(f"rows {PITCH} elements apart past their length (a view of a wider array) gave "
                   "another result: the subject reads its input as if its rows were contiguous",
                   where, {"y": other.y})


def _device_fault(exc: BaseException) -> bool:
    """Whether ``exc`` is the device's (CuPy's CUDA errors, torch's "CUDA error: ..."), not a
    subject's refusal of its input."""
    return "cuda" in type(exc).__module__.lower() or "CUDA error" in str(exc)


#: The properties every op has.
SHARED = {
    "all_written": all_written, "no_write_outside": no_write_outside, "input_unchanged": input_unchanged,
    "nonfinite_contract": nonfinite_contract, "matches_reference": matches_reference,
    "deterministic": deterministic, "rows_independent": rows_independent, "strided_rows": strided_rows,
}


def checks_of(op) -> dict:
    """An op's properties in the order they are evaluated, each with its function."""
    return {name: SHARED.get(name) or op.own[name] for name in op.properties}


def _describe(o: Observation, prop: str, finding: Finding, repro: str) -> str:
    shown = {"x": o.x, "y": o.y, "ref": o.ref, "bound": o.bound, **finding.arrays}
    if finding.where is None:
        return f"{prop} failed for {o.subject.name}: {finding.message}\n  reproduce: {repro}"
    xp, op = o.xp, o.subject.operation
    x, y, ref = (np.asarray(host(xp, shown[k])) for k in ("x", "y", "ref"))
    row, col = finding.where
    lo, hi = max(0, col - 2), min(x.shape[1], col + 3)
    bound = shown["bound"]
    names = ("x" if name == "in" else name for name in op.inputs)
    given = [x, *(np.asarray(host(xp, a)) for a in o.inputs[1:])]
    out = op.output
    lines = [
        f"{prop} failed for {o.subject.name} on a {x.shape[0]}x{x.shape[1]} batch: row {row}, column {col}",
        *(f"  input  {name:>2s}[{row}, {lo}:{hi}] = {np.array2string(a[row, lo:hi], precision=8)}"
          if a.ndim else f"  input  {name} = {float(a)!r}" for name, a in zip(names, given, strict=True)),
        f"  output {out:>2s}[{row}, {lo}:{hi}] = {np.array2string(y[row, lo:hi], precision=8)}",
        f"  expected {out}[{row}, {col}] = {ref[row, col]!r}, got {float(y[row, col])!r}"
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


def _repro_line(subject: Subject, inputs: tuple, recipe, offsets: tuple[int, ...]) -> str:
    name = subject.repro or subject.name
    if recipe is not None:
        text = json.dumps(asdict(recipe), separators=(",", ":"))
        return f"python -m softmax_harness repro {name} --recipe '{text}'"
    data = [np.array(a if a.dtype == bool else a.astype(np.float32), order="C")  # exact; repro casts back
            for a in map(np.asarray, inputs)]  # (a scale stays 0-d: ascontiguousarray makes it 1-d)
    folder = REPRO_DIR[0]
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(b"".join(a.tobytes() for a in data)).hexdigest()[:12]
    if len(data) == 1:
        path = folder / f"input-{digest}.npy"
        np.save(path, data[0])
    else:  # the op's inputs, by their roles
        path = folder / f"input-{digest}.npz"
        np.savez(path, **dict(zip(subject.operation.inputs, data, strict=True)))
    out = f" --out-offset {offsets[1]}" if offsets[1] != offsets[0] else ""
    skew = f" --skew {offsets[2]}" if len(offsets) > 2 and offsets[2] else ""
    return f"python -m softmax_harness repro {name} --npy {path} --offset {offsets[0]}{out}{skew}"


def _errors(o: Observation, report: Report) -> None:
    """The largest error in ulps (over normal references) and as a fraction of the bound."""
    xp = o.xp
    if not bool(o.finite.any()):
        return
    ok = o.finite & o.written & xp.isfinite(o.y64)
    tiny = max(bounds.FLT_TINY, o.fmt.tiny)  # ulps below it are FTZ's or subnormal rounding
    normal = ok & (xp.abs(o.ref) >= tiny)
    report.max_ulps = float(xp.max(xp.where(normal, bounds.ulps(o.y64, o.ref, xp, o.fmt.name), 0.0)))
    with np.errstate(invalid="ignore"):  # inf / inf where the output is not judged
        report.max_bound_ratio = float(xp.max(xp.where(ok, o.err / o.bound, 0.0)))


def check(subject: Subject, x_host, *, offset: int = 0, out_offset: int | None = None, skew: int = 0,
          recipe=None, properties=None) -> Report:
    """Launch ``subject`` on ``x_host`` and evaluate ``properties`` (default: all of its op's).
    ``x_host`` is an (N, C) array of logits, from which the op makes its inputs (a backward's y
    is their softmax, its dy the recipe's), or a tuple of the op's inputs; each is cast to the
    subject's dtype. The inputs start ``offset`` elements past an aligned address (each later
    array input ``skew`` elements further than the one before), the output ``out_offset``
    (default: ``offset``)."""
    started = time.perf_counter()
    op = subject.operation
    fmt = dtypes.of(subject.dtype)
    if not isinstance(x_host, tuple):
        x_host = op.build(np.asarray(x_host, dtype=np.float32), recipe, subject.convention)
    inputs = tuple(as_format(a, fmt) for a in x_host)
    report = Report(subject.name, inputs[0].shape, offset, out_offset)
    offsets = (offset, offset if out_offset is None else out_offset, skew)
    wanted = op.properties if properties is None else properties
    repro = None  # written (with a saved input, where needed) only when something fails
    try:
        o = observe(subject, inputs, offsets)
    except Exception as exc:  # a launch error fails the check whatever was asked
        repro = _repro_line(subject, inputs, recipe, offsets)
        report.failures["launch"] = (f"launch failed for {subject.name}: the kernel raised "
                                     f"{type(exc).__name__}: {exc}\n  reproduce: {repro}")
    else:
        if inputs[0].size:
            _errors(o, report)
            for prop, holds in checks_of(op).items():
                finding = holds(o) if prop in wanted else None
                if finding is not None:
                    repro = repro or _repro_line(subject, inputs, recipe, offsets)
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
                 skew=recipe.skew, recipe=recipe, **kwargs)
