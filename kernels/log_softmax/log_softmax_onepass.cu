// log_softmax, the row in registers (sh::log_softmax_tile_rows): x read once, in 16-byte vectors,
// the maximum and the sum reduced over the row's lanes, z written from the registers; one
// ex2.approx an element and lg2.approx for log d (fast_math=true exp=ex2). A kernel a
// row size, shaped as the backwards' tiles (short rows a group of 4-16 lanes and several rows a
// block, then a warp, then a block a row); longer rows go to log_softmax_block.
// Measured beside the earlier scalar tiles: reports/measurements/op_tiles_fast_ab.jsonl.
//
// @variant name=log_softmax_onepass_c32 op=log_softmax kernel=log_softmax_onepass_c32 algorithm=safe geometry=group-per-row lanes=8 threads=128 max_cols=32 vector=4 fast_math=true exp=ex2
// @variant name=log_softmax_onepass_c128 op=log_softmax kernel=log_softmax_onepass_c128 algorithm=safe geometry=group-per-row lanes=16 threads=128 max_cols=128 vector=4 fast_math=true exp=ex2
// @variant name=log_softmax_onepass_c512 op=log_softmax kernel=log_softmax_onepass_c512 algorithm=safe geometry=warp-per-row threads=128 max_cols=512 vector=4 fast_math=true exp=ex2
// @variant name=log_softmax_onepass_c1024 op=log_softmax kernel=log_softmax_onepass_c1024 algorithm=safe geometry=block-per-row threads=128 max_cols=1024 vector=4 fast_math=true exp=ex2
// @variant name=log_softmax_onepass_c2048 op=log_softmax kernel=log_softmax_onepass_c2048 algorithm=safe geometry=block-per-row threads=256 max_cols=2048 vector=4 fast_math=true exp=ex2
// @variant name=log_softmax_onepass_c4096 op=log_softmax kernel=log_softmax_onepass_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 vector=4 fast_math=true exp=ex2
// @variant name=log_softmax_onepass_c8192 op=log_softmax kernel=log_softmax_onepass_c8192 algorithm=safe geometry=block-per-row threads=512 max_cols=8192 vector=4 fast_math=true exp=ex2
// @variant name=log_softmax_onepass_c16384 op=log_softmax kernel=log_softmax_onepass_c16384 algorithm=safe geometry=block-per-row threads=512 max_cols=16384 vector=4 fast_math=true exp=ex2
// @variant name=log_softmax_onepass_c32768 op=log_softmax kernel=log_softmax_onepass_c32768 algorithm=safe geometry=block-per-row threads=1024 max_cols=32768 vector=4 fast_math=true exp=ex2
// @variant name=log_softmax_onepass_f16_c32 op=log_softmax kernel=log_softmax_onepass_f16_c32 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_onepass_f16_c128 op=log_softmax kernel=log_softmax_onepass_f16_c128 algorithm=safe geometry=group-per-row lanes=8 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_onepass_f16_c512 op=log_softmax kernel=log_softmax_onepass_f16_c512 algorithm=safe geometry=group-per-row lanes=16 threads=128 max_cols=512 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_onepass_f16_c1024 op=log_softmax kernel=log_softmax_onepass_f16_c1024 algorithm=safe geometry=warp-per-row threads=128 max_cols=1024 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_onepass_f16_c2048 op=log_softmax kernel=log_softmax_onepass_f16_c2048 algorithm=safe geometry=block-per-row threads=64 max_cols=2048 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_onepass_f16_c4096 op=log_softmax kernel=log_softmax_onepass_f16_c4096 algorithm=safe geometry=block-per-row threads=128 max_cols=4096 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_onepass_f16_c8192 op=log_softmax kernel=log_softmax_onepass_f16_c8192 algorithm=safe geometry=block-per-row threads=256 max_cols=8192 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_onepass_f16_c16384 op=log_softmax kernel=log_softmax_onepass_f16_c16384 algorithm=safe geometry=block-per-row threads=512 max_cols=16384 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_onepass_f16_c32768 op=log_softmax kernel=log_softmax_onepass_f16_c32768 algorithm=safe geometry=block-per-row threads=512 max_cols=32768 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_onepass_bf16_c32 op=log_softmax kernel=log_softmax_onepass_bf16_c32 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_onepass_bf16_c128 op=log_softmax kernel=log_softmax_onepass_bf16_c128 algorithm=safe geometry=group-per-row lanes=8 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_onepass_bf16_c512 op=log_softmax kernel=log_softmax_onepass_bf16_c512 algorithm=safe geometry=group-per-row lanes=16 threads=128 max_cols=512 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_onepass_bf16_c1024 op=log_softmax kernel=log_softmax_onepass_bf16_c1024 algorithm=safe geometry=warp-per-row threads=128 max_cols=1024 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_onepass_bf16_c2048 op=log_softmax kernel=log_softmax_onepass_bf16_c2048 algorithm=safe geometry=block-per-row threads=64 max_cols=2048 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_onepass_bf16_c4096 op=log_softmax kernel=log_softmax_onepass_bf16_c4096 algorithm=safe geometry=block-per-row threads=128 max_cols=4096 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_onepass_bf16_c8192 op=log_softmax kernel=log_softmax_onepass_bf16_c8192 algorithm=safe geometry=block-per-row threads=256 max_cols=8192 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_onepass_bf16_c16384 op=log_softmax kernel=log_softmax_onepass_bf16_c16384 algorithm=safe geometry=block-per-row threads=512 max_cols=16384 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_onepass_bf16_c32768 op=log_softmax kernel=log_softmax_onepass_bf16_c32768 algorithm=safe geometry=block-per-row threads=512 max_cols=32768 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
#include "softmax.cuh"
#include "include/log_softmax.cuh"

