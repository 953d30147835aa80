// Safe softmax, one warp per row: max and sum reduced with warp shuffles alone.
//
// @variant name=safe_warp kernel=safe_warp algorithm=safe geometry=warp-per-row threads=128
#include "softmax.cuh"

extern "C" __global__ void safe_warp(const float* __restrict__ x, float* __restrict__ y,
                                     int n_rows, int n_cols) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;  // whole warps leave together
    const int lane = threadIdx.x & 31;
    const float* xr = sh::row_of(x, row, n_cols);
    float* yr = sh::row_of(y, row, n_cols);
    float m = sh::Max::identity();
    for (int i = lane; i < n_cols; i += 32) m = fmaxf(m, xr[i]);
    m = sh::warp_reduce(sh::Max(), m);
    float d = 0.0f;
    for (int i = lane; i < n_cols; i += 32) d += expf(xr[i] - m);
    d = sh::warp_reduce(sh::Sum(), d);
    for (int i = lane; i < n_cols; i += 32) yr[i] = expf(xr[i] - m) / d;
}
