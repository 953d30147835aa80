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
"""

from __future__ import annotations

import functools

from . import catalog, dtypes
from .variant import _cupy, _is_cupy_array

#: The one-pass tiles' sizes, every type: 16-bit rows of 33-64 on the tile sized 64 (8 lanes of
#: 8) ran at 0.54-1.006 of a copy where the tile sized 128 took them at 0.38-0.88 (H100, every bf16
#: length, reports/measurements/c64_tiles.json).
_SIZES = (32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
#: Limits below a size's own, where another tile of that size was measured faster (rows of
#: 513-575 stay on the warp-per-row fp32 kernel, 506-512 on 16 lanes a 16-bit row:
#: reports/measurements/short_rows_2_ab.json; fp32 rows of 576-875 on 64 threads of 16 floats,
#: 876-1024 on 128 of 8, and 14337-16384 on the two-reduction (safe) tile:
#: reports/measurements/shapes_1024_16384_ab.json); fp32 rows of 2049-2560 on 256 threads of 16
#: floats (0.997-1.003 against the 512 threads' 0.808-0.971 on an H100, ~1 GiB of rows; behind
#: from 2816: tile_4096_threads_bw.json). 16-bit rows of 127 on 16 lanes of 8 (0.82
#: of a copy against 8 lanes of 16's 0.68-0.78 on an H100; at 123-126 the 8 lanes lead:
#: reports/measurements/c128_lanes_every.json, every bf16 length of 65-128 and fp16 at the
#: edges). At 128 the 8 lanes stay, for the H200: the 16 lanes, 1.005 against 0.989-0.991 on the
#: H100, ran 0.897-0.905 on the H200 (run 0049) where the 8 lanes had run 0.968-0.972 (runs 0018
#: and 0019; Quack 1.002-1.004 in 0019 and 0049).
_BEFORE = {"float32": {1024: ((575, "onepass_vec4_c1024"), (875, "onepass_vec4_c1024_b64"),
                              (1024, "onepass_vec4_c1024_b128")),
                       4096: ((2560, "onepass_vec4_c4096_b256"), (4096, "onepass_vec4_c4096")),
                       16384: ((14336, "onepass_vec4_c16384"), (16384, "safe_onepass_vec4_c16384"))},
           **{name: {128: ((126, f"onepass_{short}_c128"), (127, f"onepass_{short}_c128_l16"),
                           (128, f"onepass_{short}_c128")),
                     512: ((505, f"onepass_{short}_c512_l8"), (512, f"onepass_{short}_c512"))}
              for name, short in (("float16", "f16"), ("bfloat16", "bf16"))}}

#: Row lengths whose aligned rows (each a whole number of 16-byte vectors from a 16-byte boundary)
#: take another tile than :data:`_BEFORE`'s range holds them on: 16-bit rows of 72, 80, 96 and 112
#: on 4 lanes of 32 (0.948-0.996 of a copy against 8 lanes of 16's 0.890-0.983, fp16 alike), where
#: at 88 the two are level, at 104 and 120 the 8 lanes lead (0.977 and 0.967 against 0.835-0.847)
#: and at every misaligned length 4 lanes trail (0.33-0.72 against 0.64-0.92):
#: reports/measurements/c128_lanes_every.json (H100, every bf16 length of 65-128). Likewise rows
#: of 40, 48 and 56 on the tile sized 64 on 4 lanes of 16 (0.934-0.987 against 8 lanes of 8's
#: 0.689-0.903; c64_tiles.json).
ALIGNED_TILES = {"float32": {},
                 **{name: {**{c: f"onepass_{short}_c64_l4" for c in (40, 48, 56)},
                           **{c: f"onepass_{short}_c128_l4" for c in (72, 80, 96, 112)}}
                    for name, short in (("float16", "f16"), ("bfloat16", "bf16"))}}


def _onepass(dtype: str, sizes, prefix: str):
    for c in sizes:
        yield from _BEFORE[dtype].get(c, ((c, f"{prefix}{c}"),))


#: dtype -> the smallest one-pass limit that leaves room for a misaligned row's shift.
ROOM_FOR_SHIFT_FROM = {"float32": 32768, "float16": 32768, "bfloat16": 32768}

#: Long rows over a cluster of 8 blocks whose states meet in mailboxes (kernels/online_cluster_push.cu,
#: sm_90): type -> ((from, size), ...): the kernel sized ``size`` takes rows from ``from`` columns
#: up to its size, where it measured faster than the split-row kernel in the same call, ~1 GiB
#: inputs. fp32 (reports/measurements/cluster_push.jsonl): 0.963-0.988 of copy against
#: 0.906-0.932 at 36864-163840 (a misaligned 65535 on the size 73728), 0.941 against 0.933 at
#: 262144 and level at 229376. 16 bits (cluster_push_live.jsonl; bf16 at the crossovers, fp16
#: follows it): a 16-bit tile skips the exponentials of its chunks past the row's end, and wins
#: from 81% of its size on (53248 on the size 65536: 0.95 against 0.94; 81920 on 98304: 0.94
#: against 0.91; 110592 on 131072: 0.93 against 0.92; 188416 on 262144: 0.92 against 0.91) where
#: at 75-79% the split-row kernel stays ahead (51200: 0.93 against 0.96; 77824, 106496, 180224:
#: 0.90-0.92 against 0.91-0.92); 0.97-1.00 at the sizes themselves. The 16-bit size 163840 (320
#: threads of 64) takes 143360-163840 at 0.974-0.987, Qwen's 151936 at 0.98-0.99, where the sizes
#: 153600 (480 of 40) and 155648 gave 0.90-0.96 and the split-row kernel 0.91
#: (push_16bit_151936.jsonl). The 16-bit size 262144 takes rows from 163841 since the tiles skip
#: the exponentials past a row's end: 180000 at 0.998 of a copy against the split-row kernel's 0.958,
#: fp16 and bf16 alike (cluster16_b256_many_rows.json, H100), where 180224 had trailed before.
PUSH_FROM = {"float32": ((36864, 65536), (65537, 73728), (73729, 98304), (114688, 131072), (151936, 155648),
                         (155649, 163840), (229376, 262144)),
             **{name: ((53248, 65536), (65537, 73728), (81920, 98304), (110592, 131072), (143360, 163840),
                       (163841, 262144))
                for name in ("float16", "bfloat16")}}

#: The clusters of 16 blocks in 16 bits sized 163840 and 262144 run 256 threads (40 and 64
#: elements a thread, kernels/online_cluster_push.cu's ``_b256``), the others 32 elements a thread.
_CLUSTER16_B256 = {"_f16": (163840, 262144), "_bf16": (163840, 262144)}


def _cluster16(short: str, size: int) -> str:
    """The name of the cluster of 16 blocks sized ``size`` for the type of suffix ``short``."""
    return f"cluster16_push{short}_c{size}{'_b256' * (size in _CLUSTER16_B256.get(short, ()))}"


#: Many long rows over a cluster of 16 blocks sized to them (as :data:`ONE_ROW_TABLE`'s) rather
#: than :data:`PUSH_FROM`'s 8 or the split-row kernel: type -> ((from, size), ...), where the 16
#: blocks measured ahead at ~1 GiB of rows, each beside the copy in the same call (H100,
#: reports/measurements/cluster16_many_rows.jsonl and cluster16_b256_many_rows.json). fp32 at
#: 110592-262144: 0.991-1.001 against the 8 blocks' 0.988-0.997 and the split-row kernel's
#: 0.960-0.966 (110592, 140000-143360, 180000-196608, where the table had it). 16 bits at
#: 110592-163840: 0.997-1.006 against 0.991-0.998, and against the split-row kernel's 0.957 at
#: 140000; from 163841 the 8 blocks sized 262144 stay (0.995-0.999 against the 16 blocks'
#: 0.996-0.999). 98305-110591 were not measured. 16-bit rows of 110592-131072 stay on the 8
#: blocks, for the H200: there the 16 blocks ran 128256 and 131072 at 0.930-0.962 of a copy (run
#: 0049), where the 8 blocks had run 0.969-1.003 (run 0037; Quack 0.973-0.982 and 0.979-1.005 in
#: the same runs), and 110592 at 0.884-0.893 against Quack's 0.944-0.960 in one call
#: (reports/measurements/h200_short_and_long_quack.json); two runs, not one, so a same-call
#: measurement on the H200 is to settle it.
PUSH16_FROM = {"float32": ((110592, 131072), (131073, 163840), (163841, 262144)),
               **{name: ((131073, 163840),) for name in ("float16", "bfloat16")}}


def _overlay(entries, ranges, name_of):
    """A ladder's ``entries`` (ending on a finite limit) with the rows of each (from, size) of
    ``ranges`` given to ``name_of(size)``, neighbouring entries of one variant joined: the cluster
    push kernels of :data:`PUSH_FROM` and :data:`_PUSH` over the kernels between them. On a GPU
    without clusters a push kernel's rows go on to the next entry."""
    def at(n):
        for start, size in ranges:
            if start <= n <= size:
                return name_of(size)
        return next(name for limit, name in entries if n <= limit)
    cuts = sorted({limit for limit, _ in entries} | {x for start, size in ranges for x in (start - 1, size)})
    out = [(n, at(n)) for n in cuts if n > 0]
    return [e for e, after in zip(out, [*out[1:], (None, None)], strict=True) if e[1] != after[1]]


