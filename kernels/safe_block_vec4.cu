// Safe softmax, one block per row, two-level reduction, with 16-byte loads and
// stores (scalar head up to the first 16-byte boundary, scalar tail), so any row
// length and any 4-byte aligned base pointer work.
//
// @variant name=safe_block_vec4_256 kernel=safe_block_vec4 algorithm=safe geometry=block-per-row threads=256
// @variant name=safe_block_vec4_1024 kernel=safe_block_vec4 algorithm=safe geometry=block-per-row threads=1024
#include "softmax.cuh"

extern "C" __global__ void safe_block_vec4(const float* __restrict__ x, float* __restrict__ y,
                                           int n_rows, int n_cols) {
    __shared__ float scratch[32];
    const float* xr = sh::row_of(x, blockIdx.x, n_cols);
    float* yr = sh::row_of(y, blockIdx.x, n_cols);
    float m = sh::Max::identity();
    sh::visit_row(xr, n_cols, threadIdx.x, blockDim.x, [&](float v) { m = fmaxf(m, v); });
    m = sh::block_reduce(sh::Max(), m, scratch);
    float d = 0.0f;
    sh::visit_row(xr, n_cols, threadIdx.x, blockDim.x, [&](float v) { d += expf(v - m); });
    d = sh::block_reduce(sh::Sum(), d, scratch);
    const float inv = 1.0f / d;
    sh::map_row(xr, yr, n_cols, threadIdx.x, blockDim.x, [&](float v) { return expf(v - m) * inv; });
}
