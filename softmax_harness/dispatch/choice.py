"""The choice of a variant from the tables: remembered per (row length, type, device,
alignment, and for the forward a few rows' count); a kernel the tables name that waits in
staging/ is passed over."""

from __future__ import annotations

import functools

from .. import catalog, dtypes
from . import forward, ladders


@functools.cache
def by_name():
    return {v.name: v for v in catalog.variants()}


def choose_op(op: str, n_cols: int, device_id: int | None = None, dtype="float32", aligned: bool = True):
    """The variant that ``op``'s entry point (``softmax_backward``, ``log_softmax``) runs for rows
    of ``n_cols`` ``dtype`` elements (remembered, as :func:`choose`); ``aligned``: every row of the
    first input starts at a 16-byte boundary."""
    return _choose_op(op, n_cols, device_id, dtype, bool(aligned))


def usable(v, device_id: int | None) -> bool:
    """Whether ``v`` (a variant of kernels/, or None where the table's name waits in staging/)
    runs on ``device_id`` (any device where None)."""
    return v is not None and (device_id is None or v.runs_here(device_id))


@functools.lru_cache(maxsize=4096)
def _choose_op(op: str, n_cols: int, device_id: int | None, dtype, aligned: bool):
    fmt = dtypes.of(dtype)
    v = by_name().get(ladders.OP_ALIGNED_TILES.get(op, {}).get(fmt.name, {}).get(n_cols)) if aligned else None
    if usable(v, device_id):
        return v
    if not aligned:
        family, suffix = ladders.LADDERS.get(op), ladders.SUFFIX.get(fmt.name)
        for first, last, size in ladders.MISALIGNED_PUSH.get(family, {}).get(suffix, ()):
            if first <= n_cols <= last:
                v = by_name().get(f"{family}_cluster_push{suffix}_c{size}")
                if usable(v, device_id):
                    return v
    entries = ladders.OP_TABLES[op].get(fmt.name, ())
    rooms = [limit for limit, _ in entries] if aligned else ladders.MISALIGNED_ROOMS[op][fmt.name]
    for (_, name), limit in zip(entries, rooms, strict=True):
        v = by_name().get(name)  # a kernel waiting in staging/ for the GPU suite is not taken
        if (limit is None or n_cols <= limit) and usable(v, device_id):
            return _wide(v, op, n_cols, fmt.name, device_id)
    raise LookupError(f"no {fmt.name} {op} variant for rows of {n_cols} columns in kernels/")


def _wide(v, op: str, n_cols: int, dtype: str, device_id: int | None):
    """``v``, or where it is an online split kernel whose rows of ``n_cols`` go to its kernel on
    512-thread blocks (:data:`ladders.SPLIT_WIDE`), that one."""
    family, suffix = ladders.LADDERS.get(op), ladders.SUFFIX.get(dtype)
    if v.name != f"{family}_online_split{suffix}":
        return v
    for first, last, blocks in ladders.SPLIT_WIDE.get(family, {}).get(suffix, ()):
        if first <= n_cols <= last:
            wide = by_name().get(v.name + blocks)
            return wide if usable(wide, device_id) else v
    return v


_SMALL_BATCH = [entry for tiles in forward.SMALL_BATCH_TILES.values() for entry in tiles]
# the row counts and lengths for which choose() hands _choose the row count at all
_SMALL_BATCH_ROWS = max((most for _, _, most, _ in _SMALL_BATCH), default=0)
_SMALL_BATCH_COLS = (min((first for first, *_ in _SMALL_BATCH), default=1),
                     max((last for _, last, *_ in _SMALL_BATCH), default=0))
_FEW_FROM_ANY = min(forward.FEW_ROWS_FROM.values())
_FEW_ROWS_ANY = max(forward.FEW_ROWS, *forward.SHORT_FEW_ROWS.values(),
                    *(most for ranges in forward.CLUSTER16_ROWS.values() for *_, most in ranges))


