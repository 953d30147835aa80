// The bias form's 16-bit split kernel on 512-thread blocks (kernels/scaled_softmax/
// scaled_online_split.cu, 16 elements a thread in registers and 40 in the stash) with 8 in
// registers and 48 in the stashes, the same 28608 elements a block (96 KB of stashes), and with
// 8 + 40 (24512, 80 KB): the mask form's went from 32 in registers to 8 and ran 0.905-0.992 of a
// copy at 20000-2^20 where it ran 0.818-0.884 (split_blocks_ops_h100.jsonl); the bias form's runs
// 0.80-0.97 there.
// @variant name=scaled_bias_online_split_bf16_e8 op=scaled_softmax_bias kernel=scaled_bias_online_split_bf16_e8 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=28608 smem=98304 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=scaled_bias_online_split_bf16_e8s40 op=scaled_softmax_bias kernel=scaled_bias_online_split_bf16_e8s40 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=24512 smem=81920 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
#include "softmax.cuh"
#include "include/scaled_split.cuh"

SCALED_ONLINE_SPLIT_bias_DYNAMIC(scaled_bias_online_split_bf16_e8, sh::bf16_t, 512, 2, 8, 48)
SCALED_ONLINE_SPLIT_bias_DYNAMIC(scaled_bias_online_split_bf16_e8s40, sh::bf16_t, 512, 2, 8, 40)
