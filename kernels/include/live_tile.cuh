// A register tile (RowTile) whose exponentials skip the chunks that lie wholly past the row's
// end. A tile sized for longer rows holds -inf there; a 16-bit tile's exponentials, not its bytes,
// set its pace (its fold and its store each take one a held element), so a row that fills 75% of
// it ran at 0.79 of a copy where a full one ran at 0.98 (reports/measurements/cluster_push.jsonl).
// A lane's chunks follow each other along the row, so the dead ones are a suffix: `live` counts
// the others, and each loop over the chunks stops there (a branch a chunk).
#pragma once

#include "include/tile.cuh"

namespace sh {

// KEEP: a packed (16-bit) tile keeps its exponentials as floats from the fold to the store, one
// exponential a held element where it takes two otherwise (its store recomputes them), for a few
// rows, which run a block a multiprocessor: there the registers are free and the special-function
// unit sets a block's pace (16 exponentials a cycle a multiprocessor). The loads still land packed,
// all in flight together: a tile converting each chunk to floats as it lands (RowTile's WIDE)
// ran 1.03-1.8x slower, 1.2-1.4x on one row of 128256-262144
// (reports/measurements/wide_tiles_latency_h100.jsonl).
template <class T, int LANES, int E, bool KEEP = false>
struct LiveTile : RowTile<T, LANES, E> {
    using Tile = RowTile<T, LANES, E>;
    using Tile::CHUNKS;
    using Tile::W;
    using Tile::WIDE;
    static constexpr bool KEPT = KEEP && !WIDE;  // exponentials in kept[], not recomputed
    static constexpr bool HELD = WIDE || KEPT;    // the store scales held exponentials
    int live = CHUNKS;
    float kept[KEPT ? E : 1];

    __device__ __forceinline__ void load(const T* __restrict__ row, int n, int lane) {
        Tile::load(row, n, lane);
        if (this->shift >= 0) {  // chunk k of this lane starts at W * (k * LANES + lane)
            const int ahead = this->shift + n - W * lane;
            live = ahead <= 0 ? 0 : min(CHUNKS, (ahead + W * LANES - 1) / (W * LANES));
        }
    }

    __device__ __forceinline__ MaxSum fold() {
        const float m = this->max();
        const float base = m == neg_inf() ? 0.0f : m;  // as RowTile::sum_exp
        float d = 0.0f;
        with_exp_args<T, false>(base, [&](auto arg) {
#pragma unroll
            for (int k = 0; k < CHUNKS; ++k) {
                if (k >= live) break;
#pragma unroll
                for (int i = W * k; i < W * (k + 1); ++i) {
                    const float e = ex2(arg(this->get(i)));
                    if constexpr (WIDE) this->v[i] = e;
                    if constexpr (KEPT) kept[i] = e;
                    d += e;
                }
            }
            this->c = arg.c;
            d *= arg.c;
            return 0;
        });
        return {m, d};
    }

    __device__ __forceinline__ void store(T* __restrict__ row, int n, int lane, MaxSum mine, MaxSum all) const {
        write_softmax<T, false, HELD>([&](auto out) { write(row, n, lane, [&](int i) { return out(held(i)); }); },
                                      mine, all, this->c);
    }

    // Position i as the store takes it: its exponential where held, else its element.
    __device__ __forceinline__ float held(int i) const {
        if constexpr (KEPT) return kept[i];
        else return this->get(i);
    }

    // RowTile::write over the live chunks.
    template <class Out>
    __device__ __forceinline__ void write(T* __restrict__ row, int n, int lane, Out out) const {
        const int shift = this->shift;
        if (shift < 0) return Tile::write(row, n, lane, out);
        const bool vectors = shift_of<T, W>(row) == shift % W;  // y as misaligned as x
        T* at = row - shift;
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) {
            if (k >= live) break;
            const int p = W * (k * LANES + lane);
            float y[W];
#pragma unroll
            for (int j = 0; j < W; ++j) y[j] = out(W * k + j);
            if (vectors && this->whole_chunks(n)) store_vector<T, W>(at + p, y, p >= shift && p < shift + n);
            else store_chunk<T, W>(at, p, y, shift, shift + n, vectors);
        }
    }
};

}  // namespace sh
