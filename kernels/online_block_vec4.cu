// Online softmax, one block per row, with 16-byte loads and stores (scalar head
// and tail for any length and alignment).
//
// @variant name=online_block_vec4 kernel=online_block_vec4 algorithm=online geometry=block-per-row threads=256
#include "softmax.cuh"

extern "C" __global__ void online_block_vec4(const float* __restrict__ x, float* __restrict__ y,
                                             int n_rows, int n_cols) {
    __shared__ sh::MaxSum scratch[32];
    const float* xr = sh::row_of(x, blockIdx.x, n_cols);
    float* yr = sh::row_of(y, blockIdx.x, n_cols);
    sh::MaxSum s = sh::empty_state();
    sh::visit_row(xr, n_cols, threadIdx.x, blockDim.x, [&](float v) { s = sh::push(s, v); });
    s = sh::block_reduce(sh::Merge(), s, scratch);
    const float inv = 1.0f / s.d;
    sh::map_row(xr, yr, n_cols, threadIdx.x, blockDim.x, [&](float v) { return expf(v - s.m) * inv; });
}
