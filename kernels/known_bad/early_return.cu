// KNOWN BAD: threads past the row length return before the block's barriers and
// warp shuffles (`if (tid >= C) return;`), so short rows reduce over lanes that
// have left: the shuffles read undefined values and the row's max and sum are wrong.
//
// @variant name=bad_early_return kernel=bad_early_return algorithm=safe geometry=block-per-row threads=256 catches=matches_reference defect="returns early (tid >= C) before its shuffles and barriers"
#include "softmax.cuh"

extern "C" __global__ void bad_early_return(const float* __restrict__ x, float* __restrict__ y,
                                            int n_rows, int n_cols) {
    __shared__ float partial[32];
    if ((int)threadIdx.x >= n_cols) return;
    const float* xr = sh::row_of(x, blockIdx.x, n_cols);
    float* yr = sh::row_of(y, blockIdx.x, n_cols);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float m = sh::neg_inf();
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) m = fmaxf(m, xr[i]);
    for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if (lane == 0) partial[warp] = m;
    __syncthreads();
    m = partial[0];
    for (int w = 1; w < (int)blockDim.x / 32; ++w) m = fmaxf(m, partial[w]);
    __syncthreads();
    float d = 0.0f;
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) d += expf(xr[i] - m);
    for (int o = 16; o > 0; o /= 2) d += __shfl_xor_sync(0xffffffffu, d, o);
    if (lane == 0) partial[warp] = d;
    __syncthreads();
    d = 0.0f;
    for (int w = 0; w < (int)blockDim.x / 32; ++w) d += partial[w];
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) yr[i] = expf(xr[i] - m) / d;
}
