// The fused forward of long rows on Hopper: a row over a thread-block cluster of 8, each block
// holding its slice of x (and of the bias or mask) in registers (sh::scaled_cluster_rows: read
// once; the maximum and the sum each combined over the blocks through distributed shared
// memory), y written from the registers with the tiles' fast arithmetic. A kernel a row size, as
// the backwards' cluster kernels. Needs sm_90 (min_sm=90): on older GPUs the kernel traps and
// the dispatcher takes the block.
//
// The 16-bit sizes 73728 (288 threads) and 262144 (512 threads of 64): a misaligned row of
// 65535 and its shift overflow the 8 x 8192 tiles sized 65536, which then read element by element
// (reports/measurements/cluster_misaligned_65535.jsonl); vocabularies of 151936-262144 go to the
// block, which reads them two or three times.
//
// @variant name=scaled_bias_cluster_c32768 op=scaled_softmax_bias kernel=scaled_bias_cluster_c32768 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=32768 min_sm=90 vector=4 fast_math=true exp=ex2
// @variant name=scaled_bias_cluster_c65536 op=scaled_softmax_bias kernel=scaled_bias_cluster_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=4 fast_math=true exp=ex2
// @variant name=scaled_bias_cluster_c131072 op=scaled_softmax_bias kernel=scaled_bias_cluster_c131072 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=4 fast_math=true exp=ex2
// @variant name=scaled_bias_cluster_f16_c32768 op=scaled_softmax_bias kernel=scaled_bias_cluster_f16_c32768 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=32768 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_cluster_f16_c65536 op=scaled_softmax_bias kernel=scaled_bias_cluster_f16_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_cluster_f16_c73728 op=scaled_softmax_bias kernel=scaled_bias_cluster_f16_c73728 algorithm=safe geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_cluster_f16_c131072 op=scaled_softmax_bias kernel=scaled_bias_cluster_f16_c131072 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=131072 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_cluster_f16_c262144 op=scaled_softmax_bias kernel=scaled_bias_cluster_f16_c262144 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_cluster_bf16_c32768 op=scaled_softmax_bias kernel=scaled_bias_cluster_bf16_c32768 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=32768 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_bias_cluster_bf16_c65536 op=scaled_softmax_bias kernel=scaled_bias_cluster_bf16_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_bias_cluster_bf16_c73728 op=scaled_softmax_bias kernel=scaled_bias_cluster_bf16_c73728 algorithm=safe geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_bias_cluster_bf16_c131072 op=scaled_softmax_bias kernel=scaled_bias_cluster_bf16_c131072 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=131072 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_bias_cluster_bf16_c262144 op=scaled_softmax_bias kernel=scaled_bias_cluster_bf16_c262144 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_cluster_c32768 op=scaled_softmax_mask kernel=scaled_mask_cluster_c32768 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=32768 min_sm=90 vector=4 fast_math=true exp=ex2
// @variant name=scaled_mask_cluster_c65536 op=scaled_softmax_mask kernel=scaled_mask_cluster_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=4 fast_math=true exp=ex2
// @variant name=scaled_mask_cluster_c131072 op=scaled_softmax_mask kernel=scaled_mask_cluster_c131072 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=4 fast_math=true exp=ex2
// @variant name=scaled_mask_cluster_f16_c32768 op=scaled_softmax_mask kernel=scaled_mask_cluster_f16_c32768 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=32768 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_cluster_f16_c65536 op=scaled_softmax_mask kernel=scaled_mask_cluster_f16_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_cluster_f16_c73728 op=scaled_softmax_mask kernel=scaled_mask_cluster_f16_c73728 algorithm=safe geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_cluster_f16_c131072 op=scaled_softmax_mask kernel=scaled_mask_cluster_f16_c131072 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=131072 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_cluster_f16_c262144 op=scaled_softmax_mask kernel=scaled_mask_cluster_f16_c262144 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_cluster_bf16_c32768 op=scaled_softmax_mask kernel=scaled_mask_cluster_bf16_c32768 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=32768 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_cluster_bf16_c65536 op=scaled_softmax_mask kernel=scaled_mask_cluster_bf16_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_cluster_bf16_c73728 op=scaled_softmax_mask kernel=scaled_mask_cluster_bf16_c73728 algorithm=safe geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_cluster_bf16_c131072 op=scaled_softmax_mask kernel=scaled_mask_cluster_bf16_c131072 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=131072 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_cluster_bf16_c262144 op=scaled_softmax_mask kernel=scaled_mask_cluster_bf16_c262144 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_cluster_c32768 op=scaled_softmax_causal kernel=scaled_causal_cluster_c32768 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=32768 min_sm=90 vector=4 fast_math=true exp=ex2
// @variant name=scaled_causal_cluster_c65536 op=scaled_softmax_causal kernel=scaled_causal_cluster_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=4 fast_math=true exp=ex2
// @variant name=scaled_causal_cluster_c131072 op=scaled_softmax_causal kernel=scaled_causal_cluster_c131072 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=131072 min_sm=90 vector=4 fast_math=true exp=ex2
// @variant name=scaled_causal_cluster_f16_c32768 op=scaled_softmax_causal kernel=scaled_causal_cluster_f16_c32768 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=32768 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_cluster_f16_c65536 op=scaled_softmax_causal kernel=scaled_causal_cluster_f16_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_cluster_f16_c73728 op=scaled_softmax_causal kernel=scaled_causal_cluster_f16_c73728 algorithm=safe geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_cluster_f16_c131072 op=scaled_softmax_causal kernel=scaled_causal_cluster_f16_c131072 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=131072 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_cluster_f16_c262144 op=scaled_softmax_causal kernel=scaled_causal_cluster_f16_c262144 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_cluster_bf16_c32768 op=scaled_softmax_causal kernel=scaled_causal_cluster_bf16_c32768 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=32768 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_cluster_bf16_c65536 op=scaled_softmax_causal kernel=scaled_causal_cluster_bf16_c65536 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=65536 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_cluster_bf16_c73728 op=scaled_softmax_causal kernel=scaled_causal_cluster_bf16_c73728 algorithm=safe geometry=cluster-per-row threads=288 cluster=8 max_cols=73728 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_cluster_bf16_c131072 op=scaled_softmax_causal kernel=scaled_causal_cluster_bf16_c131072 algorithm=safe geometry=cluster-per-row threads=256 cluster=8 max_cols=131072 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_cluster_bf16_c262144 op=scaled_softmax_causal kernel=scaled_causal_cluster_bf16_c262144 algorithm=safe geometry=cluster-per-row threads=512 cluster=8 max_cols=262144 min_sm=90 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
#include "softmax.cuh"
#include "include/scaled.cuh"

