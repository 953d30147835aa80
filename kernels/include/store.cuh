// Aligned vector loads and predicated inline-PTX stores of 16-bit or float words.
#pragma once

#include "half.cuh"

namespace sh {

// Aligned loads and stores of 1, 2 or 4 words (4, 8 or 16 bytes).
template <int WORDS>
__device__ __forceinline__ void load_words(const void* p, unsigned (&w)[WORDS]) {
    if constexpr (WORDS == 4) {
        const uint4 t = *static_cast<const uint4*>(p);
        w[0] = t.x, w[1] = t.y, w[2] = t.z, w[3] = t.w;
    } else if constexpr (WORDS == 2) {
        const uint2 t = *static_cast<const uint2*>(p);
        w[0] = t.x, w[1] = t.y;
    } else {
        w[0] = *static_cast<const unsigned*>(p);
    }
}
// Stores are inline PTX: otherwise the compiler may merge a vector store with the
// element-by-element store of the other branch and keep only the scalar one. `on`: store or not
// (a predicate on the store instruction, not a branch around it).
template <int WORDS>
__device__ __forceinline__ void store_words(void* p, const unsigned (&w)[WORDS], bool on = true) {
#define SH_PREDICATED(ST) "{ .reg .pred on; setp.ne.u32 on, %0, 0; @on " ST "; }"
    if constexpr (WORDS == 4) {
        asm volatile(SH_PREDICATED("st.global.v4.b32 [%1], {%2, %3, %4, %5}") : : "r"(+on), "l"(p), "r"(w[0]),
                     "r"(w[1]), "r"(w[2]), "r"(w[3]) : "memory");
    } else if constexpr (WORDS == 2) {
        asm volatile(SH_PREDICATED("st.global.v2.b32 [%1], {%2, %3}") : : "r"(+on), "l"(p), "r"(w[0]), "r"(w[1])
                     : "memory");
    } else {
        asm volatile(SH_PREDICATED("st.global.b32 [%1], %2") : : "r"(+on), "l"(p), "r"(w[0]) : "memory");
    }
#undef SH_PREDICATED
}

// One aligned vector store of y[0..W) to at[0..W), if `on`.
template <class T, int W>
__device__ __forceinline__ void store_vector(T* at, const float (&y)[W], bool on = true) {
    constexpr int WORDS = W * (int)sizeof(T) / 4;
    constexpr int PER_WORD = 4 / (int)sizeof(T);
    unsigned put[WORDS];
#pragma unroll
    for (int j = 0; j < WORDS; ++j) put[j] = pack_word(y + PER_WORD * j, T{});
    store_words<WORDS>(at, put, on);
}

// Write y[0..W) to base[p .. p + W), keeping to the positions in [lo, hi): one vector store
// when the chunk lies wholly inside and `vectors` says the chunks are aligned, else element
// by element.
template <class T, int W>
__device__ __forceinline__ void store_chunk(T* base, int p, const float (&y)[W], int lo, int hi, bool vectors) {
    if (vectors && p >= lo && p + W <= hi) {
        store_vector<T, W>(base + p, y);
    } else {
#pragma unroll
        for (int j = 0; j < W; ++j)
            if (p + j >= lo && p + j < hi) base[p + j] = from_float<T>(y[j]);
    }
}

// How many elements p lies past the last W-element (vector) boundary.
template <class T, int W>
__device__ __forceinline__ int shift_of(const T* p) {
    return static_cast<int>((reinterpret_cast<size_t>(p) / sizeof(T)) % W);
}

}  // namespace sh
