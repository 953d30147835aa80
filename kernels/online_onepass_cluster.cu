// One-pass softmax for long rows on Hopper: a row over a thread-block cluster, each block
// holding its slice in registers like the one-pass block kernels (16-byte loads). Each block
// folds its slice into a (max, sum) state and publishes it in its shared memory; after a
// cluster barrier (hardware, no global memory) every block merges the states through
// distributed shared memory and writes its slice from the registers: every input element is
// read once. Not persistent: a cluster takes one row and leaves. A block signals that it is
// done with the others' states before it writes its slice, and waits for them only at its end.
// Exponentials on the special-function unit (fast_math). Needs sm_90 (clusters); on older GPUs
// the kernel traps, and softmax_harness.softmax() takes the next entry of its table.
//
// Eight blocks of 1024 threads a row (32 floats each) measured 0.25-0.76 of copy at C = 65536 to
// 262144, below the split-row kernel; two blocks of 512 threads (64 halves each) a row of 16-bit
// elements 0.89 at C = 65536, against 0.86 (reports/measurements/cluster_ab.json).
//
// Sized to the row, as the other ops' cluster kernels are (8 blocks of 256 threads of 32 floats
// for 65536, of 512 for 131072; 8 blocks of 256 and 512 threads of 64 halves for 131072 and
// 262144): those reach 0.80-0.98 of a copy at the length they are sized to
// (reports/measurements/clusters_promoted.jsonl), where the one kernel of 262144 left most of
// its lanes idle on shorter rows.
//
// Sized 32768 (8 blocks of 128 threads of 32 elements) for a few rows of vocabularies of 32000:
// at 1 and 8 such rows in bf16 Quack takes 5.7 and 6.0 us where our one-block tile takes 7.2 and
// 7.5 (run 0026); the cluster sized 131072 gained only 0.3-0.4 us there, most of its lanes idle
// (reports/measurements/few_rows_cluster_sized.jsonl).
//
// @variant name=onepass_cluster_c32768 kernel=onepass_cluster_c32768 algorithm=online geometry=cluster-per-row threads=128 cluster=8 max_cols=32768 min_sm=90 fast_math=true exp=ex2
// @variant name=onepass_cluster_f16_c32768 kernel=onepass_cluster_f16_c32768 algorithm=online geometry=cluster-per-row threads=128 cluster=8 max_cols=32768 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_cluster_bf16_c32768 kernel=onepass_cluster_bf16_c32768 algorithm=online geometry=cluster-per-row threads=128 cluster=8 max_cols=32768 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_cluster_c65536 kernel=onepass_cluster_c65536 algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 fast_math=true exp=ex2
// @variant name=onepass_cluster_c131072 kernel=onepass_cluster_c131072 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 fast_math=true exp=ex2
// @variant name=onepass_cluster_c262144 kernel=onepass_cluster_c262144 algorithm=online geometry=cluster-per-row threads=1024 cluster=8 max_cols=262144 min_sm=90 fast_math=true exp=ex2
// @variant name=onepass_cluster_f16_c65536 kernel=onepass_cluster_f16_c65536 algorithm=online geometry=cluster-per-row threads=512 cluster=2 max_cols=65536 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_cluster_f16_c131072 kernel=onepass_cluster_f16_c131072 algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=131072 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_cluster_f16_c262144 kernel=onepass_cluster_f16_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 dtypes=float16 fast_math=true exp=ex2
// @variant name=onepass_cluster_bf16_c65536 kernel=onepass_cluster_bf16_c65536 algorithm=online geometry=cluster-per-row threads=512 cluster=2 max_cols=65536 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_cluster_bf16_c131072 kernel=onepass_cluster_bf16_c131072 algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=131072 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=onepass_cluster_bf16_c262144 kernel=onepass_cluster_bf16_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 dtypes=bfloat16 fast_math=true exp=ex2
#include "softmax.cuh"

