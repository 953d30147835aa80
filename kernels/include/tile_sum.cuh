// A lane's part of a row's sum from its register tile: each chunk's W terms summed as a tree, the
// chunks in one chain. The order the variants declare with vector=W (the bound's chain:
// bounds.chain_length).
#pragma once

#include "include/tile.cuh"

namespace sh {

// Over every tile position: for terms that are exactly 0 outside the row (exp of -inf).
template <int W, int CHUNKS, class Term>
__device__ __forceinline__ float chunk_sum(Term term) {
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
        float t[W];
#pragma unroll
        for (int j = 0; j < W; ++j) t[j] = term(W * k + j);
#pragma unroll
        for (int width = W / 2; width > 0; width /= 2) {
#pragma unroll
            for (int j = 0; j < width; ++j) t[j] += t[j + width];
        }
        s += t[0];
    }
    return s;
}

// Over the tile positions inside the row only.
template <class Tile, class Term>
__device__ __forceinline__ float tile_sum(const Tile& tile, int n, int lane, Term term) {
    return chunk_sum<Tile::W, Tile::CHUNKS>([&](int i) { return tile.inside(i, n, lane) ? term(i) : 0.0f; });
}

}  // namespace sh
