// The fused forms (bias, mask, causal) for long 16-bit rows on Hopper: a row over a cluster of 8
// blocks, each forming its slice's logits once from registers (read once), the blocks' (max, sum)
// states met in mailboxes (sh::scaled_push_rows, include/scaled_push.cuh), y written from the
// registers. Sized as the forward's push kernels (8 blocks of C / 256 threads of 32 elements, for
// 262144 of 512 of 64). The dispatcher takes the bias form's for aligned rows of 40960-73728,
// 98304-131072 and 245760-262144 (0.65-1.04 of a copy against 0.63-0.89 on the barrier cluster and
// the online split kernels). The mask and causal forms' were ahead of the online split kernel only
// at their sizes' own lengths (mask at 73728: 0.76 against 0.70; causal at 65536 and 73728: by
// 0.015-0.02) and behind it elsewhere (0.15-0.71 against 0.67-0.79), and a misaligned row on any of
// them (0.25-0.68 at 65535 against 0.67-0.74): reports/measurements/push_ops.jsonl.
// Needs sm_90 (min_sm=90).
//
// @variant name=scaled_bias_cluster_push_f16_c65536 op=scaled_softmax_bias kernel=scaled_bias_cluster_push_f16_c65536 algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_cluster_push_f16_c73728 op=scaled_softmax_bias kernel=scaled_bias_cluster_push_f16_c73728 algorithm=online geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_cluster_push_f16_c131072 op=scaled_softmax_bias kernel=scaled_bias_cluster_push_f16_c131072 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_cluster_push_f16_c262144 op=scaled_softmax_bias kernel=scaled_bias_cluster_push_f16_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_cluster_push_bf16_c65536 op=scaled_softmax_bias kernel=scaled_bias_cluster_push_bf16_c65536 algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_bias_cluster_push_bf16_c73728 op=scaled_softmax_bias kernel=scaled_bias_cluster_push_bf16_c73728 algorithm=online geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_bias_cluster_push_bf16_c131072 op=scaled_softmax_bias kernel=scaled_bias_cluster_push_bf16_c131072 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_bias_cluster_push_bf16_c262144 op=scaled_softmax_bias kernel=scaled_bias_cluster_push_bf16_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_cluster_push_f16_c65536 op=scaled_softmax_mask kernel=scaled_mask_cluster_push_f16_c65536 algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_cluster_push_f16_c73728 op=scaled_softmax_mask kernel=scaled_mask_cluster_push_f16_c73728 algorithm=online geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_cluster_push_f16_c131072 op=scaled_softmax_mask kernel=scaled_mask_cluster_push_f16_c131072 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_cluster_push_f16_c262144 op=scaled_softmax_mask kernel=scaled_mask_cluster_push_f16_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_cluster_push_bf16_c65536 op=scaled_softmax_mask kernel=scaled_mask_cluster_push_bf16_c65536 algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_cluster_push_bf16_c73728 op=scaled_softmax_mask kernel=scaled_mask_cluster_push_bf16_c73728 algorithm=online geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_cluster_push_bf16_c131072 op=scaled_softmax_mask kernel=scaled_mask_cluster_push_bf16_c131072 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_cluster_push_bf16_c262144 op=scaled_softmax_mask kernel=scaled_mask_cluster_push_bf16_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_cluster_push_f16_c65536 op=scaled_softmax_causal kernel=scaled_causal_cluster_push_f16_c65536 algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_cluster_push_f16_c73728 op=scaled_softmax_causal kernel=scaled_causal_cluster_push_f16_c73728 algorithm=online geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_cluster_push_f16_c131072 op=scaled_softmax_causal kernel=scaled_causal_cluster_push_f16_c131072 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_cluster_push_f16_c262144 op=scaled_softmax_causal kernel=scaled_causal_cluster_push_f16_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_cluster_push_bf16_c65536 op=scaled_softmax_causal kernel=scaled_causal_cluster_push_bf16_c65536 algorithm=online geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_cluster_push_bf16_c73728 op=scaled_softmax_causal kernel=scaled_causal_cluster_push_bf16_c73728 algorithm=online geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_cluster_push_bf16_c131072 op=scaled_softmax_causal kernel=scaled_causal_cluster_push_bf16_c131072 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_cluster_push_bf16_c262144 op=scaled_softmax_causal kernel=scaled_causal_cluster_push_bf16_c262144 algorithm=online geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
#include "softmax.cuh"
#include "include/scaled_push.cuh"

SCALED_PUSH(scaled_bias_cluster_push_f16_c65536, bias, sh::half_t, 8, 256, 32)
SCALED_PUSH(scaled_bias_cluster_push_f16_c73728, bias, sh::half_t, 8, 288, 32)
SCALED_PUSH(scaled_bias_cluster_push_f16_c131072, bias, sh::half_t, 8, 512, 32)
SCALED_PUSH(scaled_bias_cluster_push_f16_c262144, bias, sh::half_t, 8, 512, 64)
SCALED_PUSH(scaled_bias_cluster_push_bf16_c65536, bias, sh::bf16_t, 8, 256, 32)
SCALED_PUSH(scaled_bias_cluster_push_bf16_c73728, bias, sh::bf16_t, 8, 288, 32)
SCALED_PUSH(scaled_bias_cluster_push_bf16_c131072, bias, sh::bf16_t, 8, 512, 32)
SCALED_PUSH(scaled_bias_cluster_push_bf16_c262144, bias, sh::bf16_t, 8, 512, 64)
SCALED_PUSH(scaled_mask_cluster_push_f16_c65536, mask, sh::half_t, 8, 256, 32)
SCALED_PUSH(scaled_mask_cluster_push_f16_c73728, mask, sh::half_t, 8, 288, 32)
SCALED_PUSH(scaled_mask_cluster_push_f16_c131072, mask, sh::half_t, 8, 512, 32)
SCALED_PUSH(scaled_mask_cluster_push_f16_c262144, mask, sh::half_t, 8, 512, 64)
SCALED_PUSH(scaled_mask_cluster_push_bf16_c65536, mask, sh::bf16_t, 8, 256, 32)
SCALED_PUSH(scaled_mask_cluster_push_bf16_c73728, mask, sh::bf16_t, 8, 288, 32)
SCALED_PUSH(scaled_mask_cluster_push_bf16_c131072, mask, sh::bf16_t, 8, 512, 32)
SCALED_PUSH(scaled_mask_cluster_push_bf16_c262144, mask, sh::bf16_t, 8, 512, 64)
SCALED_PUSH(scaled_causal_cluster_push_f16_c65536, causal, sh::half_t, 8, 256, 32)
SCALED_PUSH(scaled_causal_cluster_push_f16_c73728, causal, sh::half_t, 8, 288, 32)
SCALED_PUSH(scaled_causal_cluster_push_f16_c131072, causal, sh::half_t, 8, 512, 32)
SCALED_PUSH(scaled_causal_cluster_push_f16_c262144, causal, sh::half_t, 8, 512, 64)
SCALED_PUSH(scaled_causal_cluster_push_bf16_c65536, causal, sh::bf16_t, 8, 256, 32)
SCALED_PUSH(scaled_causal_cluster_push_bf16_c73728, causal, sh::bf16_t, 8, 288, 32)
SCALED_PUSH(scaled_causal_cluster_push_bf16_c131072, causal, sh::bf16_t, 8, 512, 32)
SCALED_PUSH(scaled_causal_cluster_push_bf16_c262144, causal, sh::bf16_t, 8, 512, 64)
