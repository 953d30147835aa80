// log_softmax backward, one block a row, for rows of any length: s = sum(dy) over the block,
// then dx = dy - exp(z) * s.
//
// @variant name=log_softmax_backward_block_1024 op=log_softmax_backward kernel=log_softmax_backward_block_f32 algorithm=safe geometry=block-per-row threads=1024
// @variant name=log_softmax_backward_block_f16 op=log_softmax_backward kernel=log_softmax_backward_block_f16 algorithm=safe geometry=block-per-row threads=1024 dtypes=float16
// @variant name=log_softmax_backward_block_bf16 op=log_softmax_backward kernel=log_softmax_backward_block_bf16 algorithm=safe geometry=block-per-row threads=1024 dtypes=bfloat16
#include "softmax.cuh"
#include "include/backward.cuh"

GRAD_BLOCK(log_softmax_backward_block_f32, sh::LogSoftmaxGrad, float)
GRAD_BLOCK(log_softmax_backward_block_f16, sh::LogSoftmaxGrad, sh::half_t)
GRAD_BLOCK(log_softmax_backward_block_bf16, sh::LogSoftmaxGrad, sh::bf16_t)
