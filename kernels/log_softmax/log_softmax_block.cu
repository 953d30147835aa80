// log_softmax, one block a row, for rows of any length: the maximum, the sum of exp(x - m)
// (each reduced over the block), then z = (x - m) - log d: x read three times.
//
// @variant name=log_softmax_block_1024 op=log_softmax kernel=log_softmax_block_f32 algorithm=safe geometry=block-per-row threads=1024
// @variant name=log_softmax_block_f16 op=log_softmax kernel=log_softmax_block_f16 algorithm=safe geometry=block-per-row threads=1024 dtypes=float16
// @variant name=log_softmax_block_bf16 op=log_softmax kernel=log_softmax_block_bf16 algorithm=safe geometry=block-per-row threads=1024 dtypes=bfloat16
#include "softmax.cuh"
#include "include/log_softmax.cuh"

template <class T>
__device__ __forceinline__ void log_softmax_block(const T* x, T* z, int n_cols) {
    __shared__ float scratch[32];
    const size_t at = (size_t)blockIdx.x * n_cols;
    sh::log_softmax_block_row(x + at, z + at, n_cols, scratch);
}

extern "C" __global__ void log_softmax_block_f32(const float* x, float* z, int n_rows, int n_cols) {
    log_softmax_block(x, z, n_cols);
}
extern "C" __global__ void log_softmax_block_f16(const sh::half_t* x, sh::half_t* z, int n_rows, int n_cols) {
    log_softmax_block(x, z, n_cols);
}
extern "C" __global__ void log_softmax_block_bf16(const sh::bf16_t* x, sh::bf16_t* z, int n_rows, int n_cols) {
    log_softmax_block(x, z, n_cols);
}
