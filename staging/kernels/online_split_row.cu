// One-pass softmax for rows longer than a block can hold: a row is split over a
// group of PARTS co-resident blocks (PARTS = ceil(C / (THREADS * E))), each holding
// its slice in registers, so every input element is read once and written once.
// Each block folds its slice into a (max, sum) state and publishes it in global
// memory; the group meets at a barrier (an arrival counter per group), every block
// merges the PARTS states and writes its slice from the registers. The grid is
// persistent (blocks_per_sm per multiprocessor, launched cooperatively so that all
// blocks are resident and the barrier cannot deadlock); groups take rows in turn and,
// being independent, overlap one group's loads with another's barrier and stores.
// Unlike the cluster kernel it needs no sm_90 and no distributed shared memory.
//
// The fifth argument is a workspace of 5 * gridDim.x zeroed 32-bit words (the harness
// allocates it): gridDim.x arrival counters, then two rounds of gridDim.x states.
//
// @variant name=split_row_f32 kernel=split_row_f32 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=8192 max_cols=2097152 fast_math=true
// @variant name=split_row_f16 kernel=split_row_f16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=12288 max_cols=2097152 dtypes=float16 fast_math=true
// @variant name=split_row_bf16 kernel=split_row_bf16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=12288 max_cols=2097152 dtypes=bfloat16 fast_math=true
// The same with part of each slice in shared memory (cp.async), so that more rows fit on the chip:
// @variant name=split_row_smem_f32 kernel=split_row_smem_f32 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=19456 max_cols=2097152 fast_math=true
// @variant name=split_row_smem_f16 kernel=split_row_smem_f16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=34816 max_cols=2097152 dtypes=float16 fast_math=true
// @variant name=split_row_smem_bf16 kernel=split_row_smem_bf16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=34816 max_cols=2097152 dtypes=bfloat16 fast_math=true
// Rows in turn between registers and shared memory, the next row's loads in flight during a barrier:
// @variant name=split_row_pipe_f32 kernel=split_row_pipe_f32 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=8192 max_cols=2097152 fast_math=true
// @variant name=split_row_pipe_f16 kernel=split_row_pipe_f16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=12288 max_cols=2097152 dtypes=float16 fast_math=true
// @variant name=split_row_pipe_bf16 kernel=split_row_pipe_bf16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=10240 max_cols=2097152 dtypes=bfloat16 fast_math=true
#include "softmax.cuh"

namespace {

__device__ __forceinline__ void arrive(unsigned* counter) {
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" : : "l"(counter) : "memory");
}

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
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

// More of a block's slice, held in shared memory: S elements per thread in 16-byte chunks
// (chunk k of thread t at elements W * (k * THREADS + t)), copied in with cp.async, so they
// are in flight beside the register tile's loads without taking registers. Nothing outside
// the part is read or written; positions past its end hold -inf. exp(x - m) is recomputed
// when writing (a second exponential for these elements).
template <class T, int THREADS, int S>
struct Stash {
    static constexpr int W = 16 / (int)sizeof(T);
    static constexpr int CHUNKS = S / W;
    static_assert(S % W == 0, "whole 16-byte chunks");
    T* buf;  // THREADS * S elements of shared memory
    int lane;

    __device__ __forceinline__ void load(const T* __restrict__ part, int n) {
        const bool aligned = (reinterpret_cast<size_t>(part) & 15) == 0;
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) {
            const int p = W * (k * THREADS + lane);
            if (aligned && p + W <= n) {
                const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(buf + p));
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" : : "r"(to), "l"(part + p) : "memory");
            } else {
#pragma unroll
                for (int j = 0; j < W; ++j) buf[p + j] = p + j < n ? part[p + j] : neg_inf_of<T>();
            }
        }
        asm volatile("cp.async.commit_group;" : : : "memory");
    }

    // (max, sum exp(x - max)) of this thread's elements; waits for its copies first.
    __device__ __forceinline__ sh::MaxSum fold() const {
        asm volatile("cp.async.wait_all;" : : : "memory");
        float m = sh::neg_inf();
        float v[W];
#pragma unroll 1  // a chunk at a time: the stash is there to save registers
        for (int k = 0; k < CHUNKS; ++k) {
            chunk_floats(buf + W * (k * THREADS + lane), v);
#pragma unroll
            for (int j = 0; j < W; ++j) m = fmaxf(m, v[j]);
        }
        const float base = m == sh::neg_inf() ? 0.0f : m;
        float d = 0.0f;
#pragma unroll 1
        for (int k = 0; k < CHUNKS; ++k) {
            chunk_floats(buf + W * (k * THREADS + lane), v);
#pragma unroll
            for (int j = 0; j < W; ++j) d += sh::ex2((v[j] - base) * sh::LOG2E);
        }
        return {m, d};
    }

    __device__ __forceinline__ void store(T* __restrict__ part, int n, sh::MaxSum all) const {
        const float inv = __frcp_rn(all.d);
        const bool aligned = (reinterpret_cast<size_t>(part) & 15) == 0;
#pragma unroll 1
        for (int k = 0; k < CHUNKS; ++k) {
            const int p = W * (k * THREADS + lane);
            float y[W];
            chunk_floats(buf + p, y);
#pragma unroll
            for (int j = 0; j < W; ++j) y[j] = sh::ex2((y[j] - all.m) * sh::LOG2E) * inv;
            sh::store_chunk<T, W>(part, p, y, 0, n, aligned);
        }
    }
};