def _clusters(entries, dtype: str, short: str):
    """``entries`` with the rows of :data:`PUSH_FROM` over the clusters of 8 and those of
    :data:`PUSH16_FROM` over the clusters of 16."""
    eight = _overlay(entries, PUSH_FROM[dtype], lambda size: f"cluster_push{short}_c{size}")
    return _overlay(eight, PUSH16_FROM[dtype], lambda size: _cluster16(short, size))


#: dtype -> ((largest row length or None, variant name), ...), in order.
TABLE = {
    "float32": (*_clusters((*_onepass("float32", _SIZES, "onepass_vec4_c"), (2**21, "split_row_smem_f32")),
                           "float32", ""),
                (None, "safe_block_vec4_1024")),
    **{name: tuple(_clusters((*_onepass(name, _SIZES, f"onepass_{short}_c"),
                              (69568, f"split_row_smem_{short}_b512"), (2**21, f"split_row_smem_{short}")),
                             name, f"_{short}"))
       for name, short in (("float16", "f16"), ("bfloat16", "bf16"))},
}


#: A few long rows (at most FEW_ROWS of them, from FEW_ROWS_FROM columns, FEW_ROWS_ELEMENTS
#: elements in all) go to the cluster push kernel sized to the row (8 blocks a row, each reading
#: its slice once into registers) rather than the split-row kernel, whose grid-wide meet costs more
#: than it saves there, even where the table takes the split-row kernel for many rows. Cold-L2
#: latency (reports/measurements/few_rows_push.jsonl; 1, 8 and 16 rows of 32000-262144, every type):
#: the smallest push kernel that holds the row is the fastest of the four sizes measured, in
#: 5.0-10.8 µs where the barrier cluster kernels this table named before took 5.5-13.0 (1.0-1.38x;
#: 1 row of 151936 in bf16: 6.8 against 8.8); rows of 32000 take the size 65536 (5.0-6.3 µs against
#: the cluster sized 32768's 5.5-6.8).
FEW_ROWS = 16
FEW_ROWS_ELEMENTS = 2**21
#: dtype -> the shortest row of the few that take a cluster: a vocabulary of 32000.
FEW_ROWS_FROM = {"float32": 32000, "float16": 32000, "bfloat16": 32000}
#: dtype -> the kernels for a few long rows, as :data:`TABLE`'s entries: every size of :data:`PUSH_FROM`.
FEW_ROWS_TABLE = {name: tuple((size, f"cluster_push{short}_c{size}") for _, size in PUSH_FROM[name])
                  for name, short in (("float32", ""), ("float16", "_f16"), ("bfloat16", "_bf16"))}

_TILE_SIZES = (32, 128, 512, 1024, 2048, 4096, 8192, 16384)


def _tile_sizes(family: str, suffix: str):
    """The register tiles of log_softmax, the fused forward and the backwards, a kernel a row size
    (kernels/*/*_onepass*.cu): log_softmax's go on to 32768, and in 16 bits the backwards' and the
    bias form's (0.41-0.98 of copy at 16385-32768 against the block's and the online split
    kernel's 0.41-0.77: reports/measurements/form_tiles_c32768.jsonl)."""
    longer = family == "log_softmax" or (suffix != "" and (family.endswith("backward")
                                                          or family == "scaled_bias"))
    return _TILE_SIZES + (32768,) * longer


#: Long rows over a cluster of 8 blocks (kernels/*/*_cluster.cu, sm_90), sized 32768, 65536 and
#: 131072: family -> type -> the row length from which the cluster kernel sized to the row is
#: taken. Measured beside the block (reports/measurements/clusters_promoted.jsonl), the cluster
#: is faster from 24576 columns on in every op and type, by 0.05-0.45 of copy, and so is
#: everything at 16385 but the fp32 backwards (block 0.82-0.93, cluster 0.66-0.71) and the
#: 16-bit bias form (0.41 against 0.29). Between them (cluster_crossover.jsonl) the cluster wins
#: from 18432 in the softmax backward, 22528 in log_softmax's (0.81 both) and the bias form. The
#: 16-bit bias form's rows up to 32768 now go to its tile sized 32768 (`_tile_sizes`).
_CLUSTER_FROM = {"backward": {"": 17409, "_f16": 32769, "_bf16": 32769},
                 "log_softmax_backward": {"": 22529, "_f16": 32769, "_bf16": 32769},
                 "log_softmax": {"": 32769, "_f16": 32769, "_bf16": 32769},
                 **{f"scaled_{form}": {"": 16385, "_f16": 16385 + 16384 * (form == "bias"),
                                       "_bf16": 16385 + 16384 * (form == "bias")}
                    for form in ("bias", "mask", "causal")}}
#: The cluster kernels' row sizes. In 16 bits, 73728 (288 threads) holds a misaligned row of
#: 65535 with its shift, which the tiles sized 65536 do not (they read it element by element),
#: and 262144 takes vocabularies of 151936 and 262144 from the block. Every op in bf16
#: (reports/measurements/cluster_sizes_73728_262144.jsonl): a misaligned 65535 at 0.51-0.70 of
#: copy against 0.42-0.56, rows of 69632-73728 at 0.58-0.86 against 0.27-0.57 (sized 131072),
#: 151936 at 0.26-0.61 and 262144 at 0.37-0.86 against the block's 0.18-0.46.
_CLUSTER_SIZES = {"": (32768, 65536, 131072), "_f16": (32768, 65536, 73728, 131072, 262144),
                  "_bf16": (32768, 65536, 73728, 131072, 262144)}


