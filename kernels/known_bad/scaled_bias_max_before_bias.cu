// KNOWN BAD: the fused forward with the maximum taken over scale * x before the bias is added:
// a large positive bias overflows exp(t - m) to inf, and the row to NaN.
//
// @variant name=bad_scaled_bias_max_before_bias op=scaled_softmax_bias kernel=bad_scaled_bias_max_before_bias algorithm=safe geometry=warp-per-row threads=128 catches=nonfinite_contract defect="maximum before the bias: overflow"
#include "softmax.cuh"
#include "include/scaled.cuh"

struct ScaledOnly {  // scale * x, no bias
    const float* x;
    float scale;
    __device__ float operator()(int i) const { return __fmul_rn(scale, x[i]); }
};

extern "C" __global__ void bad_scaled_bias_max_before_bias(const float* x, const float* bias, float* y, int n_rows,
                                                           int n_cols, float scale) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const int lane = threadIdx.x & 31;
    const size_t at = row * n_cols;
    const sh::BiasLogits<float> t{x + at, bias + at, scale};
    const float m = sh::warp_reduce(sh::Max(), sh::logits_max(ScaledOnly{x + at, scale}, n_cols, lane, 32));
    const float d = sh::warp_reduce(sh::Sum(), sh::logits_exp_sum(t, n_cols, m, lane, 32));
    sh::write_probs(t, y + at, n_cols, m, d, lane, 32);
}
