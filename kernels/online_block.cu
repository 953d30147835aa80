// Online softmax, one block per row: per-thread (max, sum) states, merged across
// the warp with shuffles and across warps through shared memory.
//
// @variant name=online_block_256 kernel=online_block algorithm=online geometry=block-per-row threads=256
// @variant name=online_block_1024 kernel=online_block algorithm=online geometry=block-per-row threads=1024
#include "softmax.cuh"

extern "C" __global__ void online_block(const float* __restrict__ x, float* __restrict__ y,
                                        int n_rows, int n_cols) {
    __shared__ sh::MaxSum scratch[32];
    const float* xr = sh::row_of(x, blockIdx.x, n_cols);
    float* yr = sh::row_of(y, blockIdx.x, n_cols);
    sh::MaxSum s = sh::empty_state();
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) s = sh::push(s, xr[i]);
    s = sh::block_reduce(sh::Merge(), s, scratch);
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) yr[i] = sh::normalise(xr[i], s);
}
