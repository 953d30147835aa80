// log_softmax of long rows on Hopper: a row over a thread-block cluster of 8, each block holding
// its slice of x in registers (sh::log_softmax_cluster_rows: read once; the maximum and the sum
// each combined over the blocks as a tree through distributed shared memory), z written from the
// registers with the tiles' fast arithmetic (one ex2.approx an element, lg2.approx for log d). A
// kernel a row size, as the backwards' cluster kernels. Needs sm_90 (min_sm=90): on older GPUs
// the kernel traps and the dispatcher takes the block.
//
// The 16-bit sizes 73728 (288 threads) and 262144 (512 threads of 64): a misaligned row of
// 65535 and its shift overflow the 8 x 8192 tiles sized 65536, which then read element by element
// (reports/measurements/cluster_misaligned_65535.jsonl); vocabularies of 151936-262144 go to the
// block, which reads them two or three times.
//
// @variant name=log_softmax_cluster_c65536 op=log_softmax kernel=log_softmax_cluster_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=4 fast_math=true exp=ex2
// @variant name=log_softmax_cluster_c131072 op=log_softmax kernel=log_softmax_cluster_c131072 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=4 fast_math=true exp=ex2
// @variant name=log_softmax_cluster_f16_c65536 op=log_softmax kernel=log_softmax_cluster_f16_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_cluster_f16_c73728 op=log_softmax kernel=log_softmax_cluster_f16_c73728 algorithm=safe geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_cluster_f16_c131072 op=log_softmax kernel=log_softmax_cluster_f16_c131072 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=131072 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_cluster_f16_c262144 op=log_softmax kernel=log_softmax_cluster_f16_c262144 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_cluster_bf16_c65536 op=log_softmax kernel=log_softmax_cluster_bf16_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_cluster_bf16_c73728 op=log_softmax kernel=log_softmax_cluster_bf16_c73728 algorithm=safe geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_cluster_bf16_c131072 op=log_softmax kernel=log_softmax_cluster_bf16_c131072 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=131072 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_cluster_bf16_c262144 op=log_softmax kernel=log_softmax_cluster_bf16_c262144 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
#include "softmax.cuh"
#include "include/log_softmax.cuh"

#define LOG_SOFTMAX_CLUSTER(NAME, T, CLUSTER, THREADS, E)                                              \
    extern "C" __global__ void SH_CLUSTER_DIMS(CLUSTER) __launch_bounds__(THREADS)                     \
        NAME(const T* __restrict__ x, T* __restrict__ z, int n_rows, int n_cols) {                     \
        sh::log_softmax_cluster_rows<T, CLUSTER, THREADS, E>(x, z, n_cols);                            \
    }

LOG_SOFTMAX_CLUSTER(log_softmax_cluster_c65536, float, 8, 256, 32)
LOG_SOFTMAX_CLUSTER(log_softmax_cluster_c131072, float, 8, 512, 32)
LOG_SOFTMAX_CLUSTER(log_softmax_cluster_f16_c65536, sh::half_t, 8, 256, 32)
LOG_SOFTMAX_CLUSTER(log_softmax_cluster_f16_c73728, sh::half_t, 8, 288, 32)
LOG_SOFTMAX_CLUSTER(log_softmax_cluster_f16_c131072, sh::half_t, 8, 256, 64)
LOG_SOFTMAX_CLUSTER(log_softmax_cluster_f16_c262144, sh::half_t, 8, 512, 64)
LOG_SOFTMAX_CLUSTER(log_softmax_cluster_bf16_c65536, sh::bf16_t, 8, 256, 32)
LOG_SOFTMAX_CLUSTER(log_softmax_cluster_bf16_c73728, sh::bf16_t, 8, 288, 32)
LOG_SOFTMAX_CLUSTER(log_softmax_cluster_bf16_c131072, sh::bf16_t, 8, 256, 64)
LOG_SOFTMAX_CLUSTER(log_softmax_cluster_bf16_c262144, sh::bf16_t, 8, 512, 64)
