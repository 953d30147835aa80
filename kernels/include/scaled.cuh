// The fused forward softmax(t) of the logits t = scale * x (+ bias, or masked, or causal), over
// rows of any element type (computed in float). A logits policy gives t for element i of one
// row; a masked element of x is never read. t is formed as the contract says: scale * x rounded
// (__fmul_rn: never contracted into a later subtraction), then + bias rounded (__fadd_rn).
// Then the safe order: the maximum, the sum of exp(t - m), the outputs exp(t - m) / d. A row
// with NaN or +inf in t, or masked throughout, gives NaN (t - m is NaN somewhere, so is d).
#pragma once

#include "include/half.cuh"
#include "include/math.cuh"
#include "include/reduce.cuh"
#include "include/exp.cuh"
#include "include/tile_sum.cuh"
#include "include/cluster.cuh"

namespace sh {

template <class T>
struct ScaledLogits {  // t = scale * x, nothing masked
    const T* __restrict__ x;
    float scale;
    __device__ __forceinline__ float operator()(int i) const { return __fmul_rn(scale, to_float(x[i])); }
};

template <class T>
struct BiasLogits {  // t = scale * x + bias
    const T* __restrict__ x;
    const T* __restrict__ bias;
    float scale;
    __device__ __forceinline__ float operator()(int i) const {
        return __fadd_rn(__fmul_rn(scale, to_float(x[i])), to_float(bias[i]));
    }
};

template <class T>
struct MaskLogits {  // t = -inf where mask, else scale * x
    const T* __restrict__ x;
    const bool* __restrict__ mask;
    float scale;
    __device__ __forceinline__ float operator()(int i) const {
        return mask[i] ? neg_inf() : __fmul_rn(scale, to_float(x[i]));
    }
};

template <class T>
struct CausalLogits {  // row r keeps columns 0 .. r % C
    const T* __restrict__ x;
    int last;  // r % C
    float scale;
    __device__ __forceinline__ float operator()(int i) const {
        return i > last ? neg_inf() : __fmul_rn(scale, to_float(x[i]));
    }
};

// This thread's part of the row's maximum and of its sum, every `lanes`-th element from `lane`.
template <class L>
__device__ __forceinline__ float logits_max(const L& t, int n, int lane, int lanes) {
    float m = neg_inf();
    for (int i = lane; i < n; i += lanes) m = fmaxf(m, t(i));
    return m;
}

template <class L>
__device__ __forceinline__ float logits_exp_sum(const L& t, int n, float m, int lane, int lanes) {
    float d = 0.0f;
    for (int i = lane; i < n; i += lanes) d += expf(t(i) - m);
    return d;
}

template <class L, class T>
__device__ __forceinline__ void write_probs(const L& t, T* __restrict__ y, int n, float m, float d, int lane,
                                            int lanes) {
    for (int i = lane; i < n; i += lanes) y[i] = from_float<T>(expf(t(i) - m) / d);
}

// The row's three passes over `lanes` threads that reduce with `reduce` (a warp's or a block's),
// the maximum taken over the logits `at_max` gives (t's own; the gallery's kernels take others).
template <class M, class L, class T, class R>
__device__ __forceinline__ void scaled_row_max_of(const M& at_max, const L& t, T* __restrict__ y, int n, int lane,
                                                  int lanes, R reduce) {
    const float m = reduce(Max(), logits_max(at_max, n, lane, lanes));
    const float d = reduce(Sum(), logits_exp_sum(t, n, m, lane, lanes));
    write_probs(t, y, n, m, d, lane, lanes);
}

template <class L, class T, class R>
__device__ __forceinline__ void scaled_row(const L& t, T* __restrict__ y, int n, int lane, int lanes, R reduce) {
    scaled_row_max_of(t, t, y, n, lane, lanes, reduce);
}

// The row's logits for each form, from the kernel's arguments and the row's offset `at`.
template <class T>
__device__ __forceinline__ BiasLogits<T> row_logits(const T* x, const T* bias, float scale, size_t at, size_t) {
    return {x + at, bias + at, scale};
}
template <class T>
__device__ __forceinline__ MaskLogits<T> row_logits(const T* x, const bool* mask, float scale, size_t at, size_t) {
    return {x + at, mask + at, scale};
}
template <class T>
__device__ __forceinline__ CausalLogits<T> row_logits(const T* x, int n_cols, float scale, size_t at,
                                                      size_t row) {
    return {x + at, static_cast<int>(row % static_cast<size_t>(n_cols)), scale};
}

struct NoReduce {  // one thread holds the whole row
    template <class Op>
    __device__ __forceinline__ float operator()(Op, float v) const { return v; }
};
struct WarpReduce {
    template <class Op>
    __device__ __forceinline__ float operator()(Op op, float v) const { return warp_reduce(op, v); }
};
struct BlockReduce {
    float* scratch;
    template <class Op>
    __device__ __forceinline__ float operator()(Op op, float v) const { return block_reduce(op, v, scratch); }
};

// E bits, one a tile position.
template <int E>
struct TileBits {
    unsigned w[(E + 31) / 32];
    __device__ __forceinline__ void clear() {
#pragma unroll
        for (int b = 0; b < (E + 31) / 32; ++b) w[b] = 0u;
    }
    __device__ __forceinline__ void set(int i) { w[i / 32] |= 1u << (i % 32); }
    // the W bits of `bits` at positions first .. first + W - 1 (within one word: W divides 32)
    template <int W>
    __device__ __forceinline__ void set_chunk(int first, unsigned bits) {
        static_assert(32 % W == 0, "a chunk's bits lie in one word");
        w[first / 32] |= bits << (first % 32);
    }
    __device__ __forceinline__ bool operator[](int i) const { return (w[i / 32] >> (i % 32)) & 1u; }
};

// The positions of x's tile that hold an element of the row (set once at the load, so that the
// logits cost one bit test an element).
template <class Tile, int E>
__device__ __forceinline__ void mark_inside(const Tile& x, TileBits<E>& keep, int n, int lane) {
    keep.clear();
#pragma unroll
    for (int i = 0; i < E; ++i)
        if (x.inside(i, n, lane)) keep.set(i);
}

// The logits of one row's register tile, for each form: t(i) at tile position i, -inf outside
// the row and where masked (a masked x is loaded with its vector but never used). `keep` marks
// the positions whose logit is scale * x (+ bias).
template <class T, int LANES, int E>
struct BiasTile {  // t = scale * x + bias: the bias in a tile lined up with x's
    using Tile = RowTile<T, LANES, E>;
    Tile x, bias;
    TileBits<E> keep;
    float scale;
    __device__ __forceinline__ void load(const T* xr, const T* br, int n, int lane) {
        const bool alike = shift_of<T, Tile::W>(xr) == shift_of<T, Tile::W>(br);
        x.load(xr, n, lane, alike);
        bias.load(br, n, lane, alike);
        mark_inside(x, keep, n, lane);
    }
    __device__ __forceinline__ float operator()(int i) const {
        return keep[i] ? __fadd_rn(__fmul_rn(scale, x.get(i)), bias.get(i)) : neg_inf();
    }
};

// Bit b (0-3) set where byte b of w is 0, with no branch: the 0x80 of each byte is set in the or
// unless the byte is 0 (its low seven bits, plus 0x7f, reach 0x80 without carrying into the next
// byte; the byte itself brings its own 0x80), and the four flags, one a byte, gathered into the
// top byte of a product (no column of it passes 15, so nothing carries between them).
__device__ __forceinline__ unsigned zero_bytes(unsigned w) {
    const unsigned zero = ~(((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w | 0x7f7f7f7fu);
    return ((zero >> 7) * 0x01020408u) >> 24;
}

// Which positions of a register tile's chunks the mask row m (n elements, the tile's row) keeps,
// given to keep(k, bits) a chunk at a time (bit j: chunk k's position j lies inside the row and
// its mask byte is 0). A chunk's W bytes come as W / 4 aligned words where the chunk lies inside
// the row and its bytes start on a W-byte boundary (the mask row misaligned as x's), else byte by
// byte; nothing outside the row is read. The words of GROUP chunks are loaded before any is used,
// so that their loads are in flight together: loaded and used a chunk at a time, each load waited
// on its use before the next was issued (the mask form's online split kernel reached 0.69-0.72 of
// a copy so, 0.80-0.91 with its words together:
// reports/measurements/online_split_mask_and_crossovers.jsonl; the register tiles, 0.45-0.93 of a
// copy at 768-16384 columns, went to 0.52-1.00: reports/measurements/mask_tiles_grouped.jsonl). GROUP bounds the registers the
// words take: with four, the 16-bit online split kernels spilled 4 bytes, with all eight chunks'
// the 16-bit split_row kernels (64 elements a thread) 8. Each group past the first waits on the
// one before (its loads issue after that group's bits are used): a tile of four chunks in groups
// of three reads its row in two round trips.
// WORDS: a whole chunk's bits from its words at once (zero_bytes), where each byte is tested under
// a branch of its own (~7 instructions an element); it costs registers (the whole-chunk test is
// hoisted out of the element loop): the 16-bit tiles of 128 threads took 64 where 48-56.
template <int GROUP = 3, bool WORDS = false, class Tile, class Keep>
__device__ __forceinline__ void kept_chunks(const Tile& x, const bool* __restrict__ m, int n, int lane, Keep&& keep) {
    constexpr int W = Tile::W;
    static_assert(W % 4 == 0, "a chunk's mask bytes are whole words");
#pragma unroll
    for (int g = 0; g < Tile::CHUNKS; g += GROUP) {
        bool whole[GROUP];
        unsigned w[GROUP][W / 4];
#pragma unroll
        for (int k = g; k < g + GROUP && k < Tile::CHUNKS; ++k) {
            const int first = x.element(W * k, lane);
            whole[k - g] = x.shift >= 0 && first >= 0 && first + W <= n &&
                           reinterpret_cast<size_t>(m + first) % W == 0;
            if (whole[k - g]) load_words<W / 4>(m + first, w[k - g]);
        }
#pragma unroll
        for (int k = g; k < g + GROUP && k < Tile::CHUNKS; ++k) {
            unsigned bits = 0;
            if constexpr (WORDS) {
                if (whole[k - g]) {
#pragma unroll
                    for (int q = 0; q < W / 4; ++q) bits |= zero_bytes(w[k - g][q]) << (4 * q);
                } else {
#pragma unroll
                    for (int j = 0; j < W; ++j) {
                        const int e = x.element(W * k + j, lane);
                        if (e >= 0 && e < n && !m[e]) bits |= 1u << j;
                    }
                }
            } else {  // the whole test within the element loop: hoisted, it costs registers
#pragma unroll
                for (int j = 0; j < W; ++j) {
                    if (whole[k - g]) {
                        if (!((w[k - g][j / 4] >> (8 * (j % 4))) & 0xffu)) bits |= 1u << j;
                    } else {
                        const int e = x.element(W * k + j, lane);
                        if (e >= 0 && e < n && !m[e]) bits |= 1u << j;
                    }
                }
            }
            keep(k, bits);
        }
    }
}

template <class T, int LANES, int E>
struct MaskTile {  // t = -inf where the mask is true, else scale * x
    using Tile = RowTile<T, LANES, E>;
    static constexpr int W = Tile::W;
    Tile x;
    TileBits<E> keep;
    float scale;
    __device__ __forceinline__ void load(const T* xr, const bool* mr, int n, int lane) {
        x.load(xr, n, lane);
        keep.clear();
        // Up to four chunks (the 16-bit tiles of 32 elements a thread, fp32's of 16), every word
        // in one round trip with x's: in two, the 16-bit tile sized 16384 ran 0.70 of a copy on
        // the H200 where the bias form's ran 1.03 (run 0051); in one, on an H100, 1.015 against
        // 0.904, the cluster push kernels sized 65536 and 73728 1.01-1.02 against 0.88-0.92
        // (reports/measurements/mask_words_together_h100.json). Eight chunks' words took fp32's
        // clusters from 64 registers to 80-91.
        // The 16-bit tiles of 256 lanes a row and more take a chunk's bits at once: on an H100 the
        // tile sized 32768 (1024 lanes, 64 registers either way) 0.970 of a copy against 0.925,
        // the cluster push kernel sized 131072 1.017 against 0.988, level at 8192-16384 and
        // 65536-73728 (reports/measurements/mask_bits_wide_h100.jsonl); on every tile, the one
        // sized 32 (4 lanes, blocks of 128 threads cut from 10 to 8 a multiprocessor by the
        // registers) ran 0.947 against 1.008 (reports/measurements/mask_bits_h100.jsonl).
        constexpr bool WORDS = sizeof(T) == 2 && LANES >= 256;
        kept_chunks<(Tile::CHUNKS <= 4 ? Tile::CHUNKS : 3), WORDS>(x, mr, n, lane, [&](int k, unsigned bits) {
            if constexpr (WORDS) {
                keep.template set_chunk<W>(W * k, bits);
            } else {
#pragma unroll
                for (int j = 0; j < W; ++j)
                    if (bits >> j & 1u) keep.set(W * k + j);
            }
        });
    }
    __device__ __forceinline__ float operator()(int i) const {
        return keep[i] ? __fmul_rn(scale, x.get(i)) : neg_inf();
    }
};

// How many of a causal row's n elements a tile reads: up to the last kept column, rounded up to
// the end of its W-element vector so that the tile's loads stay whole vectors (a ragged end
// loads its last vector element by element, which cost 16-bit tiles 0.03-0.06 of a copy:
// reports/measurements/causal_reads.jsonl), the columns past it left -inf (whole chunks at a
// time: RowTile::load's MASK_OUTSIDE); all n where the tile's layout depends on the count (a row
// too misaligned for its tile goes element by element).
template <int W>
__device__ __forceinline__ int causal_reads(int shift, int n, int last, int capacity) {
    if (shift + n > capacity) return n;
    if (last < 0) return 0;
    return min(n, (shift + last + W) / W * W - shift);
}

template <class T, int LANES, int E>
struct CausalTile {  // row r keeps columns 0 .. r % C
    RowTile<T, LANES, E> x;
    TileBits<E> keep;
    float scale;
    __device__ __forceinline__ void load(const T* xr, int n, int last, int lane) {
        using X = RowTile<T, LANES, E>;
        x.template load<X::W, true>(xr, causal_reads<X::W>(shift_of<T, X::W>(xr), n, last, X::CAPACITY), lane);
        keep.clear();
#pragma unroll
        for (int i = 0; i < E; ++i) {
            const int e = x.element(i, lane);
            if (e >= 0 && e < n && e <= last) keep.set(i);
        }
    }
    __device__ __forceinline__ float operator()(int i) const {
        return keep[i] ? __fmul_rn(scale, x.get(i)) : neg_inf();
    }
};

// The tile of each form for a row's n elements from column `start` (a cluster block's slice; 0
// and the whole row otherwise), from the kernel's arguments.
template <class T, int LANES, int E>
__device__ __forceinline__ BiasTile<T, LANES, E> row_tile(const T* x, const T* bias, float scale, size_t row,
                                                          int n_cols, int n, int lane, int start = 0) {
    BiasTile<T, LANES, E> t;
    t.scale = scale;
    t.load(row_of(x, row, n_cols) + start, row_of(bias, row, n_cols) + start, n, lane);
    return t;
}
template <class T, int LANES, int E>
__device__ __forceinline__ MaskTile<T, LANES, E> row_tile(const T* x, const bool* mask, float scale, size_t row,
                                                          int n_cols, int n, int lane, int start = 0) {
    MaskTile<T, LANES, E> t;
    t.scale = scale;
    t.load(row_of(x, row, n_cols) + start, row_of(mask, row, n_cols) + start, n, lane);
    return t;
}
template <class T, int LANES, int E>
__device__ __forceinline__ CausalTile<T, LANES, E> row_tile(const T* x, int, float scale, size_t row, int n_cols,
                                                            int n, int lane, int start = 0) {
    CausalTile<T, LANES, E> t;
    t.scale = scale;
    t.load(row_of(x, row, n_cols) + start, n, static_cast<int>(row % static_cast<size_t>(n_cols)) - start, lane);
    return t;
}

// A tile's logits formed once into v, and their maximum.
template <class L, int N>
__device__ __forceinline__ float form_logits(const L& t, float (&v)[N]) {
    float m = neg_inf();
#pragma unroll
    for (int i = 0; i < N; ++i) {
        v[i] = t(i);
        m = fmaxf(m, v[i]);
    }
    return m;
}

// A row of at most LANES * E elements a group of LANES lanes, in registers: the logits formed once
// into floats (the 16-bit tiles hold raw bits: forming t again for the sum and the store made
// those kernels issue-bound, reports/measurements/fused_tiles_ncu.txt), their maximum, then
// e = ex2((t - m) log2 e) kept in their place and summed (sh::chunk_sum's order: a position
// outside the row or masked adds exactly 0), then y = e * (1 / d). Fast arithmetic
// (fast_math=true exp=ex2), as the forward's fast family.
template <class L, class T, int LANES>
__device__ __forceinline__ void scaled_tile_row(L& t, T* __restrict__ y, int n, const RowSlot<LANES>& slot) {
    using Tile = decltype(t.x);
    float v[Tile::CAPACITY / LANES];
    float m = form_logits(t, v);
    m = slot.reduce(Max(), m);
    const ExpArgs<false> arg(m);
    const float d = slot.reduce(Sum(), chunk_sum<Tile::W, Tile::CHUNKS>([&](int i) {
        v[i] = ex2(arg(v[i]));
        return v[i];
    }));
    const float r = __frcp_rn(d);
    if (!slot.live) return;
    t.x.write(y, n, slot.lane, [&](int i) { return v[i] * r; });
}

// A row of at most CLUSTER * THREADS * E elements over a cluster of CLUSTER blocks (sm_90), each
// block's slice in registers (x and the bias or mask read once): the logits formed once, the
// row's maximum and then its sum each combined over the cluster (sh::cluster_reduce: the same m
// and d in every block), then y = e * (1 / d) written from the registers, as scaled_tile_row.
template <class T, int CLUSTER, int THREADS, int E, class Second>
__device__ __forceinline__ void scaled_cluster_rows(const T* __restrict__ x, Second second, float scale,
                                                    T* __restrict__ y, int n_cols) {
#if __CUDA_ARCH__ >= 900
    using Tile = RowTile<T, THREADS, E>;
    __shared__ float scratch[32];
    __shared__ float published[2];
    const ClusterSlice part = cluster_slice<CLUSTER, Tile::W>(n_cols);
    auto t = row_tile<T, THREADS, E>(x, second, scale, part.row, n_cols, part.n, threadIdx.x, part.start);
    float v[E];
    float m = form_logits(t, v);
    m = cluster_reduce<CLUSTER>(Max(), m, scratch, &published[0]);
    const ExpArgs<false> arg(m);
    const float d = cluster_reduce<CLUSTER>(Sum(), chunk_sum<Tile::W, Tile::CHUNKS>([&](int i) {
        v[i] = ex2(arg(v[i]));
        return v[i];
    }), scratch, &published[1]);
    cluster_arrive();  // done with the others' values: they may leave once every block has said so
    const float r = __frcp_rn(d);
    t.x.write(row_of(y, part.row, n_cols) + part.start, part.n, threadIdx.x, [&](int i) { return v[i] * r; });
    cluster_wait();
#else
    __trap();  // clusters need sm_90; the registry's min_sm keeps this from being launched
#endif
}

}  // namespace sh

// The extern "C" kernels of each form: (x, bias, y, n_rows, n_cols, scale), (x, mask, y, n_rows,
// n_cols, scale) and (x, y, n_rows, n_cols, scale). SECOND is the form's second argument (the bias
// or mask pointer; n_cols for the causal form, whose row logits need only it).
#define SCALED_ARGS_bias(T) const T *__restrict__ x, const T *__restrict__ second, T *__restrict__ y, int n_rows, int n_cols, float scale
#define SCALED_ARGS_mask(T) const T *__restrict__ x, const bool *__restrict__ second, T *__restrict__ y, int n_rows, int n_cols, float scale
#define SCALED_ARGS_causal(T) const T *__restrict__ x, T *__restrict__ y, int n_rows, int n_cols, float scale
#define SCALED_SECOND_bias second
#define SCALED_SECOND_mask second
#define SCALED_SECOND_causal n_cols

// One row a thread: every sum one sequential chain (neighbouring threads read rows C apart).
#define SCALED_THREAD(NAME, FORM, T)                                                                   \
    extern "C" __global__ void NAME(SCALED_ARGS_##FORM(T)) {                                           \
        const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;                              \
        if (row >= (size_t)n_rows) return;                                                             \
        const size_t at = row * n_cols;                                                                \
        sh::scaled_row(sh::row_logits(x, SCALED_SECOND_##FORM, scale, at, row), y + at, n_cols, 0, 1,  \
                       sh::NoReduce());                                                                \
    }
// One row a warp (row = the warp's index in the grid).
#define SCALED_WARP(NAME, FORM, T)                                                                     \
    extern "C" __global__ void NAME(SCALED_ARGS_##FORM(T)) {                                           \
        const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;                  \
        if (row >= (size_t)n_rows) return; /* whole warps leave together */                           \
        const size_t at = row * n_cols;                                                                \
        sh::scaled_row(sh::row_logits(x, SCALED_SECOND_##FORM, scale, at, row), y + at, n_cols,        \
                       threadIdx.x & 31, 32, sh::WarpReduce());                                        \
    }
// One row a block, any length; x read three times (the second and third mostly from cache).
#define SCALED_BLOCK(NAME, FORM, T)                                                                    \
    extern "C" __global__ void NAME(SCALED_ARGS_##FORM(T)) {                                           \
        __shared__ float scratch[32];                                                                  \
        const size_t row = blockIdx.x, at = row * n_cols;                                              \
        sh::scaled_row(sh::row_logits(x, SCALED_SECOND_##FORM, scale, at, row), y + at, n_cols,        \
                       threadIdx.x, blockDim.x, sh::BlockReduce{scratch});                             \
    }
// A row a group of LANES lanes (a power of two up to 32, or THREADS: a row a block), LANES * E
// elements at most, in registers.
#define SCALED_TILE(NAME, FORM, T, THREADS, LANES, E)                                                  \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(SCALED_ARGS_##FORM(T)) {                \
        const sh::RowSlot<LANES> slot(n_rows);                                                         \
        const size_t row = slot.live ? slot.row : 0;                                                   \
        const int n = slot.live ? n_cols : 0;                                                          \
        auto t = sh::row_tile<T, LANES, E>(x, SCALED_SECOND_##FORM, scale, row, n_cols, n, slot.lane);  \
        sh::scaled_tile_row(t, sh::row_of(y, row, n_cols), n, slot);                                   \
    }
// A row over a cluster of CLUSTER blocks of THREADS, E elements a thread (sm_90: min_sm=90).
#define SCALED_CLUSTER(NAME, FORM, T, CLUSTER, THREADS, E)                                              \
    extern "C" __global__ void SH_CLUSTER_DIMS(CLUSTER) __launch_bounds__(THREADS) NAME(SCALED_ARGS_##FORM(T)) { \
        sh::scaled_cluster_rows<T, CLUSTER, THREADS, E>(x, SCALED_SECOND_##FORM, scale, y, n_cols);     \
    }
