// Safe softmax in two passes over the input, the sum fused into the exponent pass
// (seed 000's CPU flow on the GPU): pass 1 finds the max; pass 2 writes
// e = exp(x - max) to the output while summing it; pass 3 scales the output, in
// place, by 1 / sum. Each thread rescales only the elements it wrote itself.
//
// @variant name=safe_block_store_exp kernel=safe_block_store_exp algorithm=safe geometry=block-per-row threads=256
#include "softmax.cuh"

extern "C" __global__ void safe_block_store_exp(const float* __restrict__ x, float* __restrict__ y,
                                                int n_rows, int n_cols) {
    __shared__ float scratch[32];
    const float* xr = sh::row_of(x, blockIdx.x, n_cols);
    float* yr = sh::row_of(y, blockIdx.x, n_cols);
    float m = sh::Max::identity();
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) m = fmaxf(m, xr[i]);
    m = sh::block_reduce(sh::Max(), m, scratch);
    float d = 0.0f;
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) {
        const float e = expf(xr[i] - m);
        yr[i] = e;
        d += e;
    }
    d = sh::block_reduce(sh::Sum(), d, scratch);
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) yr[i] = yr[i] / d;
}
