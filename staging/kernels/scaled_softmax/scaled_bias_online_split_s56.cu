// The bias form's 16-bit split kernel on 512-thread blocks (kernels/scaled_softmax/
// scaled_online_split.cu: 8 elements a thread in registers, 48 in each stash, 28608 a block, 96 KB
// of stashes) with 56 in each stash (112 KB a block, two blocks a multiprocessor in 228 KB), and
// 8 or 16 in registers: 32704 or 36800 elements a block. Fewer blocks meet on a row: 33 at 2^20
// (8 rows at a time, every block of an H100's 264 busy) where kernels/' takes 37 (7 rows, 259),
// and with 16 in registers 2 at a misaligned 65535 where it takes 3 (the mask form's kernel,
// whose rows of 65535 take 2, runs 0.92 of a copy past its dips where the bias form's runs
// 0.87-0.89: mask_misaligned_h100.jsonl, gaps_dispatched_h100.jsonl). Issue 23's bias cells at
// 65535 and 2^20 run 0.87 there.
// @variant name=scaled_bias_online_split_bf16_s56 op=scaled_softmax_bias kernel=scaled_bias_online_split_bf16_s56 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=32704 smem=114688 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=scaled_bias_online_split_bf16_e16s56 op=scaled_softmax_bias kernel=scaled_bias_online_split_bf16_e16s56 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=36800 smem=114688 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
#include "softmax.cuh"
#include "include/scaled_split.cuh"

SCALED_ONLINE_SPLIT_bias_DYNAMIC(scaled_bias_online_split_bf16_s56, sh::bf16_t, 512, 2, 8, 56)
SCALED_ONLINE_SPLIT_bias_DYNAMIC(scaled_bias_online_split_bf16_e16s56, sh::bf16_t, 512, 2, 16, 56)
