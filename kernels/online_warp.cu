// Online softmax (two passes), one warp per row: each lane folds its strided
// elements into a running (max, sum) state, the warp merges the 32 states with
// shuffles, and a second pass writes exp(x - max) / sum.
//
// @variant name=online_warp kernel=online_warp algorithm=online geometry=warp-per-row threads=128
#include "softmax.cuh"

extern "C" __global__ void online_warp(const float* __restrict__ x, float* __restrict__ y,
                                       int n_rows, int n_cols) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;  // whole warps leave together: no shuffle is split
    const int lane = threadIdx.x & 31;
    const float* xr = x + row * n_cols;
    float* yr = y + row * n_cols;

    sh::MaxSum s = sh::empty_state();
    for (int i = lane; i < n_cols; i += 32) s = sh::push(s, xr[i]);
    s = sh::warp_reduce(sh::Merge(), s);

    for (int i = lane; i < n_cols; i += 32) yr[i] = sh::normalise(xr[i], s);
}
