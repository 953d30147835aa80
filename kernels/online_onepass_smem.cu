// One-pass online softmax that caches the row in dynamic shared memory: the input
// is read from device memory once (16-byte loads where aligned), the (max, sum)
// state is folded while loading, and the output is computed from the cached copy.
// Rows up to 32768 elements (128 KiB of shared memory per block).
//
// @variant name=online_onepass_smem kernel=online_onepass_smem algorithm=online geometry=block-per-row threads=512 max_cols=32768 smem_per_col=4
#include "softmax.cuh"

extern "C" __global__ void online_onepass_smem(const float* __restrict__ x, float* __restrict__ y,
                                               int n_rows, int n_cols) {
    extern __shared__ float cache[];
    __shared__ sh::MaxSum scratch[32];
    const float* xr = sh::row_of(x, blockIdx.x, n_cols);
    float* yr = sh::row_of(y, blockIdx.x, n_cols);
    sh::MaxSum s = sh::empty_state();
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) {
        const float v = xr[i];
        cache[i] = v;
        s = sh::push(s, v);
    }
    s = sh::block_reduce(sh::Merge(), s, scratch);  // its barriers also publish the cache
    const float inv = 1.0f / s.d;
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) yr[i] = expf(cache[i] - s.m) * inv;
}
