// A thread's share of a row in registers (RowTile) and the one-pass kernels built on it.
#pragma once

#include "reduce.cuh"
#include "exp.cuh"
#include "store.cuh"

namespace sh {

// A thread's share of a row in registers: E elements in chunks of W (up to 16 bytes,
// one vector access each). Chunk k of lane l covers tile positions W * (k * LANES + l)
// .. + W - 1, so neighbouring lanes touch neighbouring bytes. Tile position p holds row
// element p - shift, where shift is how far the row starts into a W-element segment (or a
// bigger one, see load):
// a misaligned row still moves in whole aligned vectors, and only the segments at its two
// ends, which are partly outside the row, go element by element (nothing outside the row
// is read or written; positions outside it count as -inf). A row that does not fit the
// tile with its shift (a misaligned row within W - 1 elements of the capacity) goes element
// by element, with tile position i of lane l holding element i * LANES + l, so that each
// access of a warp covers neighbouring elements; the stores of an output row that is
// misaligned differently from its input row go element by element too.
//
// float rows keep their values as float; fold() turns them into exp(x - m_t) / c in place
// (c: see ExpArgs; 1 without SHIFT), and store() scales them. 16-bit rows keep the raw bits
// (twice the elements in the same registers, so twice the bytes in flight), and store()
// recomputes exp(x - m) / d.
// SHIFT: exponentials from ExpArgs<true> where they may be.
template <class T, int LANES, int E, bool SHIFT = false>
struct RowTile {
    // Raw 16-bit storage pays off for big tiles; small ones convert to float at load.
    static constexpr bool PACKED = sizeof(T) == 2 && E >= 32;
    static constexpr bool WIDE = !PACKED;
    static constexpr int W = E < 16 / (int)sizeof(T) ? E : 16 / (int)sizeof(T);
    static constexpr int CHUNKS = E / W;
    static constexpr int WORDS = W * (int)sizeof(T) / 4;
    static constexpr int CAPACITY = LANES * E;
    static_assert(E % W == 0 && WORDS >= 1, "a tile is whole chunks of whole 32-bit words");
    float v[WIDE ? E : 1];
    unsigned w[WIDE ? 1 : E / 2];  // 16-bit elements, two to a word (element 2k in the low bits)
    int shift;                     // -1: element by element
    float c = 1.0f;                // float tiles hold exp(x - m_t) / c (see ExpArgs)

    __device__ __forceinline__ float get(int i) const {
        if constexpr (WIDE) return v[i];
        else return unpack_half<T>(w[i / 2], i % 2);
    }
    __device__ __forceinline__ void put_bits(int i, unsigned short b) {
        const int at = 16 * (i % 2);
        w[i / 2] = (w[i / 2] & ~(0xffffu << at)) | (static_cast<unsigned>(b) << at);
    }
    __device__ __forceinline__ void mask(int i) {
        if constexpr (WIDE) v[i] = neg_inf();
        else put_bits(i, neg_inf_bits(T{}));
    }

    // Tile position i from element `at` (inside the row) or -inf (outside).
    __device__ __forceinline__ void load_one(int i, const T* at, bool inside) {
        if (!inside) mask(i);
        else if constexpr (WIDE) v[i] = to_float(*at);
        else put_bits(i, at->bits);
    }

    // Whether the row (with its shift) begins and ends on chunk boundaries, so that every chunk
    // lies wholly inside it or wholly outside: then a tile of BRANCHLESS loads and stores its
    // chunks as predicated vector accesses, one after another, without a branch between two.
    // Measured on tiles of 512 threads or more: +0.003-0.008 of copy at the C they are sized
    // to, +0.011-0.015 at C = 9000 and 20000; on smaller tiles 0 to -0.01, and -0.05 where it
    // costs occupancy (reports/measurements/whole_chunks_ab.json).
    static constexpr bool BRANCHLESS = LANES >= 512;
    __device__ __forceinline__ bool whole_chunks(int n) const {
        return BRANCHLESS && shift % W == 0 && (shift + n) % W == 0;
    }

    // Chunk k from the aligned vector at `at`.
    __device__ __forceinline__ void load_chunk(int k, const T* at) {
        unsigned got[WORDS];
        load_words<WORDS>(at, got);
#pragma unroll
        for (int j = 0; j < WORDS; ++j) {
            if constexpr (PACKED) w[(W * k) / 2 + j] = got[j];
            else if constexpr (sizeof(T) == 4) v[W * k + j] = __uint_as_float(got[j]);
            else {
                v[W * k + 2 * j] = to_float(T{static_cast<unsigned short>(got[j] & 0xffffu)});
                v[W * k + 2 * j + 1] = to_float(T{static_cast<unsigned short>(got[j] >> 16)});
            }
        }
    }

