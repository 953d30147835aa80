// KNOWN BAD: the fused forward with t = scale * x + bias rounded to bfloat16 before the softmax
// (a low-precision score buffer): off by up to 2^-9 relative in every exponent.
//
// @variant name=bad_scaled_bias_bf16 op=scaled_softmax_bias kernel=bad_scaled_bias_bf16 algorithm=safe geometry=warp-per-row threads=128 catches=matches_reference defect="t rounded to bf16"
#include "softmax.cuh"
#include "include/scaled.cuh"

struct Bf16Logits {
    sh::BiasLogits<float> t;
    __device__ float operator()(int i) const { return sh::to_float(sh::from_float<sh::bf16_t>(t(i))); }
};

extern "C" __global__ void bad_scaled_bias_bf16(const float* x, const float* bias, float* y, int n_rows, int n_cols,
                                                float scale) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const size_t at = row * n_cols;
    sh::scaled_row(Bf16Logits{{x + at, bias + at, scale}}, y + at, n_cols, threadIdx.x & 31, 32, sh::WarpReduce());
}
