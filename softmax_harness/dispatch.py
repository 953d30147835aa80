"""``softmax(x)``: the fastest correct variant for the row length, chosen from a table.

The table follows the committed benchmark (reports/bench.md): one-pass register
kernels sized to the row up to C = 32768, the cluster kernel (sm_90) up to 262144,
then the fastest two-pass kernel. A row length picks the first entry whose limit
admits it and whose kernel runs on the device.
"""

from __future__ import annotations

import functools

#: (largest row length, variant name), in order.
TABLE = (
    (32, "onepass_vec4_c32"),
    (64, "onepass_vec4_c64"),
    (128, "onepass_vec4_c128"),
    (256, "onepass_vec4_c256"),
    (512, "onepass_vec4_c512"),
    (1024, "onepass_vec4_c1024"),
    (2048, "onepass_vec4_c2048"),
    (4096, "onepass_vec4_c4096"),
    (8192, "onepass_vec4_c8192"),
    (16384, "onepass_vec4_c16384"),
    (32768, "onepass_vec4_c32768"),
    (262144, "onepass_cluster_c262144"),
    (None, "safe_block_vec4_1024"),
)


@functools.cache
def _by_name():
    from . import variants

    return {v.name: v for v in variants()}


def choose(n_cols: int, device_id: int | None = None):
    """The variant that ``softmax`` runs for rows of ``n_cols`` (on ``device_id``, if given)."""
    table = _by_name()
    for limit, name in TABLE:
        v = table[name]
        if (limit is None or n_cols <= limit) and (device_id is None or v.runs_here(device_id)):
            return v
    raise LookupError(f"no dispatch entry for rows of {n_cols} columns")  # unreachable: last is open


def softmax(x, out=None):
    """Softmax over the last axis of a CuPy float32 (N, C) array, by the fastest variant for C."""
    n_cols = x.shape[-1] if getattr(x, "ndim", 0) >= 1 else 0
    device = getattr(getattr(x, "device", None), "id", None)
    return choose(n_cols, device)(x, out=out)
