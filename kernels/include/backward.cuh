// The backwards of the softmax and of log_softmax, over rows of any element type (float, half_t,
// bf16_t: computed in float). Both have one shape: a reduction over the row of a term of the
// forward's output `a` (y or z) and the incoming gradient `b` (dy), then an elementwise map of
// a, b and the reduced s. A grad policy G gives the two:
//   SoftmaxGrad:    s = sum(y * dy) (fused multiply-adds), dx = y * (dy - s)
//   LogSoftmaxGrad: s = sum(dy),                          dx = dy - exp(z) * s
// The sum is one sequential chain a thread, then the warp's or the block's tree: the chain the
// harness's bound takes.
#pragma once

#include "include/half.cuh"
#include "include/reduce.cuh"
#include "include/tile.cuh"
#include "include/tile_sum.cuh"
#include "include/cluster.cuh"

namespace sh {

struct SoftmaxGrad {
    static __device__ __forceinline__ float add(float s, float y, float dy) { return fmaf(y, dy, s); }
    static __device__ __forceinline__ float out(float y, float dy, float s) { return y * (dy - s); }
};

struct LogSoftmaxGrad {
    static __device__ __forceinline__ float add(float s, float, float dy) { return s + dy; }
    static __device__ __forceinline__ float out(float z, float dy, float s) { return dy - expf(z) * s; }
};

// exp(z) from the special-function unit (kernels that declare fast_math=true: the bound charges
// it 2 |z| u more than expf, far under a 16-bit store's rounding): two instructions an element
// where expf takes about ten. The 16-bit register tiles gain 0.06-0.09 of a copy with it; the
// online split kernel lost 0.01-0.08 (reports/measurements/lsb_fast_exp.jsonl) and keeps expf.
struct LogSoftmaxGradFast : LogSoftmaxGrad {
    static __device__ __forceinline__ float out(float z, float dy, float s) { return dy - ex2(z * LOG2E) * s; }
};

// This thread's part of s over the row, every `lanes`-th element from `lane`.
template <class G, class T>
__device__ __forceinline__ float grad_partial(const T* __restrict__ a, const T* __restrict__ b, int n, int lane,
                                              int lanes) {
    float s = 0.0f;
    for (int i = lane; i < n; i += lanes) s = G::add(s, to_float(a[i]), to_float(b[i]));
    return s;
}

template <class G, class T>
__device__ __forceinline__ void grad_map(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ dx,
                                         int n, float s, int lane, int lanes) {
    for (int i = lane; i < n; i += lanes) dx[i] = from_float<T>(G::out(to_float(a[i]), to_float(b[i]), s));
}

// One row a warp (row = the warp's index in the grid); a and b read twice, the second time
// mostly from L1.
template <class G, class T>
__device__ __forceinline__ void grad_warp_rows(const T* a, const T* b, T* dx, int n_rows, int n_cols) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;  // whole warps leave together
    const int lane = threadIdx.x & 31;
    const size_t at = row * n_cols;
    const float s = warp_reduce(Sum(), grad_partial<G>(a + at, b + at, n_cols, lane, 32));
    grad_map<G>(a + at, b + at, dx + at, n_cols, s, lane, 32);
}

// One row a block, for rows of any length.
template <class G, class T>
__device__ __forceinline__ void grad_block_rows(const T* a, const T* b, T* dx, int n_cols) {
    __shared__ float scratch[32];
    const size_t at = (size_t)blockIdx.x * n_cols;
    const float s = block_reduce(Sum(), grad_partial<G>(a + at, b + at, n_cols, threadIdx.x, blockDim.x), scratch);
    grad_map<G>(a + at, b + at, dx + at, n_cols, s, threadIdx.x, blockDim.x);
}

// A row of at most LANES * E elements a group of LANES lanes (several rows a block, or a row a
// block), held in registers: a and b read once, in 16-byte vectors (sh::RowTile) where their rows
// are misaligned alike, element by element otherwise. A lane sums the W terms of each of its
// chunks as a tree, the chunks in one chain, then the group's reduction: the chain the variants
// declare with vector=W.
template <class G, class T, int LANES, int E>
__device__ __forceinline__ void grad_tile_rows(const T* __restrict__ a, const T* __restrict__ b,
                                               T* __restrict__ dx, int n_rows, int n_cols) {
    using Tile = RowTile<T, LANES, E>;
    constexpr int W = Tile::W;
    const RowSlot<LANES> slot(n_rows);
    const size_t row = slot.live ? slot.row : 0;
    const int n = slot.live ? n_cols : 0, lane = slot.lane;
    const T* ar = row_of(a, row, n_cols);
    const T* br = row_of(b, row, n_cols);
    const bool alike = shift_of<T, W>(ar) == shift_of<T, W>(br);
    Tile ta, tb;
    ta.load(ar, n, lane, alike);
    tb.load(br, n, lane, alike);
    float s = tile_sum(ta, n, lane, [&](int i) { return G::add(0.0f, ta.get(i), tb.get(i)); });
    s = slot.reduce(Sum(), s);
    if (slot.live) ta.write(row_of(dx, row, n_cols), n, lane, [&](int i) { return G::out(ta.get(i), tb.get(i), s); });
}

