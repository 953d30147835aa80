// The fused forward of rows past the clusters (fp32 past 131072, 16-bit past 262144, up to 2^20):
// a row over a group of co-resident blocks of a persistent grid (sh::SplitGroup), each block
// holding its slice of x (and of the bias or mask) in registers (read once); the logits formed
// once, the row's maximum and then its sum each meet in global memory (the same m and d in every
// block, bitwise), then y = e * (1 / d) written from the registers, as sh::scaled_cluster_rows.
// The block kernel reads such rows three times (0.18-0.51 of a copy at 2^20, run 0025). The tile
// is 256 threads of E elements less one 16-byte vector, the room for a misaligned slice's shift.
// @variant name=scaled_bias_split_row op=scaled_softmax_bias kernel=scaled_bias_split_row algorithm=safe geometry=split-row threads=256 blocks_per_sm=2 tile=8188 max_cols=1048576 vector=4 fast_math=true exp=ex2
// @variant name=scaled_bias_split_row_f16 op=scaled_softmax_bias kernel=scaled_bias_split_row_f16 algorithm=safe geometry=split-row threads=256 blocks_per_sm=2 tile=16376 max_cols=1048576 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_bias_split_row_bf16 op=scaled_softmax_bias kernel=scaled_bias_split_row_bf16 algorithm=safe geometry=split-row threads=256 blocks_per_sm=2 tile=16376 max_cols=1048576 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_mask_split_row op=scaled_softmax_mask kernel=scaled_mask_split_row algorithm=safe geometry=split-row threads=256 blocks_per_sm=2 tile=8188 max_cols=1048576 vector=4 fast_math=true exp=ex2
// @variant name=scaled_mask_split_row_f16 op=scaled_softmax_mask kernel=scaled_mask_split_row_f16 algorithm=safe geometry=split-row threads=256 blocks_per_sm=2 tile=16376 max_cols=1048576 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_mask_split_row_bf16 op=scaled_softmax_mask kernel=scaled_mask_split_row_bf16 algorithm=safe geometry=split-row threads=256 blocks_per_sm=2 tile=16376 max_cols=1048576 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
// @variant name=scaled_causal_split_row op=scaled_softmax_causal kernel=scaled_causal_split_row algorithm=safe geometry=split-row threads=256 blocks_per_sm=2 tile=8188 max_cols=1048576 vector=4 fast_math=true exp=ex2
// @variant name=scaled_causal_split_row_f16 op=scaled_softmax_causal kernel=scaled_causal_split_row_f16 algorithm=safe geometry=split-row threads=256 blocks_per_sm=2 tile=16376 max_cols=1048576 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=scaled_causal_split_row_bf16 op=scaled_softmax_causal kernel=scaled_causal_split_row_bf16 algorithm=safe geometry=split-row threads=256 blocks_per_sm=2 tile=16376 max_cols=1048576 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
#include "softmax.cuh"
#include "include/scaled.cuh"
#include "include/split_group.cuh"

namespace {

// Rows g, g + groups, ... of a group of `parts` blocks.
template <class T, int THREADS, int E, class Second>
__device__ __forceinline__ void scaled_split_rows(const T* __restrict__ x, Second second, float scale,
                                                  T* __restrict__ y, int n_rows, int n_cols, unsigned* workspace,
                                                  int parts) {
    using Tile = sh::RowTile<T, THREADS, E>;
    __shared__ float scratch[32];
    __shared__ float total;
    sh::SplitGroup g(n_cols, parts, Tile::W, workspace);
    for (size_t row = g.group; row < static_cast<size_t>(n_rows); row += g.groups()) {
        auto t = sh::row_tile<T, THREADS, E>(x, second, scale, row, n_cols, g.count, threadIdx.x, g.start);
        float v[E];
        float m = sh::neg_inf();
#pragma unroll
        for (int i = 0; i < E; ++i) {
            v[i] = t(i);
            m = fmaxf(m, v[i]);
        }
        m = g.meet(sh::Max(), sh::block_reduce(sh::Max(), m, scratch), &total);
        const sh::ExpArgs<false> arg(m);
        const float mine = sh::chunk_sum<Tile::W, Tile::CHUNKS>([&](int i) {
            v[i] = sh::ex2(arg(v[i]));
            return v[i];
        });
        const float r = __frcp_rn(g.meet(sh::Sum(), sh::block_reduce(sh::Sum(), mine, scratch), &total));
        t.x.write(sh::row_of(y, row, n_cols) + g.start, g.count, threadIdx.x, [&](int i) { return v[i] * r; });
    }
    g.leave();
}

}  // namespace

#define SCALED_SPLIT(NAME, FORM, T, THREADS, BLOCKS, E)                                                 \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                      \
        NAME(SCALED_ARGS_##FORM(T), unsigned* workspace, int parts) {                                  \
        scaled_split_rows<T, THREADS, E>(x, SCALED_SECOND_##FORM, scale, y, n_rows, n_cols, workspace, parts); \
    }

SCALED_SPLIT(scaled_bias_split_row, bias, float, 256, 2, 32)
SCALED_SPLIT(scaled_bias_split_row_f16, bias, sh::half_t, 256, 2, 64)
SCALED_SPLIT(scaled_bias_split_row_bf16, bias, sh::bf16_t, 256, 2, 64)
SCALED_SPLIT(scaled_mask_split_row, mask, float, 256, 2, 32)
SCALED_SPLIT(scaled_mask_split_row_f16, mask, sh::half_t, 256, 2, 64)
SCALED_SPLIT(scaled_mask_split_row_bf16, mask, sh::bf16_t, 256, 2, 64)
SCALED_SPLIT(scaled_causal_split_row, causal, float, 256, 2, 32)
SCALED_SPLIT(scaled_causal_split_row_f16, causal, sh::half_t, 256, 2, 64)
SCALED_SPLIT(scaled_causal_split_row_bf16, causal, sh::bf16_t, 256, 2, 64)
