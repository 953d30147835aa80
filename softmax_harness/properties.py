"""Property checks for a softmax kernel, usable with or without pytest.

:func:`check` launches a kernel several times on one batch and evaluates every
property in :data:`PROPERTIES`. Each failure message names the kernel, the row,
the column, the input around it, the expected and actual output, and ends with
a one-line reproduction. The kernel is any callable ``fn(x, out)`` over NumPy or
CuPy arrays (``xp``); :meth:`Subject.of` wraps a :class:`~softmax_harness.Variant`.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from . import bounds, dtypes
from .reference import reference_softmax

PROPERTIES = (
    "matches_reference",   # |y - ref| within the stated per-element bound
    "sums_to_one",         # each finite row sums to 1 within its bound; 0 <= y <= 1
    "order_preserved",     # x_i > x_j implies y_i >= y_j (within the bound)
    "shift_invariant",     # softmax(x + c) = softmax(x) for an exact shift c
    "nonfinite_contract",  # NaN exactly where the reference has NaN; masked entries exactly 0
    "all_written",         # no output element keeps the poison pattern
    "no_write_outside",    # guard zones around the output are bitwise intact
    "input_unchanged",     # the input (and its guard zones) is bitwise intact
    "deterministic",       # a repeated launch gives bitwise-identical output
    "rows_independent",    # changing one row leaves every other row's output bitwise unchanged
)

GUARD = 64  # elements of guard zone on each side of every buffer
# Per element type (softmax_harness.dtypes): the output poison is a NaN payload that no
# softmax arithmetic produces; the input guard zones hold a huge logit, so over-reads show;
# shift invariance uses inputs quantised so that adding the shift is exact.


#: Per-kernel totals over every check in this process: checks, rows, seconds,
#: the largest error in ulps and relative to the bound, and failures.
TALLY: dict[str, dict] = {}


def merge_tally(into: dict, more: dict) -> dict:
    """Add a per-kernel tally to another (a check's own, or another process's)."""
    for name, t in more.items():
        mine = into.setdefault(name, {"checks": 0, "rows": 0, "seconds": 0.0, "max_ulps": 0.0,
                                      "max_bound_ratio": 0.0, "failed_checks": 0})
        for key in ("checks", "rows", "seconds", "failed_checks"):
            mine[key] += t[key]
        for key in ("max_ulps", "max_bound_ratio"):
            mine[key] = max(mine[key], t[key])
    return into


def _tally(report: Report) -> None:
    merge_tally(TALLY, {report.subject: {
        "checks": 1, "rows": report.shape[0], "seconds": report.seconds, "max_ulps": report.max_ulps,
        "max_bound_ratio": report.max_bound_ratio, "failed_checks": int(bool(report.failures))}})


class PropertyFailure(AssertionError):
    """One or more properties failed; ``failures`` maps property name to message."""

    def __init__(self, failures: dict[str, str]):
        self.failures = failures
        super().__init__("\n\n".join(failures.values()))


@dataclass
class Subject:
    """A kernel under test and what its bound and contract depend on."""

    name: str
    fn: object
    xp: object = np
    lanes: int = 1
    algorithm: str = "safe"
    convention: str = "torch"
    fast_math: bool = False
    exp: str = "shifted"  # with fast_math: the exponentials' form (registry's exp=)
    dtype: str = "float32"  # the element type the kernel reads and writes
    repro: str = ""  # how to name this kernel on a command line

    @classmethod
    def of(cls, variant) -> Subject:
        import cupy

        s = variant.spec
        return cls(name=variant.name, fn=variant, xp=cupy, lanes=s.lanes, algorithm=s.algorithm,
                   convention=s.convention, fast_math=s.fast_math, exp=s.exp, dtype=s.dtypes[0],
                   repro=variant.ref)


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


def _bits(xp, a):
    return a.view(xp.uint16 if a.dtype.itemsize == 2 else xp.uint32)


class _Buffers:
    """Guarded, poisoned device buffers for one launch, the input and the output each at its
    misalignment (in elements) from the allocation's alignment."""

    def __init__(self, xp, x_host: np.ndarray, offsets: tuple[int, int]):
        n = x_host.size
        fmt = dtypes.of(x_host.dtype)
        self.xp, self.shape, self.offsets, self.n = xp, x_host.shape, offsets, n
        self.poison = fmt.uint(fmt.poison)
        src = np.full(2 * GUARD + offsets[0] + n, fmt.guard, x_host.dtype)
        src[GUARD + offsets[0]:GUARD + offsets[0] + n] = x_host.ravel()
        self.src = xp.asarray(src)
        self.src_bits = _bits(xp, self.src.copy())
        self.dst = xp.full(2 * GUARD + offsets[1] + n, self.poison, dtype=fmt.uint).view(x_host.dtype)

    def view(self, buf, offset):
        start = GUARD + offset
        return buf[start:start + self.n].reshape(self.shape)

    @property
    def x(self):
        return self.view(self.src, self.offsets[0])

    @property
    def y(self):
        return self.view(self.dst, self.offsets[1])

    def guards_intact(self):
        xp, bits = self.xp, _bits(self.xp, self.dst)
        start = GUARD + self.offsets[1]
        stop = start + self.n
        return bool(xp.all(bits[:start] == self.poison)) and bool(xp.all(bits[stop:] == self.poison))


