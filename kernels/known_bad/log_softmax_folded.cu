// KNOWN BAD: log_softmax as x - (m + log d): the rounding of m + log d costs u |m|, which on rows
// around 2^20 is far past the error of (x - m) - log d.
//
// @variant name=bad_log_softmax_folded op=log_softmax kernel=bad_log_softmax_folded algorithm=safe geometry=warp-per-row threads=128 catches=matches_reference defect="x - (m + log d): an error of u |m|"
#include "softmax.cuh"
#include "include/log_softmax.cuh"

extern "C" __global__ void bad_log_softmax_folded(const float* __restrict__ x, float* __restrict__ z, int n_rows,
                                                  int n_cols) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const int lane = threadIdx.x & 31;
    const float* xr = x + row * n_cols;
    const float m = sh::warp_reduce(sh::Max(), sh::partial_max(xr, n_cols, lane, 32));
    const float lse = m + logf(sh::warp_reduce(sh::Sum(), sh::partial_exp_sum(xr, n_cols, m, lane, 32)));
    for (int i = lane; i < n_cols; i += 32) z[row * n_cols + i] = xr[i] - lse;
}
