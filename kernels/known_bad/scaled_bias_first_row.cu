// KNOWN BAD: the fused forward reading row 0's bias for every row (a bias taken for one row
// broadcast over the batch, where it has one row a row).
//
// @variant name=bad_scaled_bias_first_row op=scaled_softmax_bias kernel=bad_scaled_bias_first_row algorithm=safe geometry=warp-per-row threads=128 catches=matches_reference defect="row 0's bias for every row"
#include "softmax.cuh"
#include "include/scaled.cuh"

extern "C" __global__ void bad_scaled_bias_first_row(const float* x, const float* bias, float* y, int n_rows,
                                                     int n_cols, float scale) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const size_t at = row * n_cols;
    sh::scaled_row(sh::BiasLogits<float>{x + at, bias, scale}, y + at, n_cols, threadIdx.x & 31, 32,
                   sh::WarpReduce());
}