def _as64(xp, a):
    with np.errstate(invalid="ignore"):  # the poison is a NaN with a payload
        return a.astype(xp.float64)


def _run(subject: Subject, x_host: np.ndarray, offsets: tuple[int, int]) -> _Buffers:
    buffers = _Buffers(subject.xp, x_host, offsets)
    subject.fn(buffers.x, buffers.y)
    if subject.xp is not np:
        subject.xp.cuda.get_current_stream().synchronize()
    return buffers


def _host(xp, a):
    return a.get() if xp is not np else a


def _describe(subject, x, y, ref, bound, row, col, repro, what, note=None):
    x, y, ref = (np.asarray(_host(subject.xp, a)) for a in (x, y, ref))
    lo, hi = max(0, col - 2), min(x.shape[1], col + 3)
    lines = [
        f"{what} failed for {subject.name} on a {x.shape[0]}x{x.shape[1]} batch: row {row}, column {col}",
        f"  input   x[{row}, {lo}:{hi}] = {np.array2string(x[row, lo:hi], precision=8)}",
        f"  output  y[{row}, {lo}:{hi}] = {np.array2string(y[row, lo:hi], precision=8)}",
        f"  expected y[{row}, {col}] = {ref[row, col]!r}, got {float(y[row, col])!r}"
        + (f" (bound {float(_host(subject.xp, bound)[row, col]):.3g})" if bound is not None else ""),
        *([f"  ({note})"] if note else []),
        f"  reproduce: {repro}",
    ]
    return "\n".join(lines)


def _first(xp, mask):
    """(row, col) of the first True in a 2-d mask, or None."""
    if not bool(mask.any()):
        return None
    flat = int(xp.argmax(mask.ravel()))
    return divmod(flat, mask.shape[1])


def _repro_line(subject: Subject, x_host: np.ndarray, recipe, offsets: tuple[int, int]) -> str:
    name = subject.repro or subject.name
    if recipe is not None:
        text = json.dumps(asdict(recipe), separators=(",", ":"))
        return f"python -m softmax_harness repro {name} --recipe '{text}'"
    with tempfile.NamedTemporaryFile(prefix="softmax-input-", suffix=".npy", delete=False) as handle:
        np.save(handle, x_host.astype(np.float32))  # exact; repro casts back to the kernel's type
        path = handle.name
    out = f" --out-offset {offsets[1]}" if offsets[1] != offsets[0] else ""
    return f"python -m softmax_harness repro {name} --npy {path} --offset {offsets[0]}{out}"


def _quantised(x: np.ndarray, fmt) -> np.ndarray:
    """x rounded to multiples of ``fmt.quantum`` within +-``fmt.clip``, as float32, so that
    x + ``fmt.shift`` is exact in the format."""
    x = x.astype(np.float32)
    with np.errstate(invalid="ignore"):
        q = np.round(np.clip(x, -fmt.clip, fmt.clip) / fmt.quantum) * fmt.quantum
    return np.where(np.isfinite(x), q, x).astype(np.float32)


