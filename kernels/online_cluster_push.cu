// One-pass softmax for long rows on Hopper: a row over a cluster of 8 blocks, each holding its
// slice in registers (32 elements a thread, 16-byte loads), every input element read once. The
// blocks' (max, sum) states meet in mailboxes (include/cluster_push.cuh): each warp pushes its
// state into every block's shared memory and a block waits only for the bytes it is owed, where
// online_onepass_cluster.cu meets at two cluster barriers and reads the others' states one
// remote load after another. Sized to the row, 8 blocks of C / 256 threads: at the sizes they
// hold, 0.97-0.99 of a copy against the barrier kernels' 0.66-0.92 and the split-row kernel's
// 0.91-0.94 (reports/measurements/cluster_push.jsonl). Exponentials on the special-function unit
// (fast_math). Needs sm_90 (clusters); on older GPUs the kernel traps, and the dispatcher takes
// the next entry of its table.
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
// @variant name=cluster_push_f16_c155648 kernel=cluster_push_f16_c155648 algorithm=online geometry=cluster-per-row threads=608 cluster=8 max_cols=155648 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster_push_f16_c163840 kernel=cluster_push_f16_c163840 algorithm=online geometry=cluster-per-row threads=640 cluster=8 max_cols=163840 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster_push_f16_c262144 kernel=cluster_push_f16_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c65536 kernel=cluster_push_bf16_c65536 algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c73728 kernel=cluster_push_bf16_c73728 algorithm=online geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c98304 kernel=cluster_push_bf16_c98304 algorithm=online geometry=cluster-per-row threads=384 cluster=8 max_cols=98304 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c131072 kernel=cluster_push_bf16_c131072 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c155648 kernel=cluster_push_bf16_c155648 algorithm=online geometry=cluster-per-row threads=608 cluster=8 max_cols=155648 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c163840 kernel=cluster_push_bf16_c163840 algorithm=online geometry=cluster-per-row threads=640 cluster=8 max_cols=163840 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=cluster_push_bf16_c262144 kernel=cluster_push_bf16_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
#include "softmax.cuh"
#include "include/cluster_push.cuh"

namespace {

template <class T, int CLUSTER, int THREADS, int E>
__device__ __forceinline__ void push_row(const T* __restrict__ x, T* __restrict__ y, int n_cols) {
#if __CUDA_ARCH__ >= 900
    __shared__ sh::ClusterMailbox<CLUSTER * (THREADS / 32)> box;
    box.open();
    const unsigned rank = sh::cluster_rank();
    const size_t row = blockIdx.x / CLUSTER;
    constexpr int CHUNK = 16 / (int)sizeof(T);  // whole 16-byte chunks: aligned rows keep aligned slices
    const int slice = ((n_cols + CLUSTER - 1) / CLUSTER + CHUNK - 1) / CHUNK * CHUNK;
    const int start = min(n_cols, (int)rank * slice);
    const int count = min(n_cols - start, slice);

    sh::RowTile<T, THREADS, E> tile;
    tile.load(sh::row_of(x, row, n_cols) + start, count, threadIdx.x);
    const sh::MaxSum mine = tile.fold();
    const sh::MaxSum warp = sh::warp_reduce(sh::FastMerge(), mine);
    const sh::MaxSum all = box.template exchange<CLUSTER>(warp, (int)rank * (THREADS / 32) + (int)(threadIdx.x / 32));
    tile.store(sh::row_of(y, row, n_cols) + start, count, threadIdx.x, mine, all);
#else
    __trap();  // clusters need sm_90; the registry's min_sm keeps this from being launched
#endif
}

}  // namespace

#define PUSH_KERNEL(NAME, T, THREADS, E)                                                                 \
    extern "C" __global__ void SH_CLUSTER_DIMS(8) __launch_bounds__(THREADS)                              \
        NAME(const T* __restrict__ x, T* __restrict__ y, int n_rows, int n_cols) {                        \
        push_row<T, 8, THREADS, E>(x, y, n_cols);                                                        \
    }

PUSH_KERNEL(cluster_push_c65536, float, 256, 32)
PUSH_KERNEL(cluster_push_c73728, float, 288, 32)
PUSH_KERNEL(cluster_push_c98304, float, 384, 32)
PUSH_KERNEL(cluster_push_c131072, float, 512, 32)
PUSH_KERNEL(cluster_push_c155648, float, 608, 32)
PUSH_KERNEL(cluster_push_c163840, float, 640, 32)
PUSH_KERNEL(cluster_push_c262144, float, 512, 64)
PUSH_KERNEL(cluster_push_f16_c65536, sh::half_t, 256, 32)
PUSH_KERNEL(cluster_push_f16_c73728, sh::half_t, 288, 32)
PUSH_KERNEL(cluster_push_f16_c98304, sh::half_t, 384, 32)
PUSH_KERNEL(cluster_push_f16_c131072, sh::half_t, 512, 32)
PUSH_KERNEL(cluster_push_f16_c155648, sh::half_t, 608, 32)
PUSH_KERNEL(cluster_push_f16_c163840, sh::half_t, 640, 32)
PUSH_KERNEL(cluster_push_f16_c262144, sh::half_t, 512, 64)
PUSH_KERNEL(cluster_push_bf16_c65536, sh::bf16_t, 256, 32)
PUSH_KERNEL(cluster_push_bf16_c73728, sh::bf16_t, 288, 32)
PUSH_KERNEL(cluster_push_bf16_c98304, sh::bf16_t, 384, 32)
PUSH_KERNEL(cluster_push_bf16_c131072, sh::bf16_t, 512, 32)
PUSH_KERNEL(cluster_push_bf16_c155648, sh::bf16_t, 608, 32)
PUSH_KERNEL(cluster_push_bf16_c163840, sh::bf16_t, 640, 32)
PUSH_KERNEL(cluster_push_bf16_c262144, sh::bf16_t, 512, 64)