#: The rows past the clusters (and, where it measured faster, the rows of the larger clusters) go
#: over a group of co-resident blocks, up to this length, on each family's online split kernel
#: (kernels/*/*_online_split.cu: every input read once and kept on chip, one meeting a row on a
#: (max, sum) pair). Beside the dispatcher's former choices on large batches
#: (reports/measurements/online_split_ops.jsonl; fp32 and bf16, C = 131072-2^20 for the backwards,
#: 32768-2^20 for the rest), at C = 151936-2^20: the bias form 0.91-1.00 of copy in fp32 against
#: 0.50-0.59 and 0.71-0.76 against 0.45-0.67 in bf16, the mask form 0.68-0.71 against 0.34-0.39
#: and 0.48-0.50 against 0.36-0.40, the causal form 0.89-0.94 against the block's 0.50-0.51 and
#: 0.58-0.60 against 0.31-0.49, the softmax backward 0.89-1.00 against 0.64-0.72 and 0.92-0.97
#: against 0.48-0.86, log_softmax's backward 0.88-1.00 against the block's 0.67-0.71 and
#: 0.75-0.90 against 0.50-0.76; log_softmax 0.91-0.94 against 0.55-0.66 (its two-meeting split
#: row, log_softmax_online_split.jsonl). The mask form's, its tile's mask words since loaded
#: together, 0.80-0.91 and 0.54-0.57 at 65536-2^20 (online_split_mask_and_crossovers.jsonl).
SPLIT_LONGEST = 2**20
#: family -> type -> the tile and cluster sizes whose rows the online split kernel takes instead,
#: in their place in the ladder (online_split_ops.jsonl, online_split_mask_and_crossovers.jsonl): in fp32
#: log_softmax's and the fused forms' sized 65536 and 131072 (log_softmax at C = 49152-131072 0.73-0.88
#: of copy against 0.91-0.93; the forms at 65536-131072 0.53-0.98 against 0.90-1.00), the
#: backwards' sized 65536 and 131072 (0.82-0.97 against 0.99-1.01 at 49152-131072) and the
#: log_softmax backward's sized 32768 (0.947 against 1.003 at 32768 on the H200 in one call,
#: online_split_mask_and_crossovers.jsonl; 0.946 in run 0051; an H100 ran it at 1.008 in run 0042,
#: the split not beside it; 22529-32767 not measured on the split); in 16 bits
#: every cluster of log_softmax (0.53-0.79 against 0.91-0.93 at 32768-131072, the misaligned 65535
#: 0.59 against 0.91) and its tile sized 32768 (0.794 against 0.931 at 32768 on the H200, where
#: registers hold the tile to one block a multiprocessor: op_tile_registers.txt; at 16385 and 24576
#: it ran 0.434 and 0.682 there, clusters_promoted.jsonl, where the split was not measured; an
#: H100 ran the tile at 0.987 in run 0042, the split not beside it: the H200's choice until
#: staging/trial/tile_registers.measure has the three in one call) and of the backwards
#: (0.52-0.89 against 0.79-0.99 at 49152-262144, 65535 included), the mask and causal forms'
#: sized 32768 (0.30-0.59 against 0.48-0.77 at 20481-32768;
#: the bias form's rows there go to its tile sized 32768, 0.41-0.98 against 0.41-0.77), 131072
#: and 262144 (0.31-0.75 against 0.50-0.77 at 98304-262144; only the bias form's at 131072 itself
#: was ahead, 0.75 against 0.74); and the fp32 mask form's cluster sized 32768 (0.69 against 0.91)
#: and its tile sized 16384 (0.38-0.58 against 0.84-0.96 at 8193-16384, the tile's mask words
#: loaded three chunks at a time: mask_tile_16384_crossover.jsonl). Kept: the other fp32 clusters
#: sized 32768 (the softmax backward's 1.00 against 1.00; the bias form's measured at 32768 only, 0.97
#: against 1.00; the causal form's gave way once the online split kernel read only up to a row's
#: last kept column, 0.72-1.10 against 1.21-1.49 at 20480-32768: causal_reads.jsonl), and in 16 bits
#: the bias form's sized 73728 (its push kernel takes the aligned rows and the misaligned ones of
#: 72703-73664: :data:`_MISALIGNED_PUSH`; the barrier cluster none, :data:`_SPLIT_WIDE`) and the mask
#: form's tile sized 16384 (0.70 against 0.58-0.60 at 12288-16384; 0.60-0.71 against 0.66-0.72 at
#: 10240-16384 since, a crossover: online_split_causal_crossover.jsonl). The 16-bit mask and causal
#: forms' clusters sized 65536 and 73728 gave way once their stashes formed logits with no bounds
#: check an element:
#: mask 0.66-0.70 against 0.55-0.62 at 49152-73728 (online_logits_words.jsonl), causal 0.65-0.73
#: against 0.47-0.68 at 40960-65536, level at 73728 (0.656 against 0.66;
#: online_split_causal_crossover.jsonl). The 16-bit bias form's cluster sized 65536, once 0.88
#: against the split kernel's 0.75, gave way to it at 32769-40959, the rows its push kernel does
#: not take: 0.77-0.97 of a copy against 0.56-0.78, aligned and misaligned rows alike (an H100:
#: reports/measurements/bias16_cluster_split_h100.json). fp16 follows bf16 (the same kernels over
#: another type).
_SPLIT_INSTEAD = {
    "log_softmax": {"": (65536, 131072), "_f16": (32768, 65536, 73728, 131072, 262144),
                    "_bf16": (32768, 65536, 73728, 131072, 262144)},
    "scaled_bias": {"": (65536, 131072), "_f16": (65536, 131072, 262144), "_bf16": (65536, 131072, 262144)},
    "scaled_mask": {"": (16384, 32768, 65536, 131072), "_f16": (32768, 65536, 73728, 131072, 262144),
                    "_bf16": (32768, 65536, 73728, 131072, 262144)},
    "scaled_causal": {"": (32768, 65536, 131072), "_f16": (32768, 65536, 73728, 131072, 262144),
                      "_bf16": (32768, 65536, 73728, 131072, 262144)},
    **{family: {"": (32768,) * (family == "log_softmax_backward") + (65536, 131072),
                "_f16": (65536, 73728, 131072, 262144), "_bf16": (65536, 73728, 131072, 262144)}
       for family in ("backward", "log_softmax_backward")},
}


#: The backwards' and the bias form's 16-bit long rows over a cluster of 8 whose states meet in
#: mailboxes (kernels/*/*_cluster_push.cu, sm_90): family -> type -> ((from, size), ...), as
#: :data:`PUSH_FROM`, over the ladder's entries there, where each measured faster than the
#: dispatcher's choice in the same call (reports/measurements/push_ops.jsonl, ~1 GiB inputs; bf16
#: at the crossovers, fp16 follows it). The softmax backward 1.00-1.04 of copy against 0.96-0.99
#: at 53248-73728 (the online split kernel; 49152: 0.94 against 0.97); log_softmax's 0.95-1.03
#: against 0.89-0.91 at 65536 and 73728 (level at 57344 and 71680; 53248, 67584 and 69632 behind);
#: the bias form 0.65-1.04 against 0.63-0.89 at 40960-73728 (the barrier cluster kernels),
#: 0.85-1.01 against 0.77-0.80 at 98304-131072 and 0.81-0.85 against 0.77-0.78 at 245760-262144
#: (the online split kernel; 81920 and 229376 behind), and at 86016-96256 0.989-1.029 against
#: the split kernel on 512-thread blocks' 0.945-0.968 (an H100; 81920 behind, 0.958 against
#: 0.970: split_blocks_map_h100.jsonl), level with it at 45000 and 60001 (0.978 and 0.890
#: against 0.979 and 0.896). Left to the others: the backwards' sizes
#: 131072 and 262144 (0.61-0.92 against 0.88-0.99 below 262144; at 262144 itself the softmax
#: backward's level, 0.97-0.98), the mask and causal forms' (ahead only at their sizes' own
#: lengths: mask at 73728 0.76 against 0.70, causal at 65536 and 73728 by 0.015-0.02; 0.15-0.71
#: against 0.67-0.79 elsewhere), and every misaligned row (a misaligned 65535 0.25-0.70 against
#: 0.67-0.92) but the bias and mask forms' of :data:`_MISALIGNED_PUSH`. The mask form's 16-bit rows
#: of 51200-73728 since its words come in one round trip (include/scaled.cuh, kept_chunks):
#: 0.834-1.017 of a copy against the online split kernel's 0.78-0.865 (an H100; 40960 behind, 0.77
#: against 0.87:
#: reports/measurements/mask_words_together_h100.json, mask_push_dispatch_h100.json), the rows
#: of 45056-49152 left to the split kernel on 512-thread blocks (0.934-0.946 against 0.851-0.919;
#: level at 51200, 0.952 against 0.954; behind from 53248: split_blocks_mask_map_h100.jsonl); its rows
#: of 114688-131072 on the push kernel sized 131072 (0.910-0.982 against 0.825-0.867; 98304
#: behind, 0.805 against 0.838; the sized 262144 0.14-0.61 everywhere: an H100,
#: reports/measurements/mask_push_long_h100.json).
_PUSH = {"backward": {s: ((53248, 65536), (65537, 73728)) for s in ("_f16", "_bf16")},
         "log_softmax_backward": {s: ((57345, 65536), (71681, 73728)) for s in ("_f16", "_bf16")},
         "scaled_bias": {s: ((40960, 65536), (65537, 73728), (86016, 131072), (245760, 262144))
                         for s in ("_f16", "_bf16")},
         "scaled_mask": {s: ((51200, 65536), (65537, 73728), (114688, 131072))
                         for s in ("_f16", "_bf16")}}


