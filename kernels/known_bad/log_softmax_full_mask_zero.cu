// KNOWN BAD: a log_softmax that writes 0 for a fully masked row (a "padding row" shortcut)
// while declaring torch's contract, which gives NaN there.
//
// @variant name=bad_log_softmax_full_mask_zero op=log_softmax kernel=bad_log_softmax_full_mask_zero algorithm=safe geometry=warp-per-row threads=128 catches=nonfinite_contract defect="a fully masked row written as 0, not NaN"
#include "softmax.cuh"
#include "include/log_softmax.cuh"

extern "C" __global__ void bad_log_softmax_full_mask_zero(const float* __restrict__ x, float* __restrict__ z,
                                                          int n_rows, int n_cols) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const int lane = threadIdx.x & 31;
    const float* xr = x + row * n_cols;
    const float m = sh::warp_reduce(sh::Max(), sh::partial_max(xr, n_cols, lane, 32));
    if (m == sh::neg_inf()) {
        for (int i = lane; i < n_cols; i += 32) z[row * n_cols + i] = 0.0f;
        return;
    }
    const float d = sh::warp_reduce(sh::Sum(), sh::partial_exp_sum(xr, n_cols, m, lane, 32));
    sh::write_log_row(xr, z + row * n_cols, n_cols, m, logf(d), lane, 32);
}
