// log_softmax backward, one warp a row: s = sum(dy) over the warp, then dx = dy - exp(z) * s
// (z and dy read twice; the second time mostly from L1).
//
// @variant name=log_softmax_backward_warp op=log_softmax_backward kernel=log_softmax_backward_warp_f32 algorithm=safe geometry=warp-per-row threads=128
// @variant name=log_softmax_backward_warp_f16 op=log_softmax_backward kernel=log_softmax_backward_warp_f16 algorithm=safe geometry=warp-per-row threads=128 dtypes=float16
// @variant name=log_softmax_backward_warp_bf16 op=log_softmax_backward kernel=log_softmax_backward_warp_bf16 algorithm=safe geometry=warp-per-row threads=128 dtypes=bfloat16
#include "softmax.cuh"
#include "include/backward.cuh"

GRAD_WARP(log_softmax_backward_warp_f32, sh::LogSoftmaxGrad, float)
GRAD_WARP(log_softmax_backward_warp_f16, sh::LogSoftmaxGrad, sh::half_t)
GRAD_WARP(log_softmax_backward_warp_bf16, sh::LogSoftmaxGrad, sh::bf16_t)
