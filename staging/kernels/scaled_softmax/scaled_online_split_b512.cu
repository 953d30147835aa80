// The fused forms' 16-bit online split kernels (kernels/scaled_softmax/scaled_online_split.cu) on
// blocks of 512 threads, two a multiprocessor: the same threads and registers a multiprocessor as
// four blocks of 256, each block's slice twice as long, so that a row of 2^20 meets over 37 blocks
// where it met over 74 (the mask form: 23 where 47), half the blocks waiting on the slowest of
// their group a row. Their stashes, past the 48 KB of a block's static shared memory, are dynamic.
// @variant name=scaled_bias_online_split_f16_b512 op=scaled_softmax_bias kernel=scaled_bias_online_split_f16_b512 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=28608 smem=81920 max_cols=1048576 dtypes=float16 fast_math=true exp=folded
// @variant name=scaled_bias_online_split_bf16_b512 op=scaled_softmax_bias kernel=scaled_bias_online_split_bf16_b512 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=28608 smem=81920 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=scaled_mask_online_split_f16_b512 op=scaled_softmax_mask kernel=scaled_mask_online_split_f16_b512 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=45000 smem=86016 max_cols=1048576 dtypes=float16 fast_math=true exp=folded
// @variant name=scaled_mask_online_split_bf16_b512 op=scaled_softmax_mask kernel=scaled_mask_online_split_bf16_b512 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=45000 smem=86016 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// The same on one block of 1024 threads a multiprocessor (a row of 2^20 over 19 blocks; the mask
// form's over 12).
// @variant name=scaled_bias_online_split_bf16_b1024 op=scaled_softmax_bias kernel=scaled_bias_online_split_bf16_b1024 algorithm=online geometry=split-row threads=1024 blocks_per_sm=1 tile=57280 smem=163840 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=scaled_mask_online_split_bf16_b1024 op=scaled_softmax_mask kernel=scaled_mask_online_split_bf16_b1024 algorithm=online geometry=split-row threads=1024 blocks_per_sm=1 tile=90048 smem=172032 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
#include "softmax.cuh"
#include "include/scaled_split.cuh"

#define SCALED_ONLINE_SPLIT_bias_DYNAMIC(NAME, T, THREADS, BLOCKS, E, S)                                  \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                          \
        NAME(SCALED_ARGS_bias(T), unsigned* workspace, int parts) {                                        \
        extern __shared__ __align__(16) unsigned char dynamic[];                                           \
        T* stash = reinterpret_cast<T*>(dynamic);                                                          \
        split_rows<T, THREADS, E, S>(BiasForm<T>{x, second, n_cols, scale}, y, n_rows, n_cols, workspace,  \
                                     parts, stash, stash + THREADS * S);                                   \
    }
#define SCALED_ONLINE_SPLIT_mask_DYNAMIC(NAME, T, THREADS, BLOCKS, E, S)                                  \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                          \
        NAME(SCALED_ARGS_mask(T), unsigned* workspace, int parts) {                                        \
        extern __shared__ __align__(16) unsigned char dynamic[];                                           \
        T* stash = reinterpret_cast<T*>(dynamic);                                                          \
        split_rows<T, THREADS, E, S>(MaskedForm<T, true>{x, second, n_cols, scale}, y, n_rows, n_cols,     \
                                     workspace, parts, stash, reinterpret_cast<unsigned char*>(stash + THREADS * S)); \
    }

SCALED_ONLINE_SPLIT_bias_DYNAMIC(scaled_bias_online_split_f16_b512, sh::half_t, 512, 2, 16, 40)
SCALED_ONLINE_SPLIT_bias_DYNAMIC(scaled_bias_online_split_bf16_b512, sh::bf16_t, 512, 2, 16, 40)
SCALED_ONLINE_SPLIT_mask_DYNAMIC(scaled_mask_online_split_f16_b512, sh::half_t, 512, 2, 32, 56)
SCALED_ONLINE_SPLIT_mask_DYNAMIC(scaled_mask_online_split_bf16_b512, sh::bf16_t, 512, 2, 32, 56)
SCALED_ONLINE_SPLIT_bias_DYNAMIC(scaled_bias_online_split_bf16_b1024, sh::bf16_t, 1024, 1, 16, 40)
SCALED_ONLINE_SPLIT_mask_DYNAMIC(scaled_mask_online_split_bf16_b1024, sh::bf16_t, 1024, 1, 32, 56)
