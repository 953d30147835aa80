// Softmax backward, one block a row held in registers: y and dy are read once, the dot product
// reduced over the block, and dx written from the registers. A kernel a row size (the tile is
// a compile-time THREADS x PER elements); longer rows go to backward_block.
//
// @variant name=backward_onepass_c4096 op=softmax_backward kernel=backward_onepass_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096
// @variant name=backward_onepass_f16_c4096 op=softmax_backward kernel=backward_onepass_f16_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 dtypes=float16
// @variant name=backward_onepass_bf16_c4096 op=softmax_backward kernel=backward_onepass_bf16_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 dtypes=bfloat16
// @variant name=backward_onepass_c16384 op=softmax_backward kernel=backward_onepass_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384
// @variant name=backward_onepass_f16_c16384 op=softmax_backward kernel=backward_onepass_f16_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 dtypes=float16
// @variant name=backward_onepass_bf16_c16384 op=softmax_backward kernel=backward_onepass_bf16_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 dtypes=bfloat16
#include "softmax.cuh"
#include "include/backward.cuh"

GRAD_TILE(backward_onepass_c4096, sh::SoftmaxGrad, float, 512, 8)
GRAD_TILE(backward_onepass_f16_c4096, sh::SoftmaxGrad, sh::half_t, 512, 8)
GRAD_TILE(backward_onepass_bf16_c4096, sh::SoftmaxGrad, sh::bf16_t, 512, 8)
GRAD_TILE(backward_onepass_c16384, sh::SoftmaxGrad, float, 1024, 16)
GRAD_TILE(backward_onepass_f16_c16384, sh::SoftmaxGrad, sh::half_t, 1024, 16)
GRAD_TILE(backward_onepass_bf16_c16384, sh::SoftmaxGrad, sh::bf16_t, 1024, 16)
