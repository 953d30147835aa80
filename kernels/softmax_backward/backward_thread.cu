// Softmax backward, one thread a row: the dot product in one sequential chain, then the scale.
// The bottom rung of the ladder (uncoalesced: neighbouring threads read rows C apart).
//
// @variant name=backward_thread op=softmax_backward kernel=backward_thread algorithm=safe geometry=thread-per-row threads=128
#include "softmax.cuh"
#include "include/backward.cuh"

extern "C" __global__ void backward_thread(const float* __restrict__ y, const float* __restrict__ dy,
                                           float* __restrict__ dx, int n_rows, int n_cols) {
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= (size_t)n_rows) return;
    const size_t at = row * n_cols;
    const float s = sh::grad_partial<sh::SoftmaxGrad>(y + at, dy + at, n_cols, 0, 1);
    sh::grad_map<sh::SoftmaxGrad>(y + at, dy + at, dx + at, n_cols, s, 0, 1);
}
