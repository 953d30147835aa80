// KNOWN BAD: the naive softmax exp(x) / sum(exp(x)) without subtracting the row
// maximum: logits above ~88 overflow expf to inf and the row becomes NaN.
//
// @variant name=bad_no_max_subtraction kernel=bad_no_max_subtraction algorithm=naive geometry=block-per-row threads=256 catches=matches_reference defect="no max subtraction: overflow on large logits"
#include "softmax.cuh"

extern "C" __global__ void bad_no_max_subtraction(const float* __restrict__ x, float* __restrict__ y,
                                                  int n_rows, int n_cols) {
    __shared__ float scratch[32];
    const float* xr = sh::row_of(x, blockIdx.x, n_cols);
    float* yr = sh::row_of(y, blockIdx.x, n_cols);
    float d = 0.0f;
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) d += expf(xr[i]);
    d = sh::block_reduce(sh::Sum(), d, scratch);
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) yr[i] = expf(xr[i]) / d;
}
