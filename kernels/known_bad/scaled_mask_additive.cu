// KNOWN BAD: the fused masked forward adding the mask as 0 / -inf to scale * x: it reads every
// masked element, and a NaN there poisons the row (the masked elements' values must not matter).
//
// @variant name=bad_scaled_mask_additive op=scaled_softmax_mask kernel=bad_scaled_mask_additive algorithm=safe geometry=warp-per-row threads=128 catches=ignores_masked defect="mask added, masked elements read"
#include "softmax.cuh"
#include "include/scaled.cuh"

struct AdditiveMask {
    const float* x;
    const bool* mask;
    float scale;
    __device__ float operator()(int i) const { return __fmul_rn(scale, x[i]) + (mask[i] ? sh::neg_inf() : 0.0f); }
};

extern "C" __global__ void bad_scaled_mask_additive(const float* x, const bool* mask, float* y, int n_rows, int n_cols,
                                                    float scale) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const size_t at = row * n_cols;
    sh::scaled_row(AdditiveMask{x + at, mask + at, scale}, y + at, n_cols, threadIdx.x & 31, 32, sh::WarpReduce());
}