def choose(n_cols: int, device_id: int | None = None, dtype="float32", aligned: bool = True,
           n_rows: int | None = None):
    """The variant that ``softmax`` runs for rows of ``n_cols`` ``dtype`` elements (on ``device_id``);
    ``aligned``: every row starts at a 16-byte boundary; ``n_rows``, where known: a few long rows
    (:data:`forward.FEW_ROWS`, :data:`forward.FEW_ROWS_ELEMENTS`, :data:`forward.FEW_ROWS_FROM`,
    :data:`forward.SHORT_FEW_ROWS`) take :data:`forward.ONE_ROW_TABLE` or :data:`forward.FEW_ROWS_TABLE`
    first (in 16 bits, up to a few rows, the kernels of :data:`forward.KEPT`), and a small batch of
    short rows :data:`forward.SMALL_BATCH_TILES`. Remembered: the choice took 4.7-8.1 µs of a call's
    host time (reports/measurements/host_overhead_breakdown.json)."""
    # (each type's own limits in _choose)
    few = n_rows is not None and 0 < n_rows <= _FEW_ROWS_ANY and n_cols >= _FEW_FROM_ANY
    small = n_rows is not None and 0 < n_rows <= _SMALL_BATCH_ROWS and \
        _SMALL_BATCH_COLS[0] <= n_cols <= _SMALL_BATCH_COLS[1]
    return _choose(n_cols, device_id, dtype, bool(aligned), n_rows if few or small else 0)


def _sized_cluster(table, n_cols: int, dtype: str, slack: int):
    """The kernel of ``table`` (:data:`forward.FEW_ROWS_TABLE`, :data:`forward.ONE_ROW_TABLE`) sized to
    the row (the smallest that holds it with a misaligned row's shift), or None: where that size
    waits in staging/, a larger one does not stand in (each size up measured slower on the same rows:
    reports/measurements/few_rows_push.jsonl)."""
    for limit, name in table.get(dtype, ()):
        if n_cols <= limit - slack:
            return by_name().get(name)
    return None


def _few_rows(n_cols: int, rows: int, dtype: str, slack: int, device_id: int | None):
    """The cluster kernel for ``rows`` rows of ``n_cols`` (from :data:`forward.FEW_ROWS_FROM` columns
    on), or None where the table's choice stands: of 16 blocks for one row and in
    :data:`forward.CLUSTER16_ROWS`, else of 8 for a few rows."""
    candidates = []
    if rows == 1 or any(start <= n_cols <= size - slack and fewest <= rows <= most
                        for start, size, fewest, most in forward.CLUSTER16_ROWS[dtype]):
        candidates.append(forward.ONE_ROW_TABLE)
    if (rows <= forward.FEW_ROWS and rows * n_cols <= forward.FEW_ROWS_ELEMENTS) or \
            (n_cols <= forward.SIZES[-1] and rows <= forward.SHORT_FEW_ROWS[dtype]):
        candidates.append(forward.FEW_ROWS_TABLE)
    for table in candidates:
        v = _sized_cluster(table, n_cols, dtype, slack)
        if usable(v, device_id):
            kept, most = forward.KEPT.get(v.name, (None, 0))
            keeping = by_name().get(kept) if rows <= most else None
            return keeping if usable(keeping, device_id) else v
    return None


@functools.lru_cache(maxsize=4096)
def _choose(n_cols: int, device_id: int | None, dtype, aligned: bool, rows: int = 0):
    fmt = dtypes.of(dtype)
    entries = forward.TABLE.get(fmt.name, ())
    table = by_name()
    slack = 0 if aligned else 16 * 8 // fmt.bits - 1  # room for a misaligned row's shift
    if rows and n_cols >= forward.FEW_ROWS_FROM[fmt.name]:
        v = _few_rows(n_cols, rows, fmt.name, slack, device_id)
        if v is not None:
            return v
    for shortest, longest, most, name in forward.SMALL_BATCH_TILES[fmt.name] if rows else ():
        if shortest <= n_cols <= longest and rows <= most and usable(table.get(name), device_id):
            return table[name]
    v = table.get(forward.ALIGNED_TILES[fmt.name].get(n_cols)) if aligned else None
    if usable(v, device_id):
        return v
    for limit, name in entries:
        v = table.get(name)  # a kernel waiting in staging/ for the GPU suite is not taken
        if v is None:
            continue
        room = limit
        shifted = limit is not None and limit >= forward.ROOM_FOR_SHIFT_FROM[fmt.name]
        if shifted and v.spec.geometry != "split-row":
            room = limit - slack
        if (room is None or n_cols <= room) and usable(v, device_id):
            return v
    longest = f"the longest supported: {entries[-1][0]}" if entries else "none for this element type yet"
    raise LookupError(f"no {dtypes.name_of(dtype)} softmax variant for rows of {n_cols} columns ({longest})")
