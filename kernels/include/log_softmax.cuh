// log_softmax, z = (x - m) - log d with d = sum exp(x - m), over rows of any element type
// (computed in float). The maximum and the sum are reduced separately (max, then sum: the
// safe order), or as one online (m, d) state.
#pragma once

#include "include/half.cuh"
#include "include/math.cuh"
#include "include/reduce.cuh"
#include "include/state.cuh"
#include "include/exp.cuh"
#include "include/tile_sum.cuh"
#include "include/cluster.cuh"

namespace sh {

constexpr float LN2 = 0.6931471805599453f;

template <class T>
__device__ __forceinline__ float partial_max(const T* __restrict__ x, int n, int lane, int lanes) {
    float m = Max::identity();
    for (int i = lane; i < n; i += lanes) m = fmaxf(m, to_float(x[i]));
    return m;
}

// exp(x - m) summed; a row whose maximum is -inf (fully masked) or +inf gives NaN here (x - m
// is NaN), and so NaN throughout, as the contract wants; a NaN element is lost by fmaxf but
// not by this sum.
template <class T>
__device__ __forceinline__ float partial_exp_sum(const T* __restrict__ x, int n, float m, int lane, int lanes) {
    float d = 0.0f;
    for (int i = lane; i < n; i += lanes) d += expf(to_float(x[i]) - m);
    return d;
}

template <class T>
__device__ __forceinline__ void write_log_row(const T* __restrict__ x, T* __restrict__ z, int n, float m,
                                              float log_d, int lane, int lanes) {
    for (int i = lane; i < n; i += lanes) z[i] = from_float<T>((to_float(x[i]) - m) - log_d);
}

template <class T>
__device__ __forceinline__ void log_softmax_block_row(const T* __restrict__ x, T* __restrict__ z, int n,
                                                      float* scratch) {
    const float m = block_reduce(Max(), partial_max(x, n, threadIdx.x, blockDim.x), scratch);
    const float d = block_reduce(Sum(), partial_exp_sum(x, n, m, threadIdx.x, blockDim.x), scratch);
    write_log_row(x, z, n, m, logf(d), threadIdx.x, blockDim.x);
}

// A row of at most LANES * E elements a group of LANES lanes (several rows a block, or a row a
// block), in registers (sh::RowTile): x read once, in 16-byte vectors; the maximum, the sum of
// ex2((x - m) log2 e) (sh::chunk_sum's order; positions outside the row hold -inf and add 0), and
// z written from the registers. Fast arithmetic (fast_math=true exp=ex2): one ex2.approx an
// element, log d as lg2.approx(d) ln 2, kept at 0 or above (d >= 1: its largest term is
// ex2(0) = 1 exactly) so that z <= 0 holds; a NaN d stays NaN.
template <class T, int LANES, int E>
__device__ __forceinline__ void log_softmax_tile_rows(const T* __restrict__ x, T* __restrict__ z, int n_rows,
                                                      int n_cols) {
    using Tile = RowTile<T, LANES, E>;
    const RowSlot<LANES> slot(n_rows);
    const size_t row = slot.live ? slot.row : 0;
    const int n = slot.live ? n_cols : 0, lane = slot.lane;
    Tile t;
    t.load(row_of(x, row, n_cols), n, lane);
    const float m = slot.reduce(Max(), t.max());
    const ExpArgs<false> arg(m);
    const float d = slot.reduce(Sum(), chunk_sum<Tile::W, Tile::CHUNKS>([&](int i) { return ex2(arg(t.get(i))); }));
    float log_d = lg2(d) * LN2;
    log_d = log_d < 0.0f ? 0.0f : log_d;
    if (slot.live) t.write(row_of(z, row, n_cols), n, lane, [&](int i) { return (t.get(i) - m) - log_d; });
}

// A row of at most CLUSTER * THREADS * E elements over a cluster of CLUSTER blocks (sm_90), each
// block's slice of x in registers (read once, whole 16-byte vectors a slice, so that every slice
// is misaligned as the row is): the row's maximum and then its sum are each a block's tree
// published in shared memory and combined over the cluster in rank order (sh::cluster_tree: the
// same m and d in every block), then z written from the registers, with the tile's arithmetic.
template <class T, int CLUSTER, int THREADS, int E>
__device__ __forceinline__ void log_softmax_cluster_rows(const T* __restrict__ x, T* __restrict__ z, int n_cols) {
#if __CUDA_ARCH__ >= 900
    using Tile = RowTile<T, THREADS, E>;
    __shared__ float scratch[32];
    __shared__ float published[2];
    const ClusterSlice part = cluster_slice<CLUSTER, Tile::W>(n_cols);
    const size_t row = part.row;
    const int start = part.start, n = part.n, lane = threadIdx.x;
    Tile t;
    t.load(row_of(x, row, n_cols) + start, n, lane);
    const float m = cluster_reduce<CLUSTER>(Max(), t.max(), scratch, &published[0]);
    const ExpArgs<false> arg(m);
    const float d = cluster_reduce<CLUSTER>(
        Sum(), chunk_sum<Tile::W, Tile::CHUNKS>([&](int i) { return ex2(arg(t.get(i))); }), scratch, &published[1]);
    cluster_arrive();  // done with the others' values: they may leave once every block has said so
    float log_d = lg2(d) * LN2;
    log_d = log_d < 0.0f ? 0.0f : log_d;
    t.write(row_of(z, row, n_cols) + start, n, lane, [&](int i) { return (t.get(i) - m) - log_d; });
    cluster_wait();
#else
    __trap();  // clusters need sm_90; the registry's min_sm keeps this from being launched
#endif
}

}  // namespace sh
