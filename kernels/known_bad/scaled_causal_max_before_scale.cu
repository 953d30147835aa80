// KNOWN BAD: the fused causal forward as exp(scale * (x - max x)): right for a positive scale,
// but a negative one makes the exponent positive, and a wide row overflows to inf / inf.
//
// @variant name=bad_scaled_causal_max_before_scale op=scaled_softmax_causal kernel=bad_scaled_causal_max_before_scale algorithm=safe geometry=warp-per-row threads=128 catches=nonfinite_contract defect="maximum of the unscaled row: wrong for a negative scale"
#include "softmax.cuh"
#include "include/scaled.cuh"

extern "C" __global__ void bad_scaled_causal_max_before_scale(const float* x, float* y, int n_rows, int n_cols,
                                                              float scale) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const int lane = threadIdx.x & 31;
    const size_t at = row * n_cols;
    const int n = min(n_cols, static_cast<int>(row % n_cols) + 1);  // the kept columns
    float m = sh::neg_inf();
    for (int i = lane; i < n; i += 32) m = fmaxf(m, x[at + i]);
    m = sh::warp_reduce(sh::Max(), m);
    float d = 0.0f;
    for (int i = lane; i < n; i += 32) d += expf(scale * (x[at + i] - m));
    d = sh::warp_reduce(sh::Sum(), d);
    for (int i = lane; i < n_cols; i += 32) y[at + i] = i < n ? expf(scale * (x[at + i] - m)) / d : 0.0f;
}
