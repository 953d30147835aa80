// Online softmax, one block per row, unrolled: each thread loads UNROLL elements
// (a block-stride apart) with streaming loads (__ldcs) before using any, masks the
// out-of-row ones to -inf instead of clamping their index, and writes with
// streaming stores (__stcs).
//
// @variant name=online_block_unroll kernel=online_block_unroll algorithm=online geometry=block-per-row threads=256
#include "softmax.cuh"

constexpr int UNROLL = 8;

extern "C" __global__ void online_block_unroll(const float* __restrict__ x, float* __restrict__ y,
                                               int n_rows, int n_cols) {
    __shared__ sh::MaxSum scratch[32];
    const float* xr = sh::row_of(x, blockIdx.x, n_cols);
    float* yr = sh::row_of(y, blockIdx.x, n_cols);
    sh::MaxSum s = sh::empty_state();
    for (int base = threadIdx.x; base < n_cols; base += blockDim.x * UNROLL) {
        float v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const int i = base + u * blockDim.x;
            v[u] = i < n_cols ? __ldcs(xr + i) : sh::neg_inf();
        }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) s = sh::push(s, v[u]);
    }
    s = sh::block_reduce(sh::Merge(), s, scratch);
    for (int base = threadIdx.x; base < n_cols; base += blockDim.x * UNROLL) {
        float v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const int i = base + u * blockDim.x;
            v[u] = i < n_cols ? __ldcs(xr + i) : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const int i = base + u * blockDim.x;
            if (i < n_cols) __stcs(yr + i, sh::normalise(v[u], s));
        }
    }
}
