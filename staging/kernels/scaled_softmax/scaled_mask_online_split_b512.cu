// The 16-bit mask form's online split kernel (kernels/scaled_softmax/scaled_online_split.cu) on
// blocks of 512 threads, two a multiprocessor, as the bias form's `_b512` (ahead on an H100 at
// 75001-245759: reports/measurements/split_blocks_h100.jsonl). With 16-56 elements a thread in
// registers it spilled 12-24 bytes (ptxas, sm_90; 32 and 56, staged in the fourteenth session,
// ran 0.67-0.78 of a copy against 0.82-0.88); with 8 none (63 registers), the rest of a
// 40896-element slice in the stash: 72 elements a thread of x and their mask bytes, 108 KB a
// block, dynamic.
// @variant name=scaled_mask_online_split_f16_b512 op=scaled_softmax_mask kernel=scaled_mask_online_split_f16_b512 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=40896 smem=110592 max_cols=1048576 dtypes=float16 fast_math=true exp=folded
// @variant name=scaled_mask_online_split_bf16_b512 op=scaled_softmax_mask kernel=scaled_mask_online_split_bf16_b512 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=40896 smem=110592 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
#include "softmax.cuh"
#include "include/scaled_split.cuh"

#define SCALED_ONLINE_SPLIT_mask_DYNAMIC(NAME, T, THREADS, BLOCKS, E, S)                                  \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                          \
        NAME(SCALED_ARGS_mask(T), unsigned* workspace, int parts) {                                        \
        extern __shared__ __align__(16) unsigned char dynamic[];                                           \
        T* stash = reinterpret_cast<T*>(dynamic);                                                          \
        split_rows<T, THREADS, E, S>(MaskedForm<T, true>{x, second, n_cols, scale}, y, n_rows, n_cols,     \
                                     workspace, parts, stash,                                              \
                                     reinterpret_cast<unsigned char*>(stash + THREADS * S));               \
    }

SCALED_ONLINE_SPLIT_mask_DYNAMIC(scaled_mask_online_split_f16_b512, sh::half_t, 512, 2, 8, 72)
SCALED_ONLINE_SPLIT_mask_DYNAMIC(scaled_mask_online_split_bf16_b512, sh::bf16_t, 512, 2, 8, 72)
