// The fused forward on the forward's split-row machinery (include/split_row.cuh): t = scale * x
// + bias (BiasForm), or t = -inf where masked, else scale * x (MaskedForm: the mask from a bool
// row, or from the row's index: causal, row r keeps columns 0 .. r % C); each operation rounded
// once, as the contract forms t. A slice is held as its inputs (registers and the shared-memory
// stash, copied in as the forward copies x): x, and the bias, or a bit (registers) or a byte
// (stash) that says whether a position is kept; t is formed from them where it is used (in place
// in float tiles, once), and a masked x is never used. The group meets once a row on a (max,
// sum) pair, where the fused split_row kernels meet twice (the maximum, then the sum) and hold a
// third of a slice.
#pragma once

#include "include/scaled.cuh"
#include "include/split_row.cuh"

namespace {

// 2^k, exactly, for an integer k at most 0 (above: 1, which only meets a sum of 0); 0 below float's
// normal range, where -ftz flushes the product anyway.
__device__ __forceinline__ float pow2_down(int k) {
    return k < -126 ? 0.0f : __int_as_float((127 + min(k, 0)) << 23);
}

// The (max, sum) of logits given a chunk of W at a time, in one pass (the 16-bit stashes,
// which form t again each time they read it): the sum kept as sum ex2(t log2e - s) over
// s = ceil(m log2e), an integer, for the maximum m so far; a chunk that raises it rescales the sum
// by 2^(s - s'), exactly (a power of two, no rounding). result(): sum exp(t - m), the sum times
// c = 2^(s - m log2e), in [1, 2). add() is false (the caller takes two passes instead) where a
// chunk's maximum that raises m is not below 2^22 in magnitude, where m log2e no longer stands for
// the row's exponents (float's range check), or is infinite. Two passes become one: +4 points of a
// copy for the mask form, +0-2 for the bias form (reports/measurements/online_fold_once.jsonl),
// +0.04-0.05 for the causal form (online_causal_once.jsonl).
struct OnceFold {
    float m = sh::neg_inf(), s = 0.0f, d = 0.0f;

    template <int W>
    __device__ __forceinline__ bool add(const float (&v)[W]) {
        float top = v[0];
#pragma unroll
        for (int j = 1; j < W; ++j) top = fmaxf(top, v[j]);
        if (top > m) {
            if (!(fabsf(top) < 4194304.0f)) return false;
            const float s_top = ceilf(__fmul_rn(top, sh::LOG2E));
            d = __fmul_rn(d, pow2_down(static_cast<int>(s - s_top)));
            m = top;
            s = s_top;
        }
#pragma unroll
        for (int j = 0; j < W; ++j) d += sh::ex2(__fmaf_rn(v[j], sh::LOG2E, -s));
        return true;
    }

    // m still -inf: d is 0, or NaN where a NaN was summed (the row's output must be NaN)
    __device__ __forceinline__ sh::MaxSum result() const {
        return {m, m == sh::neg_inf() ? d : __fmul_rn(d, sh::ex2(-__fmaf_rn(m, sh::LOG2E, -s)))};
    }
};

// A form's register tile, given the form's t(i) (Derived: CRTP) for 16-bit tiles, which keep x's
// bits; float tiles hold t in place from the load (then their exponentials, as the forward's).
// The shifted exponentials' range check is float's (|m| < 2^22), whatever T: scale * x of a
// float16 x is not bounded by float16's range, so the forward's 16-bit tiles' unchecked path
// (sh::shifts) does not hold here.
template <class Derived, class T, int THREADS, int E>
struct LogitTile {
    using X = sh::RowTile<T, THREADS, E, true>;
    static constexpr int CAPACITY = X::CAPACITY;
    X x;
    float scale;
    float c = 1.0f;  // float tiles hold exp(t - m_t) / c (see sh::ExpArgs)

    __device__ __forceinline__ float t(int i) const { return static_cast<const Derived*>(this)->t(i); }
    // What position i holds: t (then its exponential) in a float tile, else t formed again.
    __device__ __forceinline__ float held(int i) const {
        if constexpr (X::WIDE) return x.v[i];
        else return t(i);
    }

