// Online softmax on a persistent grid: a fixed number of blocks (blocks_per_sm per
// multiprocessor), each warp taking rows warp_id, warp_id + total_warps, ... so
// any number of rows is covered by one launch.
//
// @variant name=online_grid_stride kernel=online_grid_stride algorithm=online geometry=grid-stride threads=256 lanes=32 blocks_per_sm=8
#include "softmax.cuh"

extern "C" __global__ void online_grid_stride(const float* __restrict__ x, float* __restrict__ y,
                                              int n_rows, int n_cols) {
    const int lane = threadIdx.x & 31;
    const size_t warps = (size_t)gridDim.x * (blockDim.x / 32);
    for (size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; row < (size_t)n_rows;
         row += warps) {
        const float* xr = sh::row_of(x, row, n_cols);
        float* yr = sh::row_of(y, row, n_cols);
        sh::MaxSum s = sh::empty_state();
        sh::visit_row(xr, n_cols, lane, 32, [&](float v) { s = sh::push(s, v); });
        s = sh::warp_reduce(sh::Merge(), s);
        const float inv = 1.0f / s.d;
        sh::map_row(xr, yr, n_cols, lane, 32, [&](float v) { return expf(v - s.m) * inv; });
    }
}
