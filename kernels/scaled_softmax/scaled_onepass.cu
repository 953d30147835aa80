// The fused forward, the row in registers (sh::scaled_tile_row): x (and the bias, or the mask) read
// once, in 16-byte vectors (the mask in words of 4 or 8 bytes), the maximum and the sum reduced
// over the row's lanes, the outputs written from the registers; one ex2.approx an element and a
// product by 1/d (fast_math=true exp=ex2), the row's and the mask's positions marked once a load.
// A kernel a row size, shaped as the backwards' tiles (16-bit bias rows of 16384 on 256 threads of
// 64: on 512 of 32 the registers spill on sm_80); longer rows go to scaled_*_block.
// Measured beside the earlier scalar tiles: reports/measurements/op_tiles_fast_ab.jsonl.
//
// @variant name=scaled_bias_onepass_c32 op=scaled_softmax_bias kernel=scaled_bias_onepass_c32 algorithm=safe geometry=group-per-row lanes=8 threads=128 max_cols=32 vector=4 fast_math=true exp=ex2
// @variant name=scaled_bias_onepass_c128 op=scaled_softmax_bias kernel=scaled_bias_onepass_c128 algorithm=safe geometry=group-per-row lanes=16 threads=128 max_cols=128 vector=4 fast_math=true exp=ex2
// @variant name=scaled_bias_onepass_c512 op=scaled_softmax_bias kernel=scaled_bias_onepass_c512 algorithm=safe geometry=warp-per-row threads=128 max_cols=512 vector=4 fast_math=true exp=ex2
// @variant name=scaled_bias_onepass_c1024 op=scaled_softmax_bias kernel=scaled_bias_onepass_c1024 algorithm=safe geometry=block-per-row threads=128 max_cols=1024 vector=4 fast_math=true exp=ex2
// @variant name=scaled_bias_onepass_c2048 op=scaled_softmax_bias kernel=scaled_bias_onepass_c2048 algorithm=safe geometry=block-per-row threads=256 max_cols=2048 vector=4 fast_math=true exp=ex2
// @variant name=scaled_bias_onepass_c4096 op=scaled_softmax_bias kernel=scaled_bias_onepass_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 vector=4 fast_math=true exp=ex2
// @variant name=scaled_bias_onepass_c8192 op=scaled_softmax_bias kernel=scaled_bias_onepass_c8192 algorithm=safe geometry=block-per-row threads=512 max_cols=8192 vector=4 fast_math=true exp=ex2
// @variant name=scaled_bias_onepass_c16384 op=scaled_softmax_bias kernel=scaled_bias_onepass_c16384 algorithm=safe geometry=block-per-row threads=512 max_cols=16384 vector=4 fast_math=true exp=ex2
// @variant name=scaled_bias_onepass_f16_c32 op=scaled_softmax_bias kernel=scaled_bias_onepass_f16_c32 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_onepass_f16_c128 op=scaled_softmax_bias kernel=scaled_bias_onepass_f16_c128 algorithm=safe geometry=group-per-row lanes=8 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_onepass_f16_c512 op=scaled_softmax_bias kernel=scaled_bias_onepass_f16_c512 algorithm=safe geometry=group-per-row lanes=16 threads=128 max_cols=512 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_onepass_f16_c1024 op=scaled_softmax_bias kernel=scaled_bias_onepass_f16_c1024 algorithm=safe geometry=warp-per-row threads=128 max_cols=1024 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_onepass_f16_c2048 op=scaled_softmax_bias kernel=scaled_bias_onepass_f16_c2048 algorithm=safe geometry=block-per-row threads=64 max_cols=2048 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_onepass_f16_c4096 op=scaled_softmax_bias kernel=scaled_bias_onepass_f16_c4096 algorithm=safe geometry=block-per-row threads=128 max_cols=4096 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_onepass_f16_c8192 op=scaled_softmax_bias kernel=scaled_bias_onepass_f16_c8192 algorithm=safe geometry=block-per-row threads=256 max_cols=8192 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_onepass_f16_c16384 op=scaled_softmax_bias kernel=scaled_bias_onepass_f16_c16384 algorithm=safe geometry=block-per-row threads=256 max_cols=16384 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_onepass_bf16_c32 op=scaled_softmax_bias kernel=scaled_bias_onepass_bf16_c32 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_bias_onepass_bf16_c128 op=scaled_softmax_bias kernel=scaled_bias_onepass_bf16_c128 algorithm=safe geometry=group-per-row lanes=8 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_bias_onepass_bf16_c512 op=scaled_softmax_bias kernel=scaled_bias_onepass_bf16_c512 algorithm=safe geometry=group-per-row lanes=16 threads=128 max_cols=512 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_bias_onepass_bf16_c1024 op=scaled_softmax_bias kernel=scaled_bias_onepass_bf16_c1024 algorithm=safe geometry=warp-per-row threads=128 max_cols=1024 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_bias_onepass_bf16_c2048 op=scaled_softmax_bias kernel=scaled_bias_onepass_bf16_c2048 algorithm=safe geometry=block-per-row threads=64 max_cols=2048 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_bias_onepass_bf16_c4096 op=scaled_softmax_bias kernel=scaled_bias_onepass_bf16_c4096 algorithm=safe geometry=block-per-row threads=128 max_cols=4096 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_bias_onepass_bf16_c8192 op=scaled_softmax_bias kernel=scaled_bias_onepass_bf16_c8192 algorithm=safe geometry=block-per-row threads=256 max_cols=8192 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_bias_onepass_bf16_c16384 op=scaled_softmax_bias kernel=scaled_bias_onepass_bf16_c16384 algorithm=safe geometry=block-per-row threads=256 max_cols=16384 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_onepass_c32 op=scaled_softmax_mask kernel=scaled_mask_onepass_c32 algorithm=safe geometry=group-per-row lanes=8 threads=128 max_cols=32 vector=4 fast_math=true exp=ex2
// @variant name=scaled_mask_onepass_c128 op=scaled_softmax_mask kernel=scaled_mask_onepass_c128 algorithm=safe geometry=group-per-row lanes=16 threads=128 max_cols=128 vector=4 fast_math=true exp=ex2
// @variant name=scaled_mask_onepass_c512 op=scaled_softmax_mask kernel=scaled_mask_onepass_c512 algorithm=safe geometry=warp-per-row threads=128 max_cols=512 vector=4 fast_math=true exp=ex2
// @variant name=scaled_mask_onepass_c1024 op=scaled_softmax_mask kernel=scaled_mask_onepass_c1024 algorithm=safe geometry=block-per-row threads=128 max_cols=1024 vector=4 fast_math=true exp=ex2
// @variant name=scaled_mask_onepass_c2048 op=scaled_softmax_mask kernel=scaled_mask_onepass_c2048 algorithm=safe geometry=block-per-row threads=256 max_cols=2048 vector=4 fast_math=true exp=ex2
// @variant name=scaled_mask_onepass_c4096 op=scaled_softmax_mask kernel=scaled_mask_onepass_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 vector=4 fast_math=true exp=ex2
// @variant name=scaled_mask_onepass_c8192 op=scaled_softmax_mask kernel=scaled_mask_onepass_c8192 algorithm=safe geometry=block-per-row threads=512 max_cols=8192 vector=4 fast_math=true exp=ex2
// @variant name=scaled_mask_onepass_c16384 op=scaled_softmax_mask kernel=scaled_mask_onepass_c16384 algorithm=safe geometry=block-per-row threads=512 max_cols=16384 vector=4 fast_math=true exp=ex2
// @variant name=scaled_mask_onepass_f16_c32 op=scaled_softmax_mask kernel=scaled_mask_onepass_f16_c32 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_onepass_f16_c128 op=scaled_softmax_mask kernel=scaled_mask_onepass_f16_c128 algorithm=safe geometry=group-per-row lanes=8 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_onepass_f16_c512 op=scaled_softmax_mask kernel=scaled_mask_onepass_f16_c512 algorithm=safe geometry=group-per-row lanes=16 threads=128 max_cols=512 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_onepass_f16_c1024 op=scaled_softmax_mask kernel=scaled_mask_onepass_f16_c1024 algorithm=safe geometry=warp-per-row threads=128 max_cols=1024 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_onepass_f16_c2048 op=scaled_softmax_mask kernel=scaled_mask_onepass_f16_c2048 algorithm=safe geometry=block-per-row threads=64 max_cols=2048 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_onepass_f16_c4096 op=scaled_softmax_mask kernel=scaled_mask_onepass_f16_c4096 algorithm=safe geometry=block-per-row threads=128 max_cols=4096 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_onepass_f16_c8192 op=scaled_softmax_mask kernel=scaled_mask_onepass_f16_c8192 algorithm=safe geometry=block-per-row threads=256 max_cols=8192 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_onepass_f16_c16384 op=scaled_softmax_mask kernel=scaled_mask_onepass_f16_c16384 algorithm=safe geometry=block-per-row threads=512 max_cols=16384 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_onepass_bf16_c32 op=scaled_softmax_mask kernel=scaled_mask_onepass_bf16_c32 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_onepass_bf16_c128 op=scaled_softmax_mask kernel=scaled_mask_onepass_bf16_c128 algorithm=safe geometry=group-per-row lanes=8 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_onepass_bf16_c512 op=scaled_softmax_mask kernel=scaled_mask_onepass_bf16_c512 algorithm=safe geometry=group-per-row lanes=16 threads=128 max_cols=512 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_onepass_bf16_c1024 op=scaled_softmax_mask kernel=scaled_mask_onepass_bf16_c1024 algorithm=safe geometry=warp-per-row threads=128 max_cols=1024 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_onepass_bf16_c2048 op=scaled_softmax_mask kernel=scaled_mask_onepass_bf16_c2048 algorithm=safe geometry=block-per-row threads=64 max_cols=2048 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_onepass_bf16_c4096 op=scaled_softmax_mask kernel=scaled_mask_onepass_bf16_c4096 algorithm=safe geometry=block-per-row threads=128 max_cols=4096 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_onepass_bf16_c8192 op=scaled_softmax_mask kernel=scaled_mask_onepass_bf16_c8192 algorithm=safe geometry=block-per-row threads=256 max_cols=8192 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_onepass_bf16_c16384 op=scaled_softmax_mask kernel=scaled_mask_onepass_bf16_c16384 algorithm=safe geometry=block-per-row threads=512 max_cols=16384 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_onepass_c32 op=scaled_softmax_causal kernel=scaled_causal_onepass_c32 algorithm=safe geometry=group-per-row lanes=8 threads=128 max_cols=32 vector=4 fast_math=true exp=ex2
// @variant name=scaled_causal_onepass_c128 op=scaled_softmax_causal kernel=scaled_causal_onepass_c128 algorithm=safe geometry=group-per-row lanes=16 threads=128 max_cols=128 vector=4 fast_math=true exp=ex2
// @variant name=scaled_causal_onepass_c512 op=scaled_softmax_causal kernel=scaled_causal_onepass_c512 algorithm=safe geometry=warp-per-row threads=128 max_cols=512 vector=4 fast_math=true exp=ex2
// @variant name=scaled_causal_onepass_c1024 op=scaled_softmax_causal kernel=scaled_causal_onepass_c1024 algorithm=safe geometry=block-per-row threads=128 max_cols=1024 vector=4 fast_math=true exp=ex2
// @variant name=scaled_causal_onepass_c2048 op=scaled_softmax_causal kernel=scaled_causal_onepass_c2048 algorithm=safe geometry=block-per-row threads=256 max_cols=2048 vector=4 fast_math=true exp=ex2
// @variant name=scaled_causal_onepass_c4096 op=scaled_softmax_causal kernel=scaled_causal_onepass_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 vector=4 fast_math=true exp=ex2
// @variant name=scaled_causal_onepass_c8192 op=scaled_softmax_causal kernel=scaled_causal_onepass_c8192 algorithm=safe geometry=block-per-row threads=512 max_cols=8192 vector=4 fast_math=true exp=ex2
// @variant name=scaled_causal_onepass_c16384 op=scaled_softmax_causal kernel=scaled_causal_onepass_c16384 algorithm=safe geometry=block-per-row threads=512 max_cols=16384 vector=4 fast_math=true exp=ex2
// @variant name=scaled_causal_onepass_f16_c32 op=scaled_softmax_causal kernel=scaled_causal_onepass_f16_c32 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_onepass_f16_c128 op=scaled_softmax_causal kernel=scaled_causal_onepass_f16_c128 algorithm=safe geometry=group-per-row lanes=8 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_onepass_f16_c512 op=scaled_softmax_causal kernel=scaled_causal_onepass_f16_c512 algorithm=safe geometry=group-per-row lanes=16 threads=128 max_cols=512 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_onepass_f16_c1024 op=scaled_softmax_causal kernel=scaled_causal_onepass_f16_c1024 algorithm=safe geometry=warp-per-row threads=128 max_cols=1024 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_onepass_f16_c2048 op=scaled_softmax_causal kernel=scaled_causal_onepass_f16_c2048 algorithm=safe geometry=block-per-row threads=64 max_cols=2048 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_onepass_f16_c4096 op=scaled_softmax_causal kernel=scaled_causal_onepass_f16_c4096 algorithm=safe geometry=block-per-row threads=128 max_cols=4096 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_onepass_f16_c8192 op=scaled_softmax_causal kernel=scaled_causal_onepass_f16_c8192 algorithm=safe geometry=block-per-row threads=256 max_cols=8192 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_onepass_f16_c16384 op=scaled_softmax_causal kernel=scaled_causal_onepass_f16_c16384 algorithm=safe geometry=block-per-row threads=512 max_cols=16384 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_onepass_bf16_c32 op=scaled_softmax_causal kernel=scaled_causal_onepass_bf16_c32 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_onepass_bf16_c128 op=scaled_softmax_causal kernel=scaled_causal_onepass_bf16_c128 algorithm=safe geometry=group-per-row lanes=8 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_onepass_bf16_c512 op=scaled_softmax_causal kernel=scaled_causal_onepass_bf16_c512 algorithm=safe geometry=group-per-row lanes=16 threads=128 max_cols=512 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_onepass_bf16_c1024 op=scaled_softmax_causal kernel=scaled_causal_onepass_bf16_c1024 algorithm=safe geometry=warp-per-row threads=128 max_cols=1024 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_onepass_bf16_c2048 op=scaled_softmax_causal kernel=scaled_causal_onepass_bf16_c2048 algorithm=safe geometry=block-per-row threads=64 max_cols=2048 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_onepass_bf16_c4096 op=scaled_softmax_causal kernel=scaled_causal_onepass_bf16_c4096 algorithm=safe geometry=block-per-row threads=128 max_cols=4096 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_onepass_bf16_c8192 op=scaled_softmax_causal kernel=scaled_causal_onepass_bf16_c8192 algorithm=safe geometry=block-per-row threads=256 max_cols=8192 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_onepass_bf16_c16384 op=scaled_softmax_causal kernel=scaled_causal_onepass_bf16_c16384 algorithm=safe geometry=block-per-row threads=512 max_cols=16384 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// scaled_*_onepass_{f16,bf16}_c32_l2 and _c128_l4: the 16-bit fused tiles sized 32 and 128 on 2
// lanes of 16 and 4 lanes of 32, two and four 16-byte vectors a lane in flight where 4 lanes of 8
// and 8 of 16 hold one (the mask form's sized 32 on 2 lanes spilled 4 bytes on sm_80, and is left
// out). dispatch.OP_ALIGNED_TILES takes them at the aligned lengths where they led
// (fused_lanes_h100.json).
// @variant name=scaled_bias_onepass_f16_c32_l2 op=scaled_softmax_bias kernel=scaled_bias_onepass_f16_c32_l2 algorithm=safe geometry=group-per-row lanes=2 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_onepass_f16_c128_l4 op=scaled_softmax_bias kernel=scaled_bias_onepass_f16_c128_l4 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_onepass_bf16_c32_l2 op=scaled_softmax_bias kernel=scaled_bias_onepass_bf16_c32_l2 algorithm=safe geometry=group-per-row lanes=2 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_bias_onepass_bf16_c128_l4 op=scaled_softmax_bias kernel=scaled_bias_onepass_bf16_c128_l4 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_onepass_f16_c128_l4 op=scaled_softmax_mask kernel=scaled_mask_onepass_f16_c128_l4 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_onepass_bf16_c128_l4 op=scaled_softmax_mask kernel=scaled_mask_onepass_bf16_c128_l4 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_onepass_f16_c32_l2 op=scaled_softmax_causal kernel=scaled_causal_onepass_f16_c32_l2 algorithm=safe geometry=group-per-row lanes=2 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_onepass_f16_c128_l4 op=scaled_softmax_causal kernel=scaled_causal_onepass_f16_c128_l4 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_onepass_bf16_c32_l2 op=scaled_softmax_causal kernel=scaled_causal_onepass_bf16_c32_l2 algorithm=safe geometry=group-per-row lanes=2 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_onepass_bf16_c128_l4 op=scaled_softmax_causal kernel=scaled_causal_onepass_bf16_c128_l4 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
#include "softmax.cuh"
#include "include/scaled.cuh"

