// KNOWN BAD: an off-by-one loop bound (i <= C) writes one element past each row:
// into the next row's first element, and past the end of the output for the last row.
//
// @variant name=bad_write_past_row kernel=bad_write_past_row algorithm=safe geometry=block-per-row threads=256 catches=no_write_outside defect="writes one element past its row (i <= C)"
#include "softmax.cuh"

extern "C" __global__ void bad_write_past_row(const float* __restrict__ x, float* __restrict__ y,
                                              int n_rows, int n_cols) {
    __shared__ float scratch[32];
    const float* xr = sh::row_of(x, blockIdx.x, n_cols);
    float* yr = sh::row_of(y, blockIdx.x, n_cols);
    float m = sh::neg_inf();
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) m = fmaxf(m, xr[i]);
    m = sh::block_reduce(sh::Max(), m, scratch);
    float d = 0.0f;
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) d += expf(xr[i] - m);
    d = sh::block_reduce(sh::Sum(), d, scratch);
    for (int i = threadIdx.x; i <= n_cols; i += blockDim.x) yr[i] = expf(xr[i] - m) / d;
}
