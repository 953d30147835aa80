// The one-pass register-tile family (see online_onepass_vec4.cu) for half-precision
// rows: float16 and bfloat16 in and out, float arithmetic. Tiles of 32 or more
// elements per thread keep the raw 16-bit values (two to a register) and recompute
// exp(x - m) when they write, so a thread holds twice the elements of an fp32 tile in
// the same registers and the memory system sees as many bytes in flight. Sizes chosen
// on the H200. Rows of 129-505: 16 lanes of 16 up to 256 and 8 lanes of 64
// up to 505 (any misaligned row of 505 fits 512 with its shift) measured 0.48-1.00 and
// 0.84-0.98 of copy where 16 lanes of 32 reached 0.21-0.55 and 0.65-0.97; only aligned rows of
// 496-504 were faster on 16 lanes of 32, by 0.01-0.035 (reports/measurements/short_rows_2_ab.json).
//
// Rows of up to 128 also on 16 lanes of 8 (one 16-byte vector a lane, 8 rows a block:
// onepass_*_c128_l16) and on 4 lanes of 32 (onepass_*_c128_l4): at 127-128 the 16 lanes, at
// aligned rows of 72, 80, 96 and 112 the 4 lanes ran ahead of the 8 lanes of 16
// (reports/measurements/c128_lanes_every.json; softmax_harness/dispatch.py takes them there).
// Rows of up to 64 on 8 lanes of 8 (one 16-byte vector a lane: onepass_*_c64) and on 4 lanes of
// 16 (onepass_*_c64_l4): the 8 lanes ahead of the tile sized 128 at every length of 33-64, the 4
// lanes at aligned rows of 40, 48 and 56 (reports/measurements/c64_tiles.json).
// @variant name=onepass_f16_c64 kernel=onepass_f16_c64 algorithm=online geometry=group-per-row threads=128 lanes=8 max_cols=64 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c64 kernel=onepass_bf16_c64 algorithm=online geometry=group-per-row threads=128 lanes=8 max_cols=64 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_f16_c64_l4 kernel=onepass_f16_c64_l4 algorithm=online geometry=group-per-row threads=128 lanes=4 max_cols=64 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c64_l4 kernel=onepass_bf16_c64_l4 algorithm=online geometry=group-per-row threads=128 lanes=4 max_cols=64 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_f16_c128_l16 kernel=onepass_f16_c128_l16 algorithm=online geometry=group-per-row threads=128 lanes=16 max_cols=128 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c128_l16 kernel=onepass_bf16_c128_l16 algorithm=online geometry=group-per-row threads=128 lanes=16 max_cols=128 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_f16_c128_l4 kernel=onepass_f16_c128_l4 algorithm=online geometry=group-per-row threads=128 lanes=4 max_cols=128 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c128_l4 kernel=onepass_bf16_c128_l4 algorithm=online geometry=group-per-row threads=128 lanes=4 max_cols=128 dtypes=bfloat16 fast_math=true exp=ex2
//
// @variant name=onepass_f16_c32 kernel=onepass_f16_c32 algorithm=online geometry=group-per-row threads=128 lanes=4 max_cols=32 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_f16_c128 kernel=onepass_f16_c128 algorithm=online geometry=group-per-row threads=128 lanes=8 max_cols=128 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_f16_c256 kernel=onepass_f16_c256 algorithm=online geometry=group-per-row threads=128 lanes=16 max_cols=256 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_f16_c512_l8 kernel=onepass_f16_c512_l8 algorithm=online geometry=group-per-row threads=128 lanes=8 max_cols=512 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_f16_c512 kernel=onepass_f16_c512 algorithm=online geometry=group-per-row threads=128 lanes=16 max_cols=512 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_f16_c1024 kernel=onepass_f16_c1024 algorithm=online geometry=warp-per-row threads=128 max_cols=1024 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_f16_c2048 kernel=onepass_f16_c2048 algorithm=online geometry=block-per-row threads=64 max_cols=2048 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_f16_c4096 kernel=onepass_f16_c4096 algorithm=online geometry=block-per-row threads=128 max_cols=4096 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_f16_c8192 kernel=onepass_f16_c8192 algorithm=online geometry=block-per-row threads=256 max_cols=8192 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_f16_c16384 kernel=onepass_f16_c16384 algorithm=online geometry=block-per-row threads=512 max_cols=16384 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_f16_c32768 kernel=onepass_f16_c32768 algorithm=online geometry=block-per-row threads=512 max_cols=32768 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c32 kernel=onepass_bf16_c32 algorithm=online geometry=group-per-row threads=128 lanes=4 max_cols=32 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c128 kernel=onepass_bf16_c128 algorithm=online geometry=group-per-row threads=128 lanes=8 max_cols=128 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c256 kernel=onepass_bf16_c256 algorithm=online geometry=group-per-row threads=128 lanes=16 max_cols=256 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c512_l8 kernel=onepass_bf16_c512_l8 algorithm=online geometry=group-per-row threads=128 lanes=8 max_cols=512 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c512 kernel=onepass_bf16_c512 algorithm=online geometry=group-per-row threads=128 lanes=16 max_cols=512 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c1024 kernel=onepass_bf16_c1024 algorithm=online geometry=warp-per-row threads=128 max_cols=1024 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c2048 kernel=onepass_bf16_c2048 algorithm=online geometry=block-per-row threads=64 max_cols=2048 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c4096 kernel=onepass_bf16_c4096 algorithm=online geometry=block-per-row threads=128 max_cols=4096 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c8192 kernel=onepass_bf16_c8192 algorithm=online geometry=block-per-row threads=256 max_cols=8192 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c16384 kernel=onepass_bf16_c16384 algorithm=online geometry=block-per-row threads=512 max_cols=16384 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c32768 kernel=onepass_bf16_c32768 algorithm=online geometry=block-per-row threads=512 max_cols=32768 dtypes=bfloat16 fast_math=true exp=ex2
// Small batches' trial (issue 24, staged): 16-bit rows of 1024 on a block of 64 threads of 16 or
// 128 of 8 (as the fp32 rows of 876-1024 that 64 threads of 16 took up to 16384 rows), and of
// 32768 on 1024 threads of 32 (256 x 32000 bf16 ran 16.5 µs against Quack's 15.4, run 0058).
// @variant name=onepass_f16_c1024_b64 kernel=onepass_f16_c1024_b64 algorithm=online geometry=block-per-row threads=64 max_cols=1024 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_f16_c1024_b128 kernel=onepass_f16_c1024_b128 algorithm=online geometry=block-per-row threads=128 max_cols=1024 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_f16_c32768_b1024 kernel=onepass_f16_c32768_b1024 algorithm=online geometry=block-per-row threads=1024 max_cols=32768 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c1024_b64 kernel=onepass_bf16_c1024_b64 algorithm=online geometry=block-per-row threads=64 max_cols=1024 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c1024_b128 kernel=onepass_bf16_c1024_b128 algorithm=online geometry=block-per-row threads=128 max_cols=1024 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_bf16_c32768_b1024 kernel=onepass_bf16_c32768_b1024 algorithm=online geometry=block-per-row threads=1024 max_cols=32768 dtypes=bfloat16 fast_math=true exp=ex2
#include "softmax.cuh"