SCALED_TILE(scaled_bias_onepass_c32, bias, float, 128, 8, 4)
SCALED_TILE(scaled_bias_onepass_c128, bias, float, 128, 16, 8)
SCALED_TILE(scaled_bias_onepass_c512, bias, float, 128, 32, 16)
SCALED_TILE(scaled_bias_onepass_c1024, bias, float, 128, 128, 8)
SCALED_TILE(scaled_bias_onepass_c2048, bias, float, 256, 256, 8)
SCALED_TILE(scaled_bias_onepass_c4096, bias, float, 512, 512, 8)
SCALED_TILE(scaled_bias_onepass_c8192, bias, float, 512, 512, 16)
SCALED_TILE(scaled_bias_onepass_c16384, bias, float, 512, 512, 32)
SCALED_TILE(scaled_bias_onepass_f16_c32, bias, sh::half_t, 128, 4, 8)
SCALED_TILE(scaled_bias_onepass_f16_c128, bias, sh::half_t, 128, 8, 16)
SCALED_TILE(scaled_bias_onepass_f16_c512, bias, sh::half_t, 128, 16, 32)
SCALED_TILE(scaled_bias_onepass_f16_c1024, bias, sh::half_t, 128, 32, 32)
SCALED_TILE(scaled_bias_onepass_f16_c2048, bias, sh::half_t, 64, 64, 32)
SCALED_TILE(scaled_bias_onepass_f16_c4096, bias, sh::half_t, 128, 128, 32)
SCALED_TILE(scaled_bias_onepass_f16_c8192, bias, sh::half_t, 256, 256, 32)
SCALED_TILE(scaled_bias_onepass_f16_c16384, bias, sh::half_t, 256, 256, 64)
SCALED_TILE(scaled_bias_onepass_bf16_c32, bias, sh::bf16_t, 128, 4, 8)
SCALED_TILE(scaled_bias_onepass_bf16_c128, bias, sh::bf16_t, 128, 8, 16)
SCALED_TILE(scaled_bias_onepass_bf16_c512, bias, sh::bf16_t, 128, 16, 32)
SCALED_TILE(scaled_bias_onepass_bf16_c1024, bias, sh::bf16_t, 128, 32, 32)
SCALED_TILE(scaled_bias_onepass_bf16_c2048, bias, sh::bf16_t, 64, 64, 32)
SCALED_TILE(scaled_bias_onepass_bf16_c4096, bias, sh::bf16_t, 128, 128, 32)
SCALED_TILE(scaled_bias_onepass_bf16_c8192, bias, sh::bf16_t, 256, 256, 32)
SCALED_TILE(scaled_bias_onepass_bf16_c16384, bias, sh::bf16_t, 256, 256, 64)

