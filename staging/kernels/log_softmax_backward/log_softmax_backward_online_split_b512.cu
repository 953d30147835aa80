// log_softmax's 16-bit backward on the online split kernel (kernels/log_softmax_backward/
// log_softmax_backward_online_split.cu) on blocks of 512 threads, two a multiprocessor: the same
// threads and registers a multiprocessor as four blocks of 256, each block's slice twice as long,
// so that a row of 2^20 meets over 43 blocks where it met over 86. The bias form's split kernel so
// ran ahead at 75001-245759 and 2^20 on an H100 (reports/measurements/split_blocks_h100.jsonl);
// this one ran 0.888-0.891 of a copy at 2^20 there (run 0071). Both stashes, 80 KB a block, in
// dynamic shared memory.
// @variant name=log_softmax_backward_online_split_f16_b512 op=log_softmax_backward kernel=log_softmax_backward_online_split_f16_b512 algorithm=safe geometry=split-row threads=512 blocks_per_sm=2 tile=24512 smem=81920 max_cols=1048576 dtypes=float16
// @variant name=log_softmax_backward_online_split_bf16_b512 op=log_softmax_backward kernel=log_softmax_backward_online_split_bf16_b512 algorithm=safe geometry=split-row threads=512 blocks_per_sm=2 tile=24512 smem=81920 max_cols=1048576 dtypes=bfloat16
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

GRAD_ONLINE_SPLIT_DYNAMIC(log_softmax_backward_online_split_f16_b512, sh::LogSoftmaxGrad, sh::half_t, 512, 2, 8, 40)
GRAD_ONLINE_SPLIT_DYNAMIC(log_softmax_backward_online_split_bf16_b512, sh::LogSoftmaxGrad, sh::bf16_t, 512, 2, 8, 40)
