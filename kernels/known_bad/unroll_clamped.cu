// KNOWN BAD (seed 001's V7 as printed): the unrolled loads clamp their index with
// min(C - 1, i) instead of masking, so the last element is folded in again for
// every out-of-row slot and the sum comes out too large.
//
// @variant name=bad_unroll_clamped kernel=bad_unroll_clamped algorithm=online geometry=block-per-row threads=256 catches=matches_reference defect="clamps indices with min(C - 1, i): the last element is counted again"
#include "softmax.cuh"

constexpr int UNROLL = 8;

extern "C" __global__ void bad_unroll_clamped(const float* __restrict__ x, float* __restrict__ y,
                                              int n_rows, int n_cols) {
    __shared__ sh::MaxSum scratch[32];
    const float* xr = sh::row_of(x, blockIdx.x, n_cols);
    float* yr = sh::row_of(y, blockIdx.x, n_cols);
    sh::MaxSum s = sh::empty_state();
    for (int base = threadIdx.x; base < n_cols; base += blockDim.x * UNROLL) {
        float v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = __ldcs(xr + min(n_cols - 1, base + u * (int)blockDim.x));
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) s = sh::push(s, v[u]);
    }
    s = sh::block_reduce(sh::Merge(), s, scratch);
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) yr[i] = sh::normalise(xr[i], s);
}