// A block's place in the persistent grid: the blocks of a group (PARTS = ceil(C / per_block)
// of them) share a row, and block `rank` holds its elements [start, start + count), a slice of
// whole chunks so that an aligned row keeps aligned slices.
struct Group {
    int parts, group, rank, start, count;
    unsigned round = 0;
    unsigned* workspace;

    __device__ __forceinline__ Group(int n_cols, int per_block, int chunk, unsigned* workspace_)
        : workspace(workspace_) {
        parts = (n_cols + per_block - 1) / per_block;
        group = blockIdx.x / parts;
        rank = blockIdx.x % parts;
        const int slice = ((n_cols + parts - 1) / parts + chunk - 1) / chunk * chunk;
        start = min(n_cols, rank * slice);
        count = min(n_cols - start, slice);
    }

    __device__ __forceinline__ int groups() const { return gridDim.x / parts; }
    // The blocks left over when parts does not divide the grid.
    __device__ __forceinline__ bool idle() const { return group >= groups(); }

    // The row's (max, sum) from this block's: the block's state goes to global memory, the group
    // meets at its arrival counter (release/acquire), and every block merges the parts' states.
    // Two rounds of slots: a block can be at most one round ahead of its group.
    __device__ __forceinline__ sh::MaxSum meet(sh::MaxSum mine, sh::MaxSum* scratch, sh::MaxSum& row_state) {
        const sh::MaxSum block = sh::block_reduce(sh::FastMerge(), mine, scratch);
        sh::MaxSum* slots = reinterpret_cast<sh::MaxSum*>(workspace + gridDim.x) + (round & 1) * gridDim.x +
                            group * parts;
        if (threadIdx.x < 32) {
            if (threadIdx.x == 0) {
                __stcg(&slots[rank].m, block.m);
                __stcg(&slots[rank].d, block.d);
                arrive(workspace + group);  // release: the state is visible before the arrival
                const unsigned everyone = (round + 1) * parts;
                while (load_acquire(workspace + group) < everyone) {
                }
            }
            __syncwarp();
            sh::MaxSum all = sh::empty_state();
            for (int r = threadIdx.x; r < parts; r += 32)
                all = sh::FastMerge()(all, sh::MaxSum{__ldcg(&slots[r].m), __ldcg(&slots[r].d)});
            all = sh::warp_reduce(sh::FastMerge(), all);
            if (threadIdx.x == 0) row_state = all;
        }
        ++round;
        __syncthreads();  // row_state is rewritten only after the next round's block_reduce barriers
        return row_state;
    }
};

