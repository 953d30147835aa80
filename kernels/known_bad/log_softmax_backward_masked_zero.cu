// KNOWN BAD: a log_softmax backward that writes 0 at the masked positions (z = -inf), as a
// softmax backward would, where the formula gives dy itself.
//
// @variant name=bad_log_softmax_backward_masked_zero op=log_softmax_backward kernel=bad_log_softmax_backward_masked_zero algorithm=safe geometry=block-per-row threads=256 catches=nonfinite_contract defect="0 where z is -inf, not dy"
#include "softmax.cuh"
#include "include/backward.cuh"

extern "C" __global__ void bad_log_softmax_backward_masked_zero(const float* __restrict__ z,
                                                                const float* __restrict__ dy, float* __restrict__ dx,
                                                                int n_rows, int n_cols) {
    __shared__ float scratch[32];
    const size_t at = (size_t)blockIdx.x * n_cols;
    const float part = sh::grad_partial<sh::LogSoftmaxGrad>(z + at, dy + at, n_cols, threadIdx.x, blockDim.x);
    const float s = sh::block_reduce(sh::Sum(), part, scratch);
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) {
        const float v = z[at + i];
        dx[at + i] = v == sh::neg_inf() ? 0.0f : dy[at + i] - expf(v) * s;
    }
}