    __device__ __forceinline__ sh::MaxSum fold() {
        float m = sh::neg_inf();
#pragma unroll
        for (int i = 0; i < E; ++i) m = fmaxf(m, held(i));
        const float base = m == sh::neg_inf() ? 0.0f : m;
        const float d = sh::with_exp_args<float, true>(base, [&](auto arg) {
            if constexpr (X::WIDE) {
                float d = 0.0f;
#pragma unroll
                for (int i = 0; i < E; ++i) {
                    x.v[i] = sh::ex2(arg(x.v[i]));
                    d += x.v[i];
                }
                c = arg.c;
                return d * arg.c;
            } else {
                return sh::chunk_sum<X::W, X::CHUNKS>([&](int i) { return sh::ex2(arg(t(i))); }) * arg.c;
            }
        });
        return {m, d};
    }

    __device__ __forceinline__ void store(T* __restrict__ out, int n, int lane, sh::MaxSum mine, sh::MaxSum all) const {
        sh::write_softmax<float, true, X::WIDE>(
            [&](auto y) { x.write(out, n, lane, [&](int i) { return y(held(i)); }); }, mine, all, c);
    }
};

// A form's stash: x as the forward's stash holds it, each chunk made logits by the form's
// logits(k, v) (Derived: CRTP), which must give -inf past the part's end. A float stash keeps the
// exponentials in place (masked: 0), a 16-bit one x.
template <class Derived, class T, int THREADS, int S>
struct LogitStash : ::Stash<T, THREADS, S, false> {
    using Base = ::Stash<T, THREADS, S, false>;
    using Base::at;
    using Base::buf;
    using Base::CHUNKS;
    using Base::IN_PLACE;
    using Base::n;
    using Base::W;
    float scale = 1.0f;
    // The positions from here on are masked (the causal form's past the row's last kept column):
    // never copied in, folded or formed again; their y is what a masked position's would be.
    int live = 0x7fffffff;

    __device__ __forceinline__ LogitStash(T* buf_, int lane_) : Base{buf_, lane_} {}

    __device__ __forceinline__ void logits(int k, float (&v)[W]) const {
        static_cast<const Derived*>(this)->logits(k, v);
    }

    // A 16-bit stash's (max, sum) in one pass (OnceFold); false where it gives way to two.
    __device__ __forceinline__ bool fold_once(sh::MaxSum& out) {
        OnceFold once;
        float v[W];
        const int end = min(n, live);
#pragma unroll 1
        for (int k = 0; k < CHUNKS && at(k) < end; ++k) {
            chunk_floats(buf + at(k), v);
            logits(k, v);
            if (!once.add(v)) return false;
        }
        this->c = 1.0f;
        out = once.result();
        return true;
    }

    __device__ __forceinline__ sh::MaxSum fold() {
        asm volatile("cp.async.wait_all;" : : : "memory");
        if constexpr (!IN_PLACE) {
            sh::MaxSum once;
            if (fold_once(once)) return once;
        }
        float m = sh::neg_inf();
        float v[W];
        const int end = min(n, live);
#pragma unroll 1
        for (int k = 0; k < CHUNKS && at(k) < end; ++k) {
            chunk_floats(buf + at(k), v);
            logits(k, v);
#pragma unroll
            for (int j = 0; j < W; ++j) m = fmaxf(m, v[j]);
        }
        const float base = m == sh::neg_inf() ? 0.0f : m;
        const float d = sh::with_exp_args<float, true>(base, [&](auto arg) {  // float's check (LogitTile)
            float d = 0.0f;
#pragma unroll 1
            for (int k = 0; k < CHUNKS && at(k) < end; ++k) {
                chunk_floats(buf + at(k), v);
                logits(k, v);
#pragma unroll
                for (int j = 0; j < W; ++j) {
                    v[j] = sh::ex2(arg(v[j]));
                    d += v[j];
                }
                if constexpr (IN_PLACE) *reinterpret_cast<float4*>(buf + at(k)) = make_float4(v[0], v[1], v[2], v[3]);
            }
            this->c = arg.c;
            return d * arg.c;
        });
        return {m, d};
    }

