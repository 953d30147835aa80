// KNOWN BAD: a log_softmax backward that takes exp(z) in bfloat16 precision (an exponential
// "good enough for a gradient"): every dx near the probable classes is off by up to 2^-9 of p s.
//
// @variant name=bad_log_softmax_backward_exp_bf16 op=log_softmax_backward kernel=bad_log_softmax_backward_exp_bf16 algorithm=safe geometry=warp-per-row threads=128 catches=matches_reference defect="exp(z) rounded to bfloat16"
#include "softmax.cuh"
#include "include/backward.cuh"

extern "C" __global__ void bad_log_softmax_backward_exp_bf16(const float* __restrict__ z, const float* __restrict__ dy,
                                                             float* __restrict__ dx, int n_rows, int n_cols) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const int lane = threadIdx.x & 31;
    const size_t at = row * n_cols;
    const float s = sh::warp_reduce(sh::Sum(), sh::grad_partial<sh::LogSoftmaxGrad>(z + at, dy + at, n_cols, lane, 32));
    for (int i = lane; i < n_cols; i += 32) {
        const float p = sh::to_float(sh::from_float<sh::bf16_t>(expf(z[at + i])));
        dx[at + i] = dy[at + i] - p * s;
    }
}
