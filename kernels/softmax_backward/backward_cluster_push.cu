// Softmax backward for long 16-bit rows on Hopper: a row over a cluster of 8 blocks, each holding its
// slice of both inputs in registers (16-byte vectors, read once), the blocks' sums met in mailboxes
// (sh::grad_push_rows, include/grad_push.cuh), dx written from the registers. Sized to the row as
// the forward's push kernels (8 blocks of C / 256 threads of 32 elements, for 262144 of 512 of 64).
// The dispatcher takes the sizes 65536 and 73728 for aligned rows of 53248-73728, 1.00-1.04 of a
// copy against the online split kernel's 0.96-0.99. The size 131072 ran behind it (0.70-0.78
// against 0.97-0.99), the size 262144 too at 229376 (0.91-0.92 against 0.97) and level at 262144
// itself (0.97-0.98), and so did a misaligned row, its loads element by element (0.64-0.70 at 65535
// against 0.91-0.92): reports/measurements/push_ops.jsonl. Needs sm_90 (min_sm=90).
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
