// The fused forward's masked forms on the forward's split-row machinery (include/split_row.cuh):
// t = -inf where masked, else scale * x (rounded once, as the contract forms it), the mask from a
// bool row (MASK) or from the row's index (causal: row r keeps columns 0 .. r % C). A slice is
// held as x (registers and the shared-memory stash, copied in as the forward copies it) with a
// bit (registers) or a byte (stash, copied in beside x) that says whether each position is kept;
// t is formed from them where it is used, and a masked x is never used. The group meets once a
// row on a (max, sum) pair, where the fused split_row kernels meet twice (the maximum, then the
// sum) and hold a third of a slice.
#pragma once

#include "include/scaled.cuh"
#include "include/split_row.cuh"

namespace {

// Which of W mask elements `first` .. first + W - 1 of a part of n are kept (bit j: element
// first + j lies inside [0, n) and its mask byte is 0); whole words where aligned.
template <int W>
__device__ __forceinline__ unsigned kept_of(const bool* __restrict__ mask, int first, int n) {
    unsigned bits = 0;
    if (first >= 0 && first + W <= n && reinterpret_cast<size_t>(mask + first) % W == 0) {
        unsigned w[W / 4];
        sh::load_words<W / 4>(mask + first, w);
#pragma unroll
        for (int j = 0; j < W; ++j)
            if (!((w[j / 4] >> (8 * (j % 4))) & 0xffu)) bits |= 1u << j;
    } else {
#pragma unroll
        for (int j = 0; j < W; ++j)
            if (first + j >= 0 && first + j < n && !mask[first + j]) bits |= 1u << j;
    }
    return bits;
}

template <class T, bool MASK>
struct MaskedForm {
    const T* x;
    const bool* mask;  // MASK only
    int n_cols;
    float scale;

    // The last kept column of `row` counted from column `col` (causal; below 0: none).
    __device__ __forceinline__ int last_kept(size_t row, int col) const {
        return static_cast<int>(row % static_cast<size_t>(n_cols)) - col;
    }

    // A slice's part in registers: x with a kept bit a position. Float tiles hold t in place (then
    // their exponentials, as the forward's); 16-bit tiles keep x's bits and form t where used.
    template <int THREADS, int E>
    struct Tile {
        using X = sh::RowTile<T, THREADS, E, true>;
        static constexpr int CAPACITY = X::CAPACITY;
        X x;
        sh::TileBits<X::WIDE ? 1 : E> keep;  // 16-bit tiles: whether position i is kept
        float scale;

        __device__ __forceinline__ float t(int i) const {
            return keep[i] ? __fmul_rn(scale, x.get(i)) : sh::neg_inf();
        }

        template <int LINE>
        __device__ __forceinline__ void load(const MaskedForm& f, size_t row, int col, const T* __restrict__ in, int n,
                                             int lane) {
            x.template load<LINE>(in, n, lane);
            scale = f.scale;
            keep.clear();
            const bool* m = MASK ? sh::row_of(f.mask, row, f.n_cols) + col : nullptr;
            const int last = f.last_kept(row, col);
#pragma unroll
            for (int k = 0; k < X::CHUNKS; ++k) {
                unsigned bits = 0;  // of chunk k's W positions
                if (MASK && x.shift >= 0) {
                    bits = kept_of<X::W>(m, x.element(X::W * k, lane), n);
                } else {
#pragma unroll
                    for (int j = 0; j < X::W; ++j) {
                        const int i = X::W * k + j, e = x.element(i, lane);
                        if (x.inside(i, n, lane) && (MASK ? !m[e] : e <= last)) bits |= 1u << j;
                    }
                }
#pragma unroll
                for (int j = 0; j < X::W; ++j) {  // float tiles: t in place, no bits kept
                    const int i = X::W * k + j;
                    if constexpr (X::WIDE) x.v[i] = (bits >> j & 1u) ? __fmul_rn(scale, x.v[i]) : sh::neg_inf();
                    else if (bits >> j & 1u) keep.set(i);
                }
            }
        }

        __device__ __forceinline__ sh::MaxSum fold() {
            if constexpr (X::WIDE) return x.fold();
            float m = sh::neg_inf();
#pragma unroll
            for (int i = 0; i < E; ++i) m = fmaxf(m, t(i));
            const float base = m == sh::neg_inf() ? 0.0f : m;
            const float d = sh::with_exp_args<T, true>(base, [&](auto arg) {
                return sh::chunk_sum<X::W, X::CHUNKS>([&](int i) { return sh::ex2(arg(t(i))); }) * arg.c;
            });
            return {m, d};
        }

        __device__ __forceinline__ void store(T* __restrict__ out, int n, int lane, sh::MaxSum mine,
                                              sh::MaxSum all) const {
            if constexpr (X::WIDE) {
                x.store(out, n, lane, mine, all);
            } else {
                sh::write_softmax<T, true, false>(
                    [&](auto y) { x.write(out, n, lane, [&](int i) { return y(t(i)); }); }, mine, all, 1.0f);
            }
        }
    };

    // More of the slice in shared memory: x as the forward's stash holds it, and (MASK) the mask's
    // bytes at the same places, copied in beside it (4 or 8 bytes a chunk, byte by byte where the
    // mask row is misaligned otherwise than x's).
    template <int THREADS, int S>
    struct Stash : ::Stash<T, THREADS, S, false> {
        using Base = ::Stash<T, THREADS, S, false>;
        using Base::at;
        using Base::buf;
        using Base::CHUNKS;
        using Base::IN_PLACE;
        using Base::n;
        using Base::W;
        unsigned char* bytes;  // THREADS * S, MASK only
        int last = 0;          // the last kept position of the part (causal)
        float scale = 1.0f;

