// Warp and block reductions over any operator of state.cuh.
#pragma once

#include "state.cuh"

namespace sh {

__device__ __forceinline__ float shfl_xor(float v, int lane_mask, int width = 32) {
    return __shfl_xor_sync(FULL_MASK, v, lane_mask, width);
}
__device__ __forceinline__ MaxSum shfl_xor(MaxSum v, int lane_mask, int width = 32) {
    return {shfl_xor(v.m, lane_mask, width), shfl_xor(v.d, lane_mask, width)};
}

// Butterfly reduction over groups of WIDTH consecutive lanes (a power of two up
// to 32); every lane of the group ends with the result. All 32 lanes must call it.
template <int WIDTH = 32, class Op, class T>
__device__ __forceinline__ T group_reduce(Op op, T v) {
#pragma unroll
    for (int offset = WIDTH / 2; offset > 0; offset /= 2) v = op(v, shfl_xor(v, offset, WIDTH));
    return v;
}

template <class Op, class T>
__device__ __forceinline__ T warp_reduce(Op op, T v) {
    return group_reduce<32>(op, v);
}

// Two-level block reduction: warp shuffles, then the per-warp partials through
// shared memory. blockDim.x must be a multiple of 32 and at most 1024; scratch
// holds 32 values. Every thread returns the result. It may be called again with
// the same scratch: the leading barrier keeps the previous call's readers safe.
template <class Op, class T>
__device__ __forceinline__ T block_reduce(Op op, T v, T* scratch) {
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int warps = blockDim.x >> 5;
    v = warp_reduce(op, v);
    __syncthreads();
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    // Every warp reduces the partials itself: no broadcast, no third barrier.
    return warp_reduce(op, lane < warps ? scratch[lane] : Op::identity());
}

}  // namespace sh
