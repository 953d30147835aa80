// log_softmax backward, one block a row, for rows of any length: s = sum(dy) over the block,
// then dx = dy - exp(z) * s.
//
// @variant name=log_softmax_backward_block_1024 op=log_softmax_backward kernel=log_softmax_backward_block_f32 algorithm=safe geometry=block-per-row threads=1024
// @variant name=log_softmax_backward_block_f16 op=log_softmax_backward kernel=log_softmax_backward_block_f16 algorithm=safe geometry=block-per-row threads=1024 dtypes=float16
// @variant name=log_softmax_backward_block_bf16 op=log_softmax_backward kernel=log_softmax_backward_block_bf16 algorithm=safe geometry=block-per-row threads=1024 dtypes=bfloat16
#include "softmax.cuh"
#include "../include/backward.cuh"

template <class T>
__device__ __forceinline__ void log_backward_block(const T* z, const T* dy, T* dx, int n_cols) {
    __shared__ float scratch[32];
    const size_t at = (size_t)blockIdx.x * n_cols;
    sh::log_backward_block_row(z + at, dy + at, dx + at, n_cols, scratch);
}

extern "C" __global__ void log_softmax_backward_block_f32(const float* z, const float* dy, float* dx, int n_rows,
                                                          int n_cols) {
    log_backward_block(z, dy, dx, n_cols);
}
extern "C" __global__ void log_softmax_backward_block_f16(const sh::half_t* z, const sh::half_t* dy,
                                                          sh::half_t* dx, int n_rows, int n_cols) {
    log_backward_block(z, dy, dx, n_cols);
}
extern "C" __global__ void log_softmax_backward_block_bf16(const sh::bf16_t* z, const sh::bf16_t* dy,
                                                           sh::bf16_t* dx, int n_rows, int n_cols) {
    log_backward_block(z, dy, dx, n_cols);
}
