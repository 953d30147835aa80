// log_softmax of rows past the clusters (fp32 past 131072, 16-bit past 262144, up to 2^20): a row
// over a group of co-resident blocks of a persistent grid (sh::SplitGroup), each block holding its
// slice of x in registers (read once); the row's maximum and then its sum each meet in global
// memory (the same m and d in every block, bitwise, as the cluster kernels' trees give them),
// then z written from the registers with the tiles' fast arithmetic (one ex2.approx an element,
// lg2.approx for log d). The block kernel reads such rows three times (0.28-0.46 of a copy at 2^20,
// run 0025). The tile is 256 threads of E elements less one 16-byte vector, the room for a
// misaligned slice's shift.
// @variant name=log_softmax_split_row op=log_softmax kernel=log_softmax_split_row algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=8188 max_cols=1048576 vector=4 fast_math=true exp=ex2
// @variant name=log_softmax_split_row_f16 op=log_softmax kernel=log_softmax_split_row_f16 algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=16376 max_cols=1048576 vector=8 fast_math=true exp=ex2 dtypes=float16
// @variant name=log_softmax_split_row_bf16 op=log_softmax kernel=log_softmax_split_row_bf16 algorithm=safe geometry=split-row threads=256 blocks_per_sm=4 tile=16376 max_cols=1048576 vector=8 fast_math=true exp=ex2 dtypes=bfloat16
#include "softmax.cuh"
#include "include/log_softmax.cuh"
#include "include/split_group.cuh"

namespace {

// Rows g, g + groups, ... of a group of `parts` blocks; log d kept at 0 or above and a NaN d left
// NaN, as sh::log_softmax_cluster_rows.
template <class T, int THREADS, int E>
__device__ __forceinline__ void log_softmax_split_rows(const T* __restrict__ x, T* __restrict__ z, int n_rows,
                                                       int n_cols, unsigned* workspace, int parts) {
    using Tile = sh::RowTile<T, THREADS, E>;
    __shared__ float scratch[32];
    __shared__ float total;
    sh::SplitGroup g(n_cols, parts, Tile::W, workspace);
    const int lane = threadIdx.x, n = g.count;
    for (size_t row = g.group; row < static_cast<size_t>(n_rows); row += g.groups()) {
        Tile t;
        t.load(sh::row_of(x, row, n_cols) + g.start, n, lane);
        const float m = g.meet(sh::Max(), sh::block_reduce(sh::Max(), t.max(), scratch), &total);
        const sh::ExpArgs<false> arg(m);
        const float mine = sh::chunk_sum<Tile::W, Tile::CHUNKS>([&](int i) { return sh::ex2(arg(t.get(i))); });
        const float d = g.meet(sh::Sum(), sh::block_reduce(sh::Sum(), mine, scratch), &total);
        float log_d = sh::lg2(d) * sh::LN2;
        log_d = log_d < 0.0f ? 0.0f : log_d;
        t.write(sh::row_of(z, row, n_cols) + g.start, n, lane, [&](int i) { return (t.get(i) - m) - log_d; });
    }
    g.leave();
}

}  // namespace

#define LOG_SOFTMAX_SPLIT(NAME, T, THREADS, BLOCKS, E)                                                  \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                      \
        NAME(const T* __restrict__ x, T* __restrict__ z, int n_rows, int n_cols, unsigned* workspace,  \
             int parts) {                                                                              \
        log_softmax_split_rows<T, THREADS, E>(x, z, n_rows, n_cols, workspace, parts);                 \
    }

LOG_SOFTMAX_SPLIT(log_softmax_split_row, float, 256, 4, 32)
LOG_SOFTMAX_SPLIT(log_softmax_split_row_f16, sh::half_t, 256, 4, 64)
LOG_SOFTMAX_SPLIT(log_softmax_split_row_bf16, sh::bf16_t, 256, 4, 64)