    __device__ __forceinline__ void store(T* __restrict__ part, sh::MaxSum mine, sh::MaxSum all) const {
        const bool aligned = sh::shift_of<T, W>(part) == 0;
        const int end = min(n, live);
        sh::write_softmax<float, true, IN_PLACE>(
            [&](auto out) {
                // a masked position's y: exp(-inf) held in place, or -inf formed again (NaN in a NaN row)
                const float dead = out(IN_PLACE ? 0.0f : sh::neg_inf());
#pragma unroll 1
                for (int k = 0; k < CHUNKS && at(k) < n; ++k) {
                    float y[W];
                    if (at(k) < end) {
                        chunk_floats(buf + at(k), y);
                        if constexpr (!IN_PLACE) logits(k, y);
#pragma unroll
                        for (int j = 0; j < W; ++j) y[j] = out(y[j]);
                    } else {
#pragma unroll
                        for (int j = 0; j < W; ++j) y[j] = dead;
                    }
                    sh::store_chunk<T, W>(part, at(k), y, 0, n, aligned);
                }
            },
            mine, all, this->c);
    }
};

template <class T>
struct BiasForm {
    using Merge = sh::FastMerge;
    const T* x;
    const T* bias;
    int n_cols;
    float scale;

    // x and the bias in two tiles lined up alike (element by element where their rows are
    // misaligned otherwise); x is 0 outside the row and the bias -inf, so that t is -inf there
    // for any finite scale.
    template <int THREADS, int E>
    struct Tile : LogitTile<Tile<THREADS, E>, T, THREADS, E> {
        using Base = LogitTile<Tile<THREADS, E>, T, THREADS, E>;
        using X = typename Base::X;
        using Base::scale;
        using Base::x;
        X b;

        __device__ __forceinline__ float t(int i) const { return __fadd_rn(__fmul_rn(scale, x.get(i)), b.get(i)); }

        template <int LINE>
        __device__ __forceinline__ void load(const BiasForm& f, size_t row, int col, const T* __restrict__ in, int n,
                                             int lane) {
            load_alike<LINE>(x, b, in, sh::row_of(f.bias, row, f.n_cols) + col, n, lane);
            scale = f.scale;
#pragma unroll
            for (int i = 0; i < E; ++i) {
                const bool inside = x.inside(i, n, lane);
                if constexpr (X::WIDE) x.v[i] = inside ? t(i) : sh::neg_inf();
                else if (!inside) x.put_bits(i, 0);
            }
        }
    };

    // x's stash and the bias's beside it, the same layout (each copied in as the forward's).
    template <int THREADS, int S>
    struct Stash : LogitStash<Stash<THREADS, S>, T, THREADS, S> {
        using Base = LogitStash<Stash<THREADS, S>, T, THREADS, S>;
        using Base::at;
        using Base::buf;
        using Base::n;
        using Base::scale;
        using Base::W;
        ::Stash<T, THREADS, S, false> b;

        __device__ __forceinline__ Stash(T* buf_, T* bias_, int lane_) : Base(buf_, lane_), b{bias_, lane_} {}

        __device__ __forceinline__ void load(const BiasForm& f, size_t row, int col, const T* __restrict__ part, int n_) {
            scale = f.scale;
            b.load(sh::row_of(f.bias, row, f.n_cols) + col, n_);  // -inf past the part's end
            // 16-bit: x 0 there, so that t is -inf for any finite scale with no bounds check an
            // element (logits); +0.00-0.015 of a copy in 16 bits, -0.00-0.015 in fp32
            // (reports/measurements/bias_stash_past.jsonl), which keeps x -inf there and the check
            if constexpr (sizeof(T) == 2) Base::Base::load(part, n_, T{});
            else Base::Base::load(part, n_);
        }

        __device__ __forceinline__ void logits(int k, float (&v)[W]) const {
            float u[W];
            chunk_floats(b.buf + at(k), u);
            const int left = sizeof(T) == 2 ? W : n - at(k);
#pragma unroll
            for (int j = 0; j < W; ++j) v[j] = j < left ? __fadd_rn(__fmul_rn(scale, v[j]), u[j]) : sh::neg_inf();
        }
    };
};

template <class T, bool MASK>
struct MaskedForm {
    using Merge = sh::FastMerge;
    const T* x;
    const bool* mask;  // MASK only
    int n_cols;
    float scale;

