// KNOWN BAD (seed 001's SumMax / cg::reduce version): the merge picks the bigger
// state and adds smaller.sum * expf(smaller.max - bigger.max); two empty lanes
// (both -inf) give 0 * NaN = NaN, so any row shorter than the warp is NaN.
//
// @variant name=bad_summax_cg_unguarded kernel=bad_summax_cg_unguarded algorithm=online geometry=warp-per-row threads=128 catches=nonfinite_contract defect="SumMax merge without a guard: NaN when C is smaller than the warp"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "softmax.cuh"

namespace cg = cooperative_groups;

struct SumMax {
    float maxval;
    float sum;
};

struct UnguardedMerge {
    __device__ SumMax operator()(SumMax a, SumMax b) const {
        const bool a_bigger = a.maxval > b.maxval;
        const SumMax big = a_bigger ? a : b, small = a_bigger ? b : a;
        return {big.maxval, big.sum + small.sum * expf(small.maxval - big.maxval)};
    }
};

extern "C" __global__ void bad_summax_cg_unguarded(const float* __restrict__ x, float* __restrict__ y,
                                                   int n_rows, int n_cols) {
    const auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    const size_t row = (size_t)blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (row >= (size_t)n_rows) return;
    const float* xr = sh::row_of(x, row, n_cols);
    float* yr = sh::row_of(y, row, n_cols);
    SumMax s = {sh::neg_inf(), 0.0f};
    for (int i = warp.thread_rank(); i < n_cols; i += warp.size()) {
        const float v = xr[i];
        if (v > s.maxval) {
            s.sum = s.sum * expf(s.maxval - v) + 1.0f;
            s.maxval = v;
        } else {
            s.sum += expf(v - s.maxval);
        }
    }
    s = cg::reduce(warp, s, UnguardedMerge());
    for (int i = warp.thread_rank(); i < n_cols; i += warp.size()) yr[i] = expf(xr[i] - s.maxval) / s.sum;
}