SCALED_TILE(scaled_mask_onepass_c32, mask, float, 128, 8, 4)
SCALED_TILE(scaled_mask_onepass_c128, mask, float, 128, 16, 8)
SCALED_TILE(scaled_mask_onepass_c512, mask, float, 128, 32, 16)
SCALED_TILE(scaled_mask_onepass_c1024, mask, float, 128, 128, 8)
SCALED_TILE(scaled_mask_onepass_c2048, mask, float, 256, 256, 8)
SCALED_TILE(scaled_mask_onepass_c4096, mask, float, 512, 512, 8)
SCALED_TILE(scaled_mask_onepass_c8192, mask, float, 512, 512, 16)
SCALED_TILE(scaled_mask_onepass_c16384, mask, float, 512, 512, 32)
SCALED_TILE(scaled_mask_onepass_f16_c32, mask, sh::half_t, 128, 4, 8)
SCALED_TILE(scaled_mask_onepass_f16_c128, mask, sh::half_t, 128, 8, 16)
SCALED_TILE(scaled_mask_onepass_f16_c512, mask, sh::half_t, 128, 16, 32)
SCALED_TILE(scaled_mask_onepass_f16_c1024, mask, sh::half_t, 128, 32, 32)
SCALED_TILE(scaled_mask_onepass_f16_c2048, mask, sh::half_t, 64, 64, 32)
SCALED_TILE(scaled_mask_onepass_f16_c4096, mask, sh::half_t, 128, 128, 32)
SCALED_TILE(scaled_mask_onepass_f16_c8192, mask, sh::half_t, 256, 256, 32)
SCALED_TILE(scaled_mask_onepass_f16_c16384, mask, sh::half_t, 512, 512, 32)
SCALED_TILE(scaled_mask_onepass_bf16_c32, mask, sh::bf16_t, 128, 4, 8)
SCALED_TILE(scaled_mask_onepass_bf16_c128, mask, sh::bf16_t, 128, 8, 16)
SCALED_TILE(scaled_mask_onepass_bf16_c512, mask, sh::bf16_t, 128, 16, 32)
SCALED_TILE(scaled_mask_onepass_bf16_c1024, mask, sh::bf16_t, 128, 32, 32)
SCALED_TILE(scaled_mask_onepass_bf16_c2048, mask, sh::bf16_t, 64, 64, 32)
SCALED_TILE(scaled_mask_onepass_bf16_c4096, mask, sh::bf16_t, 128, 128, 32)
SCALED_TILE(scaled_mask_onepass_bf16_c8192, mask, sh::bf16_t, 256, 256, 32)
SCALED_TILE(scaled_mask_onepass_bf16_c16384, mask, sh::bf16_t, 512, 512, 32)

