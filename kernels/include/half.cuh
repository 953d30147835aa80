// 16-bit element types as raw bit patterns, and their conversions to and from float.
#pragma once

namespace sh {

// ---- Element types. Half-precision rows are raw 16-bit patterns (NVRTC needs no
// cuda_fp16.h this way); every kernel computes in float and converts at load and store.
struct half_t {
    unsigned short bits;
};
struct bf16_t {
    unsigned short bits;
};

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(half_t v) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v.bits));
    return f;
}
__device__ __forceinline__ float to_float(bf16_t v) { return __uint_as_float(static_cast<unsigned>(v.bits) << 16); }

// Unpack element `hi` (0: low bits, 1: high bits) of a word of two 16-bit values. The
// asm is volatile so that the compiler converts again at each use instead of keeping
// the floats alive (that would spend the registers a packed tile saves).
template <class H>
__device__ __forceinline__ float unpack_half(unsigned word, int hi);
template <>
__device__ __forceinline__ float unpack_half<half_t>(unsigned word, int hi) {
    float f;
    if (hi) asm volatile("{ .reg .b16 l, h; mov.b32 {l, h}, %1; cvt.f32.f16 %0, h; }" : "=f"(f) : "r"(word));
    else asm volatile("{ .reg .b16 l, h; mov.b32 {l, h}, %1; cvt.f32.f16 %0, l; }" : "=f"(f) : "r"(word));
    return f;
}
template <>
__device__ __forceinline__ float unpack_half<bf16_t>(unsigned word, int hi) {
    unsigned u;
    if (hi) asm volatile("and.b32 %0, %1, 0xffff0000;" : "=r"(u) : "r"(word));
    else asm volatile("shl.b32 %0, %1, 16;" : "=r"(u) : "r"(word));
    return __uint_as_float(u);
}

// Elementwise maximum of two words of two 16-bit values (a NaN loses to a number, as in fmaxf).
__device__ __forceinline__ unsigned max_pair(unsigned a, unsigned b, half_t) {
    unsigned r;
    asm("max.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ unsigned max_pair(unsigned a, unsigned b, bf16_t) {
    unsigned r;
    asm("max.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

// The larger of the two 16-bit values of a word (one max_pair has folded a tile into), as a float.
template <class H>
__device__ __forceinline__ float pair_max(unsigned pair) {
    return fmaxf(unpack_half<H>(pair, 0), unpack_half<H>(pair, 1));
}

// Round to nearest even; NaN stays NaN, overflow gives inf.
template <class T>
__device__ T from_float(float f);
template <>
__device__ __forceinline__ float from_float<float>(float f) { return f; }
template <>
__device__ __forceinline__ half_t from_float<half_t>(float f) {
    half_t h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
    return h;
}
template <>
__device__ __forceinline__ bf16_t from_float<bf16_t>(float f) {
    bf16_t h;
#if __CUDA_ARCH__ >= 800
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
#else
    const unsigned u = __float_as_uint(f);
    h.bits = (f != f) ? 0x7fc0u : static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
#endif
    return h;
}

// A 32-bit word holds 1 float or 2 halves (element 0 in the low bits).
__device__ __forceinline__ unsigned pack_word(const float* in, float) { return __float_as_uint(in[0]); }
template <class H>
__device__ __forceinline__ unsigned pack_word(const float* in, H) {
    return static_cast<unsigned>(from_float<H>(in[0]).bits) | (static_cast<unsigned>(from_float<H>(in[1]).bits) << 16);
}

// Bit patterns of -inf, for masked-out elements of a raw 16-bit tile.
__device__ __forceinline__ unsigned short neg_inf_bits(half_t) { return 0xfc00u; }
__device__ __forceinline__ unsigned short neg_inf_bits(bf16_t) { return 0xff80u; }

}  // namespace sh
