// The backwards of rows longer than a cluster holds: a row over a group of co-resident blocks of a
// persistent, cooperatively launched grid (as the forward's split-row kernel), each block holding
// its slice of both inputs in registers (read once); the blocks' sums meet in global memory, and
// every block writes its slice of dx from its registers. Group g takes rows g, g + groups, ...
#pragma once

#include "include/backward.cuh"

namespace sh {

// A block's place in the grid and the group's meeting. The workspace (4 * gridDim.x + 1 words,
// zeroed) holds two slots of gridDim.x 64-bit words, a block's sum each, and an exit counter.
// A sum is published as one word stamped with its round (round + 1 in the high half: a zeroed
// word is no round's), in the round's slot: a block is at most one round ahead of its group, so
// it cannot overwrite a word another block still waits for. The first warp polls the group's
// words until each carries the stamp and adds them in rank order (a fixed order: every block
// has the same sum, bitwise).
struct GradGroup {
    int parts, group, rank, start, count;
    unsigned round = 0;
    unsigned* workspace;

    __device__ __forceinline__ GradGroup(int n_cols, int parts_, int chunk, unsigned* workspace_)
        : parts(parts_), workspace(workspace_) {
        group = blockIdx.x / parts;
        rank = blockIdx.x % parts;
        const int slice = ((n_cols + parts - 1) / parts + chunk - 1) / chunk * chunk;  // whole vectors
        start = min(n_cols, rank * slice);
        count = min(n_cols - start, slice);
    }

    __device__ __forceinline__ int groups() const { return gridDim.x / parts; }

    // The row's sum from this block's (every thread's `block`); `total`: shared memory.
    __device__ __forceinline__ float meet(float block, float* total) {
        const unsigned stamp = ++round;
        if (parts == 1) return block;
        volatile unsigned long long* slot =
            reinterpret_cast<volatile unsigned long long*>(workspace) + (stamp & 1u) * gridDim.x + group * parts;
        if (threadIdx.x < 32) {
            const int lane = threadIdx.x;
            if (lane == 0) slot[rank] = static_cast<unsigned long long>(stamp) << 32 | __float_as_uint(block);
            __syncwarp();
            float sum = 0.0f;
            for (int r = lane; r < parts; r += 32) {
                unsigned long long word;
                do {
                    word = slot[r];
                } while (static_cast<unsigned>(word >> 32) != stamp);
                sum += __uint_as_float(static_cast<unsigned>(word));
            }
            sum = warp_reduce(Sum(), sum);
            if (lane == 0) *total = sum;
        }
        __syncthreads();  // `total` is rewritten only after the next round's block_reduce barriers
        return *total;
    }

    // The last block out zeroes the workspace for the next launch: every block's last use of it
    // comes before its fence and its count at the exit counter.
    __device__ __forceinline__ void leave() {
        __shared__ bool last;
        const unsigned words = 4 * gridDim.x + 1;
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence();
            last = atomicAdd(workspace + words - 1, 1u) == gridDim.x - 1;
            if (last) __threadfence();
        }
        __syncthreads();
        if (last)
            for (unsigned i = threadIdx.x; i < words; i += blockDim.x) workspace[i] = 0;
    }
};

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
    GradGroup g(n_cols, parts, Tile::W, workspace);
    const int lane = threadIdx.x, n = g.count;
    for (size_t row = g.group; row < static_cast<size_t>(n_rows); row += g.groups()) {
        const T* ar = row_of(a, row, n_cols) + g.start;
        const T* br = row_of(b, row, n_cols) + g.start;
        const bool alike = shift_of<T, Tile::W>(ar) == shift_of<T, Tile::W>(br);
        Tile ta, tb;
        ta.load(ar, n, lane, alike);
        tb.load(br, n, lane, alike);
        const float mine = tile_sum(ta, n, lane, [&](int i) { return G::add(0.0f, ta.get(i), tb.get(i)); });
        const float s = g.meet(block_reduce(Sum(), mine, scratch), &total);
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
