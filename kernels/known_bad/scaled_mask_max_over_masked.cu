// KNOWN BAD: the fused masked forward with the mask applied after the maximum: a masked element
// above every kept one makes every exponential 0, and the row 0 / 0.
//
// @variant name=bad_scaled_mask_max_over_masked op=scaled_softmax_mask kernel=bad_scaled_mask_max_over_masked algorithm=safe geometry=warp-per-row threads=128 catches=nonfinite_contract defect="mask applied after the maximum"
#include "softmax.cuh"
#include "include/scaled.cuh"

struct Unmasked {  // scale * x, masked elements included
    const float* x;
    float scale;
    __device__ float operator()(int i) const { return __fmul_rn(scale, x[i]); }
};

extern "C" __global__ void bad_scaled_mask_max_over_masked(const float* x, const bool* mask, float* y, int n_rows,
                                                           int n_cols, float scale) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const int lane = threadIdx.x & 31;
    const size_t at = row * n_cols;
    const sh::MaskLogits<float> t{x + at, mask + at, scale};
    const float m = sh::warp_reduce(sh::Max(), sh::logits_max(Unmasked{x + at, scale}, n_cols, lane, 32));
    const float d = sh::warp_reduce(sh::Sum(), sh::logits_exp_sum(t, n_cols, m, lane, 32));
    sh::write_probs(t, y + at, n_cols, m, d, lane, 32);
}
