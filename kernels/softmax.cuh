// Shared device code for the softmax kernels. Every kernel file includes this header; the
// harness inlines it (and each part once) before compiling, so an edit to any part changes
// the compiled source and CuPy's cache key. The parts, by concern, in kernels/include/:
//   math (infinities, exponentials), state (the (m, d) state and its merge), reduce (warp
//   and block reductions), rows (float rows in float4s), half (16-bit types), exp (a
//   tile's exponentials and the store path), store (vector loads and stores), tile (the
//   register tile and the one-pass kernels).
#pragma once

#include "include/math.cuh"
#include "include/state.cuh"
#include "include/reduce.cuh"
#include "include/rows.cuh"
#include "include/half.cuh"
#include "include/exp.cuh"
#include "include/store.cuh"
#include "include/tile.cuh"
#include "include/block_row.cuh"
