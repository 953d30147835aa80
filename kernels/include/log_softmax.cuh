// log_softmax, z = (x - m) - log d with d = sum exp(x - m), over rows of any element type
// (computed in float). The maximum and the sum are reduced separately (max, then sum: the
// safe order), or as one online (m, d) state.
#pragma once

#include "include/half.cuh"
#include "include/math.cuh"
#include "include/reduce.cuh"
#include "include/state.cuh"

namespace sh {

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

// One row of at most THREADS * PER elements in registers: x read once.
template <class T, int THREADS, int PER>
__device__ __forceinline__ void log_softmax_tile_row(const T* __restrict__ x, T* __restrict__ z, int n,
                                                     float* scratch) {
    float v[PER];
    float m = Max::identity();
#pragma unroll
    for (int k = 0; k < PER; ++k) {
        const int i = k * THREADS + threadIdx.x;
        v[k] = i < n ? to_float(x[i]) : neg_inf();
        m = fmaxf(m, v[k]);
    }
    m = THREADS == 32 ? warp_reduce(Max(), m) : block_reduce(Max(), m, scratch);
    float d = 0.0f;
#pragma unroll
    for (int k = 0; k < PER; ++k) {
        const int i = k * THREADS + threadIdx.x;
        if (i < n) d += expf(v[k] - m);
    }
    d = THREADS == 32 ? warp_reduce(Sum(), d) : block_reduce(Sum(), d, scratch);
    const float log_d = logf(d);
#pragma unroll
    for (int k = 0; k < PER; ++k) {
        const int i = k * THREADS + threadIdx.x;
        if (i < n) z[i] = from_float<T>((v[k] - m) - log_d);
    }
}

}  // namespace sh
