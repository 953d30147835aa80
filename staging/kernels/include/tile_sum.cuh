// A lane's part of a row's sum from its register tile: the terms of the tile positions inside the
// row, each chunk's W terms summed as a tree, the chunks in one chain. The order the variants
// declare with vector=W (the bound's chain: bounds.chain_length).
#pragma once

#include "include/tile.cuh"

namespace sh {

template <class Tile, class Term>
__device__ __forceinline__ float tile_sum(const Tile& tile, int n, int lane, Term term) {
    constexpr int W = Tile::W;
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < Tile::CHUNKS; ++k) {
        float t[W];
#pragma unroll
        for (int j = 0; j < W; ++j) t[j] = tile.inside(W * k + j, n, lane) ? term(W * k + j) : 0.0f;
#pragma unroll
        for (int width = W / 2; width > 0; width /= 2) {
#pragma unroll
            for (int j = 0; j < width; ++j) t[j] += t[j + width];
        }
        s += t[0];
    }
    return s;
}

}  // namespace sh