#: Rows of the online split kernel's that go to one of its kernels on blocks of 512 threads, two a
#: multiprocessor (``*_online_split*_b512``, the bias form's ``_s56`` and ``_e16s56`` too), each
#: row over half the blocks or fewer: family -> type -> ((from, to, the kernel's suffix), ...), of
#: the rows the ladder gives the split kernel, aligned and misaligned alike (a misaligned row the
#: push kernels leave below those ranges stays). The 16-bit bias form's,
#: every row the split kernel takes (from 32769; the misaligned ones of 65473-72702 too, which
#: the push kernels leave): with 8 elements a thread in registers and 48 in the stashes, on an
#: H100, each length in one call, ahead of or level with the 256-thread kernel at each of 22 bf16
#: lengths from 32769 to 2^20 and 7 fp16 (bf16 0.784-0.979 of a copy against 0.758-0.962; 98303
#: 0.851 against 0.796, 2^20 0.856 against 0.797) and of the barrier cluster sized 73728 at the
#: misaligned 65473-72702 (0.877-0.945 against 0.827-0.886: split_blocks_map_h100.jsonl); with 16
#: in registers it had trailed at 36000, 98303 and 524288 (split_blocks_h100.jsonl,
#: split_blocks_regs_h100.jsonl); with 56 in each stash where a row meets over fewer blocks (an
#: H100, bf16, each length in one call: bias_s56_h100.jsonl): 16 in registers (36800 a block) at
#: 32769-36800, one block a row (0.983 against 0.826 at 36001), and at the misaligned 65537-72702,
#: two (0.956 / 0.982 against 0.918 / 0.947 at 69631 / 72702; behind at 65535, 0.859 against
#: 0.873); 8 (32704 a block) from 73729 (0.892 against 0.865 at 2^20, 0.952 against 0.883 at
#: 150001, 0.987 against 0.978 at 80000; level at 98303 and 200001); 8 + 48 keeps 36801-65536
#: (ahead of both at 45001, 0.917 against 0.910). The 16-bit mask form's from 16896 on,
#: every row the split kernel takes (8 elements a thread in registers; the ladder gives the split
#: kernel every row past 16384 its push kernels do not take): on an H100, each length in one
#: call, 0.905-0.992 of a copy against 0.818-0.884 at 20000, 40000, 100000, 150000, 200001,
#: 524288 and 2^20, 0.843-0.850 against 0.820 at a misaligned 65535 (split_blocks_ops_h100.jsonl), 0.904-0.943
#: against 0.856-0.888 at 16896-19456, 0.959 against 0.837 at 98304 and 0.947 against 0.860 at
#: 262144; behind at 16385 (0.703 against 0.775: split_blocks_mask_map_h100.jsonl; those
#: files in reports/measurements/).
_SPLIT_WIDE = {"scaled_bias": {s: ((32769, 36800, "_e16s56"), (36801, 65536, "_b512"),
                                   (65537, 72702, "_e16s56"), (72703, 73728, "_b512"), (73729, 2**20, "_s56"))
                                for s in ("_f16", "_bf16")},
               "scaled_mask": {s: ((16896, 2**20, "_b512"),) for s in ("_f16", "_bf16")}}


#: Misaligned 16-bit rows of the bias and mask forms on their cluster push kernels: family -> type
#: -> ((first, last, size), ...), each span's last row at most the longest whose blocks' slices
#: leave their tiles a vector's room for the shift (:func:`_shifted_room`; past it a tile reads
#: element by element). The bias form's, on an H100 (~1 GiB of rows,
#: reports/measurements/misaligned_push_h100.json): the push kernel sized 65536 0.845-0.879 of a
#: copy against the online split kernel's 0.763-0.783 at 59001-65471 (55001 behind, 0.813 against
#: 0.826; 49153 0.739 against 0.773), the push kernel sized 73728 0.826-0.854 against 0.763-0.777
#: at 72703-73663; between them the barrier cluster sized 73728 (each length in one call:
#: reports/measurements/misaligned_bias_h100.jsonl) 0.829-0.884 against the split kernel's
#: 0.774-0.816 and the push kernel's 0.788-0.883 at 65473-72702, and on an H200 0.702 against
#: 0.684 at 65535 (bias_stash_past.jsonl); the split kernel on 512-thread blocks with 8 elements
#: a thread in registers ran 0.877-0.945 against its 0.827-0.886 there (an H100,
#: split_blocks_map_h100.jsonl), and those rows go to it (:data:`_SPLIT_WIDE`). The mask form's
#: split kernel on 512-thread blocks falls by 3-6% of a copy over a few hundred lengths below
#: 65536 and 73728 (0.923 at 65377, 0.871 at 65409; 0.862-0.834 at 65505-66049, 0.905 at 66177;
#: 0.939 at 73473, 0.909 at 73601), where its push kernels lead: sized 65536 0.899-0.902 against
#: 0.871-0.877 at 65409-65471, sized 73728 0.857-0.866 against 0.834-0.854 at 65521-66049 (level
#: at 65505; behind at 65473-65489 and from 66177) and 0.919-0.922 against 0.905-0.912 at
#: 73601-73663 (an H100, each length in one call: mask_misaligned_h100.jsonl). The backwards'
#: push kernels lose on misaligned rows (0.72-0.87 against 0.78-0.99) but log_softmax's
#: backward's at 61441 (0.882 against 0.833; 57345-65471 behind); fp16 follows bf16.
_MISALIGNED_PUSH = {"scaled_bias": {s: ((59001, 65472, 65536), (72703, 73664, 73728))
                                    for s in ("_f16", "_bf16")},
                    "scaled_mask": {s: ((65409, 65472, 65536), (65521, 66049, 73728), (73601, 73664, 73728))
                                    for s in ("_f16", "_bf16")}}


def _shifted_room(size: int, suffix: str) -> int:
    """The longest misaligned row a cluster kernel of 8 blocks sized ``size`` still reads in whole
    16-byte vectors: each block's slice (rounded up to whole vectors) plus the row's shift (up to a
    vector less one element) within its tile of size / 8 elements."""
    vector = 16 // (4 if suffix == "" else 2)
    return size - 8 * vector


#: Row lengths whose aligned rows (first input) take another tile of an op than the
#: ladder's, as :data:`ALIGNED_TILES` for the forward: op -> type -> {length: variant}. 16-bit rows
#: of 72-128 on 4 lanes of 32 (0.98-1.02 of a copy for the bias form, 0.81-1.21 causal, 0.78-1.02
#: mask, against 8 lanes of 16's 0.71-0.95, 0.65-1.09, 0.66-0.98), of 24 on 2 lanes of 16 (bias
#: 0.89-0.92 against 0.75-0.77, causal 0.83 against 0.61), and the causal form's of 32 (0.99
#: against 0.89): an H100, each length measured (reports/measurements/fused_lanes_h100.json);
#: misaligned rows, and the lengths between, were not. The mask form's aligned 16-bit rows of
#: 28672-32768 stay on its split kernel of 512-thread blocks (:data:`_SPLIT_WIDE`), not its tile
#: sized 32768: 0.990-0.995 of a copy against the tile's 0.883-0.968 (an H100, each length in one
#: call: split_blocks_mask_map_h100.jsonl; the tile against the 256-thread split kernel:
#: mask_tile_c32768_h100.json).
OP_ALIGNED_TILES = {
    **{f"scaled_softmax_{form}": {
        dtype: {**{c: f"scaled_{form}_onepass_{short}_c128_l4" for c in (72, 96, 112, 120, 128)},
                **{c: f"scaled_{form}_onepass_{short}_c32_l2" for c in lanes2}}
        for dtype, short in (("float16", "f16"), ("bfloat16", "bf16"))}
       for form, lanes2 in (("bias", (24,)), ("mask", ()), ("causal", (24, 32)))},
    # the backwards' 16-bit rows of 24 on 2 lanes of 16: 0.94 of a copy against 0.85 (softmax's),
    # 0.86-0.87 against 0.74-0.75 (log_softmax's); level at 32 (reports/measurements/
    # backward_lanes_h100.json, an H100)
    **{op: {dtype: {24: f"{family}_onepass_{short}_c32_l2"}
            for dtype, short in (("float16", "f16"), ("bfloat16", "bf16"))}
       for op, family in (("softmax_backward", "backward"),
                          ("log_softmax_backward", "log_softmax_backward"))}}