SCALED_CLUSTER(scaled_bias_cluster_c32768, bias, float, 8, 256, 16)
SCALED_CLUSTER(scaled_bias_cluster_c65536, bias, float, 8, 256, 32)
SCALED_CLUSTER(scaled_bias_cluster_c131072, bias, float, 8, 512, 32)
SCALED_CLUSTER(scaled_bias_cluster_f16_c32768, bias, sh::half_t, 8, 256, 16)
SCALED_CLUSTER(scaled_bias_cluster_f16_c65536, bias, sh::half_t, 8, 256, 32)
SCALED_CLUSTER(scaled_bias_cluster_f16_c73728, bias, sh::half_t, 8, 288, 32)
SCALED_CLUSTER(scaled_bias_cluster_f16_c131072, bias, sh::half_t, 8, 256, 64)
SCALED_CLUSTER(scaled_bias_cluster_f16_c262144, bias, sh::half_t, 8, 512, 64)
SCALED_CLUSTER(scaled_bias_cluster_bf16_c32768, bias, sh::bf16_t, 8, 256, 16)
SCALED_CLUSTER(scaled_bias_cluster_bf16_c65536, bias, sh::bf16_t, 8, 256, 32)
SCALED_CLUSTER(scaled_bias_cluster_bf16_c73728, bias, sh::bf16_t, 8, 288, 32)
SCALED_CLUSTER(scaled_bias_cluster_bf16_c131072, bias, sh::bf16_t, 8, 256, 64)
SCALED_CLUSTER(scaled_bias_cluster_bf16_c262144, bias, sh::bf16_t, 8, 512, 64)
SCALED_CLUSTER(scaled_mask_cluster_c32768, mask, float, 8, 256, 16)
SCALED_CLUSTER(scaled_mask_cluster_c65536, mask, float, 8, 256, 32)
SCALED_CLUSTER(scaled_mask_cluster_c131072, mask, float, 8, 512, 32)
SCALED_CLUSTER(scaled_mask_cluster_f16_c32768, mask, sh::half_t, 8, 256, 16)
SCALED_CLUSTER(scaled_mask_cluster_f16_c65536, mask, sh::half_t, 8, 256, 32)
SCALED_CLUSTER(scaled_mask_cluster_f16_c73728, mask, sh::half_t, 8, 288, 32)
SCALED_CLUSTER(scaled_mask_cluster_f16_c131072, mask, sh::half_t, 8, 256, 64)
SCALED_CLUSTER(scaled_mask_cluster_f16_c262144, mask, sh::half_t, 8, 512, 64)
SCALED_CLUSTER(scaled_mask_cluster_bf16_c32768, mask, sh::bf16_t, 8, 256, 16)
SCALED_CLUSTER(scaled_mask_cluster_bf16_c65536, mask, sh::bf16_t, 8, 256, 32)
SCALED_CLUSTER(scaled_mask_cluster_bf16_c73728, mask, sh::bf16_t, 8, 288, 32)
SCALED_CLUSTER(scaled_mask_cluster_bf16_c131072, mask, sh::bf16_t, 8, 256, 64)
SCALED_CLUSTER(scaled_mask_cluster_bf16_c262144, mask, sh::bf16_t, 8, 512, 64)
SCALED_CLUSTER(scaled_causal_cluster_c32768, causal, float, 8, 256, 16)
SCALED_CLUSTER(scaled_causal_cluster_c65536, causal, float, 8, 256, 32)
SCALED_CLUSTER(scaled_causal_cluster_c131072, causal, float, 8, 512, 32)
SCALED_CLUSTER(scaled_causal_cluster_f16_c32768, causal, sh::half_t, 8, 256, 16)
SCALED_CLUSTER(scaled_causal_cluster_f16_c65536, causal, sh::half_t, 8, 256, 32)
SCALED_CLUSTER(scaled_causal_cluster_f16_c73728, causal, sh::half_t, 8, 288, 32)
SCALED_CLUSTER(scaled_causal_cluster_f16_c131072, causal, sh::half_t, 8, 256, 64)
SCALED_CLUSTER(scaled_causal_cluster_f16_c262144, causal, sh::half_t, 8, 512, 64)
SCALED_CLUSTER(scaled_causal_cluster_bf16_c32768, causal, sh::bf16_t, 8, 256, 16)
SCALED_CLUSTER(scaled_causal_cluster_bf16_c65536, causal, sh::bf16_t, 8, 256, 32)
SCALED_CLUSTER(scaled_causal_cluster_bf16_c73728, causal, sh::bf16_t, 8, 288, 32)
SCALED_CLUSTER(scaled_causal_cluster_bf16_c131072, causal, sh::bf16_t, 8, 256, 64)
SCALED_CLUSTER(scaled_causal_cluster_bf16_c262144, causal, sh::bf16_t, 8, 512, 64)