    // The last kept column of `row` counted from column `col` (causal; below 0: none).
    __device__ __forceinline__ int last_kept(size_t row, int col) const {
        return static_cast<int>(row % static_cast<size_t>(n_cols)) - col;
    }

    // x with a kept bit a position (16-bit tiles; float tiles make t at the load, no bits kept).
    template <int THREADS, int E>
    struct Tile : LogitTile<Tile<THREADS, E>, T, THREADS, E> {
        using Base = LogitTile<Tile<THREADS, E>, T, THREADS, E>;
        using X = typename Base::X;
        using Base::scale;
        using Base::x;
        sh::TileBits<X::WIDE ? 1 : E> keep;

        __device__ __forceinline__ float t(int i) const {
            return keep[i] ? __fmul_rn(scale, x.get(i)) : sh::neg_inf();
        }

        // Causal: the columns past the row's last kept one are not read (the tile holds -inf
        // there), where the tile's layout does not depend on how many it reads.
        template <int LINE>
        __device__ __forceinline__ void load(const MaskedForm& f, size_t row, int col, const T* __restrict__ in, int n,
                                             int lane) {
            int reads = n;
            if constexpr (!MASK)
                reads = sh::causal_reads<X::W>(sh::shift_of<T, LINE>(in), n, f.last_kept(row, col), X::CAPACITY);
            x.template load<LINE>(in, reads, lane);
            scale = f.scale;
            keep.clear();
            const auto apply = [&](int k, unsigned bits) {  // chunk k's W positions
#pragma unroll
                for (int j = 0; j < X::W; ++j) {
                    const int i = X::W * k + j;
                    if constexpr (X::WIDE) x.v[i] = (bits >> j & 1u) ? __fmul_rn(scale, x.v[i]) : sh::neg_inf();
                    else if (bits >> j & 1u) keep.set(i);
                }
            };
            if constexpr (MASK) {
                sh::kept_chunks(x, sh::row_of(f.mask, row, f.n_cols) + col, n, lane, apply);
            } else {
                const int last = f.last_kept(row, col);
#pragma unroll
                for (int k = 0; k < X::CHUNKS; ++k) {
                    unsigned bits = 0;
#pragma unroll
                    for (int j = 0; j < X::W; ++j)
                        if (x.inside(X::W * k + j, n, lane) && x.element(X::W * k + j, lane) <= last) bits |= 1u << j;
                    apply(k, bits);
                }
            }
        }
    };

    // x's stash and (MASK) the mask's bytes at the same places, copied in beside it (4 or 8 bytes
    // a chunk; byte by byte where the mask row is misaligned otherwise than x's).
    template <int THREADS, int S>
    struct Stash : LogitStash<Stash<THREADS, S>, T, THREADS, S> {
        using Base = LogitStash<Stash<THREADS, S>, T, THREADS, S>;
        using Base::at;
        using Base::CHUNKS;
        using Base::n;
        using Base::scale;
        using Base::W;
        unsigned char* bytes;  // THREADS * S, MASK only
        int last = 0;          // the last kept position of the part (causal)

        __device__ __forceinline__ Stash(T* buf_, unsigned char* bytes_, int lane_) : Base(buf_, lane_), bytes(bytes_) {}
        __device__ __forceinline__ Stash(T* buf_, int lane_) : Base(buf_, lane_), bytes(nullptr) {}

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
                Base::Base::load(part, n_);  // its commit takes the mask's copies too
            } else {  // the positions past the last kept one neither copied in nor used (live)
                last = f.last_kept(row, col);
                this->live = max(0, min(n_, last + 1));
                Base::Base::load(part, this->live);
                n = n_;
            }
        }

