// A row over a group of co-resident blocks of a persistent, cooperatively launched grid (as the
// forward's split-row kernel): a block's place in the grid, and the group's meeting of one float
// a block under any reduction of state.cuh (the backwards' sum; log_softmax's and the fused
// forward's maximum, then sum). Group g takes rows g, g + groups, ...
#pragma once

#include "include/reduce.cuh"

namespace sh {

// The workspace (4 * gridDim.x + 1 words, zeroed) holds two slots of gridDim.x 64-bit words, a
// block's value each, and an exit counter. A value is published as one word stamped with its
// round (round + 1 in the high half: a zeroed word is no round's), in the round's slot: a block
// is at most one round ahead of its group, so it cannot overwrite a word another block still
// waits for. The first warp polls the group's words until each carries the stamp and combines
// them in rank order (a fixed order: every block has the same result, bitwise).
struct SplitGroup {
    int parts, group, rank, start, count;
    unsigned round = 0;
    unsigned* workspace;

    __device__ __forceinline__ SplitGroup(int n_cols, int parts_, int chunk, unsigned* workspace_)
        : parts(parts_), workspace(workspace_) {
        group = blockIdx.x / parts;
        rank = blockIdx.x % parts;
        const int slice = ((n_cols + parts - 1) / parts + chunk - 1) / chunk * chunk;  // whole vectors
        start = min(n_cols, rank * slice);
        count = min(n_cols - start, slice);
    }

    __device__ __forceinline__ int groups() const { return gridDim.x / parts; }

    // The row's `op` over the blocks' values (every thread's `block`); `total`: shared memory.
    template <class Op>
    __device__ __forceinline__ float meet(Op op, float block, float* total) {
        const unsigned stamp = ++round;
        if (parts == 1) return block;
        volatile unsigned long long* slot =
            reinterpret_cast<volatile unsigned long long*>(workspace) + (stamp & 1u) * gridDim.x + group * parts;
        if (threadIdx.x < 32) {
            const int lane = threadIdx.x;
            if (lane == 0) slot[rank] = static_cast<unsigned long long>(stamp) << 32 | __float_as_uint(block);
            __syncwarp();
            float all = Op::identity();
            for (int r = lane; r < parts; r += 32) {
                unsigned long long word;
                do {
                    word = slot[r];
                } while (static_cast<unsigned>(word >> 32) != stamp);
                all = op(all, __uint_as_float(static_cast<unsigned>(word)));
            }
            all = warp_reduce(op, all);
            if (lane == 0) *total = all;
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

}  // namespace sh