    // ALIGN (a multiple of W): the segment the shift is taken within; a bigger one lines each
    // warp's vectors up with whole cache lines, at the cost of as much of the capacity.
    // vectors = false: element by element (a tile that must line up with another row's, which is
    // misaligned differently). MASK_OUTSIDE: a chunk wholly outside the row is masked whole rather
    // than element by element, for a tile that reads only part of its row (a causal one, up to
    // the last kept column: most of its chunks lie past it).
    template <int ALIGN = W, bool MASK_OUTSIDE = false>
    __device__ __forceinline__ void load(const T* __restrict__ row, int n, int lane, bool vectors = true) {
        static_assert(ALIGN % W == 0, "whole vectors a segment");
        const int s = shift_of<T, ALIGN>(row);
        shift = vectors && s + n <= CAPACITY ? s : -1;
        if (shift < 0) {  // element by element, neighbouring lanes on neighbouring elements
#pragma unroll
            for (int i = 0; i < E; ++i) load_one(i, row + i * LANES + lane, i * LANES + lane < n);
            return;
        }
        const T* base = row - shift;  // tile position p holds element p - shift
        if (whole_chunks(n)) {  // no branches between the loads: each one is in or out
#pragma unroll
            for (int k = 0; k < CHUNKS; ++k) {
                const int p = W * (k * LANES + lane);
                if (p >= shift && p < shift + n) load_chunk(k, base + p);
                else {
#pragma unroll
                    for (int j = 0; j < W; ++j) mask(W * k + j);
                }
            }
            return;
        }
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) {
            const int p = W * (k * LANES + lane);
            if (p >= shift && p + W <= shift + n) {  // a whole aligned vector
                load_chunk(k, base + p);
            } else if (MASK_OUTSIDE && (p + W <= shift || p >= shift + n)) {
#pragma unroll
                for (int j = 0; j < W; ++j) mask(W * k + j);
            } else {  // the row's two ends, and beyond the row
#pragma unroll
                for (int j = 0; j < W; ++j)
                    load_one(W * k + j, base + p + j, p + j >= shift && p + j < shift + n);
            }
        }
    }

    // The row element at tile position i (negative before the row's start; the caller compares
    // it with n for the end).
    __device__ __forceinline__ int element(int i, int lane) const {
        if (shift < 0) return i * LANES + lane;
        return W * ((i / W) * LANES + lane) + i % W - shift;
    }
    __device__ __forceinline__ bool inside(int i, int n, int lane) const {
        const int e = element(i, lane);
        return e >= 0 && e < n;
    }

    // The tile's state (m_t, sum exp(x - m_t)).
    __device__ __forceinline__ MaxSum fold() {
        const float m = max();
        return {m, sum_exp(m)};
    }

    // The tile's maximum.
    __device__ __forceinline__ float max() const {
        float m = neg_inf();
        if constexpr (WIDE) {
#pragma unroll
            for (int i = 0; i < E; ++i) m = fmaxf(m, v[i]);
        } else {
            unsigned pair = w[0];
#pragma unroll
            for (int i = 1; i < E / 2; ++i) pair = max_pair(pair, w[i], T{});
            m = pair_max<T>(pair);
        }
        return m;
    }

    // sum exp(x - m) over the tile, for m at least the tile's maximum (float tiles keep the
    // terms). m = -inf subtracts 0 instead, so every term of a tile of only -inf is exactly 0.
    __device__ __forceinline__ float sum_exp(float m) {
        const float base = m == neg_inf() ? 0.0f : m;
        return with_exp_args<T, SHIFT>(base, [&](auto arg) {
            float d = 0.0f;
#pragma unroll
            for (int i = 0; i < E; ++i) {
                const float e = ex2(arg(get(i)));
                if constexpr (WIDE) v[i] = e;
                d += e;
            }
            c = arg.c;
            return d * arg.c;
        });
    }

    // Write y = softmax for the elements inside the row (see write_softmax).
    __device__ __forceinline__ void store(T* __restrict__ row, int n, int lane, MaxSum mine, MaxSum all) const {
        write_softmax<T, SHIFT, WIDE>([&](auto out) { write(row, n, lane, [&](int i) { return out(get(i)); }); },
                                      mine, all, c);
    }

    // Write out(i) for the tile positions inside the row.
    template <class Out>
    __device__ __forceinline__ void write(T* __restrict__ row, int n, int lane, Out out) const {
        if (shift < 0) {
#pragma unroll
            for (int i = 0; i < E; ++i)
                if (i * LANES + lane < n) row[i * LANES + lane] = from_float<T>(out(i));
            return;
        }
        const bool vectors = shift_of<T, W>(row) == shift % W;  // y as misaligned as x
        if (vectors && whole_chunks(n)) {  // no branches between the stores
            T* at = row - shift + W * lane;
#pragma unroll
            for (int k = 0; k < CHUNKS; ++k) {
                const int p = W * (k * LANES + lane);
                float y[W];
#pragma unroll
                for (int j = 0; j < W; ++j) y[j] = out(W * k + j);
                store_vector<T, W>(at + W * LANES * k, y, p >= shift && p < shift + n);
            }
            return;
        }
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) {
            float y[W];
#pragma unroll
            for (int j = 0; j < W; ++j) y[j] = out(W * k + j);
            store_chunk<T, W>(row - shift, W * (k * LANES + lane), y, shift, shift + n, vectors);
        }
    }
};

