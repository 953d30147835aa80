// The fused forward, one block a row held in registers: x (and the bias or mask) read once,
// the maximum and the sum reduced over the block, the outputs written from the registers. A
// kernel a row size; longer rows go to scaled_*_block.
//
// @variant name=scaled_bias_onepass_c4096 op=scaled_softmax_bias kernel=scaled_bias_onepass_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096
// @variant name=scaled_bias_onepass_f16_c4096 op=scaled_softmax_bias kernel=scaled_bias_onepass_f16_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 dtypes=float16
// @variant name=scaled_bias_onepass_bf16_c4096 op=scaled_softmax_bias kernel=scaled_bias_onepass_bf16_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 dtypes=bfloat16
// @variant name=scaled_bias_onepass_c16384 op=scaled_softmax_bias kernel=scaled_bias_onepass_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384
// @variant name=scaled_bias_onepass_f16_c16384 op=scaled_softmax_bias kernel=scaled_bias_onepass_f16_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 dtypes=float16
// @variant name=scaled_bias_onepass_bf16_c16384 op=scaled_softmax_bias kernel=scaled_bias_onepass_bf16_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 dtypes=bfloat16
// @variant name=scaled_mask_onepass_c4096 op=scaled_softmax_mask kernel=scaled_mask_onepass_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096
// @variant name=scaled_mask_onepass_f16_c4096 op=scaled_softmax_mask kernel=scaled_mask_onepass_f16_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 dtypes=float16
// @variant name=scaled_mask_onepass_bf16_c4096 op=scaled_softmax_mask kernel=scaled_mask_onepass_bf16_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 dtypes=bfloat16
// @variant name=scaled_mask_onepass_c16384 op=scaled_softmax_mask kernel=scaled_mask_onepass_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384
// @variant name=scaled_mask_onepass_f16_c16384 op=scaled_softmax_mask kernel=scaled_mask_onepass_f16_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 dtypes=float16
// @variant name=scaled_mask_onepass_bf16_c16384 op=scaled_softmax_mask kernel=scaled_mask_onepass_bf16_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 dtypes=bfloat16
// @variant name=scaled_causal_onepass_c4096 op=scaled_softmax_causal kernel=scaled_causal_onepass_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096
// @variant name=scaled_causal_onepass_f16_c4096 op=scaled_softmax_causal kernel=scaled_causal_onepass_f16_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 dtypes=float16
// @variant name=scaled_causal_onepass_bf16_c4096 op=scaled_softmax_causal kernel=scaled_causal_onepass_bf16_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 dtypes=bfloat16
// @variant name=scaled_causal_onepass_c16384 op=scaled_softmax_causal kernel=scaled_causal_onepass_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384
// @variant name=scaled_causal_onepass_f16_c16384 op=scaled_softmax_causal kernel=scaled_causal_onepass_f16_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 dtypes=float16
// @variant name=scaled_causal_onepass_bf16_c16384 op=scaled_softmax_causal kernel=scaled_causal_onepass_bf16_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 dtypes=bfloat16
#include "softmax.cuh"
#include "include/scaled.cuh"

SCALED_TILE(scaled_bias_onepass_c4096, bias, float, 512, 8)
SCALED_TILE(scaled_bias_onepass_f16_c4096, bias, sh::half_t, 512, 8)
SCALED_TILE(scaled_bias_onepass_bf16_c4096, bias, sh::bf16_t, 512, 8)
SCALED_TILE(scaled_bias_onepass_c16384, bias, float, 1024, 16)
SCALED_TILE(scaled_bias_onepass_f16_c16384, bias, sh::half_t, 1024, 16)
SCALED_TILE(scaled_bias_onepass_bf16_c16384, bias, sh::bf16_t, 1024, 16)
SCALED_TILE(scaled_mask_onepass_c4096, mask, float, 512, 8)
SCALED_TILE(scaled_mask_onepass_f16_c4096, mask, sh::half_t, 512, 8)
SCALED_TILE(scaled_mask_onepass_bf16_c4096, mask, sh::bf16_t, 512, 8)
SCALED_TILE(scaled_mask_onepass_c16384, mask, float, 1024, 16)
SCALED_TILE(scaled_mask_onepass_f16_c16384, mask, sh::half_t, 1024, 16)
SCALED_TILE(scaled_mask_onepass_bf16_c16384, mask, sh::bf16_t, 1024, 16)
SCALED_TILE(scaled_causal_onepass_c4096, causal, float, 512, 8)
SCALED_TILE(scaled_causal_onepass_f16_c4096, causal, sh::half_t, 512, 8)
SCALED_TILE(scaled_causal_onepass_bf16_c4096, causal, sh::bf16_t, 512, 8)
SCALED_TILE(scaled_causal_onepass_c16384, causal, float, 1024, 16)
SCALED_TILE(scaled_causal_onepass_f16_c16384, causal, sh::half_t, 1024, 16)
SCALED_TILE(scaled_causal_onepass_bf16_c16384, causal, sh::bf16_t, 1024, 16)
