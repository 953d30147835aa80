// The one-pass register tiles of online_onepass_half.cu (float16 and bfloat16 rows, float
// arithmetic) on other block shapes, for small batches (issue 24): rows of 1024 on a block of 64
// threads of 16 or 128 of 8, where online_onepass_half.cu's tile holds a row on a warp (as fp32
// rows of 876-1024 took 64 threads of 16 up to 16384 rows: bf16 4096 x 1024 ran 10.3 µs against
// Quack's 9.8 in run 0058), and rows of 32768 on 1024 threads of 32 where its tile takes 512 of
// 64 (bf16 256 x 32000: 16.5 µs against Quack's 15.4).
// @variant name=onepass_f16_c1024_b64 kernel=onepass_f16_c1024_b64 algorithm=online geometry=block-per-row threads=64 max_cols=1024 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_f16_c1024_b128 kernel=onepass_f16_c1024_b128 algorithm=online geometry=block-per-row threads=128 max_cols=1024 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_f16_c32768_b1024 kernel=onepass_f16_c32768_b1024 algorithm=online geometry=block-per-row threads=1024 max_cols=32768 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c1024_b64 kernel=onepass_bf16_c1024_b64 algorithm=online geometry=block-per-row threads=64 max_cols=1024 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c1024_b128 kernel=onepass_bf16_c1024_b128 algorithm=online geometry=block-per-row threads=128 max_cols=1024 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c32768_b1024 kernel=onepass_bf16_c32768_b1024 algorithm=online geometry=block-per-row threads=1024 max_cols=32768 dtypes=bfloat16 fast_math=true exp=ex2
#include "softmax.cuh"

SH_ONEPASS_BLOCK_KERNEL(onepass_f16_c1024_b64, sh::half_t, 64, 16)
SH_ONEPASS_BLOCK_KERNEL(onepass_f16_c1024_b128, sh::half_t, 128, 8)
SH_ONEPASS_BLOCK_KERNEL(onepass_f16_c32768_b1024, sh::half_t, 1024, 32)
SH_ONEPASS_BLOCK_KERNEL(onepass_bf16_c1024_b64, sh::bf16_t, 64, 16)
SH_ONEPASS_BLOCK_KERNEL(onepass_bf16_c1024_b128, sh::bf16_t, 128, 8)
SH_ONEPASS_BLOCK_KERNEL(onepass_bf16_c32768_b1024, sh::bf16_t, 1024, 32)
