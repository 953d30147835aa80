"""compute-sanitizer over the kernels: memcheck, racecheck, initcheck and synccheck.

``probe`` launches the named variants on a few adversarial batches (no Hypothesis,
no checks: the sanitizer is the judge); :func:`sanitize` runs one sanitizer tool over
a child running ``probe`` and counts what it reports.
"""

from __future__ import annotations

import re
import subprocess
import sys

from .. import catalog, dtypes
from ..observation import as_format
from ..registry import SANITIZERS
from ..strategies import CLASSIC, BatchRecipe, RowRecipe, build_batch

TOOLS = SANITIZERS

PROBES = CLASSIC + tuple(
    BatchRecipe(n, (RowRecipe(), RowRecipe(mask="causal"), RowRecipe(values="huge", mask="tail")),
                n_rows=5, offset=offset)
    for n, offset in ((3, 1), (31, 0), (257, 2), (1025, 1), (9000, 3))
)


def probe(names: list[str]) -> None:
    """Launch each variant on every probe batch its limits allow."""
    import cupy

    for name in names:
        v = catalog.variant(name)
        dtype = dtypes.of(v.spec.dtype).numpy()
        for recipe in PROBES:
            if not v.supports(recipe.n_cols, dtype):
                continue
            arrays = []
            for host in v.op.build(build_batch(recipe), recipe, v.spec.convention):
                host = as_format(host, dtypes.of(v.spec.dtype))
                if host.ndim:  # an array at the recipe's misalignment; a scale as it is
                    array = cupy.empty(host.size + recipe.offset, host.dtype)[recipe.offset:]
                    array = array.reshape(host.shape)
                    array.set(host)
                    host = array
                arrays.append(host)
            shape = arrays[0].shape
            out = cupy.empty(arrays[0].size + recipe.offset, dtype)[recipe.offset:].reshape(shape)
            v(*arrays, out=out)
        cupy.cuda.Device().synchronize()
        print(f"probed {name}", flush=True)


_SUMMARY = re.compile(r"(?:ERROR|RACECHECK) SUMMARY: (\d+)")


def sanitize(tool: str, names: list[str], timeout: float = 300) -> dict:
    """Run ``tool`` over a probe of ``names``; ``{"tool", "variants", "errors", "ok", "output"}``."""
    cmd = ["compute-sanitizer", f"--tool={tool}", "--print-limit=20",
           sys.executable, "-m", "softmax_harness.run.sanitize", *names]
    if tool == "racecheck":
        cmd.insert(2, "--racecheck-report=hazard")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        output, code = proc.stdout + proc.stderr, proc.returncode
    except FileNotFoundError:
        return {"tool": tool, "variants": names, "errors": None, "ok": False,
                "output": "compute-sanitizer is not on PATH"}
    except subprocess.TimeoutExpired:
        return {"tool": tool, "variants": names, "errors": None, "ok": False,
                "output": f"timed out after {timeout:.0f} s"}
    counts = [int(n) for n in _SUMMARY.findall(output)]
    probed = output.count("probed ")
    errors = sum(counts) if counts else None
    return {"tool": tool, "variants": names, "errors": errors, "probed": probed,
            "ok": code == 0 and errors == 0 and probed == len(names), "output": output[-4000:]}


if __name__ == "__main__":
    probe(sys.argv[1:])
