// log_softmax, one warp a row: the maximum, then the sum of exp(x - m), each over the warp's
// butterfly; z = (x - m) - log d.
//
// @variant name=log_softmax_warp op=log_softmax kernel=log_softmax_warp_f32 algorithm=safe geometry=warp-per-row threads=128
// @variant name=log_softmax_warp_f16 op=log_softmax kernel=log_softmax_warp_f16 algorithm=safe geometry=warp-per-row threads=128 dtypes=float16
// @variant name=log_softmax_warp_bf16 op=log_softmax kernel=log_softmax_warp_bf16 algorithm=safe geometry=warp-per-row threads=128 dtypes=bfloat16
#include "softmax.cuh"
#include "include/log_softmax.cuh"

template <class T>
__device__ __forceinline__ void log_softmax_warp(const T* x, T* z, int n_rows, int n_cols) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;  // whole warps leave together
    const int lane = threadIdx.x & 31;
    const T* xr = x + row * n_cols;
    const float m = sh::warp_reduce(sh::Max(), sh::partial_max(xr, n_cols, lane, 32));
    const float d = sh::warp_reduce(sh::Sum(), sh::partial_exp_sum(xr, n_cols, m, lane, 32));
    sh::write_log_row(xr, z + row * n_cols, n_cols, m, logf(d), lane, 32);
}

extern "C" __global__ void log_softmax_warp_f32(const float* x, float* z, int n_rows, int n_cols) {
    log_softmax_warp(x, z, n_rows, n_cols);
}
extern "C" __global__ void log_softmax_warp_f16(const sh::half_t* x, sh::half_t* z, int n_rows, int n_cols) {
    log_softmax_warp(x, z, n_rows, n_cols);
}
extern "C" __global__ void log_softmax_warp_bf16(const sh::bf16_t* x, sh::bf16_t* z, int n_rows, int n_cols) {
    log_softmax_warp(x, z, n_rows, n_cols);
}
