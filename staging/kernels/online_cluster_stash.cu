// One-pass softmax for fp32 rows of up to 262144 on Hopper: a row over a cluster of 8 blocks, as
// online_cluster_push.cu, but each block holds half its slice in registers (32 elements a thread)
// and stashes the other half in shared memory, brought by the copy engine (include/bulk.cuh).
// The push kernel sized 262144 holds 64 elements a thread; its registers allow one block an SM,
// so an SM sits idle between a row's loads and its stores (0.94-0.96 of a copy, where the size
// 131072, 32 elements a thread and two blocks an SM, gives 0.97). Here a block takes at most 64
// registers a thread and 64 KiB of shared memory, so two blocks from different rows share an SM
// and one's loads overlap the other's exchange and stores. Every input element is read once.
// A stash that is not whole 16-byte vectors from an aligned address (a misaligned row) is
// copied by the threads instead. Needs sm_90 (clusters, bulk copies).
//
// @variant name=cluster_stash_c262144 kernel=cluster_stash_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=8 smem=65536 max_cols=262144 min_sm=90 fast_math=true exp=ex2
#include "softmax.cuh"
#include "include/bulk.cuh"
#include "include/cluster_push.cuh"

namespace {

template <int CLUSTER, int THREADS, int E, int STASH>
__device__ __forceinline__ void stash_row(const float* __restrict__ x, float* __restrict__ y, int n_cols) {
#if __CUDA_ARCH__ >= 900
    __shared__ sh::ClusterMailbox<CLUSTER * (THREADS / 32)> box;
    __shared__ sh::BulkLanding landing;
    extern __shared__ __align__(16) float stash[];  // STASH floats
    constexpr int HELD = THREADS * E;
    const sh::ClusterSlice part = sh::cluster_slice<CLUSTER, 4>(n_cols);
    const float* src = sh::row_of(x, part.row, n_cols) + part.start;
    const int held = min(part.n, HELD);
    const int stashed = min(part.n - held, STASH);  // the variant's max_cols keeps it whole
    const float* from = src + held;
    const bool bulk = stashed > 0 && stashed % 4 == 0 && (reinterpret_cast<size_t>(from) & 15) == 0;
    if (threadIdx.x == 0) landing.init();
    box.open();  // its fence orders both barriers' initialisation before their use
    if (bulk && threadIdx.x == 0) landing.copy(stash, from, static_cast<unsigned>(stashed) * 4u);
    sh::RowTile<float, THREADS, E> tile;
    tile.load(src, held, threadIdx.x);
    if (!bulk)
        for (int i = threadIdx.x; i < stashed; i += THREADS) stash[i] = from[i];
    __syncthreads();  // the landing's initialisation, or the threads' stash, seen by every thread
    const sh::MaxSum regs = tile.fold();
    if (bulk) landing.wait();
    float m = sh::neg_inf();
    for (int i = threadIdx.x; i < stashed; i += THREADS) m = fmaxf(m, stash[i]);
    float d = 0.0f;
    {
        const sh::ExpArgs<false> arg(m == sh::neg_inf() ? 0.0f : m);
        for (int i = threadIdx.x; i < stashed; i += THREADS) d += sh::ex2(arg(stash[i]));
    }
    const sh::MaxSum mine = sh::FastMerge()(regs, sh::MaxSum{m, d});
    const sh::MaxSum warp = sh::warp_reduce(sh::FastMerge(), mine);
    const int at = (int)sh::cluster_rank() * (THREADS / 32) + (int)(threadIdx.x / 32);
    const sh::MaxSum all = box.template exchange<CLUSTER>(warp, at);
    float* dst = sh::row_of(y, part.row, n_cols) + part.start;
    tile.store(dst, held, threadIdx.x, regs, all);
    sh::write_softmax<float, false, false>(
        [&](auto out) {
            for (int i = threadIdx.x; i < stashed; i += THREADS) dst[held + i] = out(stash[i]);
        },
        all, all, 1.0f);
#else
    __trap();  // clusters need sm_90; the registry's min_sm keeps this from being launched
#endif
}

}  // namespace

extern "C" __global__ void SH_CLUSTER_DIMS(8) __launch_bounds__(512, 2)
    cluster_stash_c262144(const float* __restrict__ x, float* __restrict__ y, int n_rows, int n_cols) {
    stash_row<8, 512, 32, 16384>(x, y, n_cols);
}