        __device__ __forceinline__ Stash(T* buf_, unsigned char* bytes_, int lane_) : Base{buf_, lane_}, bytes(bytes_) {}
        __device__ __forceinline__ Stash(T* buf_, int lane_) : Base{buf_, lane_}, bytes(nullptr) {}

        __device__ __forceinline__ void load(const MaskedForm& f, size_t row, int col, const T* __restrict__ part,
                                             int n_) {
            scale = f.scale;
            if constexpr (MASK) {
                const bool* m = sh::row_of(f.mask, row, f.n_cols) + col;
#pragma unroll
                for (int k = 0; k < CHUNKS; ++k) {
                    const int p = at(k);
                    if (p >= n_) break;
                    if (p + W <= n_ && reinterpret_cast<size_t>(m + p) % W == 0) {
                        const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(bytes + p));
                        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" : : "r"(to), "l"(m + p), "n"(W)
                                     : "memory");
                    } else {
#pragma unroll
                        for (int j = 0; j < W; ++j) bytes[p + j] = p + j < n_ ? m[p + j] : 1;
                    }
                }
            } else {
                last = f.last_kept(row, col);
            }
            Base::load(part, n_);  // its commit takes the mask's copies too
        }

        __device__ __forceinline__ bool kept(int p) const {
            if constexpr (MASK) return p < n && !bytes[p];
            else return p < n && p <= last;
        }

        // t of chunk k from its elements v.
        __device__ __forceinline__ void logits(int k, float (&v)[W]) const {
#pragma unroll
            for (int j = 0; j < W; ++j) v[j] = kept(at(k) + j) ? __fmul_rn(scale, v[j]) : sh::neg_inf();
        }

        __device__ __forceinline__ sh::MaxSum fold() {
            asm volatile("cp.async.wait_all;" : : : "memory");
            float m = sh::neg_inf();
            float v[W];
#pragma unroll 1
            for (int k = 0; k < CHUNKS && at(k) < n; ++k) {
                chunk_floats(buf + at(k), v);
                logits(k, v);
#pragma unroll
                for (int j = 0; j < W; ++j) m = fmaxf(m, v[j]);
            }
            const float base = m == sh::neg_inf() ? 0.0f : m;
            const float d = sh::with_exp_args<T, true>(base, [&](auto arg) {
                float d = 0.0f;
#pragma unroll 1
                for (int k = 0; k < CHUNKS && at(k) < n; ++k) {
                    chunk_floats(buf + at(k), v);
                    logits(k, v);
#pragma unroll
                    for (int j = 0; j < W; ++j) {
                        v[j] = sh::ex2(arg(v[j]));
                        d += v[j];
                    }
                    if constexpr (IN_PLACE)
                        *reinterpret_cast<float4*>(buf + at(k)) = make_float4(v[0], v[1], v[2], v[3]);
                }
                this->c = arg.c;
                return d * arg.c;
            });
            return {m, d};
        }

        // y for the part: a float stash holds the exponentials (masked: 0), a 16-bit one x.
        __device__ __forceinline__ void store(T* __restrict__ part, sh::MaxSum mine, sh::MaxSum all) const {
            const bool aligned = sh::shift_of<T, W>(part) == 0;
            sh::write_softmax<T, true, IN_PLACE>(
                [&](auto out) {
#pragma unroll 1
                    for (int k = 0; k < CHUNKS && at(k) < n; ++k) {
                        float y[W];
                        chunk_floats(buf + at(k), y);
                        if constexpr (!IN_PLACE) logits(k, y);
#pragma unroll
                        for (int j = 0; j < W; ++j) y[j] = out(y[j]);
                        sh::store_chunk<T, W>(part, at(k), y, 0, n, aligned);
                    }
                },
                mine, all, this->c);
        }
    };
};

}  // namespace

// The masked forms' kernels, of the fused forward's signatures with the split-row geometry's
// workspace and parts: x and (MASK) its mask bytes in static shared memory.
#define SCALED_ONLINE_SPLIT_mask(NAME, T, THREADS, BLOCKS, E, S)                                          \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                          \
        NAME(SCALED_ARGS_mask(T), unsigned* workspace, int parts) {                                        \
        __shared__ __align__(16) T stash[THREADS * S];                                                     \
        __shared__ __align__(16) unsigned char bytes[THREADS * S];                                         \
        split_rows<T, THREADS, E, S>(MaskedForm<T, true>{x, second, n_cols, scale}, y, n_rows, n_cols,     \
                                     workspace, parts, stash, bytes);                                      \
    }
#define SCALED_ONLINE_SPLIT_causal(NAME, T, THREADS, BLOCKS, E, S)                                        \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                          \
        NAME(SCALED_ARGS_causal(T), unsigned* workspace, int parts) {                                      \
        __shared__ __align__(16) T stash[THREADS * S];                                                     \
        split_rows<T, THREADS, E, S>(MaskedForm<T, false>{x, nullptr, n_cols, scale}, y, n_rows, n_cols,   \
                                     workspace, parts, stash);                                             \
    }
