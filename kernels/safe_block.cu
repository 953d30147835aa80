// Safe softmax (three passes: max, sum, normalise), one block per row, with the
// two-level reduction: warp shuffles, then across warps through shared memory.
// Works for any block size that is a multiple of 32, up to 1024.
//
// @variant name=safe_block_128 kernel=safe_block algorithm=safe geometry=block-per-row threads=128
// @variant name=safe_block_256 kernel=safe_block algorithm=safe geometry=block-per-row threads=256
// @variant name=safe_block_1024 kernel=safe_block algorithm=safe geometry=block-per-row threads=1024
#include "softmax.cuh"

extern "C" __global__ void safe_block(const float* __restrict__ x, float* __restrict__ y,
                                      int n_rows, int n_cols) {
    __shared__ float scratch[32];
    const size_t row = blockIdx.x;
    const float* xr = x + row * n_cols;
    float* yr = y + row * n_cols;

    float m = sh::Max::identity();
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) m = fmaxf(m, xr[i]);
    m = sh::block_reduce(sh::Max(), m, scratch);

    float d = 0.0f;
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) d += expf(xr[i] - m);
    d = sh::block_reduce(sh::Sum(), d, scratch);

    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) yr[i] = expf(xr[i] - m) / d;
}
