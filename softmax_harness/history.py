"""The benchmark history under ``.benchmarks/`` and its retention rule.

pytest-benchmark saves one JSON file a run (``NNNN_<commit>.json``, about 0.9 MB each). The
repository keeps only the runs that something cites, so that it does not grow by a megabyte a
run: git keeps the others. A run is cited as ``run NNNN`` or by its file name in one of
:data:`CITING`; the newest run is always kept (``--benchmark-compare`` compares against it).
"""

from __future__ import annotations

import re
from pathlib import Path

CITING = ("README.md", "reports/STATUS.md", "reports/bench.md")
RULE = "keep the newest run and the runs that README.md, reports/STATUS.md or reports/bench.md cite"
_RUN = re.compile(r"^(\d{4})_")


def runs(storage: Path) -> list[Path]:
    """Every saved run, oldest first (by its number)."""
    return sorted(Path(storage).rglob("*.json"), key=lambda p: p.name)


def cited(root: Path) -> set[str]:
    """The run numbers (``NNNN``) that the citing documents under ``root`` name."""
    text = "\n".join((Path(root) / name).read_text() for name in CITING if (Path(root) / name).is_file())
    numbers = set(re.findall(r"\b[Rr]uns? (\d{4})\b", text))
    numbers |= set(re.findall(r"\b(\d{4})_[0-9a-f]{6,}\.json\b", text))
    return numbers


def kept(storage: Path, root: Path) -> list[Path]:
    """The runs the rule keeps."""
    every = runs(storage)
    wanted = cited(root)
    return [p for i, p in enumerate(every)
            if i == len(every) - 1 or (_RUN.match(p.name) and _RUN.match(p.name).group(1) in wanted)]


def prune(storage: Path, root: Path) -> list[Path]:
    """Delete the runs the rule does not keep; the deleted paths."""
    keep = set(kept(storage, root))
    dropped = [p for p in runs(storage) if p not in keep]
    for p in dropped:
        p.unlink()
    return dropped