def _ladder(family: str, suffix: str):
    """The variants of ``family`` (their names' prefix) for one element type (``suffix``: "",
    "_f16", "_bf16"): a register tile sized to the row, then the clusters and the online split
    kernel, each where it measured faster, then the block."""
    block = (None, f"{family}_block{suffix or '_1024'}")
    split = f"{family}_online_split{suffix}"
    instead = _SPLIT_INSTEAD.get(family, {}).get(suffix, ())
    entries = [(c, split if c in instead else f"{family}_onepass{suffix}_c{c}")
               for c in _tile_sizes(family, suffix)]
    start = _CLUSTER_FROM.get(family, {}).get(suffix)
    if start is not None:
        if start - 1 > entries[-1][0]:
            entries.append((start - 1, block[1]))
        entries += [(c, split if c in instead else f"{family}_cluster{suffix}_c{c}")
                    for c in _CLUSTER_SIZES[suffix] if c >= start]
    entries.append((SPLIT_LONGEST, split))
    pushed = _PUSH.get(family, {}).get(suffix, ())
    return (*_overlay(entries, pushed, lambda size: f"{family}_cluster_push{suffix}_c{size}"), block)


def _misaligned_rooms(entries, suffix: str):
    """The longest misaligned row each entry of a ladder takes: a cluster kernel whose next size is
    at most an eighth larger leaves it the rows whose shift may overflow its 8 blocks' tiles (the
    row less one 16-byte vector a block); a cluster push kernel none (:data:`_PUSH`; the bias
    form's take some, :data:`_MISALIGNED_PUSH`); anywhere
    else the row stays, read element by element, as a kernel twice the size measured slower still."""
    rooms = []
    for i, (limit, name) in enumerate(entries):
        after = entries[i + 1][0] if i + 1 < len(entries) else None
        close = "_cluster" in name and None not in (limit, after) and after * 8 <= limit * 9
        rooms.append(0 if "_cluster_push" in name else _shifted_room(limit, suffix) if close else limit)
    return tuple(rooms)


_LADDERS = {"softmax_backward": "backward", "log_softmax": "log_softmax",
            "log_softmax_backward": "log_softmax_backward", "scaled_softmax_bias": "scaled_bias",
            "scaled_softmax_mask": "scaled_mask", "scaled_softmax_causal": "scaled_causal"}

#: op -> dtype -> ((largest row length or None, variant name), ...), in order, for the ops
#: besides the forward.
_SUFFIXES = (("float32", ""), ("float16", "_f16"), ("bfloat16", "_bf16"))
_SUFFIX = dict(_SUFFIXES)
OP_TABLES = {op: {dtype: _ladder(family, suffix) for dtype, suffix in _SUFFIXES}
             for op, family in _LADDERS.items()}
#: op -> dtype -> the longest misaligned row each entry of OP_TABLES takes.
_MISALIGNED = {op: {dtype: _misaligned_rooms(OP_TABLES[op][dtype], suffix) for dtype, suffix in _SUFFIXES}
               for op in OP_TABLES}


@functools.cache
def _by_name():
    return {v.name: v for v in catalog.variants()}


def choose_op(op: str, n_cols: int, device_id: int | None = None, dtype="float32", aligned: bool = True):
    """The variant that ``op``'s entry point (``softmax_backward``, ``log_softmax``) runs for rows
    of ``n_cols`` ``dtype`` elements (remembered, as :func:`choose`); ``aligned``: every row of the
    first input starts at a 16-byte boundary."""
    return _choose_op(op, n_cols, device_id, dtype, bool(aligned))


def _usable(v, device_id: int | None) -> bool:
    """Whether ``v`` (a variant of kernels/, or None where the table's name waits in staging/)
    runs on ``device_id`` (any device where None)."""
    return v is not None and (device_id is None or v.runs_here(device_id))


@functools.lru_cache(maxsize=4096)
def _choose_op(op: str, n_cols: int, device_id: int | None, dtype, aligned: bool):
    fmt = dtypes.of(dtype)
    v = _by_name().get(OP_ALIGNED_TILES.get(op, {}).get(fmt.name, {}).get(n_cols)) if aligned else None
    if _usable(v, device_id):
        return v
    if not aligned:
        family, suffix = _LADDERS.get(op), _SUFFIX.get(fmt.name)
        for first, last, size in _MISALIGNED_PUSH.get(family, {}).get(suffix, ()):
            if first <= n_cols <= last:
                v = _by_name().get(f"{family}_cluster_push{suffix}_c{size}")
                if _usable(v, device_id):
                    return v
    entries = OP_TABLES[op].get(fmt.name, ())
    rooms = [limit for limit, _ in entries] if aligned else _MISALIGNED[op][fmt.name]
    for (_, name), limit in zip(entries, rooms, strict=True):
        v = _by_name().get(name)  # a kernel waiting in staging/ for the GPU suite is not taken
        if (limit is None or n_cols <= limit) and _usable(v, device_id):
            return _wide(v, op, n_cols, fmt.name, device_id)
    raise LookupError(f"no {fmt.name} {op} variant for rows of {n_cols} columns in kernels/")


def _wide(v, op: str, n_cols: int, dtype: str, device_id: int | None):
    """``v``, or where it is an online split kernel whose rows of ``n_cols`` go to its kernel on
    512-thread blocks (:data:`_SPLIT_WIDE`), that one."""
    family, suffix = _LADDERS.get(op), _SUFFIX.get(dtype)
    if v.name != f"{family}_online_split{suffix}":
        return v
    for first, last, blocks in _SPLIT_WIDE.get(family, {}).get(suffix, ()):
        if first <= n_cols <= last:
            wide = _by_name().get(v.name + blocks)
            return wide if _usable(wide, device_id) else v
    return v


def _device(x, what: str = ""):
    """x's device, once x is known for a CuPy array (else a TypeError naming what it is, a torch
    tensor told where it goes)."""
    if getattr(x, "dtype", None) is None or not _is_cupy_array(x):
        kind = type(x)
        package = kind.__module__.split(".")[0]
        name = kind.__name__ if package == "builtins" else f"{package}.{kind.__name__}"
        hint = " (for torch tensors: softmax_harness.torch)" if package == "torch" else ""
        raise TypeError(f"{what}expected a cupy.ndarray, got {name}{hint}")
    return getattr(getattr(x, "device", None), "id", None)


def op_chosen_for(op: str, x):
    """The variant ``op`` (a name of :data:`OP_TABLES`) runs on CuPy arrays whose first is ``x``."""
    device = _device(x, f"{op}: ")  # refuses anything but an array first
    if x.ndim != 2:
        raise ValueError(f"{op}: expected a 2-d (rows, cols) array, got ndim={x.ndim} shape={tuple(x.shape)}")
    return choose_op(op, x.shape[-1], device, x.dtype, aligned=rows_aligned(x))


def run_op(op: str, *inputs, out=None):
    """``op`` (a name of :data:`OP_TABLES`) on its inputs, by the variant :func:`choose_op` picks."""
    return op_chosen_for(op, inputs[0])(*inputs, out=out)


def softmax_backward(y, dy, out=None):
    """dx = y * (dy - sum(dy * y)) over the last axis of CuPy (N, C) arrays (``y`` the forward's
    output, ``dy`` the incoming gradient), by the fastest variant for C and the element type."""
    return op_chosen_for("softmax_backward", y)(y, dy, out=out)


def log_softmax_backward(z, dy, out=None):
    """dx = dy - exp(z) * sum(dy) over the last axis of CuPy (N, C) arrays (``z`` the forward's
    log_softmax output, ``dy`` the incoming gradient), by the fastest variant for C and the type."""
    return op_chosen_for("log_softmax_backward", z)(z, dy, out=out)


def log_softmax(x, out=None):
    """log_softmax over the last axis of a CuPy (N, C) array, by the fastest variant for C and the
    element type."""
    return op_chosen_for("log_softmax", x)(x, out=out)


