// KNOWN BAD: a softmax backward that adds 1e-6 to the dot product "to keep it off zero": on
// long rows of O(1) gradients within the bound, but the backward is no longer linear in dy.
//
// @variant name=bad_backward_dot_epsilon op=softmax_backward kernel=bad_backward_dot_epsilon algorithm=safe geometry=block-per-row threads=256 catches=linear_in_dy defect="an epsilon added to sum(dy * y)"
#include "softmax.cuh"
#include "include/backward.cuh"

extern "C" __global__ void bad_backward_dot_epsilon(const float* __restrict__ y, const float* __restrict__ dy,
                                                    float* __restrict__ dx, int n_rows, int n_cols) {
    __shared__ float scratch[32];
    const size_t at = (size_t)blockIdx.x * n_cols;
    const float s = sh::block_reduce(sh::Sum(), sh::grad_partial<sh::SoftmaxGrad>(y + at, dy + at, n_cols, threadIdx.x, blockDim.x),
                                     scratch);
    sh::grad_map<sh::SoftmaxGrad>(y + at, dy + at, dx + at, n_cols, s + 1e-6f, threadIdx.x, blockDim.x);
}