// One row at a time: E elements per thread in registers and S more in shared memory.
template <class T, int THREADS, int E, int S = 0>
__device__ __forceinline__ void split_rows(const T* __restrict__ x, T* __restrict__ y, int n_rows, int n_cols,
                                           unsigned* __restrict__ workspace) {
    using Tile = sh::RowTile<T, THREADS, E>;
    __shared__ sh::MaxSum scratch[32];
    __shared__ sh::MaxSum row_state;
    __shared__ __align__(16) T stash_buf[S > 0 ? THREADS * S : 1];
    constexpr int IN_REGISTERS = THREADS * E;
    Group g(n_cols, THREADS * (E + S), Tile::W, workspace);
    if (g.idle()) return;
    for (size_t row = g.group; row < (size_t)n_rows; row += g.groups()) {
        const int held = min(g.count, IN_REGISTERS);  // the rest of the slice goes to the stash
        const T* in = sh::row_of(x, row, n_cols) + g.start;
        Tile tile;
        tile.load(in, held, threadIdx.x);
        Stash<T, THREADS, S> stash{stash_buf, (int)threadIdx.x};
        if constexpr (S > 0) stash.load(in + IN_REGISTERS, g.count - held);
        const sh::MaxSum mine = tile.fold();
        sh::MaxSum both = mine;
        if constexpr (S > 0) both = sh::FastMerge()(mine, stash.fold());
        const sh::MaxSum all = g.meet(both, scratch, row_state);
        T* out = sh::row_of(y, row, n_cols) + g.start;
        tile.store(out, held, threadIdx.x, mine, all);
        if constexpr (S > 0) stash.store(out + IN_REGISTERS, g.count - held, all);
    }
}

// Rows in turn between the register tile and a shared-memory stash of the same size, so that
// while a block waits at one row's barrier the loads of its next row are already in flight
// (one row in the chip per block instead of E + S elements of one, but no idle wait).
template <class T, int THREADS, int E>
__device__ __forceinline__ void split_rows_pipelined(const T* __restrict__ x, T* __restrict__ y, int n_rows,
                                                     int n_cols, unsigned* __restrict__ workspace) {
    using Tile = sh::RowTile<T, THREADS, E>;
    __shared__ sh::MaxSum scratch[32];
    __shared__ sh::MaxSum row_state;
    __shared__ __align__(16) T stash_buf[THREADS * E];
    Group g(n_cols, THREADS * E, Tile::W, workspace);
    if (g.idle()) return;
    const auto in = [&](size_t row) { return sh::row_of(x, row, n_cols) + g.start; };
    const auto out = [&](size_t row) { return sh::row_of(y, row, n_cols) + g.start; };
    Tile tile;
    Stash<T, THREADS, E> stash{stash_buf, (int)threadIdx.x};
    size_t row = g.group;
    if (row < (size_t)n_rows) tile.load(in(row), g.count, threadIdx.x);
    while (row < (size_t)n_rows) {
        const size_t next = row + g.groups();
        const bool more = next < (size_t)n_rows;
        if (more) stash.load(in(next), g.count);  // in flight during this row's barrier
        const sh::MaxSum mine = tile.fold();
        tile.store(out(row), g.count, threadIdx.x, mine, g.meet(mine, scratch, row_state));
        if (!more) break;
        row = next + g.groups();
        if (row < (size_t)n_rows) tile.load(in(row), g.count, threadIdx.x);  // in flight during the next one
        stash.store(out(next), g.count, g.meet(stash.fold(), scratch, row_state));
    }
}

}  // namespace

#define SPLIT_KERNEL(NAME, T, THREADS, BLOCKS, E, S)                                                     \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                        \
        NAME(const T* __restrict__ x, T* __restrict__ y, int n_rows, int n_cols, unsigned* workspace) { \
        split_rows<T, THREADS, E, S>(x, y, n_rows, n_cols, workspace);                                   \
    }

SPLIT_KERNEL(split_row_f32, float, 256, 4, 32, 0)
SPLIT_KERNEL(split_row_f16, sh::half_t, 256, 4, 48, 0)
SPLIT_KERNEL(split_row_bf16, sh::bf16_t, 256, 4, 48, 0)
// 176 bytes of shared memory per thread: 44 KB per block, 4 blocks in 176 of an SM's 228 KB.
SPLIT_KERNEL(split_row_smem_f32, float, 256, 4, 32, 44)
SPLIT_KERNEL(split_row_smem_f16, sh::half_t, 256, 4, 48, 88)
SPLIT_KERNEL(split_row_smem_bf16, sh::bf16_t, 256, 4, 48, 88)

#define PIPELINED_KERNEL(NAME, T, THREADS, BLOCKS, E)                                                   \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                        \
        NAME(const T* __restrict__ x, T* __restrict__ y, int n_rows, int n_cols, unsigned* workspace) { \
        split_rows_pipelined<T, THREADS, E>(x, y, n_rows, n_cols, workspace);                            \
    }

PIPELINED_KERNEL(split_row_pipe_f32, float, 256, 4, 32)
PIPELINED_KERNEL(split_row_pipe_f16, sh::half_t, 256, 4, 48)
PIPELINED_KERNEL(split_row_pipe_bf16, sh::bf16_t, 256, 4, 40)
