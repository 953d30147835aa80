// One-pass softmax for long rows on Hopper: a row over a cluster of 8 blocks, each holding its
// slice in registers (16-byte loads), every input element read once. The blocks' (max, sum)
// states meet in mailboxes (include/cluster_push.cuh): each warp pushes its state into every
// block's shared memory and a block waits only for the bytes it is owed, where
// online_onepass_cluster.cu meets at two cluster barriers and reads the others' states one
// remote load after another. Sized to the row: 8 blocks of C / 256 threads of 32 elements, for
// 262144 of 512 threads of 64 (against 1024 of 32: 0.94 of a copy against 0.92 in fp32, 0.97
// against 0.88 in bf16), and in 16 bits for 163840 of 320 of 64, which takes Qwen's vocabulary of
// 151936 at 0.98 where 480 threads of 40 (sized 153600) gave 0.94-0.96 and 640 of 32 0.93 at
// 159744 (reports/measurements/push_16bit_151936.jsonl).
// At the sizes they hold, fp32 0.967-0.988 of a copy (262144: 0.94-0.96) and 16 bits 0.94-1.00,
// where the barrier kernels gave 0.66-0.92 and the split-row kernel 0.91-0.94
// (reports/measurements/cluster_push.jsonl). A 16-bit tile's exponentials set its pace, so its
// tiles skip those of the chunks wholly past the row's end (include/live_tile.cuh), which a row
// below the size leaves -inf. Exponentials on the special-function unit (fast_math). Needs sm_90 (clusters); on
// older GPUs the kernel traps, and the dispatcher takes the next entry of its table.
//
// cluster16_push_*: a row over 16 blocks of 32 elements a thread (a cluster past the portable 8,
// which the launch allows: variant.py), for a few long rows, whose latency is the time of one
// block's share: 16 blocks read a row in about half the time of 8 (one row of 151936 in 16
// bits: 6.9 µs on the 8 blocks of the size 163840, where Quack's cluster of 16 took 5.6 in run
// 0038). For many rows the 8-block kernels stay (fp32 262144 on 16 blocks of 512 threads of 32:
// 0.938 of a copy against 0.941, reports/measurements/push_trials_lost.jsonl).
//
// cluster2_push_* and cluster4_push_*: 16-bit rows of up to 32768 over 2 blocks of 512 threads
// or 4 of 256, 32 elements a thread, for a few hundred rows of a 32000 vocabulary, where a block
// a row leaves the multiprocessors unevenly loaded (256 rows on 132) and 8 blocks a row pay for
// the exchange across more blocks (issue 24: 256 bf16 rows of 32000 in 16.6 µs against Quack's
// 15.1 in run 0059, Quack 2 blocks a row). The cluster of 2: 15.41 µs there against the tile's
// 16.54, ahead from 64 to 1024 rows, and 0.93-0.997 of a copy at ~1 GiB of rows of 16385-32768
// against 0.84-0.99 (reports/measurements/cluster_pair_latency_h100.jsonl, cluster_pair_bw_h100.json).
// The same pair sized 16384 in every type and sized 32768 in fp32: rows of 8193-16384 and fp32
// rows of 16385-32768 in small batches, whose tiles hold a row on one block too (8 / 256 bf16 rows
// of 12000 in 5.28 / 9.09 µs against the tile's 6.18 / 10.35: cluster_pair_16384_latency_h100.jsonl).
//
// *_keep: 16-bit kernels whose tiles keep their exponentials as floats after the fold (LiveTile's
// KEEP), for a few rows, where fp32's tiles, which keep them, led Quack on 1-8 rows of
// 128256-262144 and the 16-bit ones trailed it (run 0061, H100: fp32 1 x 151936 in 6.4 µs against
// 7.2, bf16 5.82 against 5.60). Kept, one bf16 row of 151936 took 5.76 µs against 5.97, 8 rows
// 7.47 against 7.81; on the 16 blocks they trail from 64 rows, on the 8 from 256
// (reports/measurements/keep_latency_h100.jsonl).
//
// cluster16_push_{f16,bf16}_c{163840,262144}_b256: the 16-bit sizes 163840 and 262144 on 256
// threads (40 and 64 elements a thread; Quack's 16 blocks of 256 threads) rather than 32 elements a
// thread: level at ~1 GiB of rows and ahead on 1-256 rows of 151936 and 16-256 rows of 262144
// (64 bf16 rows of 262144 in 27.6 µs against 28.3 on 32 a thread and 30.1 on the 8 blocks;
// reports/measurements/cluster16_b256.jsonl), where 160 threads of 64 at 163840 trailed both.
// @variant name=cluster16_push_f16_c163840_b256 kernel=cluster16_push_f16_c163840_b256 algorithm=online geometry=cluster-per-row threads=256 cluster=16 max_cols=163840 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster16_push_bf16_c163840_b256 kernel=cluster16_push_bf16_c163840_b256 algorithm=online geometry=cluster-per-row threads=256 cluster=16 max_cols=163840 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster16_push_f16_c262144_b256 kernel=cluster16_push_f16_c262144_b256 algorithm=online geometry=cluster-per-row threads=256 cluster=16 max_cols=262144 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster16_push_bf16_c262144_b256 kernel=cluster16_push_bf16_c262144_b256 algorithm=online geometry=cluster-per-row threads=256 cluster=16 max_cols=262144 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
//
// @variant name=cluster_push_c65536 kernel=cluster_push_c65536 algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 fast_math=true exp=ex2
// @variant name=cluster_push_c73728 kernel=cluster_push_c73728 algorithm=online geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 fast_math=true exp=ex2
// @variant name=cluster_push_c98304 kernel=cluster_push_c98304 algorithm=online geometry=cluster-per-row threads=384 cluster=8 max_cols=98304 min_sm=90 fast_math=true exp=ex2
// @variant name=cluster_push_c131072 kernel=cluster_push_c131072 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 fast_math=true exp=ex2
// @variant name=cluster_push_c155648 kernel=cluster_push_c155648 algorithm=online geometry=cluster-per-row threads=608 cluster=8 max_cols=155648 min_sm=90 fast_math=true exp=ex2
// @variant name=cluster_push_c163840 kernel=cluster_push_c163840 algorithm=online geometry=cluster-per-row threads=640 cluster=8 max_cols=163840 min_sm=90 fast_math=true exp=ex2
// @variant name=cluster_push_c262144 kernel=cluster_push_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 fast_math=true exp=ex2
// @variant name=cluster_push_f16_c65536 kernel=cluster_push_f16_c65536 algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster_push_f16_c73728 kernel=cluster_push_f16_c73728 algorithm=online geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster_push_f16_c98304 kernel=cluster_push_f16_c98304 algorithm=online geometry=cluster-per-row threads=384 cluster=8 max_cols=98304 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster_push_f16_c131072 kernel=cluster_push_f16_c131072 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster_push_f16_c163840 kernel=cluster_push_f16_c163840 algorithm=online geometry=cluster-per-row threads=320 cluster=8 max_cols=163840 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster_push_f16_c262144 kernel=cluster_push_f16_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c65536 kernel=cluster_push_bf16_c65536 algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c73728 kernel=cluster_push_bf16_c73728 algorithm=online geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c98304 kernel=cluster_push_bf16_c98304 algorithm=online geometry=cluster-per-row threads=384 cluster=8 max_cols=98304 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c131072 kernel=cluster_push_bf16_c131072 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c163840 kernel=cluster_push_bf16_c163840 algorithm=online geometry=cluster-per-row threads=320 cluster=8 max_cols=163840 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c262144 kernel=cluster_push_bf16_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster16_push_c65536 kernel=cluster16_push_c65536 algorithm=online geometry=cluster-per-row threads=128 cluster=16 max_cols=65536 min_sm=90 fast_math=true exp=ex2
// @variant name=cluster16_push_f16_c65536 kernel=cluster16_push_f16_c65536 algorithm=online geometry=cluster-per-row threads=128 cluster=16 max_cols=65536 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster16_push_bf16_c65536 kernel=cluster16_push_bf16_c65536 algorithm=online geometry=cluster-per-row threads=128 cluster=16 max_cols=65536 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster16_push_c131072 kernel=cluster16_push_c131072 algorithm=online geometry=cluster-per-row threads=256 cluster=16 max_cols=131072 min_sm=90 fast_math=true exp=ex2
// @variant name=cluster16_push_f16_c131072 kernel=cluster16_push_f16_c131072 algorithm=online geometry=cluster-per-row threads=256 cluster=16 max_cols=131072 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster16_push_bf16_c131072 kernel=cluster16_push_bf16_c131072 algorithm=online geometry=cluster-per-row threads=256 cluster=16 max_cols=131072 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster16_push_c163840 kernel=cluster16_push_c163840 algorithm=online geometry=cluster-per-row threads=320 cluster=16 max_cols=163840 min_sm=90 fast_math=true exp=ex2
// @variant name=cluster16_push_f16_c163840 kernel=cluster16_push_f16_c163840 algorithm=online geometry=cluster-per-row threads=320 cluster=16 max_cols=163840 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster16_push_bf16_c163840 kernel=cluster16_push_bf16_c163840 algorithm=online geometry=cluster-per-row threads=320 cluster=16 max_cols=163840 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster16_push_c262144 kernel=cluster16_push_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=16 max_cols=262144 min_sm=90 fast_math=true exp=ex2
// @variant name=cluster16_push_f16_c262144 kernel=cluster16_push_f16_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=16 max_cols=262144 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster16_push_bf16_c262144 kernel=cluster16_push_bf16_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=16 max_cols=262144 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster2_push_f16_c32768 kernel=cluster2_push_f16_c32768 algorithm=online geometry=cluster-per-row threads=512 cluster=2 max_cols=32768 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster2_push_bf16_c32768 kernel=cluster2_push_bf16_c32768 algorithm=online geometry=cluster-per-row threads=512 cluster=2 max_cols=32768 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster4_push_f16_c32768 kernel=cluster4_push_f16_c32768 algorithm=online geometry=cluster-per-row threads=256 cluster=4 max_cols=32768 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster4_push_bf16_c32768 kernel=cluster4_push_bf16_c32768 algorithm=online geometry=cluster-per-row threads=256 cluster=4 max_cols=32768 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster2_push_c32768 kernel=cluster2_push_c32768 algorithm=online geometry=cluster-per-row threads=512 cluster=2 max_cols=32768 min_sm=90 fast_math=true exp=ex2
// @variant name=cluster2_push_c16384 kernel=cluster2_push_c16384 algorithm=online geometry=cluster-per-row threads=256 cluster=2 max_cols=16384 min_sm=90 fast_math=true exp=ex2
// @variant name=cluster2_push_f16_c16384 kernel=cluster2_push_f16_c16384 algorithm=online geometry=cluster-per-row threads=256 cluster=2 max_cols=16384 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster2_push_bf16_c16384 kernel=cluster2_push_bf16_c16384 algorithm=online geometry=cluster-per-row threads=256 cluster=2 max_cols=16384 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster16_push_f16_c65536_keep kernel=cluster16_push_f16_c65536_keep algorithm=online geometry=cluster-per-row threads=128 cluster=16 max_cols=65536 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster16_push_f16_c131072_keep kernel=cluster16_push_f16_c131072_keep algorithm=online geometry=cluster-per-row threads=256 cluster=16 max_cols=131072 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster16_push_f16_c163840_b256_keep kernel=cluster16_push_f16_c163840_b256_keep algorithm=online geometry=cluster-per-row threads=256 cluster=16 max_cols=163840 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster16_push_f16_c262144_b256_keep kernel=cluster16_push_f16_c262144_b256_keep algorithm=online geometry=cluster-per-row threads=256 cluster=16 max_cols=262144 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster_push_f16_c65536_keep kernel=cluster_push_f16_c65536_keep algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster_push_f16_c131072_keep kernel=cluster_push_f16_c131072_keep algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster_push_f16_c262144_keep kernel=cluster_push_f16_c262144_keep algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster16_push_bf16_c65536_keep kernel=cluster16_push_bf16_c65536_keep algorithm=online geometry=cluster-per-row threads=128 cluster=16 max_cols=65536 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster16_push_bf16_c131072_keep kernel=cluster16_push_bf16_c131072_keep algorithm=online geometry=cluster-per-row threads=256 cluster=16 max_cols=131072 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster16_push_bf16_c163840_b256_keep kernel=cluster16_push_bf16_c163840_b256_keep algorithm=online geometry=cluster-per-row threads=256 cluster=16 max_cols=163840 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster16_push_bf16_c262144_b256_keep kernel=cluster16_push_bf16_c262144_b256_keep algorithm=online geometry=cluster-per-row threads=256 cluster=16 max_cols=262144 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c65536_keep kernel=cluster_push_bf16_c65536_keep algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c131072_keep kernel=cluster_push_bf16_c131072_keep algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c262144_keep kernel=cluster_push_bf16_c262144_keep algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster2_push_f16_c32768_keep kernel=cluster2_push_f16_c32768_keep algorithm=online geometry=cluster-per-row threads=512 cluster=2 max_cols=32768 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster2_push_bf16_c32768_keep kernel=cluster2_push_bf16_c32768_keep algorithm=online geometry=cluster-per-row threads=512 cluster=2 max_cols=32768 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster_push_c155648_b256 kernel=cluster_push_c155648_b256 algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=155648 min_sm=90 fast_math=true exp=ex2
// @variant name=cluster16_push_f16_c262144_keep kernel=cluster16_push_f16_c262144_keep algorithm=online geometry=cluster-per-row threads=512 cluster=16 max_cols=262144 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster16_push_bf16_c262144_keep kernel=cluster16_push_bf16_c262144_keep algorithm=online geometry=cluster-per-row threads=512 cluster=16 max_cols=262144 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
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
#define PUSH_KERNEL(NAME, T, THREADS, E) PUSH_KERNEL_OF(NAME, T, 8, THREADS, E)
#define PUSH_KEEP_KERNEL(NAME, T, CLUSTER, THREADS, E)                                                   \
    extern "C" __global__ void SH_CLUSTER_DIMS(CLUSTER) __launch_bounds__(THREADS)                        \
        NAME(const T* __restrict__ x, T* __restrict__ y, int n_rows, int n_cols) {                        \
        push_row<T, CLUSTER, THREADS, E, true>(x, y, n_cols);                                            \
    }

