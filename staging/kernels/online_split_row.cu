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

template <class T, int THREADS, int E>
__device__ __forceinline__ void split_rows(const T* __restrict__ x, T* __restrict__ y, int n_rows, int n_cols,
                                           unsigned* __restrict__ workspace) {
    using Tile = sh::RowTile<T, THREADS, E>;
    __shared__ sh::MaxSum scratch[32];
    __shared__ sh::MaxSum row_state;
    const int parts = (n_cols + THREADS * E - 1) / (THREADS * E);
    const int groups = gridDim.x / parts;
    const int group = blockIdx.x / parts;
    const int rank = blockIdx.x % parts;
    if (group >= groups) return;  // the blocks left over when parts does not divide the grid
    // Slices of whole chunks, so that an aligned row keeps aligned slices.
    const int slice = ((n_cols + parts - 1) / parts + Tile::W - 1) / Tile::W * Tile::W;
    const int start = min(n_cols, rank * slice);
    const int count = min(n_cols - start, slice);
    unsigned* arrived = workspace + group;
    sh::MaxSum* states = reinterpret_cast<sh::MaxSum*>(workspace + gridDim.x);

    unsigned round = 0;
    for (size_t row = group; row < (size_t)n_rows; row += groups, ++round) {
        Tile tile;
        tile.load(sh::row_of(x, row, n_cols) + start, count, threadIdx.x);
        const sh::MaxSum mine = tile.fold();
        const sh::MaxSum block = sh::block_reduce(sh::FastMerge(), mine, scratch);
        // Two rounds of slots: a block can be at most one round ahead of its group.
        sh::MaxSum* slots = states + (round & 1) * gridDim.x + group * parts;
        if (threadIdx.x < 32) {
            if (threadIdx.x == 0) {
                __stcg(&slots[rank].m, block.m);
                __stcg(&slots[rank].d, block.d);
                arrive(arrived);  // release: the state is visible before the arrival
                const unsigned everyone = (round + 1) * parts;
                while (load_acquire(arrived) < everyone) {
                }
            }
            __syncwarp();
            sh::MaxSum all = sh::empty_state();
            for (int r = threadIdx.x; r < parts; r += 32)
                all = sh::FastMerge()(all, sh::MaxSum{__ldcg(&slots[r].m), __ldcg(&slots[r].d)});
            all = sh::warp_reduce(sh::FastMerge(), all);
            if (threadIdx.x == 0) row_state = all;
        }
        __syncthreads();  // row_state is rewritten only after the next round's block_reduce barriers
        tile.store(sh::row_of(y, row, n_cols) + start, count, threadIdx.x, mine, row_state);
    }
}

}  // namespace

#define SPLIT_KERNEL(NAME, T, THREADS, BLOCKS, E)                                                        \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                        \
        NAME(const T* __restrict__ x, T* __restrict__ y, int n_rows, int n_cols, unsigned* workspace) { \
        split_rows<T, THREADS, E>(x, y, n_rows, n_cols, workspace);                                      \
    }

SPLIT_KERNEL(split_row_f32, float, 256, 4, 32)
SPLIT_KERNEL(split_row_f16, sh::half_t, 256, 4, 48)
SPLIT_KERNEL(split_row_bf16, sh::bf16_t, 256, 4, 48)
