// KNOWN BAD: a log_softmax backward whose sum of dy stops one element short of the row (a loop
// bound of C - 1): every dx is off by exp(z_i) dy_last.
//
// @variant name=bad_log_softmax_backward_sum_skips_last op=log_softmax_backward kernel=bad_log_softmax_backward_sum_skips_last algorithm=safe geometry=block-per-row threads=256 catches=sums_to_zero defect="sum(dy) over C - 1 elements"
#include "softmax.cuh"
#include "include/backward.cuh"

extern "C" __global__ void bad_log_softmax_backward_sum_skips_last(const float* __restrict__ z,
                                                                   const float* __restrict__ dy,
                                                                   float* __restrict__ dx, int n_rows, int n_cols) {
    __shared__ float scratch[32];
    const size_t at = (size_t)blockIdx.x * n_cols;
    const int counted = n_cols > 1 ? n_cols - 1 : n_cols;
    const float part = sh::grad_partial<sh::LogSoftmaxGrad>(z + at, dy + at, counted, threadIdx.x, blockDim.x);
    const float s = sh::block_reduce(sh::Sum(), part, scratch);
    sh::grad_map<sh::LogSoftmaxGrad>(z + at, dy + at, dx + at, n_cols, s, threadIdx.x, blockDim.x);
}
