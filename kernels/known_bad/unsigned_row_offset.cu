// KNOWN BAD: the row's offset is formed in 32 bits (`unsigned offset = blockIdx.x * n_cols`),
// as much CUDA code does. Past element 2^32 (a batch of 8 GiB of float16) it wraps: those
// rows read and overwrite the first rows, and their own outputs are never written. Every batch
// the strategies draw is far below that, so only the batch past element 2^32 shows it.
//
// @variant name=bad_unsigned_row_offset kernel=bad_unsigned_row_offset algorithm=safe geometry=block-per-row threads=256 dtypes=float16 input=past_2_31 catches=all_written defect="forms the row offset in 32 bits (unsigned row * n_cols)"
#include "softmax.cuh"

extern "C" __global__ void bad_unsigned_row_offset(const sh::half_t* __restrict__ x, sh::half_t* __restrict__ y,
                                                   int n_rows, int n_cols) {
    __shared__ float scratch[32];
    const unsigned offset = blockIdx.x * n_cols;
    const sh::half_t* xr = x + offset;
    sh::half_t* yr = y + offset;
    float m = sh::neg_inf();
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) m = fmaxf(m, sh::to_float(xr[i]));
    m = sh::block_reduce(sh::Max(), m, scratch);
    float d = 0.0f;
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) d += expf(sh::to_float(xr[i]) - m);
    d = sh::block_reduce(sh::Sum(), d, scratch);
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x)
        yr[i] = sh::from_float<sh::half_t>(expf(sh::to_float(xr[i]) - m) / d);
}
