"""The verdict table of ``softmax-harness check`` (subject x property: pass, FAIL or -), its
failure messages and its records for ``verdicts.json``, from the battery's test records."""

from __future__ import annotations

import re

from . import ops
from .targets import Targets

#: The table's column for each property.
SHORT = {"matches_reference": "matches", "sums_to_one": "sums",
         "nonfinite_contract": "nonfinite", "all_written": "written",
         "no_write_outside": "outside", "input_unchanged": "input", "deterministic": "determ",
         "rows_independent": "rows", "launch": "launch", "sums_to_zero": "sum0",
         "linear_in_dy": "linear", "nonpositive": "le0", "logsumexp_zero": "lse0",
         "ignores_masked": "unread", "strided_rows": "stride"}
assert set(SHORT) == {*ops.ALL_PROPERTIES, "launch"}


def verdicts(tests: list[dict], tally: dict, targets: Targets) -> tuple[list[str], list[str], bool,
                                                                       list[dict]]:
    """The verdict table (subject x property), the failure messages, whether all passed, and the
    table's rows as records (``verdicts.json``: each subject's op, its verdict on each property
    that judges it, its tests, largest error and time)."""
    present = {ops.of(targets.ops.get(ref, "softmax")).name for ref in [*targets.kernels, *targets.callables]}
    columns = [p for p in ops.ALL_PROPERTIES if any(p in ops.of(name).properties for name in present)
               and (p != "strided_rows" or targets.strided)]
    columns.append("launch")
    head = f"{'subject':32s} " + " ".join(f"{SHORT[p]:>9s}" for p in columns) + \
        f" {'tests':>6s} {'ulps':>8s} {'/bound':>7s} {'seconds':>8s}"
    table, messages, ok, records = [head], [], True, []
    for ref in [*targets.kernels, *targets.callables]:
        mine = [t for t in tests if t.get("subject") == ref]
        failed = {p for t in mine for p in t.get("properties", [])}
        broken = [t for t in mine if t["outcome"] in ("failed", "error") and not t.get("properties")]
        if broken:
            failed.add("launch")  # a crash, a hang, or an error outside the properties
        ran = [t for t in mine if t["outcome"] in ("passed", "failed", "error")]
        cells = []
        own = set(ops.of(targets.ops.get(ref, "softmax")).properties) - {"strided_rows"} | {"launch"}
        if ref in targets.strided:
            own.add("strided_rows")
        for p in columns:
            cells.append("-" if not ran or p not in own else ("FAIL" if p in failed else "pass"))
        t = tally.get(targets.names.get(ref, ref), {})
        seconds = sum(x["duration"] for x in mine)
        table.append(f"{ref[:32]:32s} " + " ".join(f"{c:>9s}" for c in cells) +
                     f" {len(ran):6d} {t.get('max_ulps', 0):8.3g} {t.get('max_bound_ratio', 0):7.3g} "
                     f"{seconds:8.1f}")
        records.append({"subject": ref, "op": targets.ops.get(ref, "softmax"),
                        "properties": {p: c for p, c in zip(columns, cells, strict=True) if c != "-"},
                        "tests": len(ran), "max_ulps": t.get("max_ulps", 0.0),
                        "max_bound_ratio": t.get("max_bound_ratio", 0.0), "seconds": round(seconds, 3)})
        ok &= not failed and not any(x["outcome"] in ("failed", "error") for x in mine)
        shown = set()
        for x in mine:
            for p in x.get("properties", []):
                if p not in shown:
                    shown.add(p)
                    messages.append(_failure_text(x.get("message", ""), p) or x["nodeid"])
        for x in broken[:1]:
            text = x.get("message", "")
            messages.append(f"{ref}, {x['nodeid'].rpartition('::')[2]}: "
                            f"{text[:2000] if x.get('lost') else text[-1500:]}")
        for x in [x for x in mine if x.get("context_lost")][:1]:
            messages.append(f"{ref}: {x['nodeid'].rpartition('::')[2]} lost the CUDA context "
                            f"({x['context_lost']}); its later tests did not run")
        unrun = [x for x in mine if x["outcome"] == "not run"]
        if unrun:  # a verdict on part of the battery is no verdict
            ok = False
            which = "its tests" if all(x["nodeid"].endswith(f"::{ref}") for x in unrun) else \
                f"{len(unrun)} of its tests"  # (a placeholder: none of them was collected)
            messages.append(f"{ref}: {which} not run ({unrun[0].get('message', '')})")
    for x in tests:  # the child itself broke (pytest's internal error), in no subject's test
        if not x.get("subject") and x["outcome"] in ("failed", "error"):
            ok = False
            messages.append(f"{x['nodeid']}: {x.get('message', '')[-1500:]}")
    return table, messages, ok, records


def _failure_text(message: str, prop: str) -> str:
    """The block of ``message`` that reports ``prop``: what failed where, and its repro line."""
    lines = [re.sub(r"^E\s+", "", line) for line in message.splitlines()]
    start = next((i for i, line in enumerate(lines) if f"{prop} failed for" in line), None)
    if start is None:
        return ""
    lines[start] = lines[start][lines[start].index(f"{prop} failed for"):]
    end = next((i for i in range(start, len(lines)) if "reproduce:" in lines[i]), len(lines) - 1)
    return "\n".join(lines[start:end + 1])
