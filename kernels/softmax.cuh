// Shared device code for the softmax kernels: constants, the online (max, sum)
// state and its merge, warp and block reductions, and vector access helpers.
// Every kernel file includes this header; the harness inlines it before
// compiling, so a change here changes the compiled source (and the cache key).
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
struct FastMerge {
    __device__ static MaxSum identity() { return empty_state(); }
    __device__ MaxSum operator()(MaxSum a, MaxSum b) const {
        const float m = fmaxf(a.m, b.m);
        return {m, a.d * fast_exp_below(a.m, m) + b.d * fast_exp_below(b.m, m)};
    }
};

// The factor that turns a tile's exp(v - m_t) into the row's softmax: exp(m_t - m) / d.
__device__ __forceinline__ float tile_scale(MaxSum tile, MaxSum row) {
    return __fdividef(fast_exp_below(tile.m, row.m), row.d);
}

__device__ __forceinline__ float shfl_xor(float v, int lane_mask, int width = 32) {
    return __shfl_xor_sync(FULL_MASK, v, lane_mask, width);
}
__device__ __forceinline__ MaxSum shfl_xor(MaxSum v, int lane_mask, int width = 32) {
    return {shfl_xor(v.m, lane_mask, width), shfl_xor(v.d, lane_mask, width)};
}

// Butterfly reduction over groups of WIDTH consecutive lanes (a power of two up
// to 32); every lane of the group ends with the result. All 32 lanes must call it.
template <int WIDTH = 32, class Op, class T>
__device__ __forceinline__ T group_reduce(Op op, T v) {
#pragma unroll
    for (int offset = WIDTH / 2; offset > 0; offset /= 2) v = op(v, shfl_xor(v, offset, WIDTH));
    return v;
}

template <class Op, class T>
__device__ __forceinline__ T warp_reduce(Op op, T v) {
    return group_reduce<32>(op, v);
}

// Two-level block reduction: warp shuffles, then the per-warp partials through
// shared memory. blockDim.x must be a multiple of 32 and at most 1024; scratch
// holds 32 values. Every thread returns the result. It may be called again with
// the same scratch: the leading barrier keeps the previous call's readers safe.
template <class Op, class T>
__device__ __forceinline__ T block_reduce(Op op, T v, T* scratch) {
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int warps = blockDim.x >> 5;
    v = warp_reduce(op, v);
    __syncthreads();
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    // Every warp reduces the partials itself: no broadcast, no third barrier.
    return warp_reduce(op, lane < warps ? scratch[lane] : Op::identity());
}

// Normalised output for one element, given the row's final state.
__device__ __forceinline__ float normalise(float x, MaxSum s) { return expf(x - s.m) / s.d; }

// 16-byte vector access to rows that may start at any 4-byte aligned address.
// A row splits into a scalar head (up to the first 16-byte boundary), aligned
// float4s, and a scalar tail; `lanes` threads share the work, this one is `lane`.
struct RowSplit {
    int head;  // scalar elements before the first 16-byte boundary (0..3, at most n)
    int vecs;  // aligned float4s after the head
};

__device__ __forceinline__ RowSplit split_row(const float* row, int n) {
    const int misalign = static_cast<int>((reinterpret_cast<size_t>(row) >> 2) & 3);
    int head = misalign == 0 ? 0 : 4 - misalign;
    head = head < n ? head : n;
    return {head, (n - head) >> 2};
}

// Call f(x) for each of this thread's elements of the row, loading 16 bytes at a time.
template <class F>
__device__ __forceinline__ void visit_row(const float* __restrict__ row, int n, int lane, int lanes, F&& f) {
    const RowSplit s = split_row(row, n);
    for (int i = lane; i < s.head; i += lanes) f(row[i]);
    const float4* body = reinterpret_cast<const float4*>(row + s.head);
    for (int k = lane; k < s.vecs; k += lanes) {
        const float4 v = body[k];
        f(v.x); f(v.y); f(v.z); f(v.w);
    }
    for (int i = s.head + 4 * s.vecs + lane; i < n; i += lanes) f(row[i]);
}

