// log_softmax, one thread a row: the maximum, the sum of exp(x - m) in one sequential chain,
// then z = (x - m) - log d. The bottom rung of the ladder (uncoalesced: neighbouring threads read
// rows C apart).
//
// @variant name=log_softmax_thread op=log_softmax kernel=log_softmax_thread algorithm=safe geometry=thread-per-row threads=128
#include "softmax.cuh"
#include "include/log_softmax.cuh"

extern "C" __global__ void log_softmax_thread(const float* __restrict__ x, float* __restrict__ z, int n_rows,
                                              int n_cols) {
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= (size_t)n_rows) return;
    const float* xr = x + row * n_cols;
    const float m = sh::partial_max(xr, n_cols, 0, 1);
    const float d = sh::partial_exp_sum(xr, n_cols, m, 0, 1);
    sh::write_log_row(xr, z + row * n_cols, n_cols, m, logf(d), 0, 1);
}
