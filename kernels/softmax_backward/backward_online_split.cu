// Softmax backward for rows past the clusters, on the forward's split-row machinery
// (include/split_grad.cuh): y and dy of a block's slice in registers and the shared-memory stash
// (read once; the next row's stash copied in while this one is written), the blocks' sums of
// y * dy meeting once a row with the forward's tickets and early polls, dx written from the
// chip. backward_split_row (registers only, 8188 elements a block at two blocks a
// multiprocessor) reaches 0.64 of a copy at 2^20 in fp32 and 0.48 in bf16 (run 0025). What a
// thread holds is set by the spills (-Xptxas -v, sm_90): 12 + 20 in fp32 (16 spilled 8 bytes),
// 32 + 40 in 16 bits.
// @variant name=backward_online_split op=softmax_backward kernel=backward_online_split algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=8160 max_cols=1048576
// @variant name=backward_online_split_f16 op=softmax_backward kernel=backward_online_split_f16 algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=18368 max_cols=1048576 dtypes=float16
// @variant name=backward_online_split_bf16 op=softmax_backward kernel=backward_online_split_bf16 algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=18368 max_cols=1048576 dtypes=bfloat16
#include "softmax.cuh"
#include "include/split_grad.cuh"

GRAD_ONLINE_SPLIT(backward_online_split, sh::SoftmaxGrad, float, 256, 4, 12, 20)
GRAD_ONLINE_SPLIT(backward_online_split_f16, sh::SoftmaxGrad, sh::half_t, 256, 4, 32, 40)
GRAD_ONLINE_SPLIT(backward_online_split_bf16, sh::SoftmaxGrad, sh::bf16_t, 256, 4, 32, 40)
