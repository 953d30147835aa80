// The fused forward, one block a row, for rows of any length: the three passes of the warp
// kernel over 1024 threads, reduced over the block.
//
// @variant name=scaled_bias_block_1024 op=scaled_softmax_bias kernel=scaled_bias_block_f32 algorithm=safe geometry=block-per-row threads=1024
// @variant name=scaled_bias_block_f16 op=scaled_softmax_bias kernel=scaled_bias_block_f16 algorithm=safe geometry=block-per-row threads=1024 dtypes=float16
// @variant name=scaled_bias_block_bf16 op=scaled_softmax_bias kernel=scaled_bias_block_bf16 algorithm=safe geometry=block-per-row threads=1024 dtypes=bfloat16
// @variant name=scaled_mask_block_1024 op=scaled_softmax_mask kernel=scaled_mask_block_f32 algorithm=safe geometry=block-per-row threads=1024
// @variant name=scaled_mask_block_f16 op=scaled_softmax_mask kernel=scaled_mask_block_f16 algorithm=safe geometry=block-per-row threads=1024 dtypes=float16
// @variant name=scaled_mask_block_bf16 op=scaled_softmax_mask kernel=scaled_mask_block_bf16 algorithm=safe geometry=block-per-row threads=1024 dtypes=bfloat16
// @variant name=scaled_causal_block_1024 op=scaled_softmax_causal kernel=scaled_causal_block_f32 algorithm=safe geometry=block-per-row threads=1024
// @variant name=scaled_causal_block_f16 op=scaled_softmax_causal kernel=scaled_causal_block_f16 algorithm=safe geometry=block-per-row threads=1024 dtypes=float16
// @variant name=scaled_causal_block_bf16 op=scaled_softmax_causal kernel=scaled_causal_block_bf16 algorithm=safe geometry=block-per-row threads=1024 dtypes=bfloat16
#include "softmax.cuh"
#include "include/scaled.cuh"

SCALED_BLOCK(scaled_bias_block_f32, bias, float)
SCALED_BLOCK(scaled_bias_block_f16, bias, sh::half_t)
SCALED_BLOCK(scaled_bias_block_bf16, bias, sh::bf16_t)
SCALED_BLOCK(scaled_mask_block_f32, mask, float)
SCALED_BLOCK(scaled_mask_block_f16, mask, sh::half_t)
SCALED_BLOCK(scaled_mask_block_bf16, mask, sh::bf16_t)
SCALED_BLOCK(scaled_causal_block_f32, causal, float)
SCALED_BLOCK(scaled_causal_block_f16, causal, sh::half_t)
SCALED_BLOCK(scaled_causal_block_bf16, causal, sh::bf16_t)
