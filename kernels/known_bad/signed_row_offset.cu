// KNOWN BAD: the row's offset is a signed 32-bit product (`int offset = row * n_cols`), as
// much CUDA code writes it. Past element 2^31 (a batch of 8 GiB of float32) it overflows to a
// negative offset, and the block reads and writes 8 GiB before the batch: an illegal address.
// Every batch the strategies draw is far below that, so only the batch past element 2^31
// shows it, and the fault is the finding (in a child process: it ends that CUDA context).
//
// @variant name=bad_signed_row_offset kernel=bad_signed_row_offset algorithm=safe geometry=block-per-row threads=256 input=past_2_31 catches=launch defect="forms the row offset as a signed 32-bit product (int row * n_cols)"
#include "softmax.cuh"

extern "C" __global__ void bad_signed_row_offset(const float* __restrict__ x, float* __restrict__ y,
                                                 int n_rows, int n_cols) {
    __shared__ float scratch[32];
    const int row = blockIdx.x;
    const int offset = row * n_cols;
    const float* xr = x + offset;
    float* yr = y + offset;
    sh::block_row_softmax(xr, yr, n_cols, scratch);
}
