// The online-softmax state (m, d), its NaN-safe merge, and the reduction operators.
#pragma once

#include "math.cuh"

namespace sh {

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
// One exponential a merge: the state with the larger maximum keeps its sum as it is (the factor
// ex2(0) it took was 1), the other's is scaled (0 where its maximum is -inf). Commutative bitwise
// (a tie adds the two sums, alike in either order), as the mailboxes of include/cluster_push.cuh
// need. Each warp of a cluster kernel merges every warp state of the cluster (152 for fp32 rows of
// 151936 on 8 blocks of 608 threads), and the special-function unit takes 8 cycles a warp
// instruction.
struct FastMerge {
    __device__ static MaxSum identity() { return empty_state(); }
    __device__ MaxSum operator()(MaxSum a, MaxSum b) const {
        const float m = fmaxf(a.m, b.m);
        // a NaN maximum (a 16-bit tile of NaNs, whose sum is NaN) is never the top: its sum
        // reaches d through the product, NaN either way
        const bool a_top = a.m == m;
        const MaxSum top = a_top ? a : b;
        const MaxSum low = a_top ? b : a;
        return {m, top.d + low.d * fast_exp_below(low.m, m)};
    }
};

// The factor that turns a tile's exp(v - m_t) into the row's softmax: exp(m_t - m) / d.
__device__ __forceinline__ float tile_scale(MaxSum tile, MaxSum row) {
    return __fdividef(fast_exp_below(tile.m, row.m), row.d);
}

}  // namespace sh