def scaled_softmax(x, scale=1.0, *, bias=None, mask=None, causal=False, out=None):
    """softmax(scale * x + bias) over the last axis of a CuPy (N, C) array, with ``bias`` (of x's
    shape and type), or ``mask`` (bool, of x's shape: True masks an element out) or ``causal``
    (row r keeps columns 0 .. r % C), at most one of the three; by the fastest variant for C and
    the element type."""
    if (bias is not None) + (mask is not None) + bool(causal) > 1:
        raise ValueError("scaled_softmax takes one of bias=, mask= and causal=True")
    if mask is not None:
        return op_chosen_for("scaled_softmax_mask", x)(x, mask, scale, out=out)
    if causal:
        return op_chosen_for("scaled_softmax_causal", x)(x, scale, out=out)
    if bias is None:
        import cupy

        bias = cupy.zeros_like(x)
    return op_chosen_for("scaled_softmax_bias", x)(x, bias, scale, out=out)


def choose(n_cols: int, device_id: int | None = None, dtype="float32", aligned: bool = True,
           n_rows: int | None = None):
    """The variant that ``softmax`` runs for rows of ``n_cols`` ``dtype`` elements (on ``device_id``);
    ``aligned``: every row starts at a 16-byte boundary; ``n_rows``, where known: a few long rows
    (:data:`FEW_ROWS`, :data:`FEW_ROWS_ELEMENTS`, :data:`FEW_ROWS_FROM`, :data:`SHORT_FEW_ROWS`)
    take :data:`ONE_ROW_TABLE` or :data:`FEW_ROWS_TABLE` first (in 16 bits, up to a few rows, the
    kernels of :data:`KEPT`), and a small batch of short rows :data:`SMALL_BATCH_TILES`.
    Remembered: the choice took
    4.7-8.1 µs of a call's host time (reports/measurements/host_overhead_breakdown.json)."""
    # (each type's own limits in _choose)
    few = n_rows is not None and 0 < n_rows <= _FEW_ROWS_ANY and n_cols >= _FEW_FROM_ANY
    small = n_rows is not None and 0 < n_rows <= _SMALL_BATCH_ROWS and \
        _SMALL_BATCH_COLS[0] <= n_cols <= _SMALL_BATCH_COLS[1]
    return _choose(n_cols, device_id, dtype, bool(aligned), n_rows if few or small else 0)


#: One long row over a cluster of 16 blocks sized to it (``cluster16_push_*``,
#: kernels/online_cluster_push.cu, sm_90, its launch allowing a cluster past the portable 8), whose
#: latency is one block's share of the row, half the 8 blocks' share. Cold L2
#: (reports/measurements/few_rows_cluster16.jsonl, medians of 20): one row of 32000-262144 in 4.7-7.8
#: µs against the 8 blocks' 4.8-8.9 (fp32 151936: 6.05 against 7.30, 262144: 7.78 against 8.86; bf16
#: 151936: 5.84 against 6.91, 262144: 6.51 against 7.65); from 8 rows the 8 blocks are level or
#: ahead at some lengths (fp32 8 x 262144: 10.9 against 12.5), and keep them. The 16-bit sizes
#: 163840 and 262144 on 256 threads (:func:`_cluster16`): one bf16 row of 151936 in 5.79 µs against
#: 5.95 on 32 elements a thread, of 262144 level (6.66 against 6.62; cluster16_b256.jsonl).
_CLUSTER16_SIZES = (65536, 131072, 163840, 262144)
ONE_ROW_TABLE = {name: tuple((size, _cluster16(short, size)) for size in _CLUSTER16_SIZES)
                 for name, short in (("float32", ""), ("float16", "_f16"), ("bfloat16", "_bf16"))}
#: type -> up to how many rows of FEW_ROWS_FROM to 32768 columns (the tiles' longest) go over the
#: cluster of 8 sized 65536 rather than a block a row: 64 rows of 32000 in 9.30 µs against the
#: tile's 11.09 (fp32) and 8.03-8.08 against 8.90-8.93 (16 bits), 256 rows in 22.1 against 25.7
#: (fp32), where in 16 bits the tiles stay ahead (14.4-14.7 against 16.5): few_rows_cluster16.jsonl.
#: 16-bit rows past 64 go to the cluster of 2 sized 32768 (:data:`SMALL_BATCH_TILES`): on the 8
#: blocks whose tiles keep their exponentials (:data:`KEPT`) 64 rows of 32000 ran 7.87 µs (fp16
#: 7.92) against the cluster of 2's 8.13 (keep_latency_h100.jsonl), where the packed 8 blocks
#: trailed it there (two calls on an H100: bf16 8.43 and 8.42 against 8.10 and 8.19;
#: short_few_rows_boundary_h100.jsonl, cluster_pair_latency_h100.jsonl). fp32 rows past 64 go to
#: the cluster of 2 sized 32768 likewise: 128 and 256 rows of 32000 in 14.83 and 26.26 µs against
#: 15.42 and 26.72 (26.27 against 26.72 in a second call), 64 rows 10.50 against 10.24
#: (cluster_pair_16384_rows_h100.jsonl, cluster_pair_16384_latency_h100.jsonl).
SHORT_FEW_ROWS = {"float32": 64, "float16": 64, "bfloat16": 64}
#: Rows past one that take the cluster of 16 sized to them rather than the 8 blocks, where it
#: measured faster at every row count measured in the range (few_rows_cluster16.jsonl, H100, cold L2,
#: medians of 20, at 1, 8, 16, 64 and 256 rows of 128256, 151936 and 262144): type -> ((from, size,
#: fewest rows, most rows), ...), ``from`` as in :data:`PUSH_FROM`. fp32 151936: 8.61 / 11.30 /
#: 23.74 / 80.16 µs at 8 / 16 / 64 / 256 rows against 8.82 / 11.94 / 26.69 / 83.63; fp32 128256 and
#: 262144 from 16 rows (262144: 15.31 against 18.72 at 16, 41.17 against 44.67 at 64), where at 8
#: rows the 8 blocks are ahead (7.84 against 8.00, 10.94 against 12.51). 16 bits (bf16; fp16 alike):
#: 128256 at 8 / 16 / 64 rows 6.91 / 8.48 / 14.83 against 7.17 / 9.15 / 15.23, 151936 at 8 and 16
#: rows 7.39 and 9.38 against 7.81 and 10.10 (level at 64), 262144 at 16 rows 12.16 against 12.56
#: (behind at 8 and 64: 9.66 against 8.96, 25.84 against 25.38).
#: fp32 151936 takes them from 16 rows: measured again beside the 8 (few_rows_cluster16_rows.jsonl,
#: H100), 8 rows ran 9.38 µs on 16 blocks against 9.18 on 8 (and 9.42 against 9.12 dispatched,
#: dispatch_cluster16_rows_run.json beside _base.json), where 16, 64 and 256 rows kept the 16 ahead.
#: 16 bits up to 256 rows: two later calls on an H100 had the 16 blocks ahead at 256 rows too
#: (few_rows_cluster16_rows.jsonl; cluster16_b256.jsonl: 128256 48.2-48.8 µs against 49.3-49.4),
#: and the sizes 163840 and 262144 on 256 threads ahead from 1 and 16 rows (bf16 151936 at 64 / 256
#: rows 17.8 / 56.6 against the 8 blocks' 19.1 / 57.9; 262144 27.6 / 93.5 against 30.1 / 95.9;
#: behind at 8 rows of 262144, 9.62 against 9.44).
#: 16 bits at 2-6 rows of 188416-262144 too, the kept 16 blocks beside the kept 8, round after round
#: (rows16_h100.jsonl, H100, bf16 at 200000 and 262144): 6.18-8.11 µs against 7.17-8.78 (4 x 262144:
#: 7.46 against 8.42); behind at 8 and 15 rows (9.33 and 12.21 against 9.20 and 11.44), whose 128
#: and 240 blocks pass the 112 multiprocessors that clusters of 16 can hold (active_clusters.jsonl).
CLUSTER16_ROWS = {"float32": ((114688, 131072, 16, 256), (151936, 163840, 16, 256),
                              (229376, 262144, 16, 256)),
                  **{name: ((110592, 131072, 2, 256), (143360, 163840, 2, 256), (188416, 262144, 2, 6),
                            (188416, 262144, 16, 256))
                     for name in ("float16", "bfloat16")}}