        // A chunk's mask bytes a word at a time, with no bounds check: every byte of a chunk that
        // starts inside the part was written, 1 (masked) past the part's end (load). Causal: the
        // last kept position, or the part's last where the row keeps more. 16-bit mask and causal
        // rows +0.08-0.12 of a copy (reports/measurements/online_logits_words.jsonl).
        __device__ __forceinline__ void logits(int k, float (&v)[W]) const {
            if constexpr (MASK) {
                unsigned w[W / 4];
                sh::load_words<W / 4>(bytes + at(k), w);
#pragma unroll
                for (int j = 0; j < W; ++j)
                    v[j] = (w[j / 4] >> (8 * (j % 4))) & 0xffu ? sh::neg_inf() : __fmul_rn(scale, v[j]);
            } else {
                const int end = min(last, n - 1) - at(k);
#pragma unroll
                for (int j = 0; j < W; ++j) v[j] = j <= end ? __fmul_rn(scale, v[j]) : sh::neg_inf();
            }
        }
    };
};

}  // namespace

// The fused forms' kernels, of the fused forward's signatures with the split-row geometry's
// workspace and parts: x and the bias or the mask's bytes in static shared memory.
#define SCALED_ONLINE_SPLIT_bias(NAME, T, THREADS, BLOCKS, E, S)                                          \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                          \
        NAME(SCALED_ARGS_bias(T), unsigned* workspace, int parts) {                                        \
        __shared__ __align__(16) T stash[THREADS * S];                                                     \
        __shared__ __align__(16) T bias_stash[THREADS * S];                                                \
        split_rows<T, THREADS, E, S>(BiasForm<T>{x, second, n_cols, scale}, y, n_rows, n_cols, workspace,  \
                                     parts, stash, bias_stash);                                            \
    }
// The bias form's with both stashes in dynamic shared memory (blocks of 512 threads: 96 KB a block).
#define SCALED_ONLINE_SPLIT_bias_DYNAMIC(NAME, T, THREADS, BLOCKS, E, S)                                  \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                          \
        NAME(SCALED_ARGS_bias(T), unsigned* workspace, int parts) {                                        \
        extern __shared__ __align__(16) unsigned char dynamic[];                                           \
        T* stash = reinterpret_cast<T*>(dynamic);                                                          \
        split_rows<T, THREADS, E, S>(BiasForm<T>{x, second, n_cols, scale}, y, n_rows, n_cols, workspace,  \
                                     parts, stash, stash + THREADS * S);                                   \
    }
#define SCALED_ONLINE_SPLIT_mask(NAME, T, THREADS, BLOCKS, E, S)                                          \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                          \
        NAME(SCALED_ARGS_mask(T), unsigned* workspace, int parts) {                                        \
        __shared__ __align__(16) T stash[THREADS * S];                                                     \
        __shared__ __align__(16) unsigned char bytes[THREADS * S];                                         \
        split_rows<T, THREADS, E, S>(MaskedForm<T, true>{x, second, n_cols, scale}, y, n_rows, n_cols,     \
                                     workspace, parts, stash, bytes);                                      \
    }
// The mask form's with its stash and the mask's bytes in dynamic shared memory (blocks of 512
// threads: 108 KB a block).
#define SCALED_ONLINE_SPLIT_mask_DYNAMIC(NAME, T, THREADS, BLOCKS, E, S)                                  \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                          \
        NAME(SCALED_ARGS_mask(T), unsigned* workspace, int parts) {                                        \
        extern __shared__ __align__(16) unsigned char dynamic[];                                           \
        T* stash = reinterpret_cast<T*>(dynamic);                                                          \
        split_rows<T, THREADS, E, S>(MaskedForm<T, true>{x, second, n_cols, scale}, y, n_rows, n_cols,     \
                                     workspace, parts, stash,                                              \
                                     reinterpret_cast<unsigned char*>(stash + THREADS * S));               \
    }
#define SCALED_ONLINE_SPLIT_causal(NAME, T, THREADS, BLOCKS, E, S)                                        \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                          \
        NAME(SCALED_ARGS_causal(T), unsigned* workspace, int parts) {                                      \
        __shared__ __align__(16) T stash[THREADS * S];                                                     \
        split_rows<T, THREADS, E, S>(MaskedForm<T, false>{x, nullptr, n_cols, scale}, y, n_rows, n_cols,   \
                                     workspace, parts, stash);                                             \
    }
