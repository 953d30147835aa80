// Other shapes of the softmax backward's 16-bit register tiles, for the row lengths where
// kernels/'s lag Quack's in run 0020: C = 32 (4 lanes of 8: 0.93 of copy, Quack 0.98-0.99), 128
// (8 lanes of 16: 0.85, Quack 1.04) and 16384 (512 threads of 32: 0.93, Quack 0.97-0.98). More
// bytes in flight a lane (2 lanes of 16, 4 of 32) for the short rows; 1024 threads of 16 and 256
// of 64 for 16384. STAGED: compiled offline only; `BACKWARD=1 bash staging/check.sh` measures them
// beside kernels/'s.
//
// @variant name=backward_onepass_f16_c32_l2 op=softmax_backward kernel=backward_onepass_f16_c32_l2 algorithm=safe geometry=group-per-row lanes=2 threads=128 max_cols=32 vector=8 dtypes=float16
// @variant name=backward_onepass_f16_c128_l4 op=softmax_backward kernel=backward_onepass_f16_c128_l4 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=128 vector=8 dtypes=float16
// @variant name=backward_onepass_f16_c16384_b1024 op=softmax_backward kernel=backward_onepass_f16_c16384_b1024 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 vector=8 dtypes=float16
// @variant name=backward_onepass_f16_c16384_b256 op=softmax_backward kernel=backward_onepass_f16_c16384_b256 algorithm=safe geometry=block-per-row threads=256 max_cols=16384 vector=8 dtypes=float16
// @variant name=backward_onepass_bf16_c32_l2 op=softmax_backward kernel=backward_onepass_bf16_c32_l2 algorithm=safe geometry=group-per-row lanes=2 threads=128 max_cols=32 vector=8 dtypes=bfloat16
// @variant name=backward_onepass_bf16_c128_l4 op=softmax_backward kernel=backward_onepass_bf16_c128_l4 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=128 vector=8 dtypes=bfloat16
// @variant name=backward_onepass_bf16_c16384_b1024 op=softmax_backward kernel=backward_onepass_bf16_c16384_b1024 algorithm=safe geometry=block-per-row threads=1024 max_cols=16384 vector=8 dtypes=bfloat16
// @variant name=backward_onepass_bf16_c16384_b256 op=softmax_backward kernel=backward_onepass_bf16_c16384_b256 algorithm=safe geometry=block-per-row threads=256 max_cols=16384 vector=8 dtypes=bfloat16
#include "softmax.cuh"
#include "include/backward.cuh"

GRAD_TILE(backward_onepass_f16_c32_l2, sh::SoftmaxGrad, sh::half_t, 128, 2, 16)
GRAD_TILE(backward_onepass_f16_c128_l4, sh::SoftmaxGrad, sh::half_t, 128, 4, 32)
GRAD_TILE(backward_onepass_f16_c16384_b1024, sh::SoftmaxGrad, sh::half_t, 1024, 1024, 16)
GRAD_TILE(backward_onepass_f16_c16384_b256, sh::SoftmaxGrad, sh::half_t, 256, 256, 64)
GRAD_TILE(backward_onepass_bf16_c32_l2, sh::SoftmaxGrad, sh::bf16_t, 128, 2, 16)
GRAD_TILE(backward_onepass_bf16_c128_l4, sh::SoftmaxGrad, sh::bf16_t, 128, 4, 32)
GRAD_TILE(backward_onepass_bf16_c16384_b1024, sh::SoftmaxGrad, sh::bf16_t, 1024, 1024, 16)
GRAD_TILE(backward_onepass_bf16_c16384_b256, sh::SoftmaxGrad, sh::bf16_t, 256, 256, 64)
