// One-pass softmax for long rows on Hopper: a row is split over a thread-block
// cluster of 8 blocks. Each block holds its slice in registers (16-byte loads),
// folds it into a (max, sum) state, publishes the state in its shared memory, and
// after a cluster barrier every block merges the 8 states through distributed
// shared memory and writes its slice from the registers: every input element is
// read once. Exponentials on the special-function unit (fast_math). Needs sm_90 (clusters); on older GPUs the kernel traps and
// softmax_harness.softmax() falls back to a two-pass kernel.
//
// @variant name=onepass_cluster_c262144 kernel=onepass_cluster_c262144 algorithm=online geometry=cluster-per-row threads=1024 cluster=8 max_cols=262144 min_sm=90 fast_math=true
#include <cooperative_groups.h>
#include "softmax.cuh"

namespace cg = cooperative_groups;

constexpr int CLUSTER = 8;
constexpr int THREADS = 1024;
constexpr int VECS = 8;  // float4 chunks per thread: 8 * 1024 * 32 = 262144 elements per row

#if __CUDA_ARCH__ >= 900
#define CLUSTER_DIMS __cluster_dims__(CLUSTER, 1, 1)
#else
#define CLUSTER_DIMS
#endif

extern "C" __global__ void CLUSTER_DIMS __launch_bounds__(THREADS)
    onepass_cluster_c262144(const float* __restrict__ x, float* __restrict__ y, int n_rows, int n_cols) {
#if __CUDA_ARCH__ >= 900
    __shared__ sh::MaxSum scratch[32];
    __shared__ sh::MaxSum published;
    const cg::cluster_group cluster = cg::this_cluster();
    const int rank = (int)cluster.block_rank();
    const size_t row = blockIdx.x / CLUSTER;
    // Slices of a multiple of 4 elements, so that an aligned row keeps aligned slices.
    const int slice = ((n_cols + CLUSTER - 1) / CLUSTER + 3) & ~3;
    const int start = min(n_cols, rank * slice);
    const int count = min(n_cols - start, slice);
    const float* xr = sh::row_of(x, row, n_cols) + start;

    sh::RowTile<float, THREADS, 4 * VECS> tile;
    tile.load(xr, count, threadIdx.x);
    const sh::MaxSum mine = tile.fold();
    const sh::MaxSum block = sh::block_reduce(sh::FastMerge(), mine, scratch);
    if (threadIdx.x == 0) published = block;
    cluster.sync();  // every block's state is published
    sh::MaxSum all = sh::empty_state();
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r) all = sh::FastMerge()(all, *cluster.map_shared_rank(&published, r));
    cluster.sync();  // no block leaves while another may still read its state

    tile.store(sh::row_of(y, row, n_cols) + start, count, threadIdx.x, mine, all);
#else
    __trap();  // clusters need sm_90; the registry's min_sm keeps this from being launched
#endif
}
