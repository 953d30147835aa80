// KNOWN BAD: the fused causal forward keeping one column too many: row r keeps 0 .. r % C + 1.
//
// @variant name=bad_scaled_causal_off_by_one op=scaled_softmax_causal kernel=bad_scaled_causal_off_by_one algorithm=safe geometry=warp-per-row threads=128 catches=matches_reference defect="causal mask off by one"
#include "softmax.cuh"
#include "include/scaled.cuh"

extern "C" __global__ void bad_scaled_causal_off_by_one(const float* x, float* y, int n_rows, int n_cols, float scale) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const size_t at = row * n_cols;
    const int last = static_cast<int>(row % n_cols) + 1;  // the defect: + 1
    sh::scaled_row(sh::CausalLogits<float>{x + at, last, scale}, y + at, n_cols, threadIdx.x & 31, 32,
                   sh::WarpReduce());
}
