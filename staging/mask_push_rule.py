#!/usr/bin/env python3
"""The mask form's 16-bit push entries past 73728 from one call's measurement (session.sh's
maskpush step), written into softmax_harness/dispatch.py's ``_PUSH`` in place:

    staging/mask_push_rule.py ROWS.json

ROWS.json: ``softmax-harness measure`` rows of the dispatcher (the online split kernel at those
lengths), the push kernels sized 131072 and 262144, bf16 (fp16 follows it, as every 16-bit entry
of ``_PUSH``). A push kernel of size S takes the rows from F to S, F the shortest length measured
above the size before S from which it led the dispatcher by at least ``MARGIN`` at every length
measured up to S; lengths between that one and the one before stay where they were. Prints the
entries and exits 0 where dispatch.py changed, 1 where nothing led.
"""

import json
import sys
from pathlib import Path

MARGIN = 0.01
SIZES = ((73728, 131072), (131072, 262144))  # (the size before, the size)
LINE = '"scaled_mask": {s: ((45056, 65536), (65537, 73728)) for s in ("_f16", "_bf16")}}'


def entries(rows) -> list[tuple[int, int]]:
    found = []
    for before, size in SIZES:
        push = f"scaled_mask_cluster_push_bf16_c{size}"
        led = sorted((row["C"], row[push] - row["scaled_softmax_mask"] >= MARGIN) for row in rows
                     if before < row["C"] <= size and push in row and "scaled_softmax_mask" in row)
        start = None
        for length, ahead in reversed(led):
            if not ahead:
                break
            start = length
        if start is not None and led and led[-1][0] == size:
            found.append((start, size))
    return found


def main(path: str) -> int:
    rows = json.loads(Path(path).read_text())
    found = entries(rows)
    print("push entries:", found or "none")
    if not found:
        return 1
    target = Path(__file__).resolve().parent.parent / "softmax_harness" / "dispatch.py"
    text = target.read_text()
    if LINE not in text:
        print(f"{target}: the mask form's _PUSH line moved; nothing written")
        return 1
    pairs = ", ".join(f"({a}, {b})" for a, b in ((45056, 65536), (65537, 73728), *found))
    wrapped = f'"scaled_mask": {{s: ({pairs})\n' + " " * 25 + 'for s in ("_f16", "_bf16")}}'
    target.write_text(text.replace(LINE, wrapped))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
