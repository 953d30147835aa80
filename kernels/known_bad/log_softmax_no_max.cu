// KNOWN BAD: log_softmax as x - log(sum exp(x)), without the maximum: a logit above ~88
// overflows the sum to inf and its row to -inf.
//
// @variant name=bad_log_softmax_no_max op=log_softmax kernel=bad_log_softmax_no_max algorithm=naive geometry=block-per-row threads=256 catches=matches_reference defect="no max subtraction: overflow on large logits"
#include "softmax.cuh"

extern "C" __global__ void bad_log_softmax_no_max(const float* __restrict__ x, float* __restrict__ z, int n_rows,
                                                  int n_cols) {
    __shared__ float scratch[32];
    const float* xr = x + (size_t)blockIdx.x * n_cols;
    float d = 0.0f;
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) d += expf(xr[i]);
    const float log_d = logf(sh::block_reduce(sh::Sum(), d, scratch));
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) z[(size_t)blockIdx.x * n_cols + i] = xr[i] - log_d;
}
