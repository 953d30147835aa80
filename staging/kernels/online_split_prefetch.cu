// The 16-bit online split kernels below 0.90 of a copy on the H100 (run 0055: the bias and mask
// forms at a misaligned 65535 and at 2^20, 0.78-0.83; log_softmax's backward at 2^20, 0.89), with
// the next row's register part (_pf1) or whole slice (_pf2) asked of the L2 as soon as the group's
// meeting names it (staged include/split_row.cuh's PREFETCH): a block's loads are in flight only
// until its slice is in, then it folds, meets and writes (Nsight Compute: stalled on its loads
// 46-48% of the time, 72-77% of the DRAM's throughput, four blocks a multiprocessor); the
// prefetch keeps the DRAM busy under the writes. Geometry and tiles as kernels/' namesakes.
// @variant name=scaled_bias_online_split_bf16_pf1 op=scaled_softmax_bias kernel=scaled_bias_online_split_bf16_pf1 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=14272 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=scaled_bias_online_split_bf16_pf2 op=scaled_softmax_bias kernel=scaled_bias_online_split_bf16_pf2 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=14272 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=scaled_mask_online_split_bf16_pf1 op=scaled_softmax_mask kernel=scaled_mask_online_split_bf16_pf1 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=22464 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=scaled_mask_online_split_bf16_pf2 op=scaled_softmax_mask kernel=scaled_mask_online_split_bf16_pf2 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=22464 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=log_softmax_backward_online_split_bf16_pf1 op=log_softmax_backward kernel=log_softmax_backward_online_split_bf16_pf1 algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=12224 max_cols=1048576 dtypes=bfloat16
// @variant name=log_softmax_backward_online_split_bf16_pf2 op=log_softmax_backward kernel=log_softmax_backward_online_split_bf16_pf2 algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=12224 max_cols=1048576 dtypes=bfloat16
#include "softmax.cuh"
#include "include/scaled_split.cuh"
#include "include/split_grad.cuh"

#define BIAS_PREFETCH(NAME, PF)                                                                              \
    extern "C" __global__ void __launch_bounds__(256, 4)                                                     \
        NAME(SCALED_ARGS_bias(sh::bf16_t), unsigned* workspace, int parts) {                                 \
        __shared__ __align__(16) sh::bf16_t stash[256 * 40];                                                 \
        __shared__ __align__(16) sh::bf16_t bias_stash[256 * 40];                                            \
        split_rows<sh::bf16_t, 256, 16, 40, PF>(BiasForm<sh::bf16_t>{x, second, n_cols, scale}, y, n_rows,   \
                                                n_cols, workspace, parts, stash, bias_stash);                \
    }
#define MASK_PREFETCH(NAME, PF)                                                                              \
    extern "C" __global__ void __launch_bounds__(256, 4)                                                     \
        NAME(SCALED_ARGS_mask(sh::bf16_t), unsigned* workspace, int parts) {                                 \
        __shared__ __align__(16) sh::bf16_t stash[256 * 56];                                                 \
        __shared__ __align__(16) unsigned char bytes[256 * 56];                                              \
        split_rows<sh::bf16_t, 256, 32, 56, PF>(MaskedForm<sh::bf16_t, true>{x, second, n_cols, scale}, y,   \
                                                n_rows, n_cols, workspace, parts, stash, bytes);             \
    }
#define LSM_GRAD_PREFETCH(NAME, PF)                                                                          \
    extern "C" __global__ void __launch_bounds__(256, 4)                                                     \
        NAME(GRAD_KERNEL_ARGS(sh::bf16_t), unsigned* workspace, int parts) {                                 \
        __shared__ __align__(16) sh::bf16_t stash[256 * 40];                                                 \
        __shared__ __align__(16) sh::bf16_t dy_stash[256 * 40];                                              \
        split_rows<sh::bf16_t, 256, 8, 40, PF>(GradForm<sh::bf16_t, sh::LogSoftmaxGrad>{a, b, n_cols}, dx,   \
                                               n_rows, n_cols, workspace, parts, stash, dy_stash);           \
    }

BIAS_PREFETCH(scaled_bias_online_split_bf16_pf1, 1)
BIAS_PREFETCH(scaled_bias_online_split_bf16_pf2, 2)
MASK_PREFETCH(scaled_mask_online_split_bf16_pf1, 1)
MASK_PREFETCH(scaled_mask_online_split_bf16_pf2, 2)
LSM_GRAD_PREFETCH(log_softmax_backward_online_split_bf16_pf1, 1)
LSM_GRAD_PREFETCH(log_softmax_backward_online_split_bf16_pf2, 2)
