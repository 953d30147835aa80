// log_softmax backward, the row in registers (sh::grad_tile_rows): z and dy read once, in 16-byte
// vectors where both rows are misaligned alike, s = sum(dy) reduced over the row's lanes, dx
// written from the registers. A kernel a row size, shaped as softmax_backward's tiles; longer rows
// go to log_softmax_backward_block. 16-bit rows of 32768 take 1024 threads of 32 elements: on 512
// threads of 64, the exponential's registers spill. 16-bit rows of 128 take 4 lanes of 32, as
// softmax_backward's. The 16-bit tiles but the one sized 32768 take exp(z) from the
// special-function unit (LogSoftmaxGradFast): expf's ~10 instructions an element held them at
// 0.86-0.92 of a copy on the H200 at 32 and 500 columns, where softmax_backward's tiles of the
// same shape, which take no exponential, ran 0.93-0.96 (run 0068). On an H100 ex2 took the tiles
// of 2 lanes at 24 columns from 0.86-0.87 of a copy to 0.94, level at 128-4096
// (reports/measurements/lsb_fast_small_h100.jsonl).
//
// @variant name=log_softmax_backward_onepass_c32 op=log_softmax_backward kernel=log_softmax_backward_onepass_c32 algorithm=safe geometry=group-per-row lanes=8 threads=128 max_cols=32 vector=4
// @variant name=log_softmax_backward_onepass_c128 op=log_softmax_backward kernel=log_softmax_backward_onepass_c128 algorithm=safe geometry=group-per-row lanes=16 threads=128 max_cols=128 vector=4
// @variant name=log_softmax_backward_onepass_c512 op=log_softmax_backward kernel=log_softmax_backward_onepass_c512 algorithm=safe geometry=warp-per-row threads=128 max_cols=512 vector=4
// @variant name=log_softmax_backward_onepass_c1024 op=log_softmax_backward kernel=log_softmax_backward_onepass_c1024 algorithm=safe geometry=block-per-row threads=128 max_cols=1024 vector=4
// @variant name=log_softmax_backward_onepass_c2048 op=log_softmax_backward kernel=log_softmax_backward_onepass_c2048 algorithm=safe geometry=block-per-row threads=256 max_cols=2048 vector=4
// @variant name=log_softmax_backward_onepass_c4096 op=log_softmax_backward kernel=log_softmax_backward_onepass_c4096 algorithm=safe geometry=block-per-row threads=512 max_cols=4096 vector=4
// @variant name=log_softmax_backward_onepass_c8192 op=log_softmax_backward kernel=log_softmax_backward_onepass_c8192 algorithm=safe geometry=block-per-row threads=512 max_cols=8192 vector=4
// @variant name=log_softmax_backward_onepass_c16384 op=log_softmax_backward kernel=log_softmax_backward_onepass_c16384 algorithm=safe geometry=block-per-row threads=512 max_cols=16384 vector=4
// @variant name=log_softmax_backward_onepass_f16_c32 op=log_softmax_backward kernel=log_softmax_backward_onepass_f16_c32 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_backward_onepass_f16_c128 op=log_softmax_backward kernel=log_softmax_backward_onepass_f16_c128 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_backward_onepass_f16_c512 op=log_softmax_backward kernel=log_softmax_backward_onepass_f16_c512 algorithm=safe geometry=group-per-row lanes=16 threads=128 max_cols=512 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_backward_onepass_f16_c1024 op=log_softmax_backward kernel=log_softmax_backward_onepass_f16_c1024 algorithm=safe geometry=warp-per-row threads=128 max_cols=1024 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_backward_onepass_f16_c2048 op=log_softmax_backward kernel=log_softmax_backward_onepass_f16_c2048 algorithm=safe geometry=block-per-row threads=64 max_cols=2048 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_backward_onepass_f16_c4096 op=log_softmax_backward kernel=log_softmax_backward_onepass_f16_c4096 algorithm=safe geometry=block-per-row threads=128 max_cols=4096 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_backward_onepass_f16_c8192 op=log_softmax_backward kernel=log_softmax_backward_onepass_f16_c8192 algorithm=safe geometry=block-per-row threads=256 max_cols=8192 vector=8 dtypes=float16 fast_math=true exp=ex2
// @variant name=log_softmax_backward_onepass_f16_c16384 op=log_softmax_backward kernel=log_softmax_backward_onepass_f16_c16384 algorithm=safe geometry=block-per-row threads=512 max_cols=16384 vector=8 dtypes=float16 fast_math=true exp=ex2
// @variant name=log_softmax_backward_onepass_f16_c32768 op=log_softmax_backward kernel=log_softmax_backward_onepass_f16_c32768 algorithm=safe geometry=block-per-row threads=1024 max_cols=32768 vector=8 dtypes=float16
// @variant name=log_softmax_backward_onepass_bf16_c32 op=log_softmax_backward kernel=log_softmax_backward_onepass_bf16_c32 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_backward_onepass_bf16_c128 op=log_softmax_backward kernel=log_softmax_backward_onepass_bf16_c128 algorithm=safe geometry=group-per-row lanes=4 threads=128 max_cols=128 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_backward_onepass_bf16_c512 op=log_softmax_backward kernel=log_softmax_backward_onepass_bf16_c512 algorithm=safe geometry=group-per-row lanes=16 threads=128 max_cols=512 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_backward_onepass_bf16_c1024 op=log_softmax_backward kernel=log_softmax_backward_onepass_bf16_c1024 algorithm=safe geometry=warp-per-row threads=128 max_cols=1024 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_backward_onepass_bf16_c2048 op=log_softmax_backward kernel=log_softmax_backward_onepass_bf16_c2048 algorithm=safe geometry=block-per-row threads=64 max_cols=2048 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_backward_onepass_bf16_c4096 op=log_softmax_backward kernel=log_softmax_backward_onepass_bf16_c4096 algorithm=safe geometry=block-per-row threads=128 max_cols=4096 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=log_softmax_backward_onepass_bf16_c8192 op=log_softmax_backward kernel=log_softmax_backward_onepass_bf16_c8192 algorithm=safe geometry=block-per-row threads=256 max_cols=8192 vector=8 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=log_softmax_backward_onepass_bf16_c16384 op=log_softmax_backward kernel=log_softmax_backward_onepass_bf16_c16384 algorithm=safe geometry=block-per-row threads=512 max_cols=16384 vector=8 dtypes=bfloat16 fast_math=true exp=ex2
// @variant name=log_softmax_backward_onepass_bf16_c32768 op=log_softmax_backward kernel=log_softmax_backward_onepass_bf16_c32768 algorithm=safe geometry=block-per-row threads=1024 max_cols=32768 vector=8 dtypes=bfloat16
// The 16-bit tiles sized 32 on 2 lanes of 16: two 16-byte vectors a lane of z and dy in flight
// where 4 lanes of 8 hold one. dispatch.OP_ALIGNED_TILES takes them at aligned 24, where they led
// on an H100 (0.94 of a copy against 0.85 for the softmax backward, 0.86-0.87 against 0.74-0.75
// for log_softmax's; level at 32, behind at a misaligned 20:
// reports/measurements/backward_lanes_h100.json).
// @variant name=log_softmax_backward_onepass_f16_c32_l2 op=log_softmax_backward kernel=log_softmax_backward_onepass_f16_c32_l2 algorithm=safe geometry=group-per-row lanes=2 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_backward_onepass_bf16_c32_l2 op=log_softmax_backward kernel=log_softmax_backward_onepass_bf16_c32_l2 algorithm=safe geometry=group-per-row lanes=2 threads=128 max_cols=32 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
#include "softmax.cuh"
#include "include/backward.cuh"

