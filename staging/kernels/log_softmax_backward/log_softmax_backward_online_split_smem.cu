// log_softmax's 16-bit backward on the online split kernel (kernels/log_softmax_backward/
// log_softmax_backward_online_split.cu) with both stashes in dynamic shared memory, so that they
// pass the 48 KB a block that static shared memory allows: four blocks of 256 a multiprocessor as
// kernels/' own, each block's slice longer (S = 48: 14272 elements a block where 12224; S = 56:
// 16320; S a whole number of 16-byte chunks), a row of 2^20 over fewer blocks, more rows on the chip. The softmax backward's 16-bit
// split kernel holds 72 elements a thread and runs 0.97 of a copy at 2^20 where this one's 48 run
// 0.89 (run 0071, an H100); 16 elements a thread in registers spill here (8 bytes), so the stash
// grows. On 512-thread blocks (the same 48 a thread) it ran level or behind
// (reports/measurements/split_blocks_ops_h100.jsonl).
// @variant name=log_softmax_backward_online_split_f16_s56 op=log_softmax_backward kernel=log_softmax_backward_online_split_f16_s56 algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=16320 smem=57344 max_cols=1048576 dtypes=float16
// @variant name=log_softmax_backward_online_split_bf16_s48 op=log_softmax_backward kernel=log_softmax_backward_online_split_bf16_s48 algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=14272 smem=49152 max_cols=1048576 dtypes=bfloat16
// @variant name=log_softmax_backward_online_split_bf16_s56 op=log_softmax_backward kernel=log_softmax_backward_online_split_bf16_s56 algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=16320 smem=57344 max_cols=1048576 dtypes=bfloat16
#include "softmax.cuh"
#include "include/split_grad.cuh"

#define GRAD_ONLINE_SPLIT_DYNAMIC(NAME, G, T, THREADS, BLOCKS, E, S)                                       \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                          \
        NAME(GRAD_KERNEL_ARGS(T), unsigned* workspace, int parts) {                                        \
        extern __shared__ __align__(16) unsigned char dynamic[];                                           \
        T* stash = reinterpret_cast<T*>(dynamic);                                                          \
        split_rows<T, THREADS, E, S>(GradForm<T, G>{a, b, n_cols}, dx, n_rows, n_cols, workspace, parts,   \
                                     stash, stash + THREADS * S);                                          \
    }

GRAD_ONLINE_SPLIT_DYNAMIC(log_softmax_backward_online_split_f16_s56, sh::LogSoftmaxGrad, sh::half_t, 256, 4, 8, 56)
GRAD_ONLINE_SPLIT_DYNAMIC(log_softmax_backward_online_split_bf16_s48, sh::LogSoftmaxGrad, sh::bf16_t, 256, 4, 8, 48)
GRAD_ONLINE_SPLIT_DYNAMIC(log_softmax_backward_online_split_bf16_s56, sh::LogSoftmaxGrad, sh::bf16_t, 256, 4, 8, 56)
