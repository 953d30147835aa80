// log_softmax of rows past the clusters, on the forward's split-row kernel (include/split_row.cuh,
// LOG): a row over a group of co-resident blocks of a persistent grid, each block's slice in
// registers and a shared-memory stash (read once, x kept as it came), the group meeting once a
// row on a (max, sum) pair (the online merge, hence algorithm=online), and the next row's stash
// copied in while the registers are written: z = (x - m) - log d with no exponential in the
// store. log_softmax_split_row (a block's slice in registers only, a meeting for the maximum and
// another for the sum) reaches 0.56-0.67 of a copy at 151936-2^20 where the forward's kernel
// reaches 0.91 (reports/measurements/split_row_forward_ops.jsonl).
// @variant name=log_softmax_online_split op=log_softmax kernel=log_softmax_online_split algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=19424 max_cols=2097152 fast_math=true exp=shifted
// @variant name=log_softmax_online_split_f16 op=log_softmax kernel=log_softmax_online_split_f16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=34752 max_cols=2097152 dtypes=float16 fast_math=true exp=shifted
// @variant name=log_softmax_online_split_bf16 op=log_softmax kernel=log_softmax_online_split_bf16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=34752 max_cols=2097152 dtypes=bfloat16 fast_math=true exp=shifted
#include "softmax.cuh"
#include "include/split_row.cuh"

SPLIT_KERNEL(log_softmax_online_split, float, 256, 4, 32, 44, true)
SPLIT_KERNEL(log_softmax_online_split_f16, sh::half_t, 256, 4, 48, 88, true)
SPLIT_KERNEL(log_softmax_online_split_bf16, sh::bf16_t, 256, 4, 48, 88, true)
