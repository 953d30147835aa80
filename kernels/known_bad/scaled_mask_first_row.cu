// KNOWN BAD: the fused masked forward reading row 0's mask for every row.
//
// @variant name=bad_scaled_mask_first_row op=scaled_softmax_mask kernel=bad_scaled_mask_first_row algorithm=safe geometry=warp-per-row threads=128 catches=matches_reference defect="row 0's mask for every row"
#include "softmax.cuh"
#include "include/scaled.cuh"

extern "C" __global__ void bad_scaled_mask_first_row(const float* x, const bool* mask, float* y, int n_rows,
                                                     int n_cols, float scale) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const size_t at = row * n_cols;
    sh::scaled_row(sh::MaskLogits<float>{x + at, mask, scale}, y + at, n_cols, threadIdx.x & 31, 32,
                   sh::WarpReduce());
}
