// log_softmax's 16-bit backward on the online split kernel with more of a block's slice in
// registers: 16 or 32 elements a thread (kernels/' own: 8, as 16 and 32 spilled 8 bytes on sm_90),
// 40 in the stash, as the softmax backward's 16-bit split kernel (32 + 40), which runs 0.97 of a
// copy at 2^20 where this op's runs 0.89 (run 0071, an H100). Its stashes in dynamic shared memory
// (S = 56) ran 0.818 (split_blocks_ops_h100.jsonl).
// @variant name=log_softmax_backward_online_split_bf16_e16 op=log_softmax_backward kernel=log_softmax_backward_online_split_bf16_e16 algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=14272 max_cols=1048576 dtypes=bfloat16
// @variant name=log_softmax_backward_online_split_bf16_e32 op=log_softmax_backward kernel=log_softmax_backward_online_split_bf16_e32 algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=18368 max_cols=1048576 dtypes=bfloat16
#include "softmax.cuh"
#include "include/split_grad.cuh"

GRAD_ONLINE_SPLIT(log_softmax_backward_online_split_bf16_e16, sh::LogSoftmaxGrad, sh::bf16_t, 256, 4, 16, 40)
GRAD_ONLINE_SPLIT(log_softmax_backward_online_split_bf16_e32, sh::LogSoftmaxGrad, sh::bf16_t, 256, 4, 32, 40)
