"""Per-kernel totals over every check in a process: checks, rows, seconds, the largest error
in ulps and relative to the bound, and failed checks (the GPU report's tally)."""

from __future__ import annotations

#: This process's totals, by subject name.
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


def record(name: str, rows: int, seconds: float, max_ulps: float, max_bound_ratio: float,
           failed: bool) -> None:
    """Count one check."""
    merge_tally(TALLY, {name: {"checks": 1, "rows": rows, "seconds": seconds, "max_ulps": max_ulps,
                               "max_bound_ratio": max_bound_ratio, "failed_checks": int(failed)}})
