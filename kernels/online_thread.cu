// Online softmax, one thread per row: one pass for the running (max, sum), one to write.
//
// @variant name=online_thread kernel=online_thread algorithm=online geometry=thread-per-row threads=128
#include "softmax.cuh"

extern "C" __global__ void online_thread(const float* __restrict__ x, float* __restrict__ y,
                                         int n_rows, int n_cols) {
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= (size_t)n_rows) return;
    const float* xr = sh::row_of(x, row, n_cols);
    float* yr = sh::row_of(y, row, n_cols);
    sh::MaxSum s = sh::empty_state();
    for (int i = 0; i < n_cols; ++i) s = sh::push(s, xr[i]);
    for (int i = 0; i < n_cols; ++i) yr[i] = sh::normalise(xr[i], s);
}
