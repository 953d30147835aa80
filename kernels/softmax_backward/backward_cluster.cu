// Softmax backward for long rows on Hopper: a row over a thread-block cluster of 8, each block
// holding its slice of y and dy in registers (sh::grad_cluster_rows: 16-byte vectors, read once;
// the blocks' sums added as a tree through distributed shared memory, the same s in every block,
// bitwise), dx written from the registers. A kernel a row size: a row much shorter than the
// cluster's tile leaves most lanes idle (reports/measurements/backward_cluster_ab.json).
// Needs sm_90 (min_sm=90): on older GPUs the kernel traps and the dispatcher takes the block.
//
// The 16-bit sizes 73728 (288 threads) and 262144 (512 threads of 64): a misaligned row of
// 65535 and its shift overflow the 8 x 8192 tiles sized 65536, which then read element by element
// (reports/measurements/cluster_misaligned_65535.jsonl); vocabularies of 151936-262144 go to the
// block, which reads them two or three times.
//
// @variant name=backward_cluster_c32768 op=softmax_backward kernel=backward_cluster_c32768 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=32768 min_sm=90 vector=4
// @variant name=backward_cluster_c65536 op=softmax_backward kernel=backward_cluster_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=4
// @variant name=backward_cluster_c131072 op=softmax_backward kernel=backward_cluster_c131072 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=4
// @variant name=backward_cluster_f16_c65536 op=softmax_backward kernel=backward_cluster_f16_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 dtypes=float16
// @variant name=backward_cluster_f16_c73728 op=softmax_backward kernel=backward_cluster_f16_c73728 algorithm=safe geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 dtypes=float16
// @variant name=backward_cluster_f16_c131072 op=softmax_backward kernel=backward_cluster_f16_c131072 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=131072 min_sm=90 vector=8 dtypes=float16
// @variant name=backward_cluster_f16_c262144 op=softmax_backward kernel=backward_cluster_f16_c262144 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 dtypes=float16
// @variant name=backward_cluster_bf16_c65536 op=softmax_backward kernel=backward_cluster_bf16_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 dtypes=bfloat16
// @variant name=backward_cluster_bf16_c73728 op=softmax_backward kernel=backward_cluster_bf16_c73728 algorithm=safe geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 dtypes=bfloat16
// @variant name=backward_cluster_bf16_c131072 op=softmax_backward kernel=backward_cluster_bf16_c131072 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=131072 min_sm=90 vector=8 dtypes=bfloat16
// @variant name=backward_cluster_bf16_c262144 op=softmax_backward kernel=backward_cluster_bf16_c262144 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 dtypes=bfloat16
#include "softmax.cuh"
#include "include/backward.cuh"

GRAD_CLUSTER(backward_cluster_c32768, sh::SoftmaxGrad, float, 8, 256, 16)
GRAD_CLUSTER(backward_cluster_c65536, sh::SoftmaxGrad, float, 8, 256, 32)
GRAD_CLUSTER(backward_cluster_c131072, sh::SoftmaxGrad, float, 8, 512, 32)
GRAD_CLUSTER(backward_cluster_f16_c65536, sh::SoftmaxGrad, sh::half_t, 8, 256, 32)
GRAD_CLUSTER(backward_cluster_f16_c73728, sh::SoftmaxGrad, sh::half_t, 8, 288, 32)
GRAD_CLUSTER(backward_cluster_f16_c131072, sh::SoftmaxGrad, sh::half_t, 8, 256, 64)
GRAD_CLUSTER(backward_cluster_f16_c262144, sh::SoftmaxGrad, sh::half_t, 8, 512, 64)
GRAD_CLUSTER(backward_cluster_bf16_c65536, sh::SoftmaxGrad, sh::bf16_t, 8, 256, 32)
GRAD_CLUSTER(backward_cluster_bf16_c73728, sh::SoftmaxGrad, sh::bf16_t, 8, 288, 32)
GRAD_CLUSTER(backward_cluster_bf16_c131072, sh::SoftmaxGrad, sh::bf16_t, 8, 256, 64)
GRAD_CLUSTER(backward_cluster_bf16_c262144, sh::SoftmaxGrad, sh::bf16_t, 8, 512, 64)