SH_ONEPASS_GROUP_KERNEL(onepass_f16_c32, sh::half_t, 4, 8)
SH_ONEPASS_GROUP_KERNEL(onepass_f16_c128, sh::half_t, 8, 16)
SH_ONEPASS_GROUP_KERNEL(onepass_f16_c256, sh::half_t, 16, 16)
SH_ONEPASS_GROUP_KERNEL(onepass_f16_c512_l8, sh::half_t, 8, 64)
SH_ONEPASS_GROUP_KERNEL(onepass_f16_c512, sh::half_t, 16, 32)
SH_ONEPASS_GROUP_KERNEL(onepass_f16_c1024, sh::half_t, 32, 32)
SH_ONEPASS_BLOCK_KERNEL(onepass_f16_c2048, sh::half_t, 64, 32)
SH_ONEPASS_BLOCK_KERNEL(onepass_f16_c4096, sh::half_t, 128, 32)
SH_ONEPASS_BLOCK_KERNEL(onepass_f16_c8192, sh::half_t, 256, 32)
SH_ONEPASS_BLOCK_KERNEL(onepass_f16_c16384, sh::half_t, 512, 32)
SH_ONEPASS_BLOCK_KERNEL(onepass_f16_c32768, sh::half_t, 512, 64)

SH_ONEPASS_GROUP_KERNEL(onepass_bf16_c32, sh::bf16_t, 4, 8)
SH_ONEPASS_GROUP_KERNEL(onepass_bf16_c128, sh::bf16_t, 8, 16)
SH_ONEPASS_GROUP_KERNEL(onepass_bf16_c256, sh::bf16_t, 16, 16)
SH_ONEPASS_GROUP_KERNEL(onepass_bf16_c512_l8, sh::bf16_t, 8, 64)
SH_ONEPASS_GROUP_KERNEL(onepass_bf16_c512, sh::bf16_t, 16, 32)
SH_ONEPASS_GROUP_KERNEL(onepass_bf16_c1024, sh::bf16_t, 32, 32)
SH_ONEPASS_BLOCK_KERNEL(onepass_bf16_c2048, sh::bf16_t, 64, 32)
SH_ONEPASS_BLOCK_KERNEL(onepass_bf16_c4096, sh::bf16_t, 128, 32)
SH_ONEPASS_BLOCK_KERNEL(onepass_bf16_c8192, sh::bf16_t, 256, 32)
SH_ONEPASS_BLOCK_KERNEL(onepass_bf16_c16384, sh::bf16_t, 512, 32)
SH_ONEPASS_BLOCK_KERNEL(onepass_bf16_c32768, sh::bf16_t, 512, 64)