// The row a group of LANES threads works on (LANES a power of two up to 32, several rows a block;
// or the block's size, a row a block), this thread's lane in it, and reductions over the group.
// A dead group (past the last row) must still reduce: its warp's shuffles need every lane.
template <int LANES>
struct RowSlot {
    size_t row;
    int lane;
    bool live;

    __device__ __forceinline__ explicit RowSlot(int n_rows)
        : row((size_t)blockIdx.x * (blockDim.x / LANES) + threadIdx.x / LANES),
          lane(threadIdx.x % LANES),
          live(row < (size_t)n_rows) {}

    template <class Op, class V>
    __device__ __forceinline__ V reduce(Op op, V v) const {
        if constexpr (LANES <= 32) {
            return group_reduce<LANES>(op, v);
        } else {
            __shared__ V scratch[32];
            return block_reduce(op, v, scratch);
        }
    }
};

// Row pointers for the row handled by this block or warp.
template <class T>
__device__ __forceinline__ T* row_of(T* base, size_t row, int n_cols) {
    return base + row * static_cast<size_t>(n_cols);
}

// ---- One-pass softmax from a register tile (the fast family). Each thread loads its
// whole share before using any of it, so many loads are in flight; a row is read once
// and written once. Element i of a tile becomes exp(x_i - m_t) (m_t: the tile's own
// maximum), the (m_t, sum) states are merged, and y_i = e_i * exp(m_t - m) / d.

// Several rows per block: a group of LANES threads per row. Dead groups (past the
// last row) still join the shuffles.
template <class T, int LANES, int E>
__device__ __forceinline__ void onepass_group_rows(const T* __restrict__ x, T* __restrict__ y, int n_rows,
                                                   int n_cols) {
    const int lane = threadIdx.x % LANES;
    const size_t row = (size_t)blockIdx.x * (blockDim.x / LANES) + threadIdx.x / LANES;
    const bool live = row < (size_t)n_rows;
    RowTile<T, LANES, E> tile;
    tile.load(row_of(x, live ? row : 0, n_cols), live ? n_cols : 0, lane);
    const MaxSum mine = tile.fold();
    const MaxSum all = group_reduce<LANES>(FastMerge(), mine);
    if (live) tile.store(row_of(y, row, n_cols), n_cols, lane, mine, all);
}

// A block per row. TWO_PHASE: the row's maximum first (one block reduction), then the sum of
// exp(x - m) (a second one), as Triton's softmax does; else each thread folds its (m_t, d_t) and
// one reduction merges the states (an exponential a merge).
template <class T, int THREADS, int E, bool TWO_PHASE = false>
__device__ __forceinline__ void onepass_block_row(const T* __restrict__ x, T* __restrict__ y, int n_cols) {
    RowTile<T, THREADS, E> tile;
    tile.load(row_of(x, blockIdx.x, n_cols), n_cols, threadIdx.x);
    if constexpr (TWO_PHASE) {
        __shared__ float scratch[32];
        const float m = block_reduce(Max(), tile.max(), scratch);
        const MaxSum all = {m, block_reduce(Sum(), tile.sum_exp(m), scratch)};
        tile.store(row_of(y, blockIdx.x, n_cols), n_cols, threadIdx.x, all, all);
    } else {
        __shared__ MaxSum scratch[32];
        const MaxSum mine = tile.fold();
        const MaxSum all = block_reduce(FastMerge(), mine, scratch);
        tile.store(row_of(y, blockIdx.x, n_cols), n_cols, threadIdx.x, mine, all);
    }
}

}  // namespace sh


// Kernel definitions for the one-pass family: T is the element type (float, sh::half_t
// or sh::bf16_t), E the elements each thread holds.
#define SH_ONEPASS_GROUP_KERNEL(NAME, T, LANES, E)                                                        \
    extern "C" __global__ void __launch_bounds__(128) NAME(const T* __restrict__ x, T* __restrict__ y,    \
                                                           int n_rows, int n_cols) {                      \
        sh::onepass_group_rows<T, LANES, E>(x, y, n_rows, n_cols);                                        \
    }
#define SH_ONEPASS_BLOCK_KERNEL(NAME, T, THREADS, E, ...)                                                 \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(const T* __restrict__ x,                   \
                                                               T* __restrict__ y, int n_rows, int n_cols) { \
        sh::onepass_block_row<T, THREADS, E, ##__VA_ARGS__>(x, y, n_cols);                                \
    }
