// The backwards of rows longer than a cluster holds: a row over a group of co-resident blocks
// (sh::SplitGroup), each block holding its slice of both inputs in registers (read once); the
// blocks' sums meet in global memory, and every block writes its slice of dx from its registers.
#pragma once

#include "include/backward.cuh"
#include "include/split_group.cuh"

namespace sh {

// dx of a's and b's rows (y and dy, or z and dy) over groups of `parts` blocks of THREADS threads
// of E elements each: a slice is whole 16-byte vectors, so that every slice is misaligned as its
// row is, and the harness's plan keeps it within the tile less one vector (the variant's tile=).
template <class G, class T, int THREADS, int E>
__device__ __forceinline__ void grad_split_rows(const T* __restrict__ a, const T* __restrict__ b,
                                                T* __restrict__ dx, int n_rows, int n_cols,
                                                unsigned* workspace, int parts) {
    using Tile = RowTile<T, THREADS, E>;
    __shared__ float scratch[32];
    __shared__ float total;
    SplitGroup g(n_cols, parts, Tile::W, workspace);
    const int lane = threadIdx.x, n = g.count;
    for (size_t row = g.group; row < static_cast<size_t>(n_rows); row += g.groups()) {
        const T* ar = row_of(a, row, n_cols) + g.start;
        const T* br = row_of(b, row, n_cols) + g.start;
        const bool alike = shift_of<T, Tile::W>(ar) == shift_of<T, Tile::W>(br);
        Tile ta, tb;
        ta.load(ar, n, lane, alike);
        tb.load(br, n, lane, alike);
        const float mine = tile_sum(ta, n, lane, [&](int i) { return G::add(0.0f, ta.get(i), tb.get(i)); });
        const float s = g.meet(Sum(), block_reduce(Sum(), mine, scratch), &total);
        ta.write(row_of(dx, row, n_cols) + g.start, n, lane, [&](int i) { return G::out(ta.get(i), tb.get(i), s); });
    }
    g.leave();
}

}  // namespace sh

// NAME(const T* a, const T* b, T* dx, int n_rows, int n_cols, unsigned* workspace, int parts).
#define GRAD_SPLIT(NAME, G, T, THREADS, BLOCKS, E)                                                     \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                     \
        NAME(GRAD_KERNEL_ARGS(T), unsigned* workspace, int parts) {                                   \
        sh::grad_split_rows<G, T, THREADS, E>(a, b, dx, n_rows, n_cols, workspace, parts);            \
    }