def _as_format(x: np.ndarray, fmt) -> np.ndarray:
    """A host array in the subject's element type (overflow to +-inf is part of the input)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.ascontiguousarray(np.asarray(x).astype(fmt.numpy()))


def check(subject: Subject, x_host: np.ndarray, *, offset: int = 0, out_offset: int | None = None,
          recipe=None, properties=PROPERTIES) -> Report:
    """Launch ``subject`` on ``x_host`` ((N, C), cast to the subject's dtype) and evaluate
    ``properties``. The input starts ``offset`` elements past an aligned address, the output
    ``out_offset`` (default: ``offset``)."""
    started = time.perf_counter()
    xp = subject.xp
    fmt = dtypes.of(subject.dtype)
    x_host = _as_format(x_host, fmt)
    n_rows, n_cols = x_host.shape
    report = Report(subject.name, (n_rows, n_cols), offset, out_offset)
    offsets = (offset, offset if out_offset is None else out_offset)
    failures = report.failures
    repro = None  # written (with a saved input, where needed) only when something fails

    def fail(prop, where=None, message=None, *, x=None, y=None, ref=None, bound=None):
        nonlocal repro
        if (prop not in properties and prop != "launch") or prop in failures:
            return
        if repro is None:
            repro = _repro_line(subject, x_host, recipe, offsets)
        if where is None:
            failures[prop] = f"{prop} failed for {subject.name}: {message}\n  reproduce: {repro}"
        else:
            failures[prop] = _describe(subject, x, y, ref, bound, *where, repro, prop, message)

    try:
        first = _run(subject, x_host, offsets)
    except Exception as exc:  # a launch error fails the check whatever was asked
        fail("launch", message=f"the kernel raised {type(exc).__name__}: {exc}")
        report.seconds = time.perf_counter() - started
        _tally(report)
        return report
    # x: the input as given (exactly, in float32), whatever the kernel did to its copy
    x32 = x_host.astype(np.float32)  # exact: every format here widens to float32
    x, y = xp.asarray(x32), first.y
    ref = reference_softmax(x, subject.convention)
    bound = bounds.element_bound(x, ref, lanes=subject.lanes, algorithm=subject.algorithm,
                                 fast_math=subject.fast_math, exp=subject.exp, xp=xp, dtype=fmt.name)
    y64 = _as64(xp, y)
    ref_nan = xp.isnan(ref)
    err = xp.abs(y64 - ref)
    finite = ~ref_nan
    ctx = dict(x=x, y=y, ref=ref, bound=bound)

    if n_rows and n_cols:
        written = _bits(xp, y) != first.poison
        where = _first(xp, ~written)
        if where:
            fail("all_written", where, "the output still holds the poison pattern", **ctx)
        if not first.guards_intact():
            fail("no_write_outside", message=f"a guard zone of {GUARD} elements around the "
                 f"output was written (offsets {offsets})")
        if not bool(xp.all(_bits(xp, first.src) == first.src_bits)):
            fail("input_unchanged", message="the input or its guard zone changed during the launch")

        where = _first(xp, xp.isnan(y64) != ref_nan)
        if where is None:
            masked = (x == -xp.inf) & finite
            full = finite & (ref == 0) & xp.all(x == -xp.inf, axis=1, keepdims=True)
            where = _first(xp, (masked | full) & (y64 != 0))
        if where:
            fail("nonfinite_contract", where, "NaN must appear exactly where the reference has it, "
                 "and masked (-inf) entries must be exactly 0", **ctx)

        bad = finite & ~(err <= bound)
        where = _first(xp, bad & written)
        if where:
            fail("matches_reference", where, **ctx)
        if bool(finite.any()):
            ok = finite & written & xp.isfinite(y64)
            tiny = max(bounds.FLT_TINY, fmt.tiny)  # ulps below it are FTZ's or subnormal rounding
            normal = ok & (xp.abs(ref) >= tiny)
            report.max_ulps = float(xp.max(xp.where(normal, bounds.ulps(y64, ref, xp, fmt.name), 0.0)))
            report.max_bound_ratio = float(xp.max(xp.where(ok, err / bound, 0.0)))

        live = xp.all(finite, axis=1) & (ref.sum(axis=1) > 0)
        if bool(live.any()):
            total = xp.where(finite, y64, 0.0).sum(axis=1)
            slack = bound.sum(axis=1) + n_cols * max(bounds.U, fmt.u)
            row_bad = live & ~(xp.abs(total - 1.0) <= slack)
            out_of_range = live[:, None] & ~((y64 >= 0) & (y64 <= 1))
            where = _first(xp, out_of_range)
            if bool(row_bad.any()):
                r = int(xp.argmax(row_bad))
                fail("sums_to_one", message=f"row {r} sums to {float(total[r])!r} "
                     f"(allowed |sum - 1| <= {float(slack[r]):.3g})")
            elif where:
                fail("sums_to_one", where, "an output lies outside [0, 1]", **ctx)

            order = xp.argsort(x, axis=1)
            xs = xp.take_along_axis(x, order, axis=1)
            ys = xp.take_along_axis(y64, order, axis=1)
            bs = xp.take_along_axis(bound, order, axis=1)
            rising = (xs[:, 1:] > xs[:, :-1]) & live[:, None]
            broken = rising & ~(ys[:, 1:] >= ys[:, :-1] - bs[:, 1:] - bs[:, :-1])
            where = _first(xp, broken)
            if where:
                r, k = where
                c = int(order[r, k + 1])
                fail("order_preserved", (r, c), f"x[{r}, {c}] > x[{r}, {int(order[r, k])}] but its "
                     f"output is smaller", **ctx)

        _repeat_checks(subject, x_host, x32, offsets, first, fail, properties, fmt)
    report.seconds = time.perf_counter() - started
    _tally(report)
    return report


def check_recipe(subject: Subject, recipe, **kwargs) -> Report:
    """:func:`check` on the batch that a :class:`~softmax_harness.strategies.BatchRecipe`
    describes, at its misalignments (its repro line names the recipe)."""
    from .strategies import build_batch

    return check(subject, build_batch(recipe), offset=recipe.offset, out_offset=recipe.out_offset,
                 recipe=recipe, **kwargs)


def _repeat_checks(subject, x_host, x32, offsets, first, fail, properties, fmt):
    """The properties that need more launches: determinism, row independence, shift."""
    xp = subject.xp
    y_bits = _bits(xp, first.y)
    if "deterministic" in properties:
        again = _run(subject, x_host, offsets)
        where = _first(xp, _bits(xp, again.y) != y_bits)
        if where:
            fail("deterministic", where, "a second launch on the same input gave other bits",
                 x=xp.asarray(x32), y=again.y, ref=_as64(xp, first.y), bound=None)
    n_rows = x_host.shape[0]
    if "rows_independent" in properties and n_rows >= 2:
        # Row k becomes its reverse lifted above every other finite value of the batch, so a
        # kernel that leaks anything between rows (a batch-wide max, a shared sum) shows it.
        k = n_rows // 2
        changed = x32.copy()
        finite = x32[np.isfinite(x32)]
        top = fmt.guard / 3  # far from overflow in the format
        lift = np.float32(min(2.0 * float(np.abs(finite).max()) + 1.0, top)) if finite.size else 1.0
        with np.errstate(over="ignore"):
            changed[k] = np.where(np.isfinite(changed[k]), changed[k][::-1] / 2 + lift, changed[k])
        other = _run(subject, _as_format(changed, fmt), offsets)
        keep = xp.ones(n_rows, dtype=bool)
        keep[k] = False
        where = _first(xp, (_bits(xp, other.y) != y_bits) & keep[:, None])
        if where:
            fail("rows_independent", where, f"changing row {k} changed this row's output",
                 x=xp.asarray(x32), y=other.y, ref=_as64(xp, first.y), bound=None)
    if "shift_invariant" in properties:
        base = _quantised(x32, fmt)
        with np.errstate(invalid="ignore", over="ignore"):
            shifted = (base + np.float32(fmt.shift)).astype(np.float32)
        y0 = _as64(xp, _run(subject, _as_format(base, fmt), offsets).y)
        y1 = _as64(xp, _run(subject, _as_format(shifted, fmt), offsets).y)
        base_dev = xp.asarray(base)
        b0 = bounds.element_bound(base_dev, reference_softmax(base_dev, subject.convention),
                                  lanes=subject.lanes, algorithm=subject.algorithm,
                                  fast_math=subject.fast_math, exp=subject.exp, xp=xp, dtype=fmt.name)
        live = ~xp.isnan(y0) | ~xp.isnan(y1)
        where = _first(xp, live & ~(xp.abs(y1 - y0) <= 2 * b0))
        if where:
            fail("shift_invariant", where, f"softmax(x + {fmt.shift:g}) differs from softmax(x) "
                 "(x quantised so that the shift is exact; 'expected' is softmax(x))",
                 x=base_dev, y=y1, ref=y0, bound=2 * b0)
