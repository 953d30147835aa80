// log_softmax backward for rows past the clusters, on the forward's split-row machinery
// (include/split_grad.cuh): z and dy of a block's slice in registers and the shared-memory stash
// (read once), the blocks' sums of dy meeting once a row with the forward's tickets and early
// polls, dx = dy - exp(z) * s written from the chip. log_softmax_backward_split_row (registers
// only, 8188 elements a block at two blocks a multiprocessor) reaches 0.51 of a copy at 2^20 in
// bf16, and fp32 stays on the block there (0.68, run 0025). What a thread holds is set by the
// spills (-Xptxas -v, sm_90): 16 + 20 in fp32, 8 + 40 in 16 bits (16 and 32 spilled 8 bytes).
// @variant name=log_softmax_backward_online_split op=log_softmax_backward kernel=log_softmax_backward_online_split algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=9184 max_cols=1048576
// @variant name=log_softmax_backward_online_split_f16 op=log_softmax_backward kernel=log_softmax_backward_online_split_f16 algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=12224 max_cols=1048576 dtypes=float16 fast_math=true exp=ex2
// @variant name=log_softmax_backward_online_split_bf16 op=log_softmax_backward kernel=log_softmax_backward_online_split_bf16 algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=12224 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=ex2
#include "softmax.cuh"
#include "include/split_grad.cuh"

GRAD_ONLINE_SPLIT(log_softmax_backward_online_split, sh::LogSoftmaxGrad, float, 256, 4, 16, 20)
GRAD_ONLINE_SPLIT(log_softmax_backward_online_split_f16, sh::LogSoftmaxGradFast, sh::half_t, 256, 4, 8, 40)
GRAD_ONLINE_SPLIT(log_softmax_backward_online_split_bf16, sh::LogSoftmaxGradFast, sh::bf16_t, 256, 4, 8, 40)
