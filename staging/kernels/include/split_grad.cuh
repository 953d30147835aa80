// The backwards on the forward's split-row machinery (include/split_row.cuh): a slice of both
// inputs (y and dy, or z and dy) held in registers and the shared-memory stash (read once, the
// next row's stash copied in while this one is written), the blocks' sums s meeting once a row
// (sh::SoftmaxGrad, sh::LogSoftmaxGrad), dx written from the chip. The state is the sum alone,
// carried in a (max, sum) pair's sum with its maximum 0 (the group's tagged words hold it as
// they hold the forward's). grad_split.cuh's kernels hold 8188 elements a block at two blocks a
// multiprocessor and meet without tickets; they reach 0.48-0.68 of a copy at 2^20 (run 0025).
#pragma once

#include "include/backward.cuh"
#include "include/split_row.cuh"

namespace {

struct SumMerge {  // the states' sums added; their maxima stay 0
    __device__ static sh::MaxSum identity() { return {0.0f, 0.0f}; }
    __device__ __forceinline__ sh::MaxSum operator()(sh::MaxSum a, sh::MaxSum b) const { return {0.0f, a.d + b.d}; }
};

template <class T, class G>
struct GradForm {
    using Merge = SumMerge;
    const T* x;  // y or z
    const T* b;  // dy
    int n_cols;

    __device__ __forceinline__ void prefetch(size_t row, int col, const T* in, int n) const {
        prefetch_l2(in, n * (int)sizeof(T));
        prefetch_l2(sh::row_of(b, row, n_cols) + col, n * (int)sizeof(T));
    }

    // Both inputs in two tiles lined up alike (element by element where their rows are misaligned
    // otherwise), 0 outside the row so that its terms there add nothing.
    template <int THREADS, int E>
    struct Tile {
        using X = sh::RowTile<T, THREADS, E>;
        static constexpr int CAPACITY = X::CAPACITY;
        X a, b;

        template <int LINE>
        __device__ __forceinline__ void load(const GradForm& f, size_t row, int col, const T* __restrict__ in, int n,
                                             int lane) {
            load_alike<LINE>(a, b, in, sh::row_of(f.b, row, f.n_cols) + col, n, lane);
#pragma unroll
            for (int i = 0; i < E; ++i) {
                if (a.inside(i, n, lane)) continue;
                if constexpr (X::WIDE) {
                    a.v[i] = 0.0f;
                    b.v[i] = 0.0f;
                } else {
                    a.put_bits(i, 0);
                    b.put_bits(i, 0);
                }
            }
        }

        __device__ __forceinline__ sh::MaxSum fold() const {
            return {0.0f, sh::chunk_sum<X::W, X::CHUNKS>([&](int i) { return G::add(0.0f, a.get(i), b.get(i)); })};
        }

        __device__ __forceinline__ void store(T* __restrict__ out, int n, int lane, sh::MaxSum, sh::MaxSum all) const {
            a.write(out, n, lane, [&](int i) { return G::out(a.get(i), b.get(i), all.d); });
        }
    };

    // Both inputs' stashes, the same layout (each copied in as the forward's).
    template <int THREADS, int S>
    struct Stash : ::Stash<T, THREADS, S, false> {
        using Base = ::Stash<T, THREADS, S, false>;
        using Base::at;
        using Base::buf;
        using Base::CHUNKS;
        using Base::n;
        using Base::W;
        Base b;

        __device__ __forceinline__ Stash(T* buf_, T* dy_, int lane_) : Base{buf_, lane_}, b{dy_, lane_} {}

        __device__ __forceinline__ void load(const GradForm& f, size_t row, int col, const T* __restrict__ part, int n_) {
            b.load(sh::row_of(f.b, row, f.n_cols) + col, n_);
            Base::load(part, n_);
        }

        // Chunk k of both inputs, as floats.
        __device__ __forceinline__ void chunks(int k, float (&u)[W], float (&v)[W]) const {
            chunk_floats(buf + at(k), u);
            chunk_floats(b.buf + at(k), v);
        }

        __device__ __forceinline__ sh::MaxSum fold() {
            asm volatile("cp.async.wait_all;" : : : "memory");
            float s = 0.0f;
#pragma unroll 1
            for (int k = 0; k < CHUNKS && at(k) < n; ++k) {
                float u[W], v[W];
                chunks(k, u, v);
#pragma unroll
                for (int j = 0; j < W; ++j)
                    if (at(k) + j < n) s = G::add(s, u[j], v[j]);
            }
            return {0.0f, s};
        }

        __device__ __forceinline__ void store(T* __restrict__ part, sh::MaxSum, sh::MaxSum all) const {
            const bool aligned = sh::shift_of<T, W>(part) == 0;
#pragma unroll 1
            for (int k = 0; k < CHUNKS && at(k) < n; ++k) {
                float u[W], v[W];
                chunks(k, u, v);
#pragma unroll
                for (int j = 0; j < W; ++j) u[j] = G::out(u[j], v[j], all.d);
                sh::store_chunk<T, W>(part, at(k), u, 0, n, aligned);
            }
        }
    };
};

}  // namespace

// NAME(const T* a, const T* b, T* dx, int n_rows, int n_cols, unsigned* workspace, int parts),
// both inputs' stashes (THREADS * S elements each) in static shared memory.
#define GRAD_ONLINE_SPLIT(NAME, G, T, THREADS, BLOCKS, E, S)                                               \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                          \
        NAME(GRAD_KERNEL_ARGS(T), unsigned* workspace, int parts) {                                        \
        __shared__ __align__(16) T stash[THREADS * S];                                                     \
        __shared__ __align__(16) T dy_stash[THREADS * S];                                                  \
        split_rows<T, THREADS, E, S>(GradForm<T, G>{a, b, n_cols}, dx, n_rows, n_cols, workspace, parts,   \
                                     stash, dy_stash);                                                     \
    }
