// A row over a group of co-resident blocks of a persistent, cooperatively launched grid, each
// block holding its slice on the chip (registers and a shared-memory stash) and the group
// meeting once a row on a (max, sum) pair: the forward's split-row kernel
// (online_split_row.cu, where its design and measurements are told) and log_softmax's
// (log_softmax/log_softmax_online_split.cu, LOG), which differ only in what a slice keeps and
// how it is written.
#pragma once

#include "include/tile.cuh"
#include "include/tile_sum.cuh"

namespace {

// Relaxed (unfenced) accesses for the meeting: it needs no order between words, only that
// each word is written and read whole.
__device__ __forceinline__ void store_relaxed(unsigned long long* p, unsigned long long v) {
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" : : "l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void store_relaxed(unsigned* p, unsigned v) {
    asm volatile("st.relaxed.gpu.global.b32 [%0], %1;" : : "l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long* p) {
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ unsigned load_relaxed(const unsigned* p) {
    unsigned v;
    asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void add_relaxed(unsigned* p) {
    asm volatile("red.relaxed.gpu.global.add.u32 [%0], 1;" : : "l"(p) : "memory");
}

// A block's state as one 64-bit word that says which round wrote it: the sum's last mantissa
// bit is replaced by the round's tag (a change of at most one ulp of the sum, 2**-23 relative;
// cleared on reading, so a sum of 0, inf or NaN reads back as itself).
__device__ __forceinline__ unsigned long long tagged(sh::MaxSum s, unsigned tag) {
    return static_cast<unsigned long long>((__float_as_uint(s.d) & ~1u) | tag) << 32 | __float_as_uint(s.m);
}
__device__ __forceinline__ bool has_tag(unsigned long long word, unsigned tag) {
    return (static_cast<unsigned>(word >> 32) & 1u) == tag;
}
__device__ __forceinline__ sh::MaxSum untagged(unsigned long long word) {
    return {__uint_as_float(static_cast<unsigned>(word)), __uint_as_float(static_cast<unsigned>(word >> 32) & ~1u)};
}

template <class T>
__device__ __forceinline__ T neg_inf_of() {
    if constexpr (sizeof(T) == 4) return sh::neg_inf();
    else return T{sh::neg_inf_bits(T{})};
}

// The 16 / sizeof(T) elements of an aligned 16-byte chunk, as floats, from one vector load
// (element by element, the compiler issued one 2-byte shared load per bfloat16).
template <class T>
__device__ __forceinline__ void chunk_floats(const T* p, float (&v)[16 / sizeof(T)]) {
    unsigned w[4];
    sh::load_words<4>(p, w);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        if constexpr (sizeof(T) == 4) {
            v[j] = __uint_as_float(w[j]);
        } else {
            v[2 * j] = sh::unpack_half<T>(w[j], 0);
            v[2 * j + 1] = sh::unpack_half<T>(w[j], 1);
        }
    }
}

// log d for log_softmax's z = (x - m) - log d, kept at 0 or above (d >= 1 in exact arithmetic:
// the maximum's own term is 1) and NaN for a NaN d; __logf is lg2.approx times ln 2, as the other
// log_softmax kernels take it.
__device__ __forceinline__ float log_of_sum(float d) {
    const float log_d = __logf(d);
    return log_d < 0.0f ? 0.0f : log_d;
}

// More of a block's slice, held in shared memory: S elements per thread in 16-byte chunks
// (chunk k of thread t at elements W * (k * THREADS + t)), copied in with cp.async, so they
// are in flight beside the register tile's loads without taking registers. Nothing outside
// the part is read or written; chunks past its end are left out, and the positions past its
// end in its last chunk hold -inf. For softmax a float stash keeps exp(x - m_t) / c in place for
// the store (as the register tile does); a 16-bit one recomputes exp(x - m) when writing. LOG
// (log_softmax) keeps x in every type: z = x - m - log d needs no exponential.
template <class T, int THREADS, int S, bool LOG = false>
struct Stash {
    static constexpr int W = 16 / (int)sizeof(T);
    static constexpr int CHUNKS = S / W;
    static constexpr bool IN_PLACE = sizeof(T) == 4 && !LOG;
    static_assert(S % W == 0, "whole 16-byte chunks");
    T* buf;  // THREADS * S elements of shared memory
    int lane;
    int n = 0;  // elements of the part held
    float c = 1.0f;  // a float stash holds exp(x - m_t) / c (see sh::ExpArgs)

    __device__ __forceinline__ int at(int k) const { return W * (k * THREADS + lane); }

    // past: what a chunk that starts inside the part holds past its end
    __device__ __forceinline__ void load(const T* __restrict__ part, int n_, T past = neg_inf_of<T>()) {
        n = n_;
        const bool aligned = sh::shift_of<T, W>(part) == 0;
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) {
            const int p = at(k);
            if (p >= n) break;
            if (aligned && p + W <= n) {
                const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(buf + p));
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" : : "r"(to), "l"(part + p) : "memory");
            } else {
#pragma unroll
                for (int j = 0; j < W; ++j) buf[p + j] = p + j < n ? part[p + j] : past;
            }
        }
        asm volatile("cp.async.commit_group;" : : : "memory");
    }
    template <class Form>
    __device__ __forceinline__ void load(const Form&, size_t, int, const T* __restrict__ part, int n_) {
        load(part, n_);
    }

    // (max, sum exp(x - max)) of this thread's elements; waits for its copies first. 16-bit
    // elements are compared two to a word (max.f16x2 / max.bf16x2, as RowTile does) instead of
    // unpacked to floats first: 10 instructions a 16-byte chunk instead of 24 (sm_90 SASS).
    __device__ __forceinline__ sh::MaxSum fold() {
        asm volatile("cp.async.wait_all;" : : : "memory");
        float m = sh::neg_inf();
        float v[W];
        if constexpr (sizeof(T) == 4) {
#pragma unroll 1  // a chunk at a time: the stash is there to save registers
            for (int k = 0; k < CHUNKS && at(k) < n; ++k) {
                chunk_floats(buf + at(k), v);
#pragma unroll
                for (int j = 0; j < W; ++j) m = fmaxf(m, v[j]);
            }
        } else {
            const unsigned inf = sh::neg_inf_bits(T{});
            unsigned pair = inf | (inf << 16);
#pragma unroll 1
            for (int k = 0; k < CHUNKS && at(k) < n; ++k) {
                unsigned w[4];
                sh::load_words<4>(buf + at(k), w);
#pragma unroll
                for (int j = 0; j < 4; ++j) pair = sh::max_pair(pair, w[j], T{});
            }
            m = sh::pair_max<T>(pair);
        }
        const float base = m == sh::neg_inf() ? 0.0f : m;
        const float d = sh::with_exp_args<T, true>(base, [&](auto arg) {
            float d = 0.0f;
#pragma unroll 1
            for (int k = 0; k < CHUNKS && at(k) < n; ++k) {
                chunk_floats(buf + at(k), v);
#pragma unroll
                for (int j = 0; j < W; ++j) {
                    v[j] = sh::ex2(arg(v[j]));
                    d += v[j];
                }
                if constexpr (IN_PLACE) *reinterpret_cast<float4*>(buf + at(k)) = make_float4(v[0], v[1], v[2], v[3]);
            }
            c = arg.c;
            return d * arg.c;
        });
        return {m, d};
    }

    // Write y = softmax (z = log_softmax with LOG) for the part, given this thread's state and the
    // row's.
    __device__ __forceinline__ void store(T* __restrict__ part, sh::MaxSum mine, sh::MaxSum all) const {
        const bool aligned = sh::shift_of<T, W>(part) == 0;
        const auto write = [&](auto out) {
#pragma unroll 1
            for (int k = 0; k < CHUNKS && at(k) < n; ++k) {
                float y[W];
                chunk_floats(buf + at(k), y);
#pragma unroll
                for (int j = 0; j < W; ++j) y[j] = out(y[j]);
                sh::store_chunk<T, W>(part, at(k), y, 0, n, aligned);
            }
        };
        if constexpr (LOG) {
            const float log_d = log_of_sum(all.d);
            write([&](float x) { return (x - all.m) - log_d; });
        } else {
            sh::write_softmax<T, true, IN_PLACE>(write, mine, all, c);
        }
    }
};

// A block's place in the persistent grid: the blocks of a group (`parts` of them) share a row,
// and block `rank` holds its elements [start, start + count), a slice of whole `chunk`s (cache
// lines) so that an aligned row's slices start lines.
struct Group {
    int parts, group, rank, start, count;
    unsigned round = 0;
    unsigned* workspace;
    unsigned ticket = 0;  // rank 0's thread 0: the ticket for the group's next row

    __device__ __forceinline__ Group(int n_cols, int parts_, int chunk, unsigned* workspace_)
        : parts(parts_), workspace(workspace_) {
        group = blockIdx.x / parts;
        rank = blockIdx.x % parts;
        const int slice = ((n_cols + parts - 1) / parts + chunk - 1) / chunk * chunk;
        start = min(n_cols, rank * slice);
        count = min(n_cols - start, slice);
    }

    __device__ __forceinline__ int groups() const { return gridDim.x / parts; }
    __device__ __forceinline__ bool leader() const { return rank == 0 && threadIdx.x == 0; }
    // Taken early in a row (the atomic's latency hides behind the row's loads); the rows after
    // the first `groups()` go out in ticket order.
    __device__ __forceinline__ void take_ticket() {
        if (leader()) ticket = atomicAdd(workspace + 7 * gridDim.x, 1u);
    }

    // The row's (max, sum) from this block's, and the group's next row. Each block writes its
    // state as one tagged word (rank 0 also the next row, tagged alike) and adds one to the
    // group's arrival counter; the first warp waits for the counter, then reads the states until
    // each carries this round's tag (a word can arrive after the count: nothing orders them).
    // No fences: a release/acquire counter with the states read after it keeps every block at
    // the meeting for a round trip more (4.5 us against 2.7 us after the last arrival, in rows
    // of ~20 us at C = 2^20: reports/measurements/split_meet_trace.json). Polling the states
    // without a counter is slower still: the polls slow everyone's loads. A large group (48
    // blocks or more) stops waiting for the counter when all but four have arrived and polls the
    // states from there, a round trip less after the last arrival; in small groups (7-31) those
    // polls cost more than they save (reports/measurements/split_early_poll_ab.json). Groups of
    // 24-47 stop at all but two (exp_args_ab.json, store_exp_ab.json); smaller ones wait for the
    // whole count.
    // Two rounds of slots, and a slot's tag alternates between its rounds: a block can be at most
    // one round ahead of its group.
    // Merge: how two states combine (sh::FastMerge, or a form's own).
    template <class Merge>
    __device__ __forceinline__ sh::MaxSum meet(Merge merge, sh::MaxSum mine, sh::MaxSum* scratch,
                                               sh::MaxSum& row_state, unsigned (&next)[2], unsigned& next_row) {
        const unsigned slot = round & 1;
        const unsigned tag = ((round >> 1) & 1u) ^ 1u;  // never a zeroed word's
        const unsigned mine_next = groups() + ticket;
        ++round;
        if (parts == 1) {  // the row is this block's; block_reduce's barriers publish `next`
            if (threadIdx.x == 0) next[slot] = mine_next;
            const sh::MaxSum block = sh::block_reduce(merge, mine, scratch);
            next_row = next[slot];
            return block;
        }
        const sh::MaxSum block = sh::block_reduce(merge, mine, scratch);
        unsigned long long* states =
            reinterpret_cast<unsigned long long*>(workspace) + slot * gridDim.x + group * parts;
        unsigned* next_of_group = workspace + 4 * gridDim.x + slot * gridDim.x + group;
        unsigned* arrived = workspace + 6 * gridDim.x + group;
        if (threadIdx.x < 32) {
            const int lane = threadIdx.x;
            if (lane == 0) {
                store_relaxed(states + rank, tagged(block, tag));
                if (rank == 0) store_relaxed(next_of_group, mine_next << 1 | tag);
                add_relaxed(arrived);
                const unsigned early = parts >= 48 ? 4u : parts >= 24 ? 2u : 0u;
                while (load_relaxed(arrived) + early < round * parts) {
                }
            }
            __syncwarp();
            sh::MaxSum all = Merge::identity();
            for (int base = 0; base < parts; base += 64) {  // two states a lane at a time
                const unsigned mine_here = (base + lane < parts ? 1u : 0u) | (base + 32 + lane < parts ? 2u : 0u);
                unsigned pending = mine_here;
                bool want_next = base == 0 && lane == 0;
                unsigned long long word[2];
                do {
#pragma unroll
                    for (int k = 0; k < 2; ++k) {
                        if (pending >> k & 1u) {
                            word[k] = load_relaxed(states + base + 32 * k + lane);
                            if (has_tag(word[k], tag)) pending &= ~(1u << k);
                        }
                    }
                    if (want_next) {
                        const unsigned got = load_relaxed(next_of_group);
                        if ((got & 1u) == tag) {
                            next[slot] = got >> 1;
                            want_next = false;
                        }
                    }
                } while (__any_sync(0xffffffffu, pending != 0 || want_next));
#pragma unroll
                for (int k = 0; k < 2; ++k)  // in a fixed order, whatever order the states came in
                    if (mine_here >> k & 1u) all = merge(all, untagged(word[k]));
            }
            all = sh::warp_reduce(merge, all);
            if (lane == 0) row_state = all;
        }
        __syncthreads();  // row_state is rewritten only after the next round's block_reduce barriers
        next_row = next[slot];
        return row_state;
    }

    // The last block out zeroes the workspace for the next launch: every block's last use of it
    // comes before its fence and its count at the exit counter.
    __device__ __forceinline__ void leave() {
        __shared__ bool last;
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence();
            last = atomicAdd(workspace + 7 * gridDim.x + 1, 1u) == gridDim.x - 1;
            if (last) __threadfence();
        }
        __syncthreads();
        if (last)
            for (unsigned i = threadIdx.x; i < 7 * gridDim.x + 2; i += blockDim.x) workspace[i] = 0;
    }
};

// A register tile's (max, sum exp(x - max)) that leaves its values x in place (log_softmax's
// store reads them), where RowTile::fold turns a float tile's into exponentials.
template <class T, class Tile>
__device__ __forceinline__ sh::MaxSum fold_keeping(const Tile& tile) {
    const float m = tile.max();
    const float base = m == sh::neg_inf() ? 0.0f : m;
    const float d = sh::with_exp_args<T, true>(base, [&](auto arg) {
        return sh::chunk_sum<Tile::W, Tile::CHUNKS>([&](int i) { return sh::ex2(arg(tile.get(i))); }) * arg.c;
    });
    return {m, d};
}

// The forward's slices (LOG: log_softmax's): x as it comes. A form's Tile and Stash load a
// slice's part (given the form, the row and the part's first column, with `in` the part of x
// there), fold it into a state and write it; its Merge combines the states (here the online
// (max, sum) merge); Stash is the one above.
template <class T, bool LOG>
struct PlainForm {
    using Merge = sh::FastMerge;
    const T* x;
    template <int THREADS, int E>
    struct Tile : sh::RowTile<T, THREADS, E, true> {  // exponentials from sh::ExpArgs
        template <int LINE>
        __device__ __forceinline__ void load(const PlainForm&, size_t, int, const T* __restrict__ in, int n,
                                             int lane) {
            sh::RowTile<T, THREADS, E, true>::template load<LINE>(in, n, lane);
        }
        __device__ __forceinline__ sh::MaxSum fold() {
            if constexpr (LOG) return fold_keeping<T>(*this);
            else return sh::RowTile<T, THREADS, E, true>::fold();
        }
        __device__ __forceinline__ void store(T* __restrict__ out, int n, int lane, sh::MaxSum mine,
                                              sh::MaxSum all) const {
            if constexpr (LOG) {
                const float log_d = log_of_sum(all.d);
                this->write(out, n, lane, [&](int i) { return (this->get(i) - all.m) - log_d; });
            } else {
                sh::RowTile<T, THREADS, E, true>::store(out, n, lane, mine, all);
            }
        }
    };
    template <int THREADS, int S>
    using Stash = ::Stash<T, THREADS, S, LOG>;
};

// Two inputs' register tiles lined up alike (the fused bias form's x and bias, a backward's y and
// dy): vectors shifted to a line where both rows sit alike in it, else element by element.
template <int LINE, class Tile, class T>
__device__ __forceinline__ void load_alike(Tile& a, Tile& b, const T* __restrict__ pa, const T* __restrict__ pb, int n,
                                           int lane) {
    const bool alike = sh::shift_of<T, LINE>(pa) == sh::shift_of<T, LINE>(pb);
    a.template load<LINE>(pa, n, lane, alike);
    b.template load<LINE>(pb, n, lane, alike);
}

// One row at a time: E elements per thread in registers and S more in shared memory. The stash
// part is written first and the next row's copies into the stash (cp.async, no registers) are
// issued at once, so they are in flight while the register part is written.
template <class T, int THREADS, int E, int S, class Form, class... Buffers>
__device__ __forceinline__ void split_rows(const Form& form, T* __restrict__ y, int n_rows, int n_cols,
                                           unsigned* __restrict__ workspace, int parts, Buffers... buffers) {
    using Tile = typename Form::template Tile<THREADS, E>;
    __shared__ sh::MaxSum scratch[32];
    __shared__ sh::MaxSum row_state;
    constexpr int LINE = 128 / (int)sizeof(T);  // elements of a 128-byte cache line
    Group g(n_cols, parts, LINE, workspace);
    const auto in = [&](size_t row) { return sh::row_of(form.x, row, n_cols) + g.start; };
    // The registers hold a slice shifted to start a cache line, so each warp's vectors cover
    // whole lines (shifted to 16 bytes only, most vectors of a misaligned slice straddled two
    // lines: reports/measurements/split_line_ab.json), and take it up to the line that ends their
    // tile (THREADS * E less the shift), so the stash part always starts a line too.
    const auto held = [&](size_t row) {
        return min(g.count, Tile::CAPACITY - sh::shift_of<T, LINE>(in(row)));
    };
    __shared__ unsigned next[2];  // the group's next row, by round parity
    typename Form::template Stash<THREADS, S> stash{buffers..., (int)threadIdx.x};
    unsigned row = g.group;
    int h = held(row);
    // The whole group skips this when it has no row (the harness launches no more groups than rows).
    if (row < (unsigned)n_rows) stash.load(form, row, g.start + h, in(row) + h, g.count - h);
    while (row < (unsigned)n_rows) {
        Tile tile;
        tile.template load<LINE>(form, row, g.start, in(row), h, threadIdx.x);
        g.take_ticket();
        const sh::MaxSum mine = tile.fold();
        const sh::MaxSum stashed = stash.fold();
        unsigned next_row;
        const typename Form::Merge merge;
        const sh::MaxSum all = g.meet(merge, merge(mine, stashed), scratch, row_state, next, next_row);
        T* out = sh::row_of(y, row, n_cols) + g.start;
        stash.store(out + h, stashed, all);
        const int here = h;
        if (next_row < (unsigned)n_rows) {
            h = held(next_row);
            stash.load(form, next_row, g.start + h, in(next_row) + h, g.count - h);
        }
        tile.store(out, here, threadIdx.x, mine, all);
        row = next_row;
    }
    g.leave();
}

}  // namespace

