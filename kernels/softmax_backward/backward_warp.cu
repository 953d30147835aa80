// Softmax backward, one warp a row: each lane's dot product over every 32nd element, the warp's
// butterfly, then the scale (y and dy read twice; the second time mostly from L1).
//
// @variant name=backward_warp op=softmax_backward kernel=backward_warp_f32 algorithm=safe geometry=warp-per-row threads=128
// @variant name=backward_warp_f16 op=softmax_backward kernel=backward_warp_f16 algorithm=safe geometry=warp-per-row threads=128 dtypes=float16
// @variant name=backward_warp_bf16 op=softmax_backward kernel=backward_warp_bf16 algorithm=safe geometry=warp-per-row threads=128 dtypes=bfloat16
#include "softmax.cuh"
#include "../include/backward.cuh"

template <class T>
__device__ __forceinline__ void backward_warp(const T* y, const T* dy, T* dx, int n_rows, int n_cols) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;  // whole warps leave together
    const int lane = threadIdx.x & 31;
    const size_t at = row * n_cols;
    const float s = sh::warp_reduce(sh::Sum(), sh::partial_dot(y + at, dy + at, n_cols, lane, 32));
    sh::scale_row(y + at, dy + at, dx + at, n_cols, s, lane, 32);
}

extern "C" __global__ void backward_warp_f32(const float* y, const float* dy, float* dx, int n_rows, int n_cols) {
    backward_warp(y, dy, dx, n_rows, n_cols);
}
extern "C" __global__ void backward_warp_f16(const sh::half_t* y, const sh::half_t* dy, sh::half_t* dx, int n_rows,
                                             int n_cols) {
    backward_warp(y, dy, dx, n_rows, n_cols);
}
extern "C" __global__ void backward_warp_bf16(const sh::bf16_t* y, const sh::bf16_t* dy, sh::bf16_t* dx, int n_rows,
                                              int n_cols) {
    backward_warp(y, dy, dx, n_rows, n_cols);
}
