// One-pass softmax from registers with 16-byte accesses, sized to the row: the
// fp32 fast family behind softmax_harness.softmax(). Each thread loads its whole
// share of the row (E floats, as E / 4 float4 chunks; chunk k of lane l holds
// elements 4 * (k * LANES + l) .. + 3) before using any of it, so many loads are in
// flight; rows are read once and written once (sh::RowTile, sh::onepass_*).
//
// Arithmetic: one exponential per element, on the special-function unit (ex2, so
// the variants declare fast_math=true exp=ex2 and are held to the wider bound). A thread folds
// its share as e_i = exp(x_i - m_t) (m_t: its own maximum) and d_t = sum e_i, the
// (m_t, d_t) states are merged (NaN-safe, see softmax.cuh), and y_i = e_i * exp(m_t - m) / d.
// Rows that are not 16-byte aligned (C % 4 != 0, or a misaligned base) take the
// same path with scalar loads and stores.
//
// Short rows: a group of LANES threads per row, several rows per block. Up to C = 128,
// 16 lanes of 8 floats (32 bytes in flight a thread) measured 1.02 of copy at C = 128 and
// 0.99 at C = 96-100, where a warp of 4 floats each reached 0.95 and 0.70
// (reports/measurements/short_rows_ab.json).
// @variant name=onepass_vec4_c32 kernel=onepass_vec4_c32 algorithm=online geometry=group-per-row threads=128 lanes=8 max_cols=32 fast_math=true exp=ex2
// @variant name=onepass_vec4_c64 kernel=onepass_vec4_c64 algorithm=online geometry=group-per-row threads=128 lanes=16 max_cols=64 fast_math=true exp=ex2
// @variant name=onepass_vec4_c128 kernel=onepass_vec4_c128 algorithm=online geometry=group-per-row threads=128 lanes=16 max_cols=128 fast_math=true exp=ex2
// @variant name=onepass_vec4_c256 kernel=onepass_vec4_c256 algorithm=online geometry=warp-per-row threads=128 max_cols=256 fast_math=true exp=ex2
// @variant name=onepass_vec4_c512 kernel=onepass_vec4_c512 algorithm=online geometry=warp-per-row threads=128 max_cols=512 fast_math=true exp=ex2
// @variant name=onepass_vec4_c1024 kernel=onepass_vec4_c1024 algorithm=online geometry=warp-per-row threads=128 max_cols=1024 fast_math=true exp=ex2
// Longer rows: a block per row. From C ~ 600 to 1024, a block of 64 threads of 16 floats
// measured 0.971-0.996 of copy against 0.965-0.983 for a warp of 32 (Triton 0.955-1.002, up to
// 0.022 ahead at 6 of 8 lengths), but 0.91 against 0.97 at C = 513
// (reports/measurements/short_rows_2_ab.json).
// @variant name=onepass_vec4_c1024_b64 kernel=onepass_vec4_c1024_b64 algorithm=online geometry=block-per-row threads=64 max_cols=1024 fast_math=true exp=ex2
// Rows of ~1000-1024 were faster still on a block of 128 threads of 8 floats (Triton's shape:
// 0.992-1.003 against 0.985-0.996 at C = 1000 and 1024), which loses at shorter rows (0.77 at
// 600, 0.95 at 800): reports/measurements/shapes_1024_16384_ab.json.
// @variant name=onepass_vec4_c1024_b128 kernel=onepass_vec4_c1024_b128 algorithm=online geometry=block-per-row threads=128 max_cols=1024 fast_math=true exp=ex2
// @variant name=onepass_vec4_c2048 kernel=onepass_vec4_c2048 algorithm=online geometry=block-per-row threads=256 max_cols=2048 fast_math=true exp=ex2
// @variant name=onepass_vec4_c4096 kernel=onepass_vec4_c4096 algorithm=online geometry=block-per-row threads=512 max_cols=4096 fast_math=true exp=ex2
// Rows of 2049-4096 on 256 threads of 16 floats (Triton's row kernel holds them on 8 warps of
// 16): fewer warps to merge a row's states across, and at 2049-2560 fewer idle threads. On an
// H100, ~1 GiB of rows: 0.997-1.003 of a copy at 2049-2560 against the 512 threads' 0.808-0.971,
// behind by 0.003-0.019 at 2816-4096; cold L2, 1-16384 rows of 4096 in 4.50-180.6 µs against
// 4.64-182.2 (1024 rows: 14.4 against 16.1), 1024 rows of 2049 in 10.2 against 12.4
// (reports/measurements/tile_4096_threads_bw.json, tile_4096_threads_latency.jsonl; 128 threads
// of 32 ran level with the 256 or behind).
// @variant name=onepass_vec4_c4096_b256 kernel=onepass_vec4_c4096_b256 algorithm=online geometry=block-per-row threads=256 max_cols=4096 fast_math=true exp=ex2
// @variant name=onepass_vec4_c8192 kernel=onepass_vec4_c8192 algorithm=online geometry=block-per-row threads=512 max_cols=8192 fast_math=true exp=ex2
// @variant name=onepass_vec4_c16384 kernel=onepass_vec4_c16384 algorithm=online geometry=block-per-row threads=512 max_cols=16384 fast_math=true exp=ex2
// @variant name=onepass_vec4_c32768 kernel=onepass_vec4_c32768 algorithm=online geometry=block-per-row threads=1024 max_cols=32768 fast_math=true exp=ex2
#include "softmax.cuh"

SH_ONEPASS_GROUP_KERNEL(onepass_vec4_c32, float, 8, 4)
SH_ONEPASS_GROUP_KERNEL(onepass_vec4_c64, float, 16, 4)
SH_ONEPASS_GROUP_KERNEL(onepass_vec4_c128, float, 16, 8)
SH_ONEPASS_GROUP_KERNEL(onepass_vec4_c256, float, 32, 8)
SH_ONEPASS_GROUP_KERNEL(onepass_vec4_c512, float, 32, 16)
SH_ONEPASS_GROUP_KERNEL(onepass_vec4_c1024, float, 32, 32)

SH_ONEPASS_BLOCK_KERNEL(onepass_vec4_c1024_b64, float, 64, 16)
SH_ONEPASS_BLOCK_KERNEL(onepass_vec4_c1024_b128, float, 128, 8)
SH_ONEPASS_BLOCK_KERNEL(onepass_vec4_c2048, float, 256, 8)
SH_ONEPASS_BLOCK_KERNEL(onepass_vec4_c4096, float, 512, 8)
SH_ONEPASS_BLOCK_KERNEL(onepass_vec4_c4096_b256, float, 256, 16)
SH_ONEPASS_BLOCK_KERNEL(onepass_vec4_c8192, float, 512, 16)
SH_ONEPASS_BLOCK_KERNEL(onepass_vec4_c16384, float, 512, 32)
SH_ONEPASS_BLOCK_KERNEL(onepass_vec4_c32768, float, 1024, 32)
