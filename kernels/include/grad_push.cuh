// The backwards' long rows over a thread-block cluster (sm_90) whose blocks' sums meet in
// mailboxes (include/cluster_push.cuh) where grad_cluster_rows (include/backward.cuh) meets at a
// cluster barrier and reads the others' sums one remote load after another: the forward's
// cluster kernels went from 0.66-0.92 of a copy to 0.97-0.99 that way
// (reports/measurements/cluster_push.jsonl).
#pragma once

#include "include/backward.cuh"
#include "include/cluster_push.cuh"

namespace sh {

// A row over CLUSTER blocks of THREADS, each holding its slice of a and b in registers (read
// once): each warp's sum (tile_sum, then the warp's tree) pushed to every block, the cluster's sum
// taken alike in every block (the same s, bitwise), dx written from the registers.
template <class G, class T, int CLUSTER, int THREADS, int E>
__device__ __forceinline__ void grad_push_rows(const T* __restrict__ a, const T* __restrict__ b,
                                               T* __restrict__ dx, int n_cols) {
#if __CUDA_ARCH__ >= 900
    using Tile = RowTile<T, THREADS, E>;
    __shared__ ClusterMailbox<CLUSTER * (THREADS / 32), float> box;
    box.open();
    const ClusterSlice part = cluster_slice<CLUSTER, Tile::W>(n_cols);
    const int n = part.n, lane = threadIdx.x;
    const T* ar = row_of(a, part.row, n_cols) + part.start;
    const T* br = row_of(b, part.row, n_cols) + part.start;
    const bool alike = shift_of<T, Tile::W>(ar) == shift_of<T, Tile::W>(br);
    Tile ta, tb;
    ta.load(ar, n, lane, alike);
    tb.load(br, n, lane, alike);
    const float mine = warp_reduce(Sum(), tile_sum(ta, n, lane, [&](int i) { return G::add(0.0f, ta.get(i), tb.get(i)); }));
    const int at = static_cast<int>(cluster_rank()) * (THREADS / 32) + lane / 32;
    const float all = box.template exchange<CLUSTER>(mine, at, Sum());
    ta.write(row_of(dx, part.row, n_cols) + part.start, n, lane, [&](int i) { return G::out(ta.get(i), tb.get(i), all); });
#else
    __trap();  // clusters need sm_90; the registry's min_sm keeps this from being launched
#endif
}

}  // namespace sh

// A row over a cluster of CLUSTER blocks of THREADS, E elements a thread (sm_90: min_sm=90).
#define GRAD_PUSH(NAME, G, T, CLUSTER, THREADS, E)                                                    \
    extern "C" __global__ void SH_CLUSTER_DIMS(CLUSTER) __launch_bounds__(THREADS)                    \
        NAME(GRAD_KERNEL_ARGS(T)) {                                                                   \
        sh::grad_push_rows<G, T, CLUSTER, THREADS, E>(a, b, dx, n_cols);                              \
    }
