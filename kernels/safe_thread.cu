// Safe softmax, one thread per row: the naive baseline (three sequential passes
// over the row, uncoalesced across the warp).
//
// @variant name=safe_thread kernel=safe_thread algorithm=safe geometry=thread-per-row threads=128
#include "softmax.cuh"

extern "C" __global__ void safe_thread(const float* __restrict__ x, float* __restrict__ y,
                                       int n_rows, int n_cols) {
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= (size_t)n_rows) return;
    const float* xr = sh::row_of(x, row, n_cols);
    float* yr = sh::row_of(y, row, n_cols);
    float m = sh::neg_inf();
    for (int i = 0; i < n_cols; ++i) m = fmaxf(m, xr[i]);
    float d = 0.0f;
    for (int i = 0; i < n_cols; ++i) d += expf(xr[i] - m);
    for (int i = 0; i < n_cols; ++i) yr[i] = expf(xr[i] - m) / d;
}
