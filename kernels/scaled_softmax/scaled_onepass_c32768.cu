// The fused forward's register tiles sized 32768, as scaled_onepass.cu's (sh::scaled_tile_row): the
// 16-bit bias form, a row a block of 1024 threads of 32 elements (57-60 registers, no spills on
// sm_80 or sm_90). Beside the online split kernel and the block that took those rows, bf16 at
// C = 16385-32768 (reports/measurements/form_tiles_c32768.jsonl): 0.41-0.98 of a copy against
// 0.41-0.77, 0.97-0.98 against 0.72 at 32000-32768 (512 threads of 64: 0.42-0.96). The causal
// form's (0.31-0.71 against 0.52-0.63, ahead only from 28672) won too little to keep. The mask
// form's (63 registers) since its words come in one round trip: ahead of the online split kernel
// on aligned rows from 28672 (0.826-0.921 of a copy against 0.805-0.835), behind below (0.45-0.73
// against 0.78-0.90) and on misaligned rows (32767: 0.356 against 0.744), on an H100
// (reports/measurements/mask_tile_c32768_h100.json).
// @variant name=scaled_bias_onepass_f16_c32768 op=scaled_softmax_bias kernel=scaled_bias_onepass_f16_c32768 algorithm=safe geometry=block-per-row threads=1024 max_cols=32768 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_onepass_bf16_c32768 op=scaled_softmax_bias kernel=scaled_bias_onepass_bf16_c32768 algorithm=safe geometry=block-per-row threads=1024 max_cols=32768 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_onepass_f16_c32768 op=scaled_softmax_mask kernel=scaled_mask_onepass_f16_c32768 algorithm=safe geometry=block-per-row threads=1024 max_cols=32768 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_onepass_bf16_c32768 op=scaled_softmax_mask kernel=scaled_mask_onepass_bf16_c32768 algorithm=safe geometry=block-per-row threads=1024 max_cols=32768 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
#include "softmax.cuh"
#include "include/scaled.cuh"

SCALED_TILE(scaled_bias_onepass_f16_c32768, bias, sh::half_t, 1024, 1024, 32)
SCALED_TILE(scaled_bias_onepass_bf16_c32768, bias, sh::bf16_t, 1024, 1024, 32)
SCALED_TILE(scaled_mask_onepass_f16_c32768, mask, sh::half_t, 1024, 1024, 32)
SCALED_TILE(scaled_mask_onepass_bf16_c32768, mask, sh::bf16_t, 1024, 1024, 32)
