// KNOWN BAD (seed 001's shared-memory tree as printed): the halving loop has no
// barrier between steps, so a thread reads buf[tid + stride] before the warp that
// owns it has written it: a race across warps that racecheck reports.
//
// @variant name=bad_smem_tree_racy kernel=bad_smem_tree_racy algorithm=safe geometry=block-per-row threads=1024 catches=matches_reference defect="shared-memory tree reduction without barriers inside its loop (a race)" sanitizer=racecheck
#include "softmax.cuh"

__device__ float racy_reduce_max(float v, float* buf) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + stride]);
    }
    __syncthreads();
    const float r = buf[0];
    __syncthreads();
    return r;
}

__device__ float racy_reduce_sum(float v, float* buf) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) buf[threadIdx.x] += buf[threadIdx.x + stride];
    }
    __syncthreads();
    const float r = buf[0];
    __syncthreads();
    return r;
}

extern "C" __global__ void bad_smem_tree_racy(const float* __restrict__ x, float* __restrict__ y,
                                              int n_rows, int n_cols) {
    __shared__ float buf[1024];
    const float* xr = sh::row_of(x, blockIdx.x, n_cols);
    float* yr = sh::row_of(y, blockIdx.x, n_cols);
    float m = sh::neg_inf();
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) m = fmaxf(m, xr[i]);
    m = racy_reduce_max(m, buf);
    float d = 0.0f;
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) d += expf(xr[i] - m);
    d = racy_reduce_sum(d, buf);
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) yr[i] = expf(xr[i] - m) / d;
}
