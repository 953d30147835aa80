// Softmax backward, one block a row, for rows of any length: the block's dot product (warp
// shuffles, then the warps' partials through shared memory), then the scale.
//
// @variant name=backward_block_256 op=softmax_backward kernel=backward_block_f32 algorithm=safe geometry=block-per-row threads=256
// @variant name=backward_block_1024 op=softmax_backward kernel=backward_block_f32 algorithm=safe geometry=block-per-row threads=1024
// @variant name=backward_block_f16 op=softmax_backward kernel=backward_block_f16 algorithm=safe geometry=block-per-row threads=1024 dtypes=float16
// @variant name=backward_block_bf16 op=softmax_backward kernel=backward_block_bf16 algorithm=safe geometry=block-per-row threads=1024 dtypes=bfloat16
#include "softmax.cuh"
#include "../include/backward.cuh"

template <class T>
__device__ __forceinline__ void backward_block(const T* y, const T* dy, T* dx, int n_cols) {
    __shared__ float scratch[32];
    const size_t at = (size_t)blockIdx.x * n_cols;
    sh::backward_block_row(y + at, dy + at, dx + at, n_cols, scratch);
}

extern "C" __global__ void backward_block_f32(const float* y, const float* dy, float* dx, int n_rows, int n_cols) {
    backward_block(y, dy, dx, n_cols);
}
extern "C" __global__ void backward_block_f16(const sh::half_t* y, const sh::half_t* dy, sh::half_t* dx, int n_rows,
                                              int n_cols) {
    backward_block(y, dy, dx, n_cols);
}
extern "C" __global__ void backward_block_bf16(const sh::bf16_t* y, const sh::bf16_t* dy, sh::bf16_t* dx,
                                               int n_rows, int n_cols) {
    backward_block(y, dy, dx, n_cols);
}
