// The mask form's 16-bit online split kernel (scaled_online_split.cu) with more of a thread's
// share of the row in registers and less in the shared-memory stash: 40 elements and 48 where
// it holds 32 and 56 (the same tile, 22464 a block). Its 16-bit online split kernels wait on the
// stash's loads 38-45% of the time at 0.72-0.79 of an H100's DRAM throughput
// (reports/measurements/fused_profile_h100.txt); the tile's mask words no longer spill there
// (64 registers, no spills on sm_90, offline). Staged: measured beside the dispatched kernel at
// 32769-2^20 by staging/session.sh's staged step.
// @variant name=scaled_mask_online_split_f16_r40 op=scaled_softmax_mask kernel=scaled_mask_online_split_f16_r40 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=22464 max_cols=1048576 dtypes=float16 fast_math=true exp=folded
// @variant name=scaled_mask_online_split_bf16_r40 op=scaled_softmax_mask kernel=scaled_mask_online_split_bf16_r40 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=22464 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
#include "softmax.cuh"
#include "include/scaled_split.cuh"

SCALED_ONLINE_SPLIT_mask(scaled_mask_online_split_f16_r40, sh::half_t, 256, 4, 40, 48)
SCALED_ONLINE_SPLIT_mask(scaled_mask_online_split_bf16_r40, sh::bf16_t, 256, 4, 40, 48)
