#!/usr/bin/env python3
"""The mask form's 16-bit tiles sized 32768 promoted where one call's measurement has them ahead
(session.sh's masktile step), in place:

    staging/mask_tile_rule.py BF16.json F16.json

Each file: ``softmax-harness measure`` rows of the dispatcher (the online split kernel at
16385-32768) and the staged tile. The tile takes the mask form's 16-bit rows of 16385-32768, as
the bias form's does (``dispatch._tile_sizes``; 32768 itself given back from ``_SPLIT_INSTEAD``,
which held it for the online split kernel against the cluster sized 32768), where it led the
dispatcher by at least ``MARGIN`` at every length measured in both types; then the staged file
goes into kernels/. Prints the verdict and exits 0 where the tree changed, 1 where it did not.
"""

import json
import shutil
import sys
from pathlib import Path

MARGIN = 0.01
ROOT = Path(__file__).resolve().parent.parent
STAGED = ROOT / "staging" / "kernels" / "scaled_softmax" / "scaled_onepass_c32768.cu"
SPLIT = "(32768, 65536, 73728, 131072, 262144)"
EDITS = (('or family == "scaled_bias"))', 'or family in ("scaled_bias", "scaled_mask")))'),
         (f'"scaled_mask": {{"": (16384, 32768, 65536, 131072), "_f16": {SPLIT},\n'
          f'                    "_bf16": {SPLIT}}},',
          f'"scaled_mask": {{"": (16384, 32768, 65536, 131072), "_f16": {SPLIT.replace("32768, ", "")},\n'
          f'                    "_bf16": {SPLIT.replace("32768, ", "")}}},'))


def behind(rows, short: str) -> list[int]:
    tile = f"scaled_mask_onepass_{short}_c32768"
    return [row["C"] for row in rows
            if tile not in row or row[tile] - row["scaled_softmax_mask"] < MARGIN]


def main(bf16: str, f16: str) -> int:
    lost = {short: behind(json.loads(Path(path).read_text()), short)
            for short, path in (("bf16", bf16), ("f16", f16))}
    if any(lost.values()):
        print("the tile not ahead at:", lost)
        return 1
    dispatch = ROOT / "softmax_harness" / "dispatch.py"
    text = dispatch.read_text()
    for old, new in EDITS:
        if old not in text:
            print(f"{dispatch}: moved, nothing written: {old.strip()}")
            return 1
        text = text.replace(old, new)
    dispatch.write_text(text)
    shutil.copy(STAGED, ROOT / "kernels" / "scaled_softmax" / STAGED.name)
    print("the tile ahead at every length measured: promoted")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
