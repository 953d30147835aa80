// Softmax backward, one block a row held in registers: y and dy are read once, the dot product
// reduced over the block, and dx written from the registers. A kernel a row size (the tile is
// a compile-time THREADS x PER elements); longer rows go to backward_block.
//
// @variant name=backward_onepass_c1024 op=softmax_backward kernel=backward_onepass_c1024 algorithm=safe geometry=block-per-row threads=128 max_cols=1024
// @variant name=backward_onepass_c4096 op=softmax_backward kernel=backward_onepass_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096
// @variant name=backward_onepass_c16384 op=softmax_backward kernel=backward_onepass_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384
// @variant name=backward_onepass_f16_c4096 op=softmax_backward kernel=backward_onepass_f16_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 dtypes=float16
// @variant name=backward_onepass_f16_c16384 op=softmax_backward kernel=backward_onepass_f16_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 dtypes=float16
// @variant name=backward_onepass_bf16_c4096 op=softmax_backward kernel=backward_onepass_bf16_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 dtypes=bfloat16
// @variant name=backward_onepass_bf16_c16384 op=softmax_backward kernel=backward_onepass_bf16_c16384 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 dtypes=bfloat16
#include "softmax.cuh"
#include "../include/backward.cuh"

#define BACKWARD_TILE(NAME, T, THREADS, PER)                                                          \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(const T* __restrict__ y,                \
                                                               const T* __restrict__ dy,               \
                                                               T* __restrict__ dx, int n_rows, int n_cols) { \
        __shared__ float scratch[32];                                                                  \
        const size_t at = (size_t)blockIdx.x * n_cols;                                                 \
        sh::backward_tile_row<T, THREADS, PER>(y + at, dy + at, dx + at, n_cols, scratch);            \
    }

BACKWARD_TILE(backward_onepass_c1024, float, 128, 8)
BACKWARD_TILE(backward_onepass_c4096, float, 512, 8)
BACKWARD_TILE(backward_onepass_c16384, float, 1024, 16)
BACKWARD_TILE(backward_onepass_f16_c4096, sh::half_t, 512, 8)
BACKWARD_TILE(backward_onepass_f16_c16384, sh::half_t, 1024, 16)
BACKWARD_TILE(backward_onepass_bf16_c4096, sh::bf16_t, 512, 8)
BACKWARD_TILE(backward_onepass_bf16_c16384, sh::bf16_t, 1024, 16)
