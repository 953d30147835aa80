// Constants and scalar exponentials: the infinities NVRTC lacks, exp(a - b) with the
// masked-value guard, and the special-function-unit ex2 / lg2.
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
// (Tiles, with many a of one b, take one FFMA an element instead: ExpArgs.)
constexpr float LOG2E = 1.4426950408889634f;

__device__ __forceinline__ float ex2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// log2(x) on the special-function unit (absolute error about 2^-22); lg2(0) = -inf.
__device__ __forceinline__ float lg2(float x) {
    float y;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__device__ __forceinline__ float fast_exp_below(float a, float b) {
    return a == neg_inf() ? 0.0f : ex2((a - b) * LOG2E);
}

}  // namespace sh
