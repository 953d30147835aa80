// The fused forms' long rows over a thread-block cluster (sm_90) whose blocks' (max, sum) states
// meet in mailboxes (include/cluster_push.cuh): one exchange a row, where scaled_cluster_rows
// (include/scaled.cuh) meets at a cluster barrier twice (the maximum, then the sum) and reads the
// others' values one remote load after another. The forward's cluster kernels went from 0.66-0.92
// of a copy to 0.97-0.99 that way (reports/measurements/cluster_push.jsonl).
#pragma once

#include "include/scaled.cuh"
#include "include/cluster_push.cuh"

namespace sh {

// A row over CLUSTER blocks of THREADS, each forming its slice's logits once into floats (as
// scaled_cluster_rows), folding them into its own (max, sum): e = ex2((t - m_t) log2 e) kept in
// their place and summed in chunk_sum's order; each warp's merged state pushed to every block, the
// row's state merged alike in every block, then y = e * exp(m_t - m) / d (write_softmax's
// in-place path, as the forward's float tiles). A merge a warp and a slot: algorithm=online.
template <class T, int CLUSTER, int THREADS, int E, class Second>
__device__ __forceinline__ void scaled_push_rows(const T* __restrict__ x, Second second, float scale,
                                                 T* __restrict__ y, int n_cols) {
#if __CUDA_ARCH__ >= 900
    using Tile = RowTile<T, THREADS, E>;
    __shared__ ClusterMailbox<CLUSTER * (THREADS / 32)> box;
    box.open();
    const ClusterSlice part = cluster_slice<CLUSTER, Tile::W>(n_cols);
    auto t = row_tile<T, THREADS, E>(x, second, scale, part.row, n_cols, part.n, threadIdx.x, part.start);
    float v[E];
    const float m = form_logits(t, v);
    const ExpArgs<false> arg(m == neg_inf() ? 0.0f : m);  // a slice of only -inf: every e exactly 0
    const MaxSum mine = {m, chunk_sum<Tile::W, Tile::CHUNKS>([&](int i) {
                             v[i] = ex2(arg(v[i]));
                             return v[i];
                         })};
    const int at = static_cast<int>(cluster_rank()) * (THREADS / 32) + static_cast<int>(threadIdx.x / 32);
    const MaxSum all = box.template exchange<CLUSTER>(warp_reduce(FastMerge(), mine), at);
    write_softmax<T, false, true>(
        [&](auto out) { t.x.write(row_of(y, part.row, n_cols) + part.start, part.n, threadIdx.x, [&](int i) { return out(v[i]); }); },
        mine, all, 1.0f);
#else
    __trap();  // clusters need sm_90; the registry's min_sm keeps this from being launched
#endif
}

}  // namespace sh

// A row over a cluster of CLUSTER blocks of THREADS, E elements a thread (sm_90: min_sm=90).
#define SCALED_PUSH(NAME, FORM, T, CLUSTER, THREADS, E)                                                 \
    extern "C" __global__ void SH_CLUSTER_DIMS(CLUSTER) __launch_bounds__(THREADS) NAME(SCALED_ARGS_##FORM(T)) { \
        sh::scaled_push_rows<T, CLUSTER, THREADS, E>(x, SCALED_SECOND_##FORM, scale, y, n_cols);        \
    }
