// Softmax backward for long rows on Hopper: a row over a thread-block cluster, each block holding
// its slice of y and dy in registers (sh::RowTile, 16-byte vectors), so both are read once. Each
// block sums its slice's terms (a lane's vectors as trees, its chunks in a chain, then the block's
// tree) and publishes the sum in its shared memory; after a cluster barrier every block reads the
// CLUSTER sums through distributed shared memory and adds them as a tree in rank order (the same
// s in every block, bitwise), says it is done with them, and writes dx from its registers.
// Needs sm_90 (min_sm=90): on older GPUs the kernel traps and the dispatcher takes the block.
// STAGED: compiled offline only; the next GPU session measures it beside backward_block_1024 and
// Quack (run 0020: 0.56-0.62 of copy from C = 32768 in fp32, 0.33-0.42 in 16 bits; Quack
// 0.82-1.03) and runs the suite on it.
//
// @variant name=backward_cluster_c65536 op=softmax_backward kernel=backward_cluster_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=4
// @variant name=backward_cluster_c131072 op=softmax_backward kernel=backward_cluster_c131072 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=4
// @variant name=backward_cluster_f16_c131072 op=softmax_backward kernel=backward_cluster_f16_c131072 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=131072 min_sm=90 vector=8 dtypes=float16
// @variant name=backward_cluster_bf16_c131072 op=softmax_backward kernel=backward_cluster_bf16_c131072 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=131072 min_sm=90 vector=8 dtypes=bfloat16
#include "softmax.cuh"
#include "include/backward.cuh"
#include "include/cluster.cuh"
#include "include/tile_sum.cuh"

namespace {

template <class G, class T, int CLUSTER, int THREADS, int E>
__device__ __forceinline__ void grad_cluster_row(const T* __restrict__ a, const T* __restrict__ b,
                                                 T* __restrict__ dx, int n_cols) {
#if __CUDA_ARCH__ >= 900
    using Tile = sh::RowTile<T, THREADS, E>;
    constexpr int W = Tile::W;
    __shared__ float scratch[32];
    __shared__ float published;
    const unsigned rank = sh::cluster_rank();
    const size_t row = blockIdx.x / CLUSTER;
    // whole vectors a slice, so that every slice of a row is misaligned as the row is
    const int slice = ((n_cols + CLUSTER - 1) / CLUSTER + W - 1) / W * W;
    const int start = min(n_cols, static_cast<int>(rank) * slice);
    const int n = min(n_cols - start, slice), lane = threadIdx.x;
    const T* ar = sh::row_of(a, row, n_cols) + start;
    const T* br = sh::row_of(b, row, n_cols) + start;
    const bool alike = sh::shift_of<T, W>(ar) == sh::shift_of<T, W>(br);
    Tile ta, tb;
    ta.load(ar, n, lane, alike);
    tb.load(br, n, lane, alike);
    const float s = sh::block_reduce(
        sh::Sum(), sh::tile_sum(ta, n, lane, [&](int i) { return G::add(0.0f, ta.get(i), tb.get(i)); }), scratch);
    if (threadIdx.x == 0) published = s;
    sh::cluster_sync();
    float part[CLUSTER];
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r) part[r] = sh::cluster_load(&published, r);
#pragma unroll
    for (int width = CLUSTER / 2; width > 0; width /= 2) {
#pragma unroll
        for (int r = 0; r < width; ++r) part[r] += part[r + width];
    }
    sh::cluster_arrive();  // done with the others' sums: they may leave once every block has said so
    const float all = part[0];
    ta.write(sh::row_of(dx, row, n_cols) + start, n, lane, [&](int i) { return G::out(ta.get(i), tb.get(i), all); });
    sh::cluster_wait();
#else
    __trap();  // clusters need sm_90; the registry's min_sm keeps this from being launched
#endif
}

}  // namespace

#define GRAD_CLUSTER(NAME, G, T, CLUSTER, THREADS, E)                                                   \
    extern "C" __global__ void SH_CLUSTER_DIMS(CLUSTER) __launch_bounds__(THREADS) NAME(GRAD_KERNEL_ARGS(T)) { \
        grad_cluster_row<G, T, CLUSTER, THREADS, E>(a, b, dx, n_cols);                                  \
    }

GRAD_CLUSTER(backward_cluster_c65536, sh::SoftmaxGrad, float, 8, 256, 32)
GRAD_CLUSTER(backward_cluster_c131072, sh::SoftmaxGrad, float, 8, 512, 32)
GRAD_CLUSTER(backward_cluster_f16_c131072, sh::SoftmaxGrad, sh::half_t, 8, 256, 64)
GRAD_CLUSTER(backward_cluster_bf16_c131072, sh::SoftmaxGrad, sh::bf16_t, 8, 256, 64)
