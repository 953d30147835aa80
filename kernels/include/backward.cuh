// The softmax backward, dx = y * (dy - s) with s = sum(dy * y), over rows of any element type
// (float, half_t, bf16_t: computed in float). The dot product is one sequential chain a thread
// (fused multiply-adds), then the warp's or the block's tree: the chain the harness's bound takes.
#pragma once

#include "half.cuh"
#include "reduce.cuh"

namespace sh {

// This thread's part of s over the row, every `lanes`-th element from `lane`.
template <class T>
__device__ __forceinline__ float partial_dot(const T* __restrict__ y, const T* __restrict__ dy, int n,
                                             int lane, int lanes) {
    float s = 0.0f;
    for (int i = lane; i < n; i += lanes) s = fmaf(to_float(y[i]), to_float(dy[i]), s);
    return s;
}

template <class T>
__device__ __forceinline__ void scale_row(const T* __restrict__ y, const T* __restrict__ dy, T* __restrict__ dx,
                                          int n, float s, int lane, int lanes) {
    for (int i = lane; i < n; i += lanes) dx[i] = from_float<T>(to_float(y[i]) * (to_float(dy[i]) - s));
}

// One row with a block of threads, reading y and dy twice (the second time mostly from cache).
template <class T>
__device__ __forceinline__ void backward_block_row(const T* __restrict__ y, const T* __restrict__ dy,
                                                   T* __restrict__ dx, int n, float* scratch) {
    const float s = block_reduce(Sum(), partial_dot(y, dy, n, threadIdx.x, blockDim.x), scratch);
    scale_row(y, dy, dx, n, s, threadIdx.x, blockDim.x);
}

// One row of at most THREADS * PER elements with a block of THREADS threads, held in registers:
// y and dy are read once. Element k * THREADS + threadIdx.x is this thread's k-th.
template <class T, int THREADS, int PER>
__device__ __forceinline__ void backward_tile_row(const T* __restrict__ y, const T* __restrict__ dy,
                                                  T* __restrict__ dx, int n, float* scratch) {
    float yv[PER], gv[PER];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < PER; ++k) {
        const int i = k * THREADS + threadIdx.x;
        yv[k] = i < n ? to_float(y[i]) : 0.0f;
        gv[k] = i < n ? to_float(dy[i]) : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < PER; ++k) s = fmaf(yv[k], gv[k], s);
    s = THREADS == 32 ? warp_reduce(Sum(), s) : block_reduce(Sum(), s, scratch);
#pragma unroll
    for (int k = 0; k < PER; ++k) {
        const int i = k * THREADS + threadIdx.x;
        if (i < n) dx[i] = from_float<T>(yv[k] * (gv[k] - s));
    }
}

}  // namespace sh

namespace sh {

// The log_softmax backward, dx = dy - exp(z) * s with s = sum(dy), from the forward's output z.
template <class T>
__device__ __forceinline__ float partial_sum(const T* __restrict__ dy, int n, int lane, int lanes) {
    float s = 0.0f;
    for (int i = lane; i < n; i += lanes) s += to_float(dy[i]);
    return s;
}

template <class T>
__device__ __forceinline__ void log_scale_row(const T* __restrict__ z, const T* __restrict__ dy, T* __restrict__ dx,
                                              int n, float s, int lane, int lanes) {
    for (int i = lane; i < n; i += lanes) dx[i] = from_float<T>(to_float(dy[i]) - expf(to_float(z[i])) * s);
}

template <class T>
__device__ __forceinline__ void log_backward_block_row(const T* __restrict__ z, const T* __restrict__ dy,
                                                       T* __restrict__ dx, int n, float* scratch) {
    const float s = block_reduce(Sum(), partial_sum(dy, n, threadIdx.x, blockDim.x), scratch);
    log_scale_row(z, dy, dx, n, s, threadIdx.x, blockDim.x);
}

template <class T, int THREADS, int PER>
__device__ __forceinline__ void log_backward_tile_row(const T* __restrict__ z, const T* __restrict__ dy,
                                                      T* __restrict__ dx, int n, float* scratch) {
    float zv[PER], gv[PER];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < PER; ++k) {
        const int i = k * THREADS + threadIdx.x;
        zv[k] = i < n ? to_float(z[i]) : 0.0f;
        gv[k] = i < n ? to_float(dy[i]) : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < PER; ++k) s += gv[k];
    s = THREADS == 32 ? warp_reduce(Sum(), s) : block_reduce(Sum(), s, scratch);
#pragma unroll
    for (int k = 0; k < PER; ++k) {
        const int i = k * THREADS + threadIdx.x;
        if (i < n) dx[i] = from_float<T>(gv[k] - expf(zv[k]) * s);
    }
}

}  // namespace sh
