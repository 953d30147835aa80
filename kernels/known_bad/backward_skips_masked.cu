// KNOWN BAD: a softmax backward that skips the positions where y is 0 ("their gradient is 0
// anyway") and never writes them: dx keeps whatever the buffer held there.
//
// @variant name=bad_backward_skips_masked op=softmax_backward kernel=bad_backward_skips_masked algorithm=safe geometry=block-per-row threads=256 catches=all_written defect="dx not written where y is 0"
#include "softmax.cuh"
#include "include/backward.cuh"

extern "C" __global__ void bad_backward_skips_masked(const float* __restrict__ y, const float* __restrict__ dy,
                                                     float* __restrict__ dx, int n_rows, int n_cols) {
    __shared__ float scratch[32];
    const size_t at = (size_t)blockIdx.x * n_cols;
    const float s = sh::block_reduce(sh::Sum(), sh::grad_partial<sh::SoftmaxGrad>(y + at, dy + at, n_cols, threadIdx.x, blockDim.x),
                                     scratch);
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) {
        const float v = y[at + i];
        if (v != 0.0f) dx[at + i] = v * (dy[at + i] - s);
    }
}
