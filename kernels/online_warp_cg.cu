// Online softmax with cooperative groups: a (max, sum) struct per lane, merged by
// cg::reduce over a 32-thread tile (seed 001's SumMax version), one warp per row,
// with the -inf guard that the published version lacks (see known_bad/).
//
// @variant name=online_warp_cg kernel=online_warp_cg algorithm=online geometry=warp-per-row threads=128
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "softmax.cuh"

namespace cg = cooperative_groups;

extern "C" __global__ void online_warp_cg(const float* __restrict__ x, float* __restrict__ y,
                                          int n_rows, int n_cols) {
    const auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    const size_t row = (size_t)blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (row >= (size_t)n_rows) return;
    const float* xr = sh::row_of(x, row, n_cols);
    float* yr = sh::row_of(y, row, n_cols);
    sh::MaxSum s = sh::empty_state();
    for (int i = warp.thread_rank(); i < n_cols; i += warp.size()) s = sh::push(s, xr[i]);
    s = cg::reduce(warp, s, sh::Merge());
    for (int i = warp.thread_rank(); i < n_cols; i += warp.size()) yr[i] = sh::normalise(xr[i], s);
}
