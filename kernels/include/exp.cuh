// The exponentials of a tile that shares one maximum, and the one store path (write_softmax).
#pragma once

#include "math.cuh"
#include "state.cuh"
#include "half.cuh"

namespace sh {

// The argument of ex2 for exp(x - m), for the many x of a tile that share one m. SHIFTED: one
// FFMA an element, x * log2e - s with s = fl(m * log2e), and exp(x - m) = ex2(x * log2e - s) * c,
// where c = ex2(-(m * log2e - s)) puts back s's rounding (an FMA gives it exactly): each argument
// is rounded once, and the error still scales with |x - m|, not with |m|. Else (x - m) * log2e,
// a subtraction and a product. SHIFTED needs |m| < 2^22 (so |m * log2e - s| <= 1/2) or an
// infinite or NaN m (which gives what x - m gives): always so for float16 elements. It saves an
// op an element, which pays where issue slots are short (the split-row kernel's 16-bit rows:
// reports/measurements/exp_args_ab.json); the one-pass kernels do without it, since the extra
// registers (32 -> 40 on small tiles) cost them more occupancy than the op saves.
template <bool SHIFTED>
struct ExpArgs {
    float m, s, c;
    __device__ __forceinline__ explicit ExpArgs(float m_) : m(m_), s(0.0f), c(1.0f) {
        if constexpr (SHIFTED) {
            s = __fmul_rn(m, LOG2E);
            c = ex2(-__fmaf_rn(m, LOG2E, -s));
        }
    }
    __device__ __forceinline__ float operator()(float x) const {
        if constexpr (SHIFTED) return __fmaf_rn(x, LOG2E, -s);
        else return (x - m) * LOG2E;
    }
};
__device__ __forceinline__ bool shifts(float m, half_t) { return true; }
__device__ __forceinline__ bool shifts(float m, bf16_t) { return fabsf(m) < 4194304.0f; }
__device__ __forceinline__ bool shifts(float m, float) { return fabsf(m) < 4194304.0f; }

// f(ExpArgs<...>(m)): SHIFT, shifted where it may be (float16: one path, no branch).
template <class T, bool SHIFT, class F>
__device__ __forceinline__ auto with_exp_args(float m, F f) {
    if constexpr (SHIFT) {
        if (shifts(m, T{})) return f(ExpArgs<true>(m));
    }
    return f(ExpArgs<false>(m));
}

// Below this |m * log2e + log2 d|, 16-bit outputs take 1/d inside the exponential (write_softmax).
constexpr float FOLD_LIMIT = 1024.0f;

// Write the outputs of one thread's held values h: write(out) stores out(h) for each of them.
// IN_PLACE (float tiles and stashes): h = exp(x - m_t) / c, y = h * c * exp(m_t - m) / d, at most 1.
// Else (16-bit): h = x, y = exp(x - m) / d, the exponential recomputed. With SHIFT, as
// ex2(x * log2e - s') with s' = fl(m * log2e + log2 d), one FFMA an element and no product,
// where |s'| < FOLD_LIMIT: s' is rounded, and not put back, so this adds a relative error of
// at most about ln2 * 2^-15, under a fortieth of a float16 ulp (bounds.FOLD_ULPS); elsewhere
// (and for an infinite or NaN m or d, or a d of 0) as ex2(ExpArgs(x)) * (c / d). The product
// it saves is worth about 0.007 of copy on 16-bit split rows, which are short of issue slots
// (reports/measurements/fold_packed_max_ab.json).
template <class T, bool SHIFT, bool IN_PLACE, class Write>
__device__ __forceinline__ void write_softmax(Write write, MaxSum mine, MaxSum all, float c) {
    if constexpr (IN_PLACE) {
        const float scale = tile_scale(mine, all) * c;
        // Shifted, a lone maximum's h * c / d is three roundings of 1 and may come out 1 + 2^-23:
        // a softmax over 1 breaks log(1 - y) downstream, so it is held to 1. Not with fminf,
        // which turns a NaN (a row with +inf, or all -inf) into 1.
        if constexpr (SHIFT) write([&](float e) { const float y = e * scale; return y > 1.0f ? 1.0f : y; });
        else write([&](float e) { return e * scale; });
    } else {
        if constexpr (SHIFT) {
            const float s = __fmaf_rn(all.m, LOG2E, lg2(all.d));
            if (fabsf(s) < FOLD_LIMIT) {
                write([&](float x) { return ex2(__fmaf_rn(x, LOG2E, -s)); });
                return;
            }
        }
        with_exp_args<T, SHIFT>(all.m, [&](auto arg) {
            const float scale = arg.c * __frcp_rn(all.d);
            write([&](float x) { return ex2(arg(x)) * scale; });
        });
    }
}

}  // namespace sh