SCALED_TILE(scaled_causal_onepass_c32, causal, float, 128, 8, 4)
SCALED_TILE(scaled_causal_onepass_c128, causal, float, 128, 16, 8)
SCALED_TILE(scaled_causal_onepass_c512, causal, float, 128, 32, 16)
SCALED_TILE(scaled_causal_onepass_c1024, causal, float, 128, 128, 8)
SCALED_TILE(scaled_causal_onepass_c2048, causal, float, 256, 256, 8)
SCALED_TILE(scaled_causal_onepass_c4096, causal, float, 512, 512, 8)
SCALED_TILE(scaled_causal_onepass_c8192, causal, float, 512, 512, 16)
SCALED_TILE(scaled_causal_onepass_c16384, causal, float, 512, 512, 32)
SCALED_TILE(scaled_causal_onepass_f16_c32, causal, sh::half_t, 128, 4, 8)
SCALED_TILE(scaled_causal_onepass_f16_c128, causal, sh::half_t, 128, 8, 16)
SCALED_TILE(scaled_causal_onepass_f16_c512, causal, sh::half_t, 128, 16, 32)
SCALED_TILE(scaled_causal_onepass_f16_c1024, causal, sh::half_t, 128, 32, 32)
SCALED_TILE(scaled_causal_onepass_f16_c2048, causal, sh::half_t, 64, 64, 32)
SCALED_TILE(scaled_causal_onepass_f16_c4096, causal, sh::half_t, 128, 128, 32)
SCALED_TILE(scaled_causal_onepass_f16_c8192, causal, sh::half_t, 256, 256, 32)
SCALED_TILE(scaled_causal_onepass_f16_c16384, causal, sh::half_t, 512, 512, 32)
SCALED_TILE(scaled_causal_onepass_bf16_c32, causal, sh::bf16_t, 128, 4, 8)
SCALED_TILE(scaled_causal_onepass_bf16_c128, causal, sh::bf16_t, 128, 8, 16)
SCALED_TILE(scaled_causal_onepass_bf16_c512, causal, sh::bf16_t, 128, 16, 32)
SCALED_TILE(scaled_causal_onepass_bf16_c1024, causal, sh::bf16_t, 128, 32, 32)
SCALED_TILE(scaled_causal_onepass_bf16_c2048, causal, sh::bf16_t, 64, 64, 32)
SCALED_TILE(scaled_causal_onepass_bf16_c4096, causal, sh::bf16_t, 128, 128, 32)
SCALED_TILE(scaled_causal_onepass_bf16_c8192, causal, sh::bf16_t, 256, 256, 32)
SCALED_TILE(scaled_causal_onepass_bf16_c16384, causal, sh::bf16_t, 512, 512, 32)

