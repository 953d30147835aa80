// KNOWN BAD: the fused forward with the maximum taken over scale * x before the bias is added:
// a large positive bias overflows exp(t - m) to inf, and the row to NaN.
//
// @variant name=bad_scaled_bias_max_before_bias op=scaled_softmax_bias kernel=bad_scaled_bias_max_before_bias algorithm=safe geometry=warp-per-row threads=128 catches=nonfinite_contract defect="maximum before the bias: overflow"
#include "softmax.cuh"
#include "include/scaled.cuh"

extern "C" __global__ void bad_scaled_bias_max_before_bias(const float* x, const float* bias, float* y, int n_rows,
                                                           int n_cols, float scale) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const size_t at = row * n_cols;
    sh::scaled_row_max_of(sh::ScaledLogits<float>{x + at, scale}, sh::BiasLogits<float>{x + at, bias + at, scale},
                          y + at, n_cols, threadIdx.x & 31, 32, sh::WarpReduce());
}
