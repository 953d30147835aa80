// Staged: 16-bit rows of up to 32768 over clusters of 2 blocks shaped otherwise than kernels/'
// cluster2_push_*_c32768 (512 threads of 32 elements): Quack's shape, 256 threads of 64 elements
// (_b256), 1024 threads of 16 (_b1024), and tiles that keep their exponentials as floats (_keep,
// LiveTile's KEEP). Issue 24: 256 bf16 rows of 32000 in 15.42 µs against Quack's 15.20, 128 rows
// 10.45 against 10.14 (H100, tools/latency-spread; 1024 rows 48.27 against 48.00).
// @variant name=cluster2_push_bf16_c32768_b256 kernel=cluster2_push_bf16_c32768_b256 algorithm=online geometry=cluster-per-row threads=256 cluster=2 max_cols=32768 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster2_push_bf16_c32768_b1024 kernel=cluster2_push_bf16_c32768_b1024 algorithm=online geometry=cluster-per-row threads=1024 cluster=2 max_cols=32768 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster2_push_bf16_c32768_keep kernel=cluster2_push_bf16_c32768_keep algorithm=online geometry=cluster-per-row threads=512 cluster=2 max_cols=32768 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster2_push_bf16_c32768_b256_keep kernel=cluster2_push_bf16_c32768_b256_keep algorithm=online geometry=cluster-per-row threads=256 cluster=2 max_cols=32768 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster2_push_f16_c32768_b256 kernel=cluster2_push_f16_c32768_b256 algorithm=online geometry=cluster-per-row threads=256 cluster=2 max_cols=32768 min_sm=90 dtypes=float16 fast_math=true exp=ex2
#include "softmax.cuh"
#include "include/cluster_push.cuh"
#include "include/live_tile.cuh"

namespace {

// 16-bit tiles skip their dead chunks' exponentials (LiveTile); fp32 tiles are not issue-bound.
// KEEP: 16-bit tiles keep their exponentials as floats (LiveTile).
template <class T, int LANES, int E, bool KEEP, bool LIVE = sizeof(T) == 2>
struct PushTile {
    using type = sh::RowTile<T, LANES, E>;
};
template <class T, int LANES, int E, bool KEEP>
struct PushTile<T, LANES, E, KEEP, true> {
    using type = sh::LiveTile<T, LANES, E, KEEP>;
};

template <class T, int CLUSTER, int THREADS, int E, bool KEEP = false>
__device__ __forceinline__ void push_row(const T* __restrict__ x, T* __restrict__ y, int n_cols) {
#if __CUDA_ARCH__ >= 900
    __shared__ sh::ClusterMailbox<CLUSTER * (THREADS / 32)> box;
    box.open();
    const sh::ClusterSlice part = sh::cluster_slice<CLUSTER, 16 / (int)sizeof(T)>(n_cols);
    typename PushTile<T, THREADS, E, KEEP>::type tile;
    tile.load(sh::row_of(x, part.row, n_cols) + part.start, part.n, threadIdx.x);
    const sh::MaxSum mine = tile.fold();
    const sh::MaxSum warp = sh::warp_reduce(sh::FastMerge(), mine);
    const int at = (int)sh::cluster_rank() * (THREADS / 32) + (int)(threadIdx.x / 32);
    const sh::MaxSum all = box.template exchange<CLUSTER>(warp, at);
    tile.store(sh::row_of(y, part.row, n_cols) + part.start, part.n, threadIdx.x, mine, all);
#else
    __trap();  // clusters need sm_90; the registry's min_sm keeps this from being launched
#endif
}

}  // namespace

#define PUSH_KERNEL_OF(NAME, T, CLUSTER, THREADS, E)                                                      \
    extern "C" __global__ void SH_CLUSTER_DIMS(CLUSTER) __launch_bounds__(THREADS)                        \
        NAME(const T* __restrict__ x, T* __restrict__ y, int n_rows, int n_cols) {                        \
        push_row<T, CLUSTER, THREADS, E>(x, y, n_cols);                                                  \
    }
#define PAIR_KERNEL(NAME, T, CLUSTER, THREADS, E, KEEP)                                                  \
    extern "C" __global__ void SH_CLUSTER_DIMS(CLUSTER) __launch_bounds__(THREADS)                        \
        NAME(const T* __restrict__ x, T* __restrict__ y, int n_rows, int n_cols) {                        \
        push_row<T, CLUSTER, THREADS, E, KEEP>(x, y, n_cols);                                            \
    }

PAIR_KERNEL(cluster2_push_bf16_c32768_b256, sh::bf16_t, 2, 256, 64, false)
PAIR_KERNEL(cluster2_push_bf16_c32768_b1024, sh::bf16_t, 2, 1024, 16, false)
PAIR_KERNEL(cluster2_push_bf16_c32768_keep, sh::bf16_t, 2, 512, 32, true)
PAIR_KERNEL(cluster2_push_bf16_c32768_b256_keep, sh::bf16_t, 2, 256, 64, true)
PAIR_KERNEL(cluster2_push_f16_c32768_b256, sh::half_t, 2, 256, 64, false)
