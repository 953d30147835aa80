// Safe softmax from registers: the row's maximum, then the sum of exp(x - m), then the
// outputs, each over the block's register tile (sh::RowTile, as in online_onepass_vec4.cu), so a
// row is read once and written once; two block reductions of one float each, where the online
// kernels make one of (m, d) states with an exponential a merge. This is the order of Triton's
// softmax. On fp32 rows of 16384 (512 threads of 32 floats) it measured 0.977 of copy against
// 0.973-0.974 for the online tile (Triton 0.976-0.977), level at 12000 and 0.009 behind at 9000
// (reports/measurements/shapes_1024_16384_ab.json).
// @variant name=safe_onepass_vec4_c16384 kernel=safe_onepass_vec4_c16384 algorithm=safe geometry=block-per-row threads=512 max_cols=16384 fast_math=true exp=ex2
// Rows of 2049-4096 in small batches, on 256 threads of 16 floats as Triton's row kernel holds
// them: there the latency of a row's reductions is most of a launch, and Triton's two reductions of
// a float each ran 8 rows of 4096 in 4.40-4.54 µs where the online tile's merges of (m, d) states
// ran 4.61-4.99 (runs 0056-0060, H100, cold L2; 1 row level: 4.45-4.77 against 4.58-4.64).
// @variant name=safe_onepass_vec4_c4096_b256 kernel=safe_onepass_vec4_c4096_b256 algorithm=safe geometry=block-per-row threads=256 max_cols=4096 fast_math=true exp=ex2
#include "softmax.cuh"

SH_ONEPASS_BLOCK_KERNEL(safe_onepass_vec4_c16384, float, 512, 32, true)
SH_ONEPASS_BLOCK_KERNEL(safe_onepass_vec4_c4096_b256, float, 256, 16, true)