namespace {

template <class T, int CLUSTER, int THREADS, int E>
__device__ __forceinline__ void cluster_row(const T* __restrict__ x, T* __restrict__ y, int n_cols) {
#if __CUDA_ARCH__ >= 900
    __shared__ sh::MaxSum scratch[32];
    __shared__ sh::MaxSum published;
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    const size_t row = blockIdx.x / CLUSTER;
    constexpr int CHUNK = 16 / (int)sizeof(T);  // whole 16-byte chunks: aligned rows keep aligned slices
    const int slice = ((n_cols + CLUSTER - 1) / CLUSTER + CHUNK - 1) / CHUNK * CHUNK;
    const int start = min(n_cols, (int)rank * slice);
    const int count = min(n_cols - start, slice);

    sh::RowTile<T, THREADS, E> tile;
    tile.load(sh::row_of(x, row, n_cols) + start, count, threadIdx.x);
    const sh::MaxSum mine = tile.fold();
    const sh::MaxSum block = sh::block_reduce(sh::FastMerge(), mine, scratch);
    if (threadIdx.x == 0) published = block;
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" : : : "memory");
    sh::MaxSum all = sh::empty_state();
    const unsigned local = static_cast<unsigned>(__cvta_generic_to_shared(&published));
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r) {
        unsigned remote;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(r));
        float m, d;
        asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(m), "=f"(d) : "r"(remote) : "memory");
        all = sh::FastMerge()(all, sh::MaxSum{m, d});
    }
    // Done with the others' states: they may leave once every block has said so.
    asm volatile("barrier.cluster.arrive.release.aligned;" : : : "memory");
    tile.store(sh::row_of(y, row, n_cols) + start, count, threadIdx.x, mine, all);
    asm volatile("barrier.cluster.wait.acquire.aligned;" : : : "memory");
#else
    __trap();  // clusters need sm_90; the registry's min_sm keeps this from being launched
#endif
}

}  // namespace

#if __CUDA_ARCH__ >= 900
#define SH_CLUSTER_DIMS(N) __cluster_dims__(N, 1, 1)
#else
#define SH_CLUSTER_DIMS(N)
#endif

#define CLUSTER_KERNEL(NAME, T, CLUSTER, THREADS, E)                                                      \
    extern "C" __global__ void SH_CLUSTER_DIMS(CLUSTER) __launch_bounds__(THREADS)                        \
        NAME(const T* __restrict__ x, T* __restrict__ y, int n_rows, int n_cols) {                        \
        cluster_row<T, CLUSTER, THREADS, E>(x, y, n_cols);                                               \
    }

CLUSTER_KERNEL(onepass_cluster_c32768, float, 8, 128, 32)
CLUSTER_KERNEL(onepass_cluster_f16_c32768, sh::half_t, 8, 128, 32)
CLUSTER_KERNEL(onepass_cluster_bf16_c32768, sh::bf16_t, 8, 128, 32)
CLUSTER_KERNEL(onepass_cluster_c65536, float, 8, 256, 32)
CLUSTER_KERNEL(onepass_cluster_c131072, float, 8, 512, 32)
CLUSTER_KERNEL(onepass_cluster_c262144, float, 8, 1024, 32)
CLUSTER_KERNEL(onepass_cluster_f16_c65536, sh::half_t, 2, 512, 64)
CLUSTER_KERNEL(onepass_cluster_f16_c131072, sh::half_t, 8, 256, 64)
CLUSTER_KERNEL(onepass_cluster_f16_c262144, sh::half_t, 8, 512, 64)
CLUSTER_KERNEL(onepass_cluster_bf16_c65536, sh::bf16_t, 2, 512, 64)
CLUSTER_KERNEL(onepass_cluster_bf16_c131072, sh::bf16_t, 8, 256, 64)
CLUSTER_KERNEL(onepass_cluster_bf16_c262144, sh::bf16_t, 8, 512, 64)
