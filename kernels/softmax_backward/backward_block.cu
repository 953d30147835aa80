// Softmax backward, one block a row, for rows of any length: the block's dot product (warp
// shuffles, then the warps' partials through shared memory), then the scale.
//
// @variant name=backward_block_1024 op=softmax_backward kernel=backward_block_f32 algorithm=safe geometry=block-per-row threads=1024
// @variant name=backward_block_f16 op=softmax_backward kernel=backward_block_f16 algorithm=safe geometry=block-per-row threads=1024 dtypes=float16
// @variant name=backward_block_bf16 op=softmax_backward kernel=backward_block_bf16 algorithm=safe geometry=block-per-row threads=1024 dtypes=bfloat16
#include "softmax.cuh"
#include "include/backward.cuh"

GRAD_BLOCK(backward_block_f32, sh::SoftmaxGrad, float)
GRAD_BLOCK(backward_block_f16, sh::SoftmaxGrad, sh::half_t)
GRAD_BLOCK(backward_block_bf16, sh::SoftmaxGrad, sh::bf16_t)