#define LOG_SOFTMAX_TILE(NAME, T, THREADS, LANES, E)                                                   \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(const T* __restrict__ x, T* __restrict__ z,  \
                                                               int n_rows, int n_cols) {               \
        sh::log_softmax_tile_rows<T, LANES, E>(x, z, n_rows, n_cols);                                 \
    }

LOG_SOFTMAX_TILE(log_softmax_onepass_c32, float, 128, 8, 4)
LOG_SOFTMAX_TILE(log_softmax_onepass_c128, float, 128, 16, 8)
LOG_SOFTMAX_TILE(log_softmax_onepass_c512, float, 128, 32, 16)
LOG_SOFTMAX_TILE(log_softmax_onepass_c1024, float, 128, 128, 8)
LOG_SOFTMAX_TILE(log_softmax_onepass_c2048, float, 256, 256, 8)
LOG_SOFTMAX_TILE(log_softmax_onepass_c4096, float, 512, 512, 8)
LOG_SOFTMAX_TILE(log_softmax_onepass_c8192, float, 512, 512, 16)
LOG_SOFTMAX_TILE(log_softmax_onepass_c16384, float, 512, 512, 32)
LOG_SOFTMAX_TILE(log_softmax_onepass_c32768, float, 1024, 1024, 32)
LOG_SOFTMAX_TILE(log_softmax_onepass_f16_c32, sh::half_t, 128, 4, 8)
LOG_SOFTMAX_TILE(log_softmax_onepass_f16_c128, sh::half_t, 128, 8, 16)
LOG_SOFTMAX_TILE(log_softmax_onepass_f16_c512, sh::half_t, 128, 16, 32)
LOG_SOFTMAX_TILE(log_softmax_onepass_f16_c1024, sh::half_t, 128, 32, 32)
LOG_SOFTMAX_TILE(log_softmax_onepass_f16_c2048, sh::half_t, 64, 64, 32)
LOG_SOFTMAX_TILE(log_softmax_onepass_f16_c4096, sh::half_t, 128, 128, 32)
LOG_SOFTMAX_TILE(log_softmax_onepass_f16_c8192, sh::half_t, 256, 256, 32)
LOG_SOFTMAX_TILE(log_softmax_onepass_f16_c16384, sh::half_t, 512, 512, 32)
LOG_SOFTMAX_TILE(log_softmax_onepass_f16_c32768, sh::half_t, 512, 512, 64)
LOG_SOFTMAX_TILE(log_softmax_onepass_bf16_c32, sh::bf16_t, 128, 4, 8)
LOG_SOFTMAX_TILE(log_softmax_onepass_bf16_c128, sh::bf16_t, 128, 8, 16)
LOG_SOFTMAX_TILE(log_softmax_onepass_bf16_c512, sh::bf16_t, 128, 16, 32)
LOG_SOFTMAX_TILE(log_softmax_onepass_bf16_c1024, sh::bf16_t, 128, 32, 32)
LOG_SOFTMAX_TILE(log_softmax_onepass_bf16_c2048, sh::bf16_t, 64, 64, 32)
LOG_SOFTMAX_TILE(log_softmax_onepass_bf16_c4096, sh::bf16_t, 128, 128, 32)
LOG_SOFTMAX_TILE(log_softmax_onepass_bf16_c8192, sh::bf16_t, 256, 256, 32)
LOG_SOFTMAX_TILE(log_softmax_onepass_bf16_c16384, sh::bf16_t, 512, 512, 32)
LOG_SOFTMAX_TILE(log_softmax_onepass_bf16_c32768, sh::bf16_t, 512, 512, 64)
