// Thread-block clusters (sm_90): the block's rank, the cluster's barrier, and reading a value of
// another block's shared memory (distributed shared memory). The forward's cluster kernel
// (kernels/online_onepass_cluster.cu) still writes the same instructions inline.
#pragma once

#include "include/reduce.cuh"

namespace sh {

#if __CUDA_ARCH__ >= 900
__device__ __forceinline__ unsigned cluster_rank() {
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    return rank;
}
// Every block's writes to its shared memory before this are seen by every block after it.
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" : : : "memory");
}
// Split in two: arrive once done reading the others' shared memory, wait before leaving (a
// block's shared memory must outlive the others' reads of it).
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;" : : : "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" : : : "memory"); }
// The float at `local` (in this block's shared memory) of the cluster's block of rank r.
__device__ __forceinline__ float cluster_load(const float* local, unsigned r) {
    const unsigned here = static_cast<unsigned>(__cvta_generic_to_shared(local));
    unsigned remote;
    float v;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(here), "r"(r));
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
    return v;
}

// The CLUSTER floats the cluster's blocks published at `local` (each in its own shared memory,
// before a cluster_sync), combined by `op` as a tree in rank order: the same value in every
// block, bitwise.
template <int CLUSTER, class Op>
__device__ __forceinline__ float cluster_tree(Op op, const float* local) {
    float part[CLUSTER];
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r) part[r] = cluster_load(local, r);
#pragma unroll
    for (int width = CLUSTER / 2; width > 0; width /= 2) {
#pragma unroll
        for (int r = 0; r < width; ++r) part[r] = op(part[r], part[r + width]);
    }
    return part[0];
}

// The row's value of `op` over the cluster: the block's tree of v, published in `slot` (this
// block's shared memory), then the blocks' by cluster_tree. The other blocks read a slot until
// their next cluster barrier, so each reduction of a row takes a slot of its own.
template <int CLUSTER, class Op>
__device__ __forceinline__ float cluster_reduce(Op op, float v, float* scratch, float* slot) {
    const float block = block_reduce(op, v, scratch);
    if (threadIdx.x == 0) *slot = block;
    cluster_sync();
    return cluster_tree<CLUSTER>(op, slot);
}

// This block's slice of its cluster's row: whole W-element vectors a slice, so that every slice
// is misaligned as the row is; the last slices of a short row may be empty.
struct ClusterSlice {
    size_t row;
    int start, n;
};
template <int CLUSTER, int W>
__device__ __forceinline__ ClusterSlice cluster_slice(int n_cols) {
    const int slice = ((n_cols + CLUSTER - 1) / CLUSTER + W - 1) / W * W;
    const int start = min(n_cols, static_cast<int>(cluster_rank()) * slice);
    return {blockIdx.x / CLUSTER, start, min(n_cols - start, slice)};
}
#endif

}  // namespace sh

#if __CUDA_ARCH__ >= 900
#define SH_CLUSTER_DIMS(N) __cluster_dims__(N, 1, 1)
#else
#define SH_CLUSTER_DIMS(N)
#endif
