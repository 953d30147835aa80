// KNOWN BAD: a correct block-per-row softmax that its launcher (own_stream_launch.py, beside
// this file) runs on a stream of its own, not on the caller's current stream. Every check
// that waits for the device passes it; a caller who queues the next kernel on their stream
// reads the output before it is written. The gallery's busy-stream trial (``streams``) holds
// the GPU busy and reads the output as soon as the caller's stream is done.
//
// @variant name=bad_own_stream kernel=bad_own_stream algorithm=safe launcher=own_stream_launch:launch lanes=256 input=busy_stream catches=all_written defect="launches on a stream of its own, not on the caller's current stream"
#include "softmax.cuh"

extern "C" __global__ void bad_own_stream(const float* __restrict__ x, float* __restrict__ y,
                                          int n_rows, int n_cols) {
    __shared__ float scratch[32];
    const size_t offset = static_cast<size_t>(blockIdx.x) * n_cols;
    const float* xr = x + offset;
    float* yr = y + offset;
    sh::block_row_softmax(xr, yr, n_cols, scratch);
}