// A long row over a thread-block cluster of CLUSTER blocks (sm_90), each holding its slice of a and
// b in registers (read once): each block's sum (tile_sum, then the block's tree) is published in
// its shared memory, and after a cluster barrier every block adds the CLUSTER sums as a tree in
// rank order (the same s in every block, bitwise), says it is done with them, and writes its
// slice of dx.
template <class G, class T, int CLUSTER, int THREADS, int E>
__device__ __forceinline__ void grad_cluster_rows(const T* __restrict__ a, const T* __restrict__ b,
                                                  T* __restrict__ dx, int n_cols) {
#if __CUDA_ARCH__ >= 900
    using Tile = RowTile<T, THREADS, E>;
    __shared__ float scratch[32];
    __shared__ float published;
    const ClusterSlice part = cluster_slice<CLUSTER, Tile::W>(n_cols);
    const size_t row = part.row;
    const int start = part.start, n = part.n, lane = threadIdx.x;
    const T* ar = row_of(a, row, n_cols) + start;
    const T* br = row_of(b, row, n_cols) + start;
    const bool alike = shift_of<T, Tile::W>(ar) == shift_of<T, Tile::W>(br);
    Tile ta, tb;
    ta.load(ar, n, lane, alike);
    tb.load(br, n, lane, alike);
    const float all = cluster_reduce<CLUSTER>(
        Sum(), tile_sum(ta, n, lane, [&](int i) { return G::add(0.0f, ta.get(i), tb.get(i)); }), scratch, &published);
    cluster_arrive();  // done with the others' sums: they may leave once every block has said so
    ta.write(row_of(dx, row, n_cols) + start, n, lane, [&](int i) { return G::out(ta.get(i), tb.get(i), all); });
    cluster_wait();
#else
    __trap();  // clusters need sm_90; the registry's min_sm keeps this from being launched
#endif
}

}  // namespace sh

// An extern "C" kernel of each shape: NAME(const T* a, const T* b, T* dx, int n_rows, int n_cols).
#define GRAD_KERNEL_ARGS(T) const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ dx, int n_rows, int n_cols
// One row a thread: the sum in one sequential chain (neighbouring threads read rows C apart).
#define GRAD_THREAD(NAME, G, T)                                                             \
    extern "C" __global__ void NAME(GRAD_KERNEL_ARGS(T)) {                                  \
        const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;                   \
        if (row >= (size_t)n_rows) return;                                                  \
        const size_t at = row * n_cols;                                                     \
        const float s = sh::grad_partial<G>(a + at, b + at, n_cols, 0, 1);                  \
        sh::grad_map<G>(a + at, b + at, dx + at, n_cols, s, 0, 1);                          \
    }
#define GRAD_WARP(NAME, G, T) \
    extern "C" __global__ void NAME(GRAD_KERNEL_ARGS(T)) { sh::grad_warp_rows<G>(a, b, dx, n_rows, n_cols); }
#define GRAD_BLOCK(NAME, G, T) \
    extern "C" __global__ void NAME(GRAD_KERNEL_ARGS(T)) { sh::grad_block_rows<G>(a, b, dx, n_cols); }
// A row a group of LANES lanes (a power of two up to 32, or THREADS: a row a block), LANES * E
// elements at most, in registers.
#define GRAD_TILE(NAME, G, T, THREADS, LANES, E)                                             \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(GRAD_KERNEL_ARGS(T)) {        \
        sh::grad_tile_rows<G, T, LANES, E>(a, b, dx, n_rows, n_cols);                        \
    }
// A row over a cluster of CLUSTER blocks of THREADS, E elements a thread (sm_90: min_sm=90).
#define GRAD_CLUSTER(NAME, G, T, CLUSTER, THREADS, E)                                                 \
    extern "C" __global__ void SH_CLUSTER_DIMS(CLUSTER) __launch_bounds__(THREADS)                    \
        NAME(GRAD_KERNEL_ARGS(T)) {                                                                   \
        sh::grad_cluster_rows<G, T, CLUSTER, THREADS, E>(a, b, dx, n_cols);                           \
    }