PUSH_KERNEL(cluster_push_c65536, float, 256, 32)
PUSH_KERNEL(cluster_push_c73728, float, 288, 32)
PUSH_KERNEL(cluster_push_c98304, float, 384, 32)
PUSH_KERNEL(cluster_push_c131072, float, 512, 32)
PUSH_KERNEL(cluster_push_c155648, float, 608, 32)
// Fewer threads holding more of the row (a few rows: fewer warps to merge across the cluster).
PUSH_KERNEL(cluster_push_c155648_b256, float, 256, 76)
PUSH_KERNEL(cluster_push_c163840, float, 640, 32)
PUSH_KERNEL(cluster_push_c262144, float, 512, 64)
PUSH_KERNEL(cluster_push_f16_c65536, sh::half_t, 256, 32)
PUSH_KERNEL(cluster_push_f16_c73728, sh::half_t, 288, 32)
PUSH_KERNEL(cluster_push_f16_c98304, sh::half_t, 384, 32)
PUSH_KERNEL(cluster_push_f16_c131072, sh::half_t, 512, 32)
PUSH_KERNEL(cluster_push_f16_c163840, sh::half_t, 320, 64)
PUSH_KERNEL(cluster_push_f16_c262144, sh::half_t, 512, 64)
PUSH_KERNEL(cluster_push_bf16_c65536, sh::bf16_t, 256, 32)
PUSH_KERNEL(cluster_push_bf16_c73728, sh::bf16_t, 288, 32)
PUSH_KERNEL(cluster_push_bf16_c98304, sh::bf16_t, 384, 32)
PUSH_KERNEL(cluster_push_bf16_c131072, sh::bf16_t, 512, 32)
PUSH_KERNEL(cluster_push_bf16_c163840, sh::bf16_t, 320, 64)
PUSH_KERNEL(cluster_push_bf16_c262144, sh::bf16_t, 512, 64)

