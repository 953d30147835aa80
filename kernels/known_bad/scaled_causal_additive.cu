// KNOWN BAD: the fused causal forward adding the causal mask as 0 / -inf: it reads the columns
// past the row's index, and a NaN there poisons the row.
//
// @variant name=bad_scaled_causal_additive op=scaled_softmax_causal kernel=bad_scaled_causal_additive algorithm=safe geometry=warp-per-row threads=128 catches=ignores_masked defect="causal mask added, future columns read"
#include "softmax.cuh"
#include "include/scaled.cuh"

struct AdditiveCausal {
    const float* x;
    int last;
    float scale;
    __device__ float operator()(int i) const { return __fmul_rn(scale, x[i]) + (i > last ? sh::neg_inf() : 0.0f); }
};

extern "C" __global__ void bad_scaled_causal_additive(const float* x, float* y, int n_rows, int n_cols, float scale) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const size_t at = row * n_cols;
    sh::scaled_row(AdditiveCausal{x + at, static_cast<int>(row % n_cols), scale}, y + at, n_cols, threadIdx.x & 31,
                   32, sh::WarpReduce());
}
