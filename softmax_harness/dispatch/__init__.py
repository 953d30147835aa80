"""``softmax(x)``, ``softmax_backward(y, dy)``, ``log_softmax(x)``, ``log_softmax_backward(z, dy)`` and
``scaled_softmax(x, scale, bias=|mask=|causal=)``: the fastest correct variant of the op for the row
length and element type, from a table.

The table follows the benchmark (reports/bench.md): one-pass register kernels sized to
the row up to C = 32768 (fp32, fp16 and bf16 alike; where several tiles hold the same size,
of other shapes or with the safe order of reductions, the one measured faster for the row
length); then, on sm_90, the cluster push kernels (a row over a cluster of 8 blocks, read once
into registers, the blocks' states met in mailboxes: ``PUSH_FROM``) at the lengths up to 262144
where they measured faster, and elsewhere the split-row kernel (a row over a group of co-resident
blocks, every element read once, part of each slice in shared memory) up to 2**21 (16-bit rows up
to 57344 on its 512-thread version, one block a row); then, for fp32, the fastest two-pass kernel. A row
length picks the first entry whose limit admits it and whose kernel runs on the device. A few
long rows (``FEW_ROWS``, ``FEW_ROWS_ELEMENTS``, ``FEW_ROWS_FROM``) take the cluster push kernel sized
to the row first (``FEW_ROWS_TABLE``): the split-row kernel's grid-wide meet costs more than it saves there;
one row a cluster of 16 blocks (``ONE_ROW_TABLE``), as do the row counts and lengths where it measured
faster than the 8 blocks (``CLUSTER16_ROWS``), and up to a few hundred rows of a 32000 vocabulary
the cluster of 8 sized 65536 rather than a tile (``SHORT_FEW_ROWS``).

A register tile holds a misaligned row shifted to whole 16-byte vectors; a row within one
16-byte chunk of the tile's size does not fit with its shift and goes element by element, with
neighbouring lanes on neighbouring elements. When rows may start misaligned (C elements are not
a whole number of 16-byte chunks, or the input is offset), the one-pass entries from
``ROOM_FOR_SHIFT_FROM`` up admit rows up to their limit less one chunk, so such rows go to the
next entry. That pays only at C = 32767 (the split-row kernel 0.91-0.92 of copy against
0.88 in fp32 and 0.72 in 16-bit: reports/measurements/split_line_ab.json); at every shorter odd
length measured the one-pass kernel sized to C was the faster
(reports/measurements/row_fallback_lanes_ab.json, odd_lengths_final.json).

The other ops (:data:`OP_TABLES`) take a register tile sized to the row (16-byte vectors, read
once) up to 16384 columns (32768 for log_softmax in fp32, and for the backwards in 16 bits);
longer rows go over a cluster of 8 blocks on sm_90 (x, or y and dy, read once) where it measured
faster, the rest up to 2**20 over a group of co-resident blocks (``SPLIT_LONGEST``: each op's
online split kernel, inputs read once, one meeting a row); longer ones to a block a row, reading
the row two or three times.

The forward's cluster kernels that meet at cluster barriers (kernels/online_onepass_cluster.cu) are
no longer taken: the push kernels beat them at every size and row count measured
(reports/measurements/cluster_push.jsonl, few_rows_push.jsonl).

The package: :mod:`.forward` and :mod:`.ladders` hold the measured tables, :mod:`.choice` reads
them, :mod:`.entry` holds the entry points.
"""

from .choice import choose, choose_op
from .entry import (
    chosen_for,
    direct_plan,
    log_softmax,
    log_softmax_backward,
    op_chosen_for,
    rows_aligned,
    run_op,
    scaled_softmax,
    softmax,
    softmax_backward,
)
from .forward import TABLE
from .ladders import OP_TABLES

__all__ = ["OP_TABLES", "TABLE", "choose", "choose_op", "chosen_for", "direct_plan", "log_softmax",
           "log_softmax_backward", "op_chosen_for", "rows_aligned", "run_op", "scaled_softmax", "softmax",
           "softmax_backward"]
