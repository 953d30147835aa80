// Softmax backward for long 16-bit rows on Hopper: a row over a cluster of 8 blocks, each holding its
// slice of both inputs in registers (16-byte vectors, read once), the blocks' sums met in mailboxes
// (sh::grad_push_rows, include/grad_push.cuh), dx written from the registers. Sized to the row as
// the forward's push kernels (8 blocks of C / 256 threads of 32 elements, for 262144 of 512 of 64;
// 73728 for a misaligned 65535 with its shift). The 16-bit rows of 65535-2^20 run at 0.70-0.91 of a
// copy on the kernels the dispatcher takes now (runs 0029 and 0036). Needs sm_90 (min_sm=90).
//
// @variant name=backward_cluster_push_f16_c65536 op=softmax_backward kernel=backward_cluster_push_f16_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 dtypes=float16
// @variant name=backward_cluster_push_f16_c73728 op=softmax_backward kernel=backward_cluster_push_f16_c73728 algorithm=safe geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 dtypes=float16
// @variant name=backward_cluster_push_f16_c131072 op=softmax_backward kernel=backward_cluster_push_f16_c131072 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=8 dtypes=float16
// @variant name=backward_cluster_push_f16_c262144 op=softmax_backward kernel=backward_cluster_push_f16_c262144 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 dtypes=float16
// @variant name=backward_cluster_push_bf16_c65536 op=softmax_backward kernel=backward_cluster_push_bf16_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 dtypes=bfloat16
// @variant name=backward_cluster_push_bf16_c73728 op=softmax_backward kernel=backward_cluster_push_bf16_c73728 algorithm=safe geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 dtypes=bfloat16
// @variant name=backward_cluster_push_bf16_c131072 op=softmax_backward kernel=backward_cluster_push_bf16_c131072 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=8 dtypes=bfloat16
// @variant name=backward_cluster_push_bf16_c262144 op=softmax_backward kernel=backward_cluster_push_bf16_c262144 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 dtypes=bfloat16
#include "softmax.cuh"
#include "include/grad_push.cuh"

GRAD_PUSH(backward_cluster_push_f16_c65536, sh::SoftmaxGrad, sh::half_t, 8, 256, 32)
GRAD_PUSH(backward_cluster_push_f16_c73728, sh::SoftmaxGrad, sh::half_t, 8, 288, 32)
GRAD_PUSH(backward_cluster_push_f16_c131072, sh::SoftmaxGrad, sh::half_t, 8, 512, 32)
GRAD_PUSH(backward_cluster_push_f16_c262144, sh::SoftmaxGrad, sh::half_t, 8, 512, 64)
GRAD_PUSH(backward_cluster_push_bf16_c65536, sh::SoftmaxGrad, sh::bf16_t, 8, 256, 32)
GRAD_PUSH(backward_cluster_push_bf16_c73728, sh::SoftmaxGrad, sh::bf16_t, 8, 288, 32)
GRAD_PUSH(backward_cluster_push_bf16_c131072, sh::SoftmaxGrad, sh::bf16_t, 8, 512, 32)
GRAD_PUSH(backward_cluster_push_bf16_c262144, sh::SoftmaxGrad, sh::bf16_t, 8, 512, 64)