// The 16-bit tiles sized 32 and 128 on 2 lanes of 16 and 4 lanes of 32.
SCALED_TILE(scaled_bias_onepass_f16_c32_l2, bias, sh::half_t, 128, 2, 16)
SCALED_TILE(scaled_bias_onepass_f16_c128_l4, bias, sh::half_t, 128, 4, 32)
SCALED_TILE(scaled_bias_onepass_bf16_c32_l2, bias, sh::bf16_t, 128, 2, 16)
SCALED_TILE(scaled_bias_onepass_bf16_c128_l4, bias, sh::bf16_t, 128, 4, 32)
SCALED_TILE(scaled_mask_onepass_f16_c128_l4, mask, sh::half_t, 128, 4, 32)
SCALED_TILE(scaled_mask_onepass_bf16_c128_l4, mask, sh::bf16_t, 128, 4, 32)
SCALED_TILE(scaled_causal_onepass_f16_c32_l2, causal, sh::half_t, 128, 2, 16)
SCALED_TILE(scaled_causal_onepass_f16_c128_l4, causal, sh::half_t, 128, 4, 32)
SCALED_TILE(scaled_causal_onepass_bf16_c32_l2, causal, sh::bf16_t, 128, 2, 16)
SCALED_TILE(scaled_causal_onepass_bf16_c128_l4, causal, sh::bf16_t, 128, 4, 32)