// Rows of up to 128 on 16 lanes of 8 and on 4 lanes of 32.
SH_ONEPASS_GROUP_KERNEL(onepass_f16_c128_l16, sh::half_t, 16, 8)
SH_ONEPASS_GROUP_KERNEL(onepass_bf16_c128_l16, sh::bf16_t, 16, 8)
SH_ONEPASS_GROUP_KERNEL(onepass_f16_c128_l4, sh::half_t, 4, 32)
SH_ONEPASS_GROUP_KERNEL(onepass_bf16_c128_l4, sh::bf16_t, 4, 32)

// Rows of up to 64 on 8 lanes of 8 and on 4 lanes of 16.
SH_ONEPASS_GROUP_KERNEL(onepass_f16_c64, sh::half_t, 8, 8)
SH_ONEPASS_GROUP_KERNEL(onepass_bf16_c64, sh::bf16_t, 8, 8)
SH_ONEPASS_GROUP_KERNEL(onepass_f16_c64_l4, sh::half_t, 4, 16)
SH_ONEPASS_GROUP_KERNEL(onepass_bf16_c64_l4, sh::bf16_t, 4, 16)

SH_ONEPASS_BLOCK_KERNEL(onepass_f16_c1024_b64, sh::half_t, 64, 16)
SH_ONEPASS_BLOCK_KERNEL(onepass_f16_c1024_b128, sh::half_t, 128, 8)
SH_ONEPASS_BLOCK_KERNEL(onepass_f16_c32768_b1024, sh::half_t, 1024, 32)
SH_ONEPASS_BLOCK_KERNEL(onepass_bf16_c1024_b64, sh::bf16_t, 64, 16)
SH_ONEPASS_BLOCK_KERNEL(onepass_bf16_c1024_b128, sh::bf16_t, 128, 8)
SH_ONEPASS_BLOCK_KERNEL(onepass_bf16_c32768_b1024, sh::bf16_t, 1024, 32)