// y[i] = g(x[i]) for this thread's elements, with 16-byte loads and stores when x and
// y are equally misaligned (the usual case), and scalar stores otherwise.
template <class G>
__device__ __forceinline__ void map_row(const float* __restrict__ x, float* __restrict__ y, int n,
                                        int lane, int lanes, G&& g) {
    if (((reinterpret_cast<size_t>(x) ^ reinterpret_cast<size_t>(y)) & 15) != 0) {
        for (int i = lane; i < n; i += lanes) y[i] = g(x[i]);
        return;
    }
    const RowSplit s = split_row(x, n);
    for (int i = lane; i < s.head; i += lanes) y[i] = g(x[i]);
    const float4* xv = reinterpret_cast<const float4*>(x + s.head);
    float4* yv = reinterpret_cast<float4*>(y + s.head);
    for (int k = lane; k < s.vecs; k += lanes) {
        const float4 v = xv[k];
        yv[k] = make_float4(g(v.x), g(v.y), g(v.z), g(v.w));
    }
    for (int i = s.head + 4 * s.vecs + lane; i < n; i += lanes) y[i] = g(x[i]);
}

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

// The argument of ex2 for exp(x - m), for the many x of a tile that share one m. SHIFTED: one
// FFMA an element, x * log2e - s with s = fl(m * log2e), and exp(x - m) = ex2(x * log2e - s) * c,
// where c = ex2(-(m * log2e - s)) puts back s's rounding (an FMA gives it exactly): each argument
// is rounded once, and the error still scales with |x - m|, not with |m|. Else (x - m) * log2e,
// a subtraction and a product. SHIFTED needs |m| < 2^22 (so |m * log2e - s| <= 1/2) or an
// infinite or NaN m (which gives what x - m gives): always so for float16 elements. One op an
// element less: the split-row kernel takes it (16-bit rows of 2^20, short of issue slots, +0.007-
// 0.009 of copy; the rest within 0.003: reports/measurements/exp_args_ab.json). The one-pass
// kernels do not: in run 0015 it cost 16-bit rows of 128 0.05 (small tiles, 32 -> 40 registers)
// and bfloat16 rows of 500 0.026.
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
// IN_PLACE (float tiles and stashes): h = exp(x - m_t) / c, y = h * c * exp(m_t - m) / d.
// Else (16-bit): h = x, y = exp(x - m) / d, the exponential recomputed. With SHIFT, as
// ex2(x * log2e - s') with s' = fl(m * log2e + log2 d), one FFMA an element and no product,
// where |s'| < FOLD_LIMIT: s' is rounded, and not put back, so this adds a relative error of
// at most about ln2 * 2^-15, under a fortieth of a float16 ulp (bounds.FOLD_ULPS); elsewhere
// (and for an infinite or NaN m or d, or a d of 0) as ex2(ExpArgs(x)) * (c / d). With the
// split stash's packed maximum (measured together), split rows of 2^20: fp16 0.902-0.905 ->
// 0.909-0.911 of copy, bf16 0.898-0.900 -> 0.905-0.906; 262147: +0.006-0.010
// (reports/measurements/fold_packed_max_ab.json).
template <class T, bool SHIFT, bool IN_PLACE, class Write>
__device__ __forceinline__ void write_softmax(Write write, MaxSum mine, MaxSum all, float c) {
    if constexpr (IN_PLACE) {
        const float scale = tile_scale(mine, all) * c;
        write([&](float e) { return e * scale; });
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

// Bit patterns of -inf, for masked-out elements of a raw 16-bit tile.
__device__ __forceinline__ unsigned short neg_inf_bits(half_t) { return 0xfc00u; }
__device__ __forceinline__ unsigned short neg_inf_bits(bf16_t) { return 0xff80u; }

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
    static __device__ __forceinline__ float get_word(unsigned word, int hi) { return unpack_half<T>(word, hi); }
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
    template <int ALIGN = W>
    __device__ __forceinline__ void load(const T* __restrict__ row, int n, int lane) {
        static_assert(ALIGN % W == 0, "whole vectors a segment");
        const int s = shift_of<T, ALIGN>(row);
        shift = s + n <= CAPACITY ? s : -1;
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
            } else {  // the row's two ends, and beyond the row
#pragma unroll
                for (int j = 0; j < W; ++j)
                    load_one(W * k + j, base + p + j, p + j >= shift && p + j < shift + n);
            }
        }
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
            m = fmaxf(get_word(pair, 0), get_word(pair, 1));
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
