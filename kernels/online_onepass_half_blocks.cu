// The one-pass register tiles of online_onepass_half.cu (float16 and bfloat16 rows, float
// arithmetic) sized 1024 on a block of 64 threads of 16 or 128 of 8, where online_onepass_half.cu's
// tile holds a row on a warp: for small batches (issue 24), as fp32 rows of 876-1024 take 64
// threads of 16 (dispatch.SMALL_BATCH_TILES; reports/measurements/half16_blocks_latency_h100.jsonl).
// @variant name=onepass_f16_c1024_b64 kernel=onepass_f16_c1024_b64 algorithm=online geometry=block-per-row threads=64 max_cols=1024 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_f16_c1024_b128 kernel=onepass_f16_c1024_b128 algorithm=online geometry=block-per-row threads=128 max_cols=1024 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c1024_b64 kernel=onepass_bf16_c1024_b64 algorithm=online geometry=block-per-row threads=64 max_cols=1024 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c1024_b128 kernel=onepass_bf16_c1024_b128 algorithm=online geometry=block-per-row threads=128 max_cols=1024 dtypes=bfloat16 fast_math=true exp=ex2
#include "softmax.cuh"

SH_ONEPASS_BLOCK_KERNEL(onepass_f16_c1024_b64, sh::half_t, 64, 16)
SH_ONEPASS_BLOCK_KERNEL(onepass_f16_c1024_b128, sh::half_t, 128, 8)
SH_ONEPASS_BLOCK_KERNEL(onepass_bf16_c1024_b64, sh::bf16_t, 64, 16)
SH_ONEPASS_BLOCK_KERNEL(onepass_bf16_c1024_b128, sh::bf16_t, 128, 8)
