// log_softmax, one warp a row, online: each lane folds its elements into a running (m, d) state
// (one pass over x for both), the warp merges the states; z = (x - m) - log d. The state's
// merge guards (-inf) - (-inf), so a fully masked row is NaN only through x - m.
//
// @variant name=log_softmax_online_warp op=log_softmax kernel=log_softmax_online_warp algorithm=online geometry=warp-per-row threads=128
#include "softmax.cuh"
#include "include/log_softmax.cuh"

extern "C" __global__ void log_softmax_online_warp(const float* __restrict__ x, float* __restrict__ z, int n_rows,
                                                   int n_cols) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const int lane = threadIdx.x & 31;
    const float* xr = x + row * n_cols;
    sh::MaxSum s = sh::empty_state();
    for (int i = lane; i < n_cols; i += 32) s = sh::push(s, xr[i]);
    s = sh::warp_reduce(sh::Merge(), s);
    sh::write_log_row(xr, z + row * n_cols, n_cols, s.m, logf(s.d), lane, 32);
}
