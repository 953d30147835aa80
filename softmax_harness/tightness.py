"""How tight the bound is: the largest error a subject reaches, as a fraction of its bound, at
row lengths from 1 to 2^20 (:func:`sweep`), and the table of a sweep over many subjects
(:func:`table`).

A bound that no correct kernel comes near lets defects through (a sequential sum declared as
32 lanes, an exponential a few ulps off), so it is measured, not assumed. Each length gets rows
of the kinds that load each term of the bound: standard normal rows (the exponentials and the
division), wide rows (the rounding of x - m, which grows with the gap), and plateaus (a maximum
of 0 and every other element at one value c < 0: the sum then adds the same term in every step,
so its rounding errors share a sign through a binade) and tails (the maximum first, then terms
just under half an ulp of 1: each step of the chain that starts with the maximum loses almost
a whole u, the worst case Higham's gamma allows). Only
elements whose bound lies well above the flush-to-zero floor count: there a flushed output is
exactly half the floor, whatever the kernel.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field

import numpy as np

from . import bounds, dtypes
from .observation import as_format, observe

#: Lengths from 1 to 2^20: every power of two and the odd lengths beside the edges of lanes.
LENGTHS = tuple(sorted({1, 2, 3, 5, 7, 31, 33, 100, 127, 129, 1000, 1023, 1025, 4097, 12345, 65537,
                        *(2**p for p in range(0, 21))}))

KINDS = ("normal", "wide", "plateau", "tail")
ROWS_PER_KIND = 6
ELEMENTS = 2**23  # a batch's elements at most (rows beyond the kinds' share are left out)
ABOVE_FLOOR = 2.0**10 * bounds.FTZ_FLOOR
GAP_EDGES = (0.0, 0.125, 0.25, 0.5, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 80, 96, 128, 192, math.inf)


@dataclass
class Point:
    """The worst element of one subject at one length and kind of row."""

    subject: str
    dtype: str
    algorithm: str
    n_cols: int
    kind: str
    ratio: float  # largest |y - ref| / bound over elements above the floor
    ulps: float  # that element's error in ulps of its reference (in the subject's format)
    bound_ulps: float  # its bound, likewise
    gap: float  # its |x - max|
    lanes: int = 1
    fast_math: bool = False
    exp: str = "shifted"
    #: (gap, relative error in units of 2^-24): per band of gaps from GAP_EDGES, the largest
    #: relative error of an element above the floor, so that another bound can be judged offline
    envelope: list = field(default_factory=list)


def rows(kind: str, n_rows: int, n_cols: int, rng: np.random.Generator) -> np.ndarray:
    """``n_rows`` float32 rows of ``kind`` (see the module's text)."""
    if kind == "normal":
        return rng.standard_normal((n_rows, n_cols), dtype=np.float32)
    if kind == "wide":
        return (rng.standard_normal((n_rows, n_cols)) * 12).astype(np.float32)
    if kind == "plateau":
        level = rng.uniform(-3.0, -0.01, size=(n_rows, 1)).astype(np.float32)
        x = np.broadcast_to(level, (n_rows, n_cols)).copy()
        x[np.arange(n_rows), rng.integers(0, n_cols, n_rows)] = 0.0
        return x
    if kind == "tail":
        level = rng.uniform(-25 * math.log(2), -24 * math.log(2), size=(n_rows, 1)).astype(np.float32)
        x = np.broadcast_to(level, (n_rows, n_cols)).copy()
        x[:, 0] = 0.0
        return x
    raise ValueError(f"unknown kind of row {kind!r}: choose from {', '.join(KINDS)}")


def measure(subject, x32: np.ndarray, kind: str) -> Point:
    """Launch ``subject`` on float32 rows ``x32`` (cast to its format) and find its worst element."""
    fmt = dtypes.of(subject.dtype)
    o = observe(subject, as_format(x32, fmt), (0, 0))
    xp = o.xp
    counted = o.finite & o.written & (o.bound - bounds.FTZ_FLOOR >= ABOVE_FLOOR)
    ratio = xp.where(counted, o.err / o.bound, 0.0)
    flat = int(xp.argmax(ratio.ravel()))
    r, c = divmod(flat, x32.shape[1])
    spacing = float(fmt.spacing(xp.asarray(o.ref[r, c]), xp))
    gaps = xp.max(o.x, axis=1, keepdims=True) - o.x
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = xp.where(counted, o.err / (xp.abs(o.ref) * bounds.U), -1.0)
    envelope = []
    for lo, hi in zip(GAP_EDGES, GAP_EDGES[1:], strict=False):
        band = rel[(gaps >= lo) & (gaps < hi)]
        if band.size and float(band.max()) >= 0:
            envelope.append((lo, float(band.max())))
    return Point(subject.name, subject.dtype, subject.algorithm, x32.shape[1], kind,
                 float(ratio[r, c]), float(o.err[r, c]) / spacing, float(o.bound[r, c]) / spacing,
                 float(gaps[r, c]), subject.lanes, subject.fast_math, subject.exp, envelope)


def sweep(subject, lengths=LENGTHS, seed: int = 20261202) -> list[Point]:
    """The worst element of ``subject`` per length it supports and per kind of row."""
    rng = np.random.default_rng(seed)
    points = []
    for n_cols in lengths:
        if not subject.supports(n_cols):
            continue
        n_rows = max(1, min(ROWS_PER_KIND, ELEMENTS // n_cols))
        for kind in KINDS:
            points.append(measure(subject, rows(kind, n_rows, n_cols, rng), kind))
    return points


def worst_by_length(points: list[Point], bits: int) -> dict[int, Point]:
    """The point with the largest ratio at each length, over subjects whose outputs have ``bits``."""
    worst: dict[int, Point] = {}
    for p in points:
        if dtypes.of(p.dtype).bits == bits and (p.n_cols not in worst or p.ratio > worst[p.n_cols].ratio):
            worst[p.n_cols] = p
    return dict(sorted(worst.items()))


def table(points: list[Point]) -> str:
    """Markdown: per length, the largest ratio any subject reaches (float32 and 16-bit outputs
    apart), who reaches it, on which kind of row, and how far the bound is from it."""
    lines = ["| C | float32: largest error / bound | by | row | bound / error | "
             "16-bit: largest error / bound | by |",
             "|---|---|---|---|---|---|---|"]
    f32, f16 = worst_by_length(points, 32), worst_by_length(points, 16)
    for n in sorted(set(f32) | set(f16)):
        a, b = f32.get(n), f16.get(n)
        cells = [str(n)]
        cells += [f"{a.ratio:.3f}", a.subject, a.kind, f"{1 / a.ratio:.1f}x" if a.ratio > 0 else "exact"] \
            if a else ["", "", "", ""]
        cells += [f"{b.ratio:.3f}", b.subject] if b else ["", ""]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def save(points: list[Point], path) -> None:
    with open(path, "w") as f:
        json.dump([asdict(p) for p in points], f, indent=1)
        f.write("\n")


def load(path) -> list[Point]:
    with open(path) as f:
        return [Point(**p) for p in json.load(f)]


def main(argv=None) -> int:
    import argparse

    from . import catalog
    from .subject import Subject

    p = argparse.ArgumentParser(prog="python -m softmax_harness.tightness",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("variants", nargs="*", help="variants to sweep (default: every correct one)")
    p.add_argument("--out", default="tightness.json", help="the points, as JSON")
    p.add_argument("--table", default=None, help="also write the markdown table here")
    args = p.parse_args(argv)
    points = []
    for v in catalog.select("softmax_variant", args.variants or None):
        points += sweep(Subject.of(v))
        worst = max(points[-1:], key=lambda q: q.ratio, default=None)
        print(f"tightness: {v.name}: worst {max(q.ratio for q in points if q.subject == v.name):.3f}"
              if worst else f"tightness: {v.name}: no length", flush=True)
    save(points, args.out)
    text = table(points)
    if args.table:
        with open(args.table, "w") as f:
            f.write(text)
    print(text)
    over = [q for q in points if q.ratio > 1 or math.isnan(q.ratio)]
    for q in over:
        print(f"tightness: over the bound: {q}")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
