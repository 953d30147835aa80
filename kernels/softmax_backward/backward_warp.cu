// Softmax backward, one warp a row: each lane's dot product over every 32nd element, the warp's
// butterfly, then the scale (y and dy read twice; the second time mostly from L1).
//
// @variant name=backward_warp op=softmax_backward kernel=backward_warp_f32 algorithm=safe geometry=warp-per-row threads=128
// @variant name=backward_warp_f16 op=softmax_backward kernel=backward_warp_f16 algorithm=safe geometry=warp-per-row threads=128 dtypes=float16
// @variant name=backward_warp_bf16 op=softmax_backward kernel=backward_warp_bf16 algorithm=safe geometry=warp-per-row threads=128 dtypes=bfloat16
#include "softmax.cuh"
#include "include/backward.cuh"

GRAD_WARP(backward_warp_f32, sh::SoftmaxGrad, float)
GRAD_WARP(backward_warp_f16, sh::SoftmaxGrad, sh::half_t)
GRAD_WARP(backward_warp_bf16, sh::SoftmaxGrad, sh::bf16_t)
