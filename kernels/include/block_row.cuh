// The plainest softmax of one float row by one block: three passes (max, sum, normalise) with
// block reductions. The known-bad kernels that differ from a correct one only in where their
// row lies, or how they are launched, share it, so each shows just its own defect.
#pragma once

#include "math.cuh"
#include "reduce.cuh"

namespace sh {

__device__ __forceinline__ void block_row_softmax(const float* __restrict__ xr, float* __restrict__ yr,
                                                  int n_cols, float* scratch) {
    float m = neg_inf();
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) m = fmaxf(m, xr[i]);
    m = block_reduce(Max(), m, scratch);
    float d = 0.0f;
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) d += expf(xr[i] - m);
    d = block_reduce(Sum(), d, scratch);
    for (int i = threadIdx.x; i < n_cols; i += blockDim.x) yr[i] = expf(xr[i] - m) / d;
}

}  // namespace sh
