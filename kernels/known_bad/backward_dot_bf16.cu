// KNOWN BAD: a softmax backward whose dot product reads y rounded to bfloat16 (a stale,
// low-precision copy of the forward's output kept "to save bandwidth"): s is off by up to 2^-9
// relative, and so is every dx.
//
// @variant name=bad_backward_dot_bf16 op=softmax_backward kernel=bad_backward_dot_bf16 algorithm=safe geometry=warp-per-row threads=128 catches=matches_reference defect="the dot product over y rounded to bfloat16"
#include "softmax.cuh"

extern "C" __global__ void bad_backward_dot_bf16(const float* __restrict__ y, const float* __restrict__ dy,
                                                 float* __restrict__ dx, int n_rows, int n_cols) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const int lane = threadIdx.x & 31;
    const size_t at = row * n_cols;
    float s = 0.0f;
    for (int i = lane; i < n_cols; i += 32) s = fmaf(sh::to_float(sh::from_float<sh::bf16_t>(y[at + i])), dy[at + i], s);
    s = sh::warp_reduce(sh::Sum(), s);
    for (int i = lane; i < n_cols; i += 32) dx[at + i] = y[at + i] * (dy[at + i] - s);
}
