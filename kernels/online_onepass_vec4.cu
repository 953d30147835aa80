// One-pass softmax from registers with 16-byte accesses, sized to the row: the
// fast family behind softmax_harness.softmax(). Each thread loads its whole share
// of the row (VECS float4 chunks; chunk k of lane l holds elements
// 4 * (k * LANES + l) .. + 3) before using any of it, so many loads are in flight;
// rows are read once and written once.
//
// Arithmetic: one exponential per element, on the special-function unit (ex2, so
// the variants declare fast_math=true and are held to the wider bound). A thread folds
// its share as e_i = exp(x_i - m_t) (m_t: its own maximum) and d_t = sum e_i, the
// (m_t, d_t) states are merged (NaN-safe, see softmax.cuh), and y_i = e_i * exp(m_t - m) / d.
// Rows that are not 16-byte aligned (C % 4 != 0, or a misaligned base) take the
// same path with scalar loads and stores.
//
// Short rows: a group of LANES threads per row, several rows per block.
// @variant name=onepass_vec4_c32 kernel=onepass_vec4_c32 algorithm=online geometry=group-per-row threads=128 lanes=8 max_cols=32 fast_math=true
// @variant name=onepass_vec4_c64 kernel=onepass_vec4_c64 algorithm=online geometry=group-per-row threads=128 lanes=16 max_cols=64 fast_math=true
// @variant name=onepass_vec4_c128 kernel=onepass_vec4_c128 algorithm=online geometry=warp-per-row threads=128 max_cols=128 fast_math=true
// @variant name=onepass_vec4_c256 kernel=onepass_vec4_c256 algorithm=online geometry=warp-per-row threads=128 max_cols=256 fast_math=true
// @variant name=onepass_vec4_c512 kernel=onepass_vec4_c512 algorithm=online geometry=warp-per-row threads=128 max_cols=512 fast_math=true
// @variant name=onepass_vec4_c1024 kernel=onepass_vec4_c1024 algorithm=online geometry=warp-per-row threads=128 max_cols=1024 fast_math=true
// Longer rows: a block per row.
// @variant name=onepass_vec4_c2048 kernel=onepass_vec4_c2048 algorithm=online geometry=block-per-row threads=256 max_cols=2048 fast_math=true
// @variant name=onepass_vec4_c4096 kernel=onepass_vec4_c4096 algorithm=online geometry=block-per-row threads=512 max_cols=4096 fast_math=true
// @variant name=onepass_vec4_c8192 kernel=onepass_vec4_c8192 algorithm=online geometry=block-per-row threads=512 max_cols=8192 fast_math=true
// @variant name=onepass_vec4_c16384 kernel=onepass_vec4_c16384 algorithm=online geometry=block-per-row threads=512 max_cols=16384 fast_math=true
// @variant name=onepass_vec4_c32768 kernel=onepass_vec4_c32768 algorithm=online geometry=block-per-row threads=1024 max_cols=32768 fast_math=true
#include "softmax.cuh"

template <int LANES, int VECS>
struct RowTile {
    float v[4 * VECS];

    __device__ __forceinline__ void load(const float* __restrict__ row, int n, int lane) {
        const bool aligned = (reinterpret_cast<size_t>(row) & 15) == 0;
#pragma unroll
        for (int k = 0; k < VECS; ++k) {
            const int e = 4 * (k * LANES + lane);
            if (aligned && e + 3 < n) {
                const float4 t = *reinterpret_cast<const float4*>(row + e);
                v[4 * k] = t.x, v[4 * k + 1] = t.y, v[4 * k + 2] = t.z, v[4 * k + 3] = t.w;
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j) v[4 * k + j] = e + j < n ? row[e + j] : sh::neg_inf();
            }
        }
    }

    __device__ __forceinline__ void store(float* __restrict__ row, int n, int lane, float scale) const {
        const bool aligned = (reinterpret_cast<size_t>(row) & 15) == 0;
#pragma unroll
        for (int k = 0; k < VECS; ++k) {
            const int e = 4 * (k * LANES + lane);
            if (aligned && e + 3 < n) {
                *reinterpret_cast<float4*>(row + e) =
                    make_float4(v[4 * k] * scale, v[4 * k + 1] * scale, v[4 * k + 2] * scale, v[4 * k + 3] * scale);
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (e + j < n) row[e + j] = v[4 * k + j] * scale;
            }
        }
    }
};

template <int LANES, int VECS>
__device__ __forceinline__ void group_rows(const float* __restrict__ x, float* __restrict__ y, int n_rows,
                                           int n_cols) {
    const int lane = threadIdx.x % LANES;
    const size_t row = (size_t)blockIdx.x * (blockDim.x / LANES) + threadIdx.x / LANES;
    const bool live = row < (size_t)n_rows;  // dead groups still join the shuffles
    RowTile<LANES, VECS> tile;
    tile.load(sh::row_of(x, live ? row : 0, n_cols), live ? n_cols : 0, lane);
    const sh::MaxSum mine = sh::fold_tile(tile.v);
    const sh::MaxSum all = sh::group_reduce<LANES>(sh::FastMerge(), mine);
    if (live) tile.store(sh::row_of(y, row, n_cols), n_cols, lane, sh::tile_scale(mine, all));
}

template <int THREADS, int VECS>
__device__ __forceinline__ void block_row(const float* __restrict__ x, float* __restrict__ y, int n_cols) {
    __shared__ sh::MaxSum scratch[32];
    RowTile<THREADS, VECS> tile;
    tile.load(sh::row_of(x, blockIdx.x, n_cols), n_cols, threadIdx.x);
    const sh::MaxSum mine = sh::fold_tile(tile.v);
    const sh::MaxSum all = sh::block_reduce(sh::FastMerge(), mine, scratch);
    tile.store(sh::row_of(y, blockIdx.x, n_cols), n_cols, threadIdx.x, sh::tile_scale(mine, all));
}

#define GROUP_KERNEL(NAME, LANES, VECS)                                                               \
    extern "C" __global__ void __launch_bounds__(128) NAME(const float* __restrict__ x,               \
                                                           float* __restrict__ y, int n_rows,         \
                                                           int n_cols) {                              \
        group_rows<LANES, VECS>(x, y, n_rows, n_cols);                                                \
    }

GROUP_KERNEL(onepass_vec4_c32, 8, 1)
GROUP_KERNEL(onepass_vec4_c64, 16, 1)
GROUP_KERNEL(onepass_vec4_c128, 32, 1)
GROUP_KERNEL(onepass_vec4_c256, 32, 2)
GROUP_KERNEL(onepass_vec4_c512, 32, 4)
GROUP_KERNEL(onepass_vec4_c1024, 32, 8)

#define BLOCK_KERNEL(NAME, THREADS, VECS)                                                             \
    extern "C" __global__ void __launch_bounds__(THREADS) NAME(const float* __restrict__ x,          \
                                                               float* __restrict__ y, int n_rows,    \
                                                               int n_cols) {                         \
        block_row<THREADS, VECS>(x, y, n_cols);                                                       \
    }

BLOCK_KERNEL(onepass_vec4_c2048, 256, 2)
BLOCK_KERNEL(onepass_vec4_c4096, 512, 2)
BLOCK_KERNEL(onepass_vec4_c8192, 512, 4)
BLOCK_KERNEL(onepass_vec4_c16384, 512, 8)
BLOCK_KERNEL(onepass_vec4_c32768, 1024, 8)
