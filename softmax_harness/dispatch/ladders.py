"""The other ops' ladders (:data:`OP_TABLES`): op -> type -> the variant for a row length,
each rung where it measured fastest (the measurements cited beside each entry)."""

from __future__ import annotations

from .forward import overlay

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
#: 72703-73664: :data:`MISALIGNED_PUSH`; the barrier cluster none, :data:`SPLIT_WIDE`) and the mask
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
#: :data:`.forward.PUSH_FROM`, over the ladder's entries there, where each measured faster than the
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
#: 0.67-0.92) but the bias and mask forms' of :data:`MISALIGNED_PUSH`. The mask form's 16-bit rows
#: of 51200-73728 since its words come in one round trip (include/scaled.cuh, kept_chunks):
#: 0.834-1.017 of a copy against the online split kernel's 0.78-0.865 (an H100; 40960 behind, 0.77
#: against 0.87:
#: reports/measurements/mask_words_together_h100.json, mask_push_dispatch_h100.json), the rows
#: of 45056-49152 left to the split kernel on 512-thread blocks (0.934-0.946 against 0.851-0.919;
#: level at 51200, 0.952 against 0.954; behind from 53248: split_blocks_mask_map_h100.jsonl); its rows
#: of 114688-131072 on the push kernel sized 131072 (0.910-0.982 against 0.825-0.867; 98304
#: behind, 0.805 against 0.838; the sized 262144 0.14-0.61 everywhere: an H100,
#: reports/measurements/mask_push_long_h100.json).
PUSH = {"backward": {s: ((53248, 65536), (65537, 73728)) for s in ("_f16", "_bf16")},
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
SPLIT_WIDE = {"scaled_bias": {s: ((32769, 36800, "_e16s56"), (36801, 65536, "_b512"),
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
#: split_blocks_map_h100.jsonl), and those rows go to it (:data:`SPLIT_WIDE`). The mask form's
#: split kernel on 512-thread blocks falls by 3-6% of a copy over a few hundred lengths below
#: 65536 and 73728 (0.923 at 65377, 0.871 at 65409; 0.862-0.834 at 65505-66049, 0.905 at 66177;
#: 0.939 at 73473, 0.909 at 73601), where its push kernels lead: sized 65536 0.899-0.902 against
#: 0.871-0.877 at 65409-65471, sized 73728 0.857-0.866 against 0.834-0.854 at 65521-66049 (level
#: at 65505; behind at 65473-65489 and from 66177) and 0.919-0.922 against 0.905-0.912 at
#: 73601-73663 (an H100, each length in one call: mask_misaligned_h100.jsonl). The backwards'
#: push kernels lose on misaligned rows (0.72-0.87 against 0.78-0.99) but log_softmax's
#: backward's at 61441 (0.882 against 0.833; 57345-65471 behind); fp16 follows bf16.
MISALIGNED_PUSH = {"scaled_bias": {s: ((59001, 65472, 65536), (72703, 73664, 73728))
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
#: ladder's, as :data:`.forward.ALIGNED_TILES` for the forward: op -> type -> {length: variant}. 16-bit rows
#: of 72-128 on 4 lanes of 32 (0.98-1.02 of a copy for the bias form, 0.81-1.21 causal, 0.78-1.02
#: mask, against 8 lanes of 16's 0.71-0.95, 0.65-1.09, 0.66-0.98), of 24 on 2 lanes of 16 (bias
#: 0.89-0.92 against 0.75-0.77, causal 0.83 against 0.61), and the causal form's of 32 (0.99
#: against 0.89): an H100, each length measured (reports/measurements/fused_lanes_h100.json);
#: misaligned rows, and the lengths between, were not. The mask form's aligned 16-bit rows of
#: 28672-32768 stay on its split kernel of 512-thread blocks (:data:`SPLIT_WIDE`), not its tile
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
    pushed = PUSH.get(family, {}).get(suffix, ())
    return (*overlay(entries, pushed, lambda size: f"{family}_cluster_push{suffix}_c{size}"), block)


def _misaligned_rooms(entries, suffix: str):
    """The longest misaligned row each entry of a ladder takes: a cluster kernel whose next size is
    at most an eighth larger leaves it the rows whose shift may overflow its 8 blocks' tiles (the
    row less one 16-byte vector a block); a cluster push kernel none (:data:`PUSH`; the bias
    form's take some, :data:`MISALIGNED_PUSH`); anywhere
    else the row stays, read element by element, as a kernel twice the size measured slower still."""
    rooms = []
    for i, (limit, name) in enumerate(entries):
        after = entries[i + 1][0] if i + 1 < len(entries) else None
        close = "_cluster" in name and None not in (limit, after) and after * 8 <= limit * 9
        rooms.append(0 if "_cluster_push" in name else _shifted_room(limit, suffix) if close else limit)
    return tuple(rooms)


LADDERS = {"softmax_backward": "backward", "log_softmax": "log_softmax",
            "log_softmax_backward": "log_softmax_backward", "scaled_softmax_bias": "scaled_bias",
            "scaled_softmax_mask": "scaled_mask", "scaled_softmax_causal": "scaled_causal"}

#: op -> dtype -> ((largest row length or None, variant name), ...), in order, for the ops
#: besides the forward.
SUFFIXES = (("float32", ""), ("float16", "_f16"), ("bfloat16", "_bf16"))
SUFFIX = dict(SUFFIXES)
OP_TABLES = {op: {dtype: _ladder(family, suffix) for dtype, suffix in SUFFIXES}
             for op, family in LADDERS.items()}
#: op -> dtype -> the longest misaligned row each entry of OP_TABLES takes.
MISALIGNED_ROOMS = {op: {dtype: _misaligned_rooms(OP_TABLES[op][dtype], suffix) for dtype, suffix in SUFFIXES}
               for op in OP_TABLES}
