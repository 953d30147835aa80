// log_softmax's backward for long 16-bit rows on Hopper: a row over a cluster of 8 blocks, each holding its
// slice of both inputs in registers (16-byte vectors, read once), the blocks' sums met in mailboxes
// (sh::grad_push_rows, include/grad_push.cuh), dx written from the registers. Sized to the row as
// the forward's push kernels (8 blocks of C / 256 threads of 32 elements, for 262144 of 512 of 64).
// The dispatcher takes the sizes 65536 and 73728 for aligned rows of 57345-65536 and 71681-73728,
// 1.03 and 0.95 of a copy at those sizes against the online split kernel's 0.91 and 0.89; the sizes
// 131072 and 262144 ran behind it (0.61-0.84 against 0.88-0.92), and a misaligned row too (0.60-0.65
// at 65535 against 0.79-0.80): reports/measurements/push_ops.jsonl. Needs sm_90 (min_sm=90).
//
// @variant name=log_softmax_backward_cluster_push_f16_c65536 op=log_softmax_backward kernel=log_softmax_backward_cluster_push_f16_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 dtypes=float16
// @variant name=log_softmax_backward_cluster_push_f16_c73728 op=log_softmax_backward kernel=log_softmax_backward_cluster_push_f16_c73728 algorithm=safe geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 dtypes=float16
// @variant name=log_softmax_backward_cluster_push_f16_c131072 op=log_softmax_backward kernel=log_softmax_backward_cluster_push_f16_c131072 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=8 dtypes=float16
// @variant name=log_softmax_backward_cluster_push_f16_c262144 op=log_softmax_backward kernel=log_softmax_backward_cluster_push_f16_c262144 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 dtypes=float16
// @variant name=log_softmax_backward_cluster_push_bf16_c65536 op=log_softmax_backward kernel=log_softmax_backward_cluster_push_bf16_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 dtypes=bfloat16
// @variant name=log_softmax_backward_cluster_push_bf16_c73728 op=log_softmax_backward kernel=log_softmax_backward_cluster_push_bf16_c73728 algorithm=safe geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 dtypes=bfloat16
// @variant name=log_softmax_backward_cluster_push_bf16_c131072 op=log_softmax_backward kernel=log_softmax_backward_cluster_push_bf16_c131072 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=8 dtypes=bfloat16
// @variant name=log_softmax_backward_cluster_push_bf16_c262144 op=log_softmax_backward kernel=log_softmax_backward_cluster_push_bf16_c262144 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 dtypes=bfloat16
#include "softmax.cuh"
#include "include/grad_push.cuh"

GRAD_PUSH(log_softmax_backward_cluster_push_f16_c65536, sh::LogSoftmaxGrad, sh::half_t, 8, 256, 32)
GRAD_PUSH(log_softmax_backward_cluster_push_f16_c73728, sh::LogSoftmaxGrad, sh::half_t, 8, 288, 32)
GRAD_PUSH(log_softmax_backward_cluster_push_f16_c131072, sh::LogSoftmaxGrad, sh::half_t, 8, 512, 32)
GRAD_PUSH(log_softmax_backward_cluster_push_f16_c262144, sh::LogSoftmaxGrad, sh::half_t, 8, 512, 64)
GRAD_PUSH(log_softmax_backward_cluster_push_bf16_c65536, sh::LogSoftmaxGrad, sh::bf16_t, 8, 256, 32)
GRAD_PUSH(log_softmax_backward_cluster_push_bf16_c73728, sh::LogSoftmaxGrad, sh::bf16_t, 8, 288, 32)
GRAD_PUSH(log_softmax_backward_cluster_push_bf16_c131072, sh::LogSoftmaxGrad, sh::bf16_t, 8, 512, 32)
GRAD_PUSH(log_softmax_backward_cluster_push_bf16_c262144, sh::LogSoftmaxGrad, sh::bf16_t, 8, 512, 64)
