"""The forward softmax's table: the variant for a row length and element type, each
choice where it measured fastest (the measurements cited beside each entry)."""

from __future__ import annotations

#: The one-pass tiles' sizes, every type: 16-bit rows of 33-64 on the tile sized 64 (8 lanes of
#: 8) ran at 0.54-1.006 of a copy where the tile sized 128 took them at 0.38-0.88 (H100, every bf16
#: length, reports/measurements/c64_tiles.json).
SIZES = (32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
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


def overlay(entries, ranges, name_of):
    """A ladder's ``entries`` (ending on a finite limit) with the rows of each (from, size) of
    ``ranges`` given to ``name_of(size)``, neighbouring entries of one variant joined: the cluster
    push kernels of :data:`PUSH_FROM` and :data:`.ladders.PUSH` over the kernels between them. On a GPU
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
    eight = overlay(entries, PUSH_FROM[dtype], lambda size: f"cluster_push{short}_c{size}")
    return overlay(eight, PUSH16_FROM[dtype], lambda size: _cluster16(short, size))


#: dtype -> ((largest row length or None, variant name), ...), in order.
TABLE = {
    "float32": (*_clusters((*_onepass("float32", SIZES, "onepass_vec4_c"), (2**21, "split_row_smem_f32")),
                           "float32", ""),
                (None, "safe_block_vec4_1024")),
    **{name: tuple(_clusters((*_onepass(name, SIZES, f"onepass_{short}_c"),
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