#: 16-bit kernels for a few rows whose tiles keep their exponentials as floats from the fold to the
#: store (``*_keep``, kernels/online_cluster_push.cu), one a held element where the packed tiles
#: take two: the kernel of :data:`ONE_ROW_TABLE` or :data:`FEW_ROWS_TABLE` chosen -> (the one
#: that keeps them, up to how many rows it takes its place). Cold L2, H100, one call, bf16 (fp16
#: alike; keep_latency_h100.jsonl): one row of 32000 / 128256 / 151936 / 262144 on the 16 blocks
#: in 4.74 / 5.54 / 5.76 / 6.62 µs against 4.88 / 5.76 / 5.97 / 6.85, 8 rows of 128256 / 151936
#: 6.96 / 7.47 against 7.15 / 7.81, 16 rows of 262144 12.56 against 12.94, behind from 64 rows
#: (151936: 19.41 against 18.37); a second call: 32 rows of 128256 / 151936 10.46 / 11.74 against
#: 11.36 / 12.62 (keep_bounds_h100.jsonl); on the 8 blocks 8 rows of 262144 9.41 against 9.58, 4 of
#: 100000 6.13 against 6.43, 32 and 64 rows of 32000 6.56 and 7.87 against 6.93 and 8.48, behind
#: at 256 (17.60 against 17.33). At ~1 GiB of rows they are level or ahead but for the 8 blocks
#: sized 262144 (0.906 of a copy against 0.999; 97 registers: keep_bw_h100.json), which the
#: few rows take up to 8 rows (:data:`FEW_ROWS_ELEMENTS`).
def _kept(short: str) -> dict[str, tuple[str, int]]:
    sixteen = {_cluster16(short, size): 32 for size in _CLUSTER16_SIZES}
    eight = {f"cluster_push{short}_c{size}": 64 for size in (65536, 131072, 262144)}
    return {name: (f"{name}_keep", most) for name, most in {**sixteen, **eight}.items()}


KEPT = {**_kept("_f16"), **_kept("_bf16")}

#: Short rows of a small batch that take another tile of their size than :data:`_BEFORE`'s: type
#: -> ((shortest row, longest row, most rows, variant), ...), the first that holds a shape taken.
#: fp32 rows of 876-1024 take the 64 threads of 16 floats up to 16384 rows, where the 128 threads
#: of 8 trail (cold L2, H100, two calls: 4096 x 1024 in 14.5 µs against 15.9 and 15.7, 4096 x 900
#: 13.7 against 14.6, 16384 x 1024 48.6 against 49.2; level at 256 and 1024 rows:
#: reports/measurements/tile_1024_rows.jsonl,
#: short_rows_latency.jsonl), and from 65536 rows on the 128 threads are level or ahead (262144 x
#: 1024: 712.5 against 714.4 µs; ~1 GiB on the H200 0.985-1.000 of a copy against 0.964-0.996 at
#: 900-1024, shapes_1024_16384_ab.json). fp32 rows of 2049-4096 take the 256 threads of 16 floats
#: up to 16384 rows (cold L2, H100: 1 / 8 / 64 / 256 / 1024 / 16384 rows of 4096 in 4.50 / 4.70 /
#: 5.41 / 7.22 / 14.4 / 180.6 µs against the 512 threads' 4.70 / 4.94 / 5.66 / 7.55 / 16.1 / 182.2;
#: 8 and 256 rows of 3000 4.61 and 6.83 against 4.80 and 7.14; tile_4096_threads_latency.jsonl),
#: where at ~1 GiB of rows of 2816-4096 the 512 lead by 0.003-0.019 of a copy. 16-bit rows, whose
#: tile sized 1024 holds a row on a warp, take 128 threads of 8 at 800-1024 columns up to 1024 rows
#: and 64 of 16 at 960-1024 up to 4096 rows (cold L2, H100, two calls, bf16 and fp16 alike: 8 / 256
#: / 1024 rows of 1024 in 4.10 / 4.54 / 5.95 µs on 128 threads against the warp's 4.58 / 5.02 /
#: 6.08, 256 rows of 800 in 4.54 against 5.02; 2048 / 4096 rows of 1024 in 7.33 / 9.66 on 64
#: against 7.58 / 10.24; behind the warp at 8192 rows of 1024, 15.76 against 15.44, and at 4096 of
#: 900, 10.66 against 10.11: half16_blocks_rows_h100.jsonl); at ~1 GiB the 64 are level with the
#: warp (1.004 against 1.002 of a copy) and the 128 behind (0.97; half16_blocks_bw_h100.json).
#: 16-bit rows of 16385-32768 up to 1024 rows take a cluster of 2 blocks sized 32768 (sm_90), where
#: a block a row loads 132 multiprocessors unevenly (cold L2, H100, bf16; fp16 alike: 256 rows of
#: 32000 in 15.41 µs against the tile's 16.54, of 16385 11.58 against 14.45; 128 / 512 / 1024 rows
#: of 32000 10.50 / 26.58 / 47.78 against 11.68 / 27.94 / 50.72; 8 rows 6.26 against 7.68; the
#: cluster of 8 sized 65536 keeps up to 64 rows of 32000-32768 (SHORT_FEW_ROWS), 64 rows 8.42
#: against 8.19: cluster_pair_latency_h100.jsonl); at ~1 GiB 0.93-0.997 of a copy against the
#: tile's 0.84-0.99 (cluster_pair_bw_h100.json). Rows of 8193-16384 in every type and fp32 rows of
#: 16385-32768 take clusters of 2 sized 16384 and 32768 likewise (cold L2, H100, one call: fp32 8 /
#: 64 / 1024 rows of 12000 in 5.73 / 7.17 / 36.77 µs against the tile's 6.22 / 7.63 / 38.38, level
#: at 256; 256 rows of 8193 10.16 against 10.99, of 20000 19.55 against 22.70, 1024 of 32000 90.98
#: against 95.10; bf16 8 / 256 / 1024 rows of 12000 5.28 / 9.09 / 21.34 against 6.18 / 10.35 /
#: 22.27, 256 of 8193 8.51 against 10.40: cluster_pair_16384_latency_h100.jsonl); at ~1 GiB level
#: or ahead, 0.994-0.998 of a copy against 0.957-1.000, bf16 8193 0.950 against 0.782
#: (cluster_pair_16384_bw_h100.json). Up to 128 of those 16-bit rows of 16385-32768, and up to 160
#: from 24576 columns, take the cluster of 2 whose tiles keep their exponentials as floats
#: (``cluster2_push_*_c32768_keep``), ahead of the packed pair there (cold L2, H100, medians of
#: five; cluster2_keep_h100.jsonl: bf16 65 / 96 / 128 / 160 rows of 32000 in 8.06 / 9.41 / 10.19 /
#: 12.11 µs against 8.19 / 10.00 / 10.66 / 12.38, fp16 96 / 128 / 160 rows 9.52 / 10.10 / 12.10
#: against 9.97 / 10.53 / 12.29; behind at 176 / 192 / 256 rows, 12.83 / 13.42 / 16.80 against
#: 12.69 / 12.96 / 15.58); a second call, bf16 (cluster2_keep_lengths_h100.jsonl): 1 / 8 / 128
#: rows of 16385 in 5.28 / 5.73 / 8.13 against 5.50 / 5.98 / 8.58, of 28672 5.70 / 5.94 / 9.57
#: against 5.92 / 6.14 / 10.02, level at 64 rows; 160 rows of 16385 and 20000 behind (10.77 and
#: 10.54 against 9.63 and 10.26), of 24576 and 28672 level (10.82 and 11.76 against 10.90 and 11.92).
SMALL_BATCH_TILES = {"float32": ((876, 1024, 16384, "onepass_vec4_c1024_b64"),
                                 (2049, 4096, 16384, "onepass_vec4_c4096_b256"),
                                 (8193, 16384, 1024, "cluster2_push_c16384"),
                                 (16385, 32768, 1024, "cluster2_push_c32768")),
                     **{name: ((800, 1024, 1024, f"onepass_{short}_c1024_b128"),
                               (960, 1024, 4096, f"onepass_{short}_c1024_b64"),
                               (8193, 16384, 1024, f"cluster2_push_{short}_c16384"),
                               (24576, 32768, 160, f"cluster2_push_{short}_c32768_keep"),
                               (16385, 32768, 128, f"cluster2_push_{short}_c32768_keep"),
                               (16385, 32768, 1024, f"cluster2_push_{short}_c32768"))
                        for name, short in (("float16", "f16"), ("bfloat16", "bf16"))}}
