// KNOWN BAD: the fused masked forward with the mask applied after the maximum: a masked element
// above every kept one makes every exponential 0, and the row 0 / 0.
//
// @variant name=bad_scaled_mask_max_over_masked op=scaled_softmax_mask kernel=bad_scaled_mask_max_over_masked algorithm=safe geometry=warp-per-row threads=128 catches=nonfinite_contract defect="mask applied after the maximum"
#include "softmax.cuh"
#include "include/scaled.cuh"

extern "C" __global__ void bad_scaled_mask_max_over_masked(const float* x, const bool* mask, float* y, int n_rows,
                                                           int n_cols, float scale) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const size_t at = row * n_cols;
    sh::scaled_row_max_of(sh::ScaledLogits<float>{x + at, scale}, sh::MaskLogits<float>{x + at, mask + at, scale},
                          y + at, n_cols, threadIdx.x & 31, 32, sh::WarpReduce());
}
