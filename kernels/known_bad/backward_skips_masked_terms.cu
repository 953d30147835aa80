// KNOWN BAD: a softmax backward that leaves the terms with y = 0 out of the dot product: a NaN
// or infinite gradient at a masked position no longer poisons the row, against torch's contract
// (0 * inf is NaN).
//
// @variant name=bad_backward_skips_masked_terms op=softmax_backward kernel=bad_backward_skips_masked_terms algorithm=safe geometry=warp-per-row threads=128 catches=nonfinite_contract defect="terms with y = 0 left out of sum(dy * y)"
#include "softmax.cuh"
#include "include/backward.cuh"

extern "C" __global__ void bad_backward_skips_masked_terms(const float* __restrict__ y, const float* __restrict__ dy,
                                                           float* __restrict__ dx, int n_rows, int n_cols) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const int lane = threadIdx.x & 31;
    const size_t at = row * n_cols;
    float s = 0.0f;
    for (int i = lane; i < n_cols; i += 32) {
        if (y[at + i] != 0.0f) s = fmaf(y[at + i], dy[at + i], s);
    }
    s = sh::warp_reduce(sh::Sum(), s);
    sh::grad_map<sh::SoftmaxGrad>(y + at, dy + at, dx + at, n_cols, s, lane, 32);
}