_SMALL_BATCH = [entry for tiles in SMALL_BATCH_TILES.values() for entry in tiles]
# the row counts and lengths for which choose() hands _choose the row count at all
_SMALL_BATCH_ROWS = max((most for _, _, most, _ in _SMALL_BATCH), default=0)
_SMALL_BATCH_COLS = (min((first for first, *_ in _SMALL_BATCH), default=1),
                     max((last for _, last, *_ in _SMALL_BATCH), default=0))
_FEW_FROM_ANY = min(FEW_ROWS_FROM.values())
_FEW_ROWS_ANY = max(FEW_ROWS, *SHORT_FEW_ROWS.values(), *(most for ranges in CLUSTER16_ROWS.values()
                                                          for *_, most in ranges))


def _sized_cluster(table, n_cols: int, dtype: str, slack: int):
    """The kernel of ``table`` (:data:`FEW_ROWS_TABLE`, :data:`ONE_ROW_TABLE`) sized to the row
    (the smallest that holds it with a misaligned row's shift), or None: where that size waits in
    staging/, a larger one does not stand in (each size up measured slower on the same rows:
    reports/measurements/few_rows_push.jsonl)."""
    for limit, name in table.get(dtype, ()):
        if n_cols <= limit - slack:
            return _by_name().get(name)
    return None


def _few_rows(n_cols: int, rows: int, dtype: str, slack: int, device_id: int | None):
    """The cluster kernel for ``rows`` rows of ``n_cols`` (from FEW_ROWS_FROM columns on), or None
    where the table's choice stands: of 16 blocks for one row and in :data:`CLUSTER16_ROWS`, else
    of 8 for a few rows."""
    candidates = []
    if rows == 1 or any(start <= n_cols <= size - slack and fewest <= rows <= most
                        for start, size, fewest, most in CLUSTER16_ROWS[dtype]):
        candidates.append(ONE_ROW_TABLE)
    if (rows <= FEW_ROWS and rows * n_cols <= FEW_ROWS_ELEMENTS) or \
            (n_cols <= _SIZES[-1] and rows <= SHORT_FEW_ROWS[dtype]):
        candidates.append(FEW_ROWS_TABLE)
    for table in candidates:
        v = _sized_cluster(table, n_cols, dtype, slack)
        if _usable(v, device_id):
            kept, most = KEPT.get(v.name, (None, 0))
            keeping = _by_name().get(kept) if rows <= most else None
            return keeping if _usable(keeping, device_id) else v
    return None


@functools.lru_cache(maxsize=4096)
def _choose(n_cols: int, device_id: int | None, dtype, aligned: bool, rows: int = 0):
    fmt = dtypes.of(dtype)
    entries = TABLE.get(fmt.name, ())
    table = _by_name()
    slack = 0 if aligned else 16 * 8 // fmt.bits - 1  # room for a misaligned row's shift
    if rows and n_cols >= FEW_ROWS_FROM[fmt.name]:
        v = _few_rows(n_cols, rows, fmt.name, slack, device_id)
        if v is not None:
            return v
    for shortest, longest, most, name in SMALL_BATCH_TILES[fmt.name] if rows else ():
        if shortest <= n_cols <= longest and rows <= most and _usable(table.get(name), device_id):
            return table[name]
    v = table.get(ALIGNED_TILES[fmt.name].get(n_cols)) if aligned else None
    if _usable(v, device_id):
        return v
    for limit, name in entries:
        v = table.get(name)  # a kernel waiting in staging/ for the GPU suite is not taken
        if v is None:
            continue
        room = limit
        if limit is not None and v.spec.geometry != "split-row" and limit >= ROOM_FOR_SHIFT_FROM[fmt.name]:
            room = limit - slack
        if (room is None or n_cols <= room) and _usable(v, device_id):
            return v
    longest = f"the longest supported: {entries[-1][0]}" if entries else "none for this element type yet"
    raise LookupError(f"no {dtypes.name_of(dtype)} softmax variant for rows of {n_cols} columns ({longest})")


#: The layouts a dispatched ``softmax`` ran in: (x's type, dtype, shape, strides, address modulo
#: 16, device, and the same of ``out`` where given) -> (the variant, its launch plan where the
#: launch takes no workspace, rows, columns, element size, x's bytes, out's bytes). The choice and
#: the variant's checks read nothing else of a forward's operands but whether out overlaps x,
#: checked each call, so a call in a layout seen before allocates (where no out is given) and
#: launches alone, as the torch entry point's (``torch._LAYOUTS``): a call's Python 2.88 -> 0.87 µs
#: on fakes, 2.97 -> 0.98 with out= (reports/measurements/host_python_share_dispatch_layouts.txt).
_LAYOUTS: dict[tuple, tuple] = {}


def softmax(x, out=None):
    """Softmax over the last axis of a CuPy (N, C) array of float32, float16 or bfloat16, by the
    fastest variant for C and the element type."""
    try:
        address, device = x.data.ptr, x.device.id
        layout = (x.__class__, x.dtype, x.shape, x.strides, address & 15, device)
        if out is not None:
            target = out.data.ptr
            layout += (out.__class__, out.dtype, out.shape, out.strides, target & 15)
    except AttributeError:  # not CuPy arrays: the checked call names what they are
        return chosen_for(x)(x, out=out)
    known = _LAYOUTS.get(layout)
    if known is None:
        return _softmax_checked(x, out, layout)
    variant, plan, n_rows, n_cols, itemsize, x_bytes, out_bytes = known
    cupy = _cupy()
    if out is None:
        out = cupy.ndarray(x.shape, x.dtype)
        target = out.data.ptr
    elif address < target + out_bytes and target < address + x_bytes:
        return variant(x, out=out)  # which names the overlap
    if plan is not None:
        plan((address, target), cupy.cuda.get_current_stream().ptr)
    else:
        variant.launch((address, target), n_rows, n_cols, itemsize, device)
    return out


def _softmax_checked(x, out, layout: tuple):
    """``softmax`` in a layout not seen before: chosen, checked, and remembered where it launched
    a kernel of kernels/ (a known-bad kernel's launcher of its own is never taken here), with the
    launch plan its launch made where it takes no workspace: called directly, it saves the
    variant's lookup of it (a call 0.83 -> 0.61 µs on fakes: host_python_share_dispatch_plan.txt)."""
    variant = chosen_for(x)
    y = variant(x, out=out)
    if x.ndim == 2 and x.size and variant.spec.launcher is None:
        if len(_LAYOUTS) >= 256:  # a few layouts in a loop; a sweep over many needs no memory
            _LAYOUTS.clear()
        plan = direct_plan(variant, *x.shape, x.dtype.itemsize, x.device.id)
        _LAYOUTS[layout] = variant, plan, *x.shape, x.dtype.itemsize, x.nbytes, y.nbytes
    return y


def direct_plan(variant, n_rows: int, n_cols: int, itemsize: int, device_id: int):
    """The launch plan an earlier ``variant.launch`` made over (``n_rows``, ``n_cols``) on the
    device, called as ``plan(operands, stream_handle)``, where it takes no workspace; None before
    that launch, or for a split-row kernel (``variant.launch`` hands it its workspace). For the
    callers that launch one layout again and again (the remembered layouts here and in the torch
    entry, a bound call): no lookup a call."""
    plan = variant._plans.get((n_rows, n_cols, itemsize, device_id))
    return plan if plan is not None and not plan.cooperative else None


def chosen_for(x):
    """The variant that ``softmax(x)`` runs."""
    device = _device(x, "softmax: ")
    n_cols = x.shape[-1] if x.ndim >= 1 else 0
    return choose(n_cols, device, x.dtype, aligned=rows_aligned(x), n_rows=x.size // n_cols if n_cols else 0)


def rows_aligned(x) -> bool:
    """Whether every row of ``x`` (an array with ``.data.ptr``) starts at a 16-byte boundary."""
    ptr = getattr(getattr(x, "data", None), "ptr", 0)
    return ptr % 16 == 0 and (x.shape[-1] * x.dtype.itemsize if x.ndim else 0) % 16 == 0
