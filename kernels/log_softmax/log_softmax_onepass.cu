// log_softmax, one block a row held in registers: x read once, the maximum and the sum reduced
// over the block, z written from the registers. A kernel a row size; longer rows go to
// log_softmax_block.
//
// @variant name=log_softmax_onepass_c4096 op=log_softmax kernel=log_softmax_onepass_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096
// @variant name=log_softmax_onepass_f16_c4096 op=log_softmax kernel=log_softmax_onepass_f16_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 dtypes=float16
// @variant name=log_softmax_onepass_bf16_c4096 op=log_softmax kernel=log_softmax_onepass_bf16_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 dtypes=bfloat16
// @variant name=log_softmax_onepass_c16384 op=log_softmax kernel=log_softmax_onepass_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384
// @variant name=log_softmax_onepass_f16_c16384 op=log_softmax kernel=log_softmax_onepass_f16_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 dtypes=float16
// @variant name=log_softmax_onepass_bf16_c16384 op=log_softmax kernel=log_softmax_onepass_bf16_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 dtypes=bfloat16
#include "softmax.cuh"
#include "include/log_softmax.cuh"

#define LOG_SOFTMAX_TILE(NAME, T, THREADS, PER)                                                        \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(const T* __restrict__ x, T* __restrict__ z,  \
                                                               int n_rows, int n_cols) {               \
        __shared__ float scratch[32];                                                                  \
        const size_t at = (size_t)blockIdx.x * n_cols;                                                 \
        sh::log_softmax_tile_row<T, THREADS, PER>(x + at, z + at, n_cols, scratch);                   \
    }

LOG_SOFTMAX_TILE(log_softmax_onepass_c4096, float, 512, 8)
LOG_SOFTMAX_TILE(log_softmax_onepass_f16_c4096, sh::half_t, 512, 8)
LOG_SOFTMAX_TILE(log_softmax_onepass_bf16_c4096, sh::bf16_t, 512, 8)
LOG_SOFTMAX_TILE(log_softmax_onepass_c16384, float, 1024, 16)
LOG_SOFTMAX_TILE(log_softmax_onepass_f16_c16384, sh::half_t, 1024, 16)
LOG_SOFTMAX_TILE(log_softmax_onepass_bf16_c16384, sh::bf16_t, 1024, 16)