// A kernel of the signature the split-row geometry declares (x, y, n_rows, n_cols, workspace,
// parts), softmax or (LOG) log_softmax, with the stash (THREADS * S elements) in static shared
// memory, or in dynamic shared memory for stashes over the 48 KB a block's static shared memory
// may hold (the variant declares smem=).
#define SPLIT_KERNEL(NAME, T, THREADS, BLOCKS, E, S, LOG)                                                \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                        \
        NAME(const T* __restrict__ x, T* __restrict__ y, int n_rows, int n_cols, unsigned* workspace, \
             int parts) {                                                                                 \
        __shared__ __align__(16) T stash[THREADS * S];                                                    \
        split_rows<T, THREADS, E, S>(PlainForm<T, LOG>{x}, y, n_rows, n_cols, workspace, parts, stash);    \
    }
#define SPLIT_KERNEL_DYNAMIC(NAME, T, THREADS, BLOCKS, E, S, LOG)                                        \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                        \
        NAME(const T* __restrict__ x, T* __restrict__ y, int n_rows, int n_cols, unsigned* workspace, \
             int parts) {                                                                                 \
        extern __shared__ __align__(16) unsigned char stash[];                                            \
        split_rows<T, THREADS, E, S>(PlainForm<T, LOG>{x}, y, n_rows, n_cols, workspace, parts,             \
                                     reinterpret_cast<T*>(stash));                                         \
    }
