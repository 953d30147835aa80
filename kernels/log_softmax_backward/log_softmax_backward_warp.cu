// log_softmax backward, one warp a row: s = sum(dy) over the warp, then dx = dy - exp(z) * s
// (z and dy read twice; the second time mostly from L1).
//
// @variant name=log_softmax_backward_warp op=log_softmax_backward kernel=log_softmax_backward_warp_f32 algorithm=safe geometry=warp-per-row threads=128
// @variant name=log_softmax_backward_warp_f16 op=log_softmax_backward kernel=log_softmax_backward_warp_f16 algorithm=safe geometry=warp-per-row threads=128 dtypes=float16
// @variant name=log_softmax_backward_warp_bf16 op=log_softmax_backward kernel=log_softmax_backward_warp_bf16 algorithm=safe geometry=warp-per-row threads=128 dtypes=bfloat16
#include "softmax.cuh"
#include "../include/backward.cuh"

template <class T>
__device__ __forceinline__ void log_backward_warp(const T* z, const T* dy, T* dx, int n_rows, int n_cols) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;  // whole warps leave together
    const int lane = threadIdx.x & 31;
    const size_t at = row * n_cols;
    const float s = sh::warp_reduce(sh::Sum(), sh::partial_sum(dy + at, n_cols, lane, 32));
    sh::log_scale_row(z + at, dy + at, dx + at, n_cols, s, lane, 32);
}

extern "C" __global__ void log_softmax_backward_warp_f32(const float* z, const float* dy, float* dx, int n_rows,
                                                         int n_cols) {
    log_backward_warp(z, dy, dx, n_rows, n_cols);
}
extern "C" __global__ void log_softmax_backward_warp_f16(const sh::half_t* z, const sh::half_t* dy, sh::half_t* dx,
                                                         int n_rows, int n_cols) {
    log_backward_warp(z, dy, dx, n_rows, n_cols);
}
extern "C" __global__ void log_softmax_backward_warp_bf16(const sh::bf16_t* z, const sh::bf16_t* dy,
                                                          sh::bf16_t* dx, int n_rows, int n_cols) {
    log_backward_warp(z, dy, dx, n_rows, n_cols);
}
