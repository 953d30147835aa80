// KNOWN BAD: a row a block, the rows on the grid's y dimension (its launcher,
// grid_y_launch.py, beside this file). The y dimension holds at most 65535 blocks, so the
// launcher clamps the grid to it, and the kernel has no loop over the rows beyond: every row
// past 65535 keeps whatever its output held. Batches the strategies draw have far fewer rows;
// the gallery's trial of 70000 rows shows it, as the battery's millions of rows do.
//
// @variant name=bad_rows_in_grid_y kernel=bad_rows_in_grid_y algorithm=safe launcher=grid_y_launch:launch lanes=256 input=many_rows catches=all_written defect="puts the rows on the grid's y dimension, clamped to its 65535 blocks, with no loop over the rest"
#include "softmax.cuh"

extern "C" __global__ void bad_rows_in_grid_y(const float* __restrict__ x, float* __restrict__ y,
                                              int n_rows, int n_cols) {
    __shared__ float scratch[32];
    const size_t offset = static_cast<size_t>(blockIdx.y) * n_cols;
    const float* xr = x + offset;
    float* yr = y + offset;
    sh::block_row_softmax(xr, yr, n_cols, scratch);
}
