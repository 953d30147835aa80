// log_softmax backward, one block a row held in registers: z and dy read once, s = sum(dy)
// reduced over the block, dx written from the registers. A kernel a row size; longer rows go
// to log_softmax_backward_block.
//
// @variant name=log_softmax_backward_onepass_c4096 op=log_softmax_backward kernel=log_softmax_backward_onepass_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096
// @variant name=log_softmax_backward_onepass_f16_c4096 op=log_softmax_backward kernel=log_softmax_backward_onepass_f16_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 dtypes=float16
// @variant name=log_softmax_backward_onepass_bf16_c4096 op=log_softmax_backward kernel=log_softmax_backward_onepass_bf16_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 dtypes=bfloat16
// @variant name=log_softmax_backward_onepass_c16384 op=log_softmax_backward kernel=log_softmax_backward_onepass_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384
// @variant name=log_softmax_backward_onepass_f16_c16384 op=log_softmax_backward kernel=log_softmax_backward_onepass_f16_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 dtypes=float16
// @variant name=log_softmax_backward_onepass_bf16_c16384 op=log_softmax_backward kernel=log_softmax_backward_onepass_bf16_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 dtypes=bfloat16
#include "softmax.cuh"
#include "include/backward.cuh"

GRAD_TILE(log_softmax_backward_onepass_c4096, sh::LogSoftmaxGrad, float, 512, 8)
GRAD_TILE(log_softmax_backward_onepass_f16_c4096, sh::LogSoftmaxGrad, sh::half_t, 512, 8)
GRAD_TILE(log_softmax_backward_onepass_bf16_c4096, sh::LogSoftmaxGrad, sh::bf16_t, 512, 8)
GRAD_TILE(log_softmax_backward_onepass_c16384, sh::LogSoftmaxGrad, float, 1024, 16)
GRAD_TILE(log_softmax_backward_onepass_f16_c16384, sh::LogSoftmaxGrad, sh::half_t, 1024, 16)
GRAD_TILE(log_softmax_backward_onepass_bf16_c16384, sh::LogSoftmaxGrad, sh::bf16_t, 1024, 16)
