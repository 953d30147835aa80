"""Bandwidth of the staged kernels as the dispatcher would use them (run on a GPU, from the
repository root, after moving staging/kernels/* into kernels/ and the TABLE of staging/README.md
into softmax_harness/dispatch.py):

    PYTHONPATH=. python3 staging/measure.py   # writes $OUT/quick.json (or /tmp/quick.json)

Each figure is the fraction of a device-to-device copy of the same ~1 GiB, timed in the same
process (medians of CUDA-event timings, softmax_harness.bench).
"""

import json
import os

import softmax_harness as sh
from softmax_harness.baselines import torch_softmax
from softmax_harness.bench import median_seconds, sweep_input

rows = []
torch_fn = torch_softmax()
for dtype in ("float32", "float16", "bfloat16"):
    for c in (32, 500, 32768, 65536, 131072, 262144, 1048576):
        x, out = sweep_input(c, dtype)
        copy = median_seconds(lambda: out.__setitem__(Ellipsis, x))  # noqa: B023
        chosen = sh.dispatch.choose(c, 0, dtype)
        row = {"dtype": dtype, "C": c, "dispatched": chosen.name,
               "softmax": round(copy / median_seconds(lambda: sh.softmax(x, out)), 3),  # noqa: B023
               "torch": round(copy / median_seconds(lambda: torch_fn(x, out)), 3)}  # noqa: B023
        print(json.dumps(row), flush=True)
        rows.append(row)
with open(os.path.join(os.environ.get("OUT", "/tmp"), "quick.json"), "w") as handle:
    json.dump(rows, handle)
