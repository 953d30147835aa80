// The bias form's 16-bit split kernel on 512-thread blocks (kernels/scaled_softmax/
// scaled_online_split.cu's `_b512`: 16 elements a thread in registers, 40 in the stashes) with 8
// in registers and 48 in the stashes, the same 28608 elements a block (96 KB of stashes, two
// blocks a multiprocessor), as the mask form's went from 32 in registers to 8 and led. On an H100,
// bf16, each length in one call (reports/measurements/split_blocks_regs_h100.jsonl): 0.875-0.984
// of a copy at a misaligned 65535, 81920, 150000, 200001, 524288 and 2^20 against the `_b512`'s
// 0.798-0.963 and the dispatcher's 0.785-0.960 (its barrier cluster sized 73728 at 65535: 0.826);
// behind the push kernel sized 131072 at 100000 (0.977 against 1.024). 8 + 40 (80 KB) ran
// 0.840-0.958, behind 8 + 48 everywhere.
// @variant name=scaled_bias_online_split_f16_e8 op=scaled_softmax_bias kernel=scaled_bias_online_split_f16_e8 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=28608 smem=98304 max_cols=1048576 dtypes=float16 fast_math=true exp=folded
// @variant name=scaled_bias_online_split_bf16_e8 op=scaled_softmax_bias kernel=scaled_bias_online_split_bf16_e8 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=28608 smem=98304 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
#include "softmax.cuh"
#include "include/scaled_split.cuh"

SCALED_ONLINE_SPLIT_bias_DYNAMIC(scaled_bias_online_split_f16_e8, sh::half_t, 512, 2, 8, 48)
SCALED_ONLINE_SPLIT_bias_DYNAMIC(scaled_bias_online_split_bf16_e8, sh::bf16_t, 512, 2, 8, 48)
