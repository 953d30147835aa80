// Shared device code for the softmax kernels: constants, the online (max, sum)
// state and its merge, warp and block reductions, and vector access helpers.
// Every kernel file includes this header; the harness inlines it before
// compiling, so a change here changes the compiled source (and the cache key).
#pragma once

namespace sh {

// NVRTC has no <math.h>: build the infinities from their bit patterns.
__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000u); }
__device__ __forceinline__ float pos_inf() { return __int_as_float(0x7f800000u); }

constexpr unsigned FULL_MASK = 0xffffffffu;

// exp(a - b) where b is a running maximum with b >= a. A masked value (a = -inf)
// contributes exactly 0 even when b is -inf too: (-inf) - (-inf) is NaN, and this
// guard is what keeps it out of the sum. +inf and NaN still propagate as NaN.
__device__ __forceinline__ float exp_below(float a, float b) {
    return a == neg_inf() ? 0.0f : expf(a - b);
}

// Fast path for one-pass kernels (declared fast_math=true): 2^x on the special-function
// unit, about 2 ulp; ex2(-inf) = 0 and NaN stays NaN. exp(a - b) is ex2((a - b) * log2 e):
// the subtraction first, so the rounding error scales with |a - b|, not with |b|.
constexpr float LOG2E = 1.4426950408889634f;

__device__ __forceinline__ float ex2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ float fast_exp_below(float a, float b) {
    return a == neg_inf() ? 0.0f : ex2((a - b) * LOG2E);
}

// The online-softmax state: the running maximum m and d = sum(exp(x_j - m)).
// The empty state is (-inf, 0); a state whose m is -inf always has d = 0.
struct MaxSum {
    float m;
    float d;
};

__device__ __forceinline__ MaxSum empty_state() { return {neg_inf(), 0.0f}; }

// Fold one element into a state (the online recurrence with its correction factor).
__device__ __forceinline__ MaxSum push(MaxSum s, float x) {
    const float m = fmaxf(s.m, x);
    return {m, s.d * exp_below(s.m, m) + exp_below(x, m)};
}

// Merge two states; associative and commutative, NaN-free for two -inf maxima.
__device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b) {
    const float m = fmaxf(a.m, b.m);
    return {m, a.d * exp_below(a.m, m) + b.d * exp_below(b.m, m)};
}

// The reduction operators, each with its identity.
struct Max {
    __device__ static float identity() { return neg_inf(); }
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct Sum {
    __device__ static float identity() { return 0.0f; }
    __device__ float operator()(float a, float b) const { return a + b; }
};
struct Merge {
    __device__ static MaxSum identity() { return empty_state(); }
    __device__ MaxSum operator()(MaxSum a, MaxSum b) const { return merge(a, b); }
};
struct FastMerge {
    __device__ static MaxSum identity() { return empty_state(); }
    __device__ MaxSum operator()(MaxSum a, MaxSum b) const {
        const float m = fmaxf(a.m, b.m);
        return {m, a.d * fast_exp_below(a.m, m) + b.d * fast_exp_below(b.m, m)};
    }
};

// One-pass fold of a register tile: each value becomes exp(v - m_t), where m_t is the
// tile's maximum, and the tile's state (m_t, sum) is returned. A tile that holds only
// -inf subtracts 0 instead, so every value is exactly 0 (no -inf - -inf).
template <int N>
__device__ __forceinline__ MaxSum fold_tile(float (&v)[N]) {
    float m = neg_inf();
#pragma unroll
    for (int i = 0; i < N; ++i) m = fmaxf(m, v[i]);
    const float shift = m == neg_inf() ? 0.0f : m;
    float d = 0.0f;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        v[i] = ex2((v[i] - shift) * LOG2E);
        d += v[i];
    }
    return {m, d};
}

// The factor that turns a tile's exp(v - m_t) into the row's softmax: exp(m_t - m) / d.
__device__ __forceinline__ float tile_scale(MaxSum tile, MaxSum row) {
    return __fdividef(fast_exp_below(tile.m, row.m), row.d);
}

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

// Row pointers for the row handled by this block or warp.
__device__ __forceinline__ const float* row_of(const float* base, size_t row, int n_cols) {
    return base + row * static_cast<size_t>(n_cols);
}
__device__ __forceinline__ float* row_of(float* base, size_t row, int n_cols) {
    return base + row * static_cast<size_t>(n_cols);
}

}  // namespace sh
