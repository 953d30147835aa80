// Safe softmax, one block per row, reducing through a shared-memory tree: every
// thread writes its partial, then log2(blockDim) halving steps, each followed by
// the barrier that the next step's reads need. blockDim must be a power of two.
//
// @variant name=safe_block_smem_tree kernel=safe_block_smem_tree algorithm=safe geometry=block-per-row threads=256
#include "softmax.cuh"

template <class Op>
__device__ float tree_reduce(Op op, float v, float* buf) {
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) buf[threadIdx.x] = op(buf[threadIdx.x], buf[threadIdx.x + stride]);
        __syncthreads();
    }
    const float result = buf[0];
    __syncthreads();  // buf is reused by the next reduction
    return result;
}

extern "C" __global__ void safe_block_smem_tree(const float* __restrict__ x, float* __restrict__ y,
                                                int n_rows, int n_cols) {
    __shared__ float buf[1024];
    const float* xr = sh::row_of(x, blockIdx.x, n_cols);
    float* yr = sh::row_of(y, blockIdx.x, n_cols);
    float m = sh::Max::identity();
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) m = fmaxf(m, xr[i]);
    m = tree_reduce(sh::Max(), m, buf);
    float d = 0.0f;
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) d += expf(xr[i] - m);
    d = tree_reduce(sh::Sum(), d, buf);
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) yr[i] = expf(xr[i] - m) / d;
}
