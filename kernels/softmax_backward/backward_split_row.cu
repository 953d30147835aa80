// Softmax backward for rows past the clusters' 131072: a row over a group of co-resident blocks
// of a persistent grid (sh::grad_split_rows), each block holding its slice of y and dy in
// registers, read once; the blocks' sums of y * dy meet in global memory (the same s in every
// block, bitwise), and each block writes its slice of dx from the registers. The block kernel
// reads such rows twice (0.34-0.55 of a copy at 2^20, run 0022). The tile is 256 threads of 32
// elements less one 16-byte vector, the room for a misaligned slice's shift.
// @variant name=backward_split_row op=softmax_backward kernel=backward_split_row algorithm=safe geometry=split-row threads=256 blocks_per_sm=2 tile=8188 max_cols=1048576 vector=4
// @variant name=backward_split_row_f16 op=softmax_backward kernel=backward_split_row_f16 algorithm=safe geometry=split-row threads=256 blocks_per_sm=2 tile=8184 max_cols=1048576 vector=8 dtypes=float16
// @variant name=backward_split_row_bf16 op=softmax_backward kernel=backward_split_row_bf16 algorithm=safe geometry=split-row threads=256 blocks_per_sm=2 tile=8184 max_cols=1048576 vector=8 dtypes=bfloat16
#include "softmax.cuh"
#include "include/grad_split.cuh"

GRAD_SPLIT(backward_split_row, sh::SoftmaxGrad, float, 256, 2, 32)
GRAD_SPLIT(backward_split_row_f16, sh::SoftmaxGrad, sh::half_t, 256, 2, 32)
GRAD_SPLIT(backward_split_row_bf16, sh::SoftmaxGrad, sh::bf16_t, 256, 2, 32)
