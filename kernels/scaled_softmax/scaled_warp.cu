// The fused forward softmax(scale * x + bias), masked or causal, one warp a row: the maximum of
// the logits, the sum of their exponentials, then the outputs, each over the warp's butterfly
// (x read three times, the second and third mostly from L1).
//
// @variant name=scaled_bias_warp op=scaled_softmax_bias kernel=scaled_bias_warp_f32 algorithm=safe geometry=warp-per-row threads=128
// @variant name=scaled_bias_warp_f16 op=scaled_softmax_bias kernel=scaled_bias_warp_f16 algorithm=safe geometry=warp-per-row threads=128 dtypes=float16
// @variant name=scaled_bias_warp_bf16 op=scaled_softmax_bias kernel=scaled_bias_warp_bf16 algorithm=safe geometry=warp-per-row threads=128 dtypes=bfloat16
// @variant name=scaled_mask_warp op=scaled_softmax_mask kernel=scaled_mask_warp_f32 algorithm=safe geometry=warp-per-row threads=128
// @variant name=scaled_mask_warp_f16 op=scaled_softmax_mask kernel=scaled_mask_warp_f16 algorithm=safe geometry=warp-per-row threads=128 dtypes=float16
// @variant name=scaled_mask_warp_bf16 op=scaled_softmax_mask kernel=scaled_mask_warp_bf16 algorithm=safe geometry=warp-per-row threads=128 dtypes=bfloat16
// @variant name=scaled_causal_warp op=scaled_softmax_causal kernel=scaled_causal_warp_f32 algorithm=safe geometry=warp-per-row threads=128
// @variant name=scaled_causal_warp_f16 op=scaled_softmax_causal kernel=scaled_causal_warp_f16 algorithm=safe geometry=warp-per-row threads=128 dtypes=float16
// @variant name=scaled_causal_warp_bf16 op=scaled_softmax_causal kernel=scaled_causal_warp_bf16 algorithm=safe geometry=warp-per-row threads=128 dtypes=bfloat16
#include "softmax.cuh"
#include "include/scaled.cuh"

SCALED_WARP(scaled_bias_warp_f32, bias, float)
SCALED_WARP(scaled_bias_warp_f16, bias, sh::half_t)
SCALED_WARP(scaled_bias_warp_bf16, bias, sh::bf16_t)
SCALED_WARP(scaled_mask_warp_f32, mask, float)
SCALED_WARP(scaled_mask_warp_f16, mask, sh::half_t)
SCALED_WARP(scaled_mask_warp_bf16, mask, sh::bf16_t)
SCALED_WARP(scaled_causal_warp_f32, causal, float)
SCALED_WARP(scaled_causal_warp_f16, causal, sh::half_t)
SCALED_WARP(scaled_causal_warp_bf16, causal, sh::bf16_t)
