// Seed post 001, V6 (online softmax with cooperative groups and a SumMax struct), as the post
// gives it: its SumMax struct and reduce_sum_max_op verbatim, cg::reduce over a tile of 32, the
// V5 online step per lane, a block of 32 threads a row (the post's table), and llm.c's
// (out, inp, N, C) order that the post follows. The post shows only these pieces; the loop
// around them is V5's. INFINITY defined here for NVRTC. The op has no guard: two lanes with no
// element (both -inf) merge to 0 * expf(-inf - -inf) = NaN, so rows shorter than the warp are NaN.
//
// @variant name=seed_v6_summax_cg kernel=softmax_forward_online_cg algorithm=online geometry=block-per-row threads=32 args=out,in,rows,cols
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#define INFINITY __int_as_float(0x7f800000)

namespace cg = cooperative_groups;

struct __align__(8) SumMax {
    float maxval;
    float sum;
};

__device__ __forceinline__ SumMax reduce_sum_max_op(SumMax a, SumMax b) {
    bool a_bigger = (a.maxval > b.maxval);
    SumMax bigger_m = a_bigger ? a : b;
    SumMax smaller_m = a_bigger ? b : a;
    SumMax res;
    res.maxval = bigger_m.maxval;
    res.sum = bigger_m.sum + smaller_m.sum * expf(smaller_m.maxval - bigger_m.maxval);
    return res;
}

extern "C" __global__ void softmax_forward_online_cg(float* out, const float* inp, int N, int C) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int idx = blockIdx.x;
    if (idx >= N) return;
    const float* inp_row = inp + idx * C;
    float* out_row = out + idx * C;

    SumMax sm_partial;
    sm_partial.maxval = -INFINITY;
    sm_partial.sum = 0.0f;
    for (int j = warp.thread_rank(); j < C; j += warp.size()) {
        float maxval_prev = sm_partial.maxval;
        if (inp_row[j] > sm_partial.maxval) {
            sm_partial.maxval = inp_row[j];
            sm_partial.sum = sm_partial.sum * expf(maxval_prev - sm_partial.maxval) + expf(inp_row[j] - sm_partial.maxval);
        } else {
            sm_partial.sum += expf(inp_row[j] - sm_partial.maxval);
        }
    }
    SumMax sm_total = cg::reduce(warp, sm_partial, reduce_sum_max_op);
    for (int j = warp.thread_rank(); j < C; j += warp.size()) {
        out_row[j] = expf(inp_row[j] - sm_total.maxval) / sm_total.sum;
    }
}
