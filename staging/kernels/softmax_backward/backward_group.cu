// Softmax backward for short rows, a group of LANES lanes a row and several rows a block, the row
// in registers: y and dy read once, in 16-byte vectors where the row's three pointers are 16-byte
// aligned and it holds whole vectors, element by element otherwise (the same elements a lane
// either way). Chunk k of lane l holds elements V (k LANES + l) .. + V - 1. A vector's V terms
// are summed as a tree (depth log2 V), the chunks in one chain, then the group's butterfly: the
// chain is at most ceil(C / LANES) + log2(LANES), as the declared lanes= says.
// STAGED: compiled offline only; the next GPU session measures it against backward_warp and
// backward_onepass_c4096 at C = 32 ... 512 (run 0019: 0.47-0.60 of copy in fp32 at 32 and 500,
// 0.22-0.30 in 16 bits) and runs the suite on it.
//
// @variant name=backward_group_c32 op=softmax_backward kernel=backward_group_c32 algorithm=safe geometry=group-per-row threads=128 lanes=8 max_cols=32
// @variant name=backward_group_c128 op=softmax_backward kernel=backward_group_c128 algorithm=safe geometry=group-per-row threads=128 lanes=32 max_cols=128
// @variant name=backward_group_c512 op=softmax_backward kernel=backward_group_c512 algorithm=safe geometry=group-per-row threads=256 lanes=32 max_cols=512
// @variant name=backward_group_f16_c64 op=softmax_backward kernel=backward_group_f16_c64 algorithm=safe geometry=group-per-row threads=128 lanes=8 max_cols=64 dtypes=float16
// @variant name=backward_group_f16_c512 op=softmax_backward kernel=backward_group_f16_c512 algorithm=safe geometry=group-per-row threads=256 lanes=32 max_cols=512 dtypes=float16
// @variant name=backward_group_bf16_c64 op=softmax_backward kernel=backward_group_bf16_c64 algorithm=safe geometry=group-per-row threads=128 lanes=8 max_cols=64 dtypes=bfloat16
// @variant name=backward_group_bf16_c512 op=softmax_backward kernel=backward_group_bf16_c512 algorithm=safe geometry=group-per-row threads=256 lanes=32 max_cols=512 dtypes=bfloat16
#include "softmax.cuh"
#include "include/backward.cuh"

namespace sh {

// Element j of a 16-byte vector held as four 32-bit words.
template <class T>
__device__ __forceinline__ float vector_element(const unsigned (&w)[4], int j) {
    if constexpr (sizeof(T) == 4) return __uint_as_float(w[j]);
    else return unpack_half<T>(w[j / 2], j % 2);
}

template <class G, class T, int LANES, int PER>
__device__ __forceinline__ void grad_group_rows(const T* __restrict__ a, const T* __restrict__ b,
                                                T* __restrict__ dx, int n_rows, int n_cols) {
    constexpr int V = 16 / static_cast<int>(sizeof(T));
    constexpr int CHUNKS = PER / V;
    static_assert(PER % V == 0 && LANES <= 32 && (LANES & (LANES - 1)) == 0, "whole vectors, a group in a warp");
    const size_t row = (size_t)blockIdx.x * (blockDim.x / LANES) + threadIdx.x / LANES;
    const int lane = threadIdx.x % LANES;
    const bool live = row < (size_t)n_rows;  // every lane stays for the group's shuffles
    const size_t at = live ? row * n_cols : 0;
    const T* ar = a + at;
    const T* br = b + at;
    T* dr = dx + at;
    const bool whole = n_cols % V == 0 &&
        ((reinterpret_cast<size_t>(ar) | reinterpret_cast<size_t>(br) | reinterpret_cast<size_t>(dr)) % 16) == 0;
    float av[PER], bv[PER];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
        const int start = (k * LANES + lane) * V;
        if (live && whole && start < n_cols) {
            unsigned wa[4], wb[4];
            load_words<4>(ar + start, wa);
            load_words<4>(br + start, wb);
#pragma unroll
            for (int j = 0; j < V; ++j) {
                av[k * V + j] = vector_element<T>(wa, j);
                bv[k * V + j] = vector_element<T>(wb, j);
            }
        } else {
#pragma unroll
            for (int j = 0; j < V; ++j) {
                const int i = start + j;
                av[k * V + j] = live && i < n_cols ? to_float(ar[i]) : 0.0f;
                bv[k * V + j] = live && i < n_cols ? to_float(br[i]) : 0.0f;
            }
        }
        float t[V];  // the vector's terms, summed as a tree (padding adds exact zeros)
#pragma unroll
        for (int j = 0; j < V; ++j) t[j] = G::add(0.0f, av[k * V + j], bv[k * V + j]);
#pragma unroll
        for (int width = V / 2; width > 0; width /= 2) {
#pragma unroll
            for (int j = 0; j < width; ++j) t[j] += t[j + width];
        }
        s += t[0];
    }
    s = group_reduce<LANES>(Sum(), s);
    if (!live) return;
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
        const int start = (k * LANES + lane) * V;
        if (whole && start < n_cols) {
            unsigned w[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                if constexpr (sizeof(T) == 4) {
                    w[j] = __float_as_uint(G::out(av[k * V + j], bv[k * V + j], s));
                } else {
                    const float pair[2] = {G::out(av[k * V + 2 * j], bv[k * V + 2 * j], s),
                                           G::out(av[k * V + 2 * j + 1], bv[k * V + 2 * j + 1], s)};
                    w[j] = pack_word(pair, T{});
                }
            }
            store_words<4>(dr + start, w);
        } else {
#pragma unroll
            for (int j = 0; j < V; ++j) {
                const int i = start + j;
                if (i < n_cols) dr[i] = from_float<T>(G::out(av[k * V + j], bv[k * V + j], s));
            }
        }
    }
}

}  // namespace sh

#define GRAD_GROUP(NAME, G, T, THREADS, LANES, PER)                                              \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(GRAD_KERNEL_ARGS(T)) {            \
        sh::grad_group_rows<G, T, LANES, PER>(a, b, dx, n_rows, n_cols);                         \
    }

GRAD_GROUP(backward_group_c32, sh::SoftmaxGrad, float, 128, 8, 4)
GRAD_GROUP(backward_group_c128, sh::SoftmaxGrad, float, 128, 32, 4)
GRAD_GROUP(backward_group_c512, sh::SoftmaxGrad, float, 256, 32, 16)
GRAD_GROUP(backward_group_f16_c64, sh::SoftmaxGrad, sh::half_t, 128, 8, 8)
GRAD_GROUP(backward_group_f16_c512, sh::SoftmaxGrad, sh::half_t, 256, 32, 16)
GRAD_GROUP(backward_group_bf16_c64, sh::SoftmaxGrad, sh::bf16_t, 128, 8, 8)
GRAD_GROUP(backward_group_bf16_c512, sh::SoftmaxGrad, sh::bf16_t, 256, 32, 16)