GRAD_TILE(log_softmax_backward_onepass_c32, sh::LogSoftmaxGrad, float, 128, 8, 4)
GRAD_TILE(log_softmax_backward_onepass_c128, sh::LogSoftmaxGrad, float, 128, 16, 8)
GRAD_TILE(log_softmax_backward_onepass_c512, sh::LogSoftmaxGrad, float, 128, 32, 16)
GRAD_TILE(log_softmax_backward_onepass_c1024, sh::LogSoftmaxGrad, float, 128, 128, 8)
GRAD_TILE(log_softmax_backward_onepass_c2048, sh::LogSoftmaxGrad, float, 256, 256, 8)
GRAD_TILE(log_softmax_backward_onepass_c4096, sh::LogSoftmaxGrad, float, 512, 512, 8)
GRAD_TILE(log_softmax_backward_onepass_c8192, sh::LogSoftmaxGrad, float, 512, 512, 16)
GRAD_TILE(log_softmax_backward_onepass_c16384, sh::LogSoftmaxGrad, float, 512, 512, 32)
GRAD_TILE(log_softmax_backward_onepass_f16_c32, sh::LogSoftmaxGradFast, sh::half_t, 128, 4, 8)
GRAD_TILE(log_softmax_backward_onepass_f16_c128, sh::LogSoftmaxGradFast, sh::half_t, 128, 4, 32)
GRAD_TILE(log_softmax_backward_onepass_f16_c512, sh::LogSoftmaxGradFast, sh::half_t, 128, 16, 32)
GRAD_TILE(log_softmax_backward_onepass_f16_c1024, sh::LogSoftmaxGradFast, sh::half_t, 128, 32, 32)
GRAD_TILE(log_softmax_backward_onepass_f16_c2048, sh::LogSoftmaxGradFast, sh::half_t, 64, 64, 32)
GRAD_TILE(log_softmax_backward_onepass_f16_c4096, sh::LogSoftmaxGradFast, sh::half_t, 128, 128, 32)
GRAD_TILE(log_softmax_backward_onepass_f16_c8192, sh::LogSoftmaxGradFast, sh::half_t, 256, 256, 32)
GRAD_TILE(log_softmax_backward_onepass_f16_c16384, sh::LogSoftmaxGradFast, sh::half_t, 512, 512, 32)
GRAD_TILE(log_softmax_backward_onepass_f16_c32768, sh::LogSoftmaxGrad, sh::half_t, 1024, 1024, 32)
GRAD_TILE(log_softmax_backward_onepass_bf16_c32, sh::LogSoftmaxGradFast, sh::bf16_t, 128, 4, 8)
GRAD_TILE(log_softmax_backward_onepass_bf16_c128, sh::LogSoftmaxGradFast, sh::bf16_t, 128, 4, 32)
GRAD_TILE(log_softmax_backward_onepass_bf16_c512, sh::LogSoftmaxGradFast, sh::bf16_t, 128, 16, 32)
GRAD_TILE(log_softmax_backward_onepass_bf16_c1024, sh::LogSoftmaxGradFast, sh::bf16_t, 128, 32, 32)
GRAD_TILE(log_softmax_backward_onepass_bf16_c2048, sh::LogSoftmaxGradFast, sh::bf16_t, 64, 64, 32)
GRAD_TILE(log_softmax_backward_onepass_bf16_c4096, sh::LogSoftmaxGradFast, sh::bf16_t, 128, 128, 32)
GRAD_TILE(log_softmax_backward_onepass_bf16_c8192, sh::LogSoftmaxGradFast, sh::bf16_t, 256, 256, 32)
GRAD_TILE(log_softmax_backward_onepass_bf16_c16384, sh::LogSoftmaxGradFast, sh::bf16_t, 512, 512, 32)
GRAD_TILE(log_softmax_backward_onepass_bf16_c32768, sh::LogSoftmaxGrad, sh::bf16_t, 1024, 1024, 32)

// The 16-bit tiles sized 32 on 2 lanes of 16.
GRAD_TILE(log_softmax_backward_onepass_f16_c32_l2, sh::LogSoftmaxGradFast, sh::half_t, 128, 2, 16)
GRAD_TILE(log_softmax_backward_onepass_bf16_c32_l2, sh::LogSoftmaxGradFast, sh::bf16_t, 128, 2, 16)