// A size of the 16-block clusters in each type: 32 elements a thread.
#define PUSH16_KERNELS(SIZE, THREADS)                                                                    \
    PUSH_KERNEL_OF(cluster16_push_c##SIZE, float, 16, THREADS, 32)                                       \
    PUSH_KERNEL_OF(cluster16_push_f16_c##SIZE, sh::half_t, 16, THREADS, 32)                              \
    PUSH_KERNEL_OF(cluster16_push_bf16_c##SIZE, sh::bf16_t, 16, THREADS, 32)

PUSH16_KERNELS(65536, 128)
PUSH16_KERNELS(131072, 256)
PUSH16_KERNELS(163840, 320)
PUSH16_KERNELS(262144, 512)

// The 16-bit sizes 163840 and 262144 on 256 threads.
#define PUSH16_WIDE_KERNELS(SIZE, THREADS, E)                                                            \
    PUSH_KERNEL_OF(cluster16_push_f16_c##SIZE##_b##THREADS, sh::half_t, 16, THREADS, E)                  \
    PUSH_KERNEL_OF(cluster16_push_bf16_c##SIZE##_b##THREADS, sh::bf16_t, 16, THREADS, E)

PUSH16_WIDE_KERNELS(163840, 256, 40)
PUSH16_WIDE_KERNELS(262144, 256, 64)

// Sized 32768 on clusters of 2 and 4 blocks, in 16 bits.
#define PUSH_SMALL_KERNELS(CLUSTER, THREADS)                                                             \
    PUSH_KERNEL_OF(cluster##CLUSTER##_push_f16_c32768, sh::half_t, CLUSTER, THREADS, 32)                 \
    PUSH_KERNEL_OF(cluster##CLUSTER##_push_bf16_c32768, sh::bf16_t, CLUSTER, THREADS, 32)
PUSH_SMALL_KERNELS(2, 512)
PUSH_SMALL_KERNELS(4, 256)
PUSH_KERNEL_OF(cluster2_push_c32768, float, 2, 512, 32)
PUSH_KERNEL_OF(cluster2_push_c16384, float, 2, 256, 32)
PUSH_KERNEL_OF(cluster2_push_f16_c16384, sh::half_t, 2, 256, 32)
PUSH_KERNEL_OF(cluster2_push_bf16_c16384, sh::bf16_t, 2, 256, 32)

// The 16-bit kernels whose tiles keep their exponentials.
PUSH_KEEP_KERNEL(cluster16_push_f16_c65536_keep, sh::half_t, 16, 128, 32)
PUSH_KEEP_KERNEL(cluster16_push_f16_c131072_keep, sh::half_t, 16, 256, 32)
PUSH_KEEP_KERNEL(cluster16_push_f16_c163840_b256_keep, sh::half_t, 16, 256, 40)
PUSH_KEEP_KERNEL(cluster16_push_f16_c262144_b256_keep, sh::half_t, 16, 256, 64)
PUSH_KEEP_KERNEL(cluster_push_f16_c65536_keep, sh::half_t, 8, 256, 32)
PUSH_KEEP_KERNEL(cluster_push_f16_c131072_keep, sh::half_t, 8, 512, 32)
PUSH_KEEP_KERNEL(cluster_push_f16_c262144_keep, sh::half_t, 8, 512, 64)
PUSH_KEEP_KERNEL(cluster16_push_bf16_c65536_keep, sh::bf16_t, 16, 128, 32)
PUSH_KEEP_KERNEL(cluster16_push_bf16_c131072_keep, sh::bf16_t, 16, 256, 32)
PUSH_KEEP_KERNEL(cluster16_push_bf16_c163840_b256_keep, sh::bf16_t, 16, 256, 40)
PUSH_KEEP_KERNEL(cluster16_push_bf16_c262144_b256_keep, sh::bf16_t, 16, 256, 64)
PUSH_KEEP_KERNEL(cluster_push_bf16_c65536_keep, sh::bf16_t, 8, 256, 32)
PUSH_KEEP_KERNEL(cluster_push_bf16_c131072_keep, sh::bf16_t, 8, 512, 32)
PUSH_KEEP_KERNEL(cluster_push_bf16_c262144_keep, sh::bf16_t, 8, 512, 64)
PUSH_KEEP_KERNEL(cluster2_push_f16_c32768_keep, sh::half_t, 2, 512, 32)
PUSH_KEEP_KERNEL(cluster2_push_bf16_c32768_keep, sh::bf16_t, 2, 512, 32)
// The kept cluster of 16 sized 262144 on 512 threads of 32.
PUSH_KEEP_KERNEL(cluster16_push_f16_c262144_keep, sh::half_t, 16, 512, 32)
PUSH_KEEP_KERNEL(cluster16_push_bf16_c262144_keep, sh::bf16_t, 16, 512, 32)
