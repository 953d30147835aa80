// KNOWN BAD (seed 000's warp online softmax): lanes start from (-inf, 0) and fold
// elements with expf(m_old - m_new) unguarded, so a lane that has seen only -inf
// computes expf(-inf - -inf) = NaN: causal tails, a first -inf element, or rows
// shorter than the warp come out NaN.
//
// @variant name=bad_online_warp_unguarded kernel=bad_online_warp_unguarded algorithm=online geometry=warp-per-row threads=128 catches=nonfinite_contract defect="merges (-inf, 0) states without a guard: NaN on masked rows"
#include "softmax.cuh"

extern "C" __global__ void bad_online_warp_unguarded(const float* __restrict__ x, float* __restrict__ y,
                                                     int n_rows, int n_cols) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    const int lane = threadIdx.x & 31;
    const float* xr = sh::row_of(x, row, n_cols);
    float* yr = sh::row_of(y, row, n_cols);
    float m = sh::neg_inf(), d = 0.0f;
    for (int i = lane; i < n_cols; i += 32) {
        const float v = xr[i], m_new = fmaxf(m, v);
        d = d * expf(m - m_new) + expf(v - m_new);
        m = m_new;
    }
    const float g = sh::warp_reduce(sh::Max(), m);
    d = sh::warp_reduce(sh::Sum(), d * expf(m - g));
    for (int i = lane; i < n_cols; i += 32) yr[i] = expf(xr[i] - g) / d;
}
