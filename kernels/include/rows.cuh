// float rows with 16-byte vector access: a scalar head, aligned float4s, a scalar tail.
#pragma once

#include "state.cuh"

namespace sh {

// Normalised output for one element, given the row's final state.
__device__ __forceinline__ float normalise(float x, MaxSum s) { return expf(x - s.m) / s.d; }

// 16-byte vector access to rows that may start at any 4-byte aligned address.
// A row splits into a scalar head (up to the first 16-byte boundary), aligned
// float4s, and a scalar tail; `lanes` threads share the work, this one is `lane`.
struct RowSplit {
    int head;  // scalar elements before the first 16-byte boundary (0..3, at most n)
    int vecs;  // aligned float4s after the head
};

__device__ __forceinline__ RowSplit split_row(const float* row, int n) {
    const int misalign = static_cast<int>((reinterpret_cast<size_t>(row) >> 2) & 3);
    int head = misalign == 0 ? 0 : 4 - misalign;
    head = head < n ? head : n;
    return {head, (n - head) >> 2};
}

// Call f(x) for each of this thread's elements of the row, loading 16 bytes at a time.
template <class F>
__device__ __forceinline__ void visit_row(const float* __restrict__ row, int n, int lane, int lanes, F&& f) {
    const RowSplit s = split_row(row, n);
    for (int i = lane; i < s.head; i += lanes) f(row[i]);
    const float4* body = reinterpret_cast<const float4*>(row + s.head);
    for (int k = lane; k < s.vecs; k += lanes) {
        const float4 v = body[k];
        f(v.x); f(v.y); f(v.z); f(v.w);
    }
    for (int i = s.head + 4 * s.vecs + lane; i < n; i += lanes) f(row[i]);
}

// y[i] = g(x[i]) for this thread's elements, with 16-byte loads and stores when x and
// y are equally misaligned (the usual case), and scalar stores otherwise.
template <class G>
__device__ __forceinline__ void map_row(const float* __restrict__ x, float* __restrict__ y, int n,
                                        int lane, int lanes, G&& g) {
    if (((reinterpret_cast<size_t>(x) ^ reinterpret_cast<size_t>(y)) & 15) != 0) {
        for (int i = lane; i < n; i += lanes) y[i] = g(x[i]);
        return;
    }
    const RowSplit s = split_row(x, n);
    for (int i = lane; i < s.head; i += lanes) y[i] = g(x[i]);
    const float4* xv = reinterpret_cast<const float4*>(x + s.head);
    float4* yv = reinterpret_cast<float4*>(y + s.head);
    for (int k = lane; k < s.vecs; k += lanes) {
        const float4 v = xv[k];
        yv[k] = make_float4(g(v.x), g(v.y), g(v.z), g(v.w));
    }
    for (int i = s.head + 4 * s.vecs + lane; i < n; i += lanes) y[i] = g(x[i]);
}

}  // namespace sh
