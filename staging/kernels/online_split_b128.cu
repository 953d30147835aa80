// The 16-bit online split kernels below 0.90 of a copy on the H100 (run 0055: the bias and mask
// forms at a misaligned 65535 and at 2^20, 0.79-0.83; log_softmax's backward at 2^20, 0.89), on
// blocks of 128 threads, eight a multiprocessor, each thread holding what kernels/' 256-thread
// blocks' do: the same threads and bytes a multiprocessor in twice the blocks, each a slice half
// as long. Nsight Compute had kernels/' bias and mask forms stalled on their loads 46-48% of the
// time at four blocks a multiprocessor, 72-77% of the DRAM's throughput
// (reports/measurements/ncu_scaled_bias_online_split_bf16_65535_h100.txt): a block's loads are
// in flight only until its slice is in, then it folds, meets its group and writes; with blocks
// half as long, twice as many are at their loads at any time.
// @variant name=scaled_bias_online_split_bf16_b128 op=scaled_softmax_bias kernel=scaled_bias_online_split_bf16_b128 algorithm=online geometry=split-row threads=128 blocks_per_sm=8 tile=7104 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=scaled_mask_online_split_bf16_b128 op=scaled_softmax_mask kernel=scaled_mask_online_split_bf16_b128 algorithm=online geometry=split-row threads=128 blocks_per_sm=8 tile=11200 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=log_softmax_backward_online_split_bf16_b128 op=log_softmax_backward kernel=log_softmax_backward_online_split_bf16_b128 algorithm=safe geometry=split-row threads=128 blocks_per_sm=8 tile=6080 max_cols=1048576 dtypes=bfloat16
#include "softmax.cuh"
#include "include/scaled_split.cuh"
#include "include/split_grad.cuh"

SCALED_ONLINE_SPLIT_bias(scaled_bias_online_split_bf16_b128, sh::bf16_t, 128, 8, 16, 40)
SCALED_ONLINE_SPLIT_mask(scaled_mask_online_split_bf16_b128, sh::bf16_t, 128, 8, 32, 56)
GRAD_ONLINE_SPLIT(log_softmax_backward_online_split_bf16_b128, sh::LogSoftmaxGrad, sh::bf16_t, 128, 8, 8, 40)
