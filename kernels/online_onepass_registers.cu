// One-pass online softmax that keeps the whole row in registers: each thread
// loads its PER_THREAD elements (a block-stride apart, so loads coalesce) once,
// folds them into a (max, sum) state, and after the merge writes the outputs from
// the registers: every input element is read exactly once. Rows are limited to
// PER_THREAD * blockDim elements (the array is indexed only by unrolled constants,
// so it stays in registers: see the compile test's spill check).
//
// @variant name=online_onepass_warp_1024 kernel=online_onepass_warp_1024 algorithm=online geometry=warp-per-row threads=128 max_cols=1024
// @variant name=online_onepass_block_4096 kernel=online_onepass_block_4096 algorithm=online geometry=block-per-row threads=256 max_cols=4096
// @variant name=online_onepass_block_16384 kernel=online_onepass_block_16384 algorithm=online geometry=block-per-row threads=1024 max_cols=16384
#include "softmax.cuh"

template <int PER_THREAD, class Reduce>
__device__ __forceinline__ void onepass(const float* __restrict__ xr, float* __restrict__ yr, int n_cols,
                                        int lane, int lanes, Reduce reduce) {
    float v[PER_THREAD];
    sh::MaxSum s = sh::empty_state();
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        const int i = lane + k * lanes;
        v[k] = i < n_cols ? xr[i] : sh::neg_inf();
        s = sh::push(s, v[k]);
    }
    s = reduce(s);
    const float inv = 1.0f / s.d;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        const int i = lane + k * lanes;
        if (i < n_cols) yr[i] = expf(v[k] - s.m) * inv;
    }
}

extern "C" __global__ void online_onepass_warp_1024(const float* __restrict__ x, float* __restrict__ y,
                                                    int n_rows, int n_cols) {
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= (size_t)n_rows) return;
    onepass<32>(sh::row_of(x, row, n_cols), sh::row_of(y, row, n_cols), n_cols, threadIdx.x & 31, 32,
                [](sh::MaxSum s) { return sh::warp_reduce(sh::Merge(), s); });
}

template <int PER_THREAD>
__device__ __forceinline__ void onepass_block(const float* __restrict__ x, float* __restrict__ y, int n_cols) {
    __shared__ sh::MaxSum scratch[32];
    onepass<PER_THREAD>(sh::row_of(x, blockIdx.x, n_cols), sh::row_of(y, blockIdx.x, n_cols), n_cols,
                        threadIdx.x, blockDim.x,
                        [&](sh::MaxSum s) { return sh::block_reduce(sh::Merge(), s, scratch); });
}

extern "C" __global__ void online_onepass_block_4096(const float* __restrict__ x, float* __restrict__ y,
                                                     int n_rows, int n_cols) {
    onepass_block<16>(x, y, n_cols);
}

extern "C" __global__ void online_onepass_block_16384(const float* __restrict__ x, float* __restrict__ y,
                                                      int n_rows, int n_cols) {
    onepass_block<16>(x, y, n_cols);
}
