// The fused forward softmax(t) of the logits t = scale * x (+ bias, or masked, or causal), over
// rows of any element type (computed in float). A logits policy gives t for element i of one
// row; a masked element of x is never read. t is formed as the contract says: scale * x rounded
// (__fmul_rn: never contracted into a later subtraction), then + bias rounded (__fadd_rn).
// Then the safe order: the maximum, the sum of exp(t - m), the outputs exp(t - m) / d. A row
// with NaN or +inf in t, or masked throughout, gives NaN (t - m is NaN somewhere, so is d).
#pragma once

#include "include/half.cuh"
#include "include/math.cuh"
#include "include/reduce.cuh"

namespace sh {

template <class T>
struct ScaledLogits {  // t = scale * x, nothing masked
    const T* __restrict__ x;
    float scale;
    __device__ __forceinline__ float operator()(int i) const { return __fmul_rn(scale, to_float(x[i])); }
};

template <class T>
struct BiasLogits {  // t = scale * x + bias
    const T* __restrict__ x;
    const T* __restrict__ bias;
    float scale;
    __device__ __forceinline__ float operator()(int i) const {
        return __fadd_rn(__fmul_rn(scale, to_float(x[i])), to_float(bias[i]));
    }
};

template <class T>
struct MaskLogits {  // t = -inf where mask, else scale * x
    const T* __restrict__ x;
    const bool* __restrict__ mask;
    float scale;
    __device__ __forceinline__ float operator()(int i) const {
        return mask[i] ? neg_inf() : __fmul_rn(scale, to_float(x[i]));
    }
};

template <class T>
struct CausalLogits {  // row r keeps columns 0 .. r % C
    const T* __restrict__ x;
    int last;  // r % C
    float scale;
    __device__ __forceinline__ float operator()(int i) const {
        return i > last ? neg_inf() : __fmul_rn(scale, to_float(x[i]));
    }
};

// This thread's part of the row's maximum and of its sum, every `lanes`-th element from `lane`.
template <class L>
__device__ __forceinline__ float logits_max(const L& t, int n, int lane, int lanes) {
    float m = neg_inf();
    for (int i = lane; i < n; i += lanes) m = fmaxf(m, t(i));
    return m;
}

template <class L>
__device__ __forceinline__ float logits_exp_sum(const L& t, int n, float m, int lane, int lanes) {
    float d = 0.0f;
    for (int i = lane; i < n; i += lanes) d += expf(t(i) - m);
    return d;
}

template <class L, class T>
__device__ __forceinline__ void write_probs(const L& t, T* __restrict__ y, int n, float m, float d, int lane,
                                            int lanes) {
    for (int i = lane; i < n; i += lanes) y[i] = from_float<T>(expf(t(i) - m) / d);
}

// The row's three passes over `lanes` threads that reduce with `reduce` (a warp's or a block's),
// the maximum taken over the logits `at_max` gives (t's own; the gallery's kernels take others).
template <class M, class L, class T, class R>
__device__ __forceinline__ void scaled_row_max_of(const M& at_max, const L& t, T* __restrict__ y, int n, int lane,
                                                  int lanes, R reduce) {
    const float m = reduce(Max(), logits_max(at_max, n, lane, lanes));
    const float d = reduce(Sum(), logits_exp_sum(t, n, m, lane, lanes));
    write_probs(t, y, n, m, d, lane, lanes);
}

template <class L, class T, class R>
__device__ __forceinline__ void scaled_row(const L& t, T* __restrict__ y, int n, int lane, int lanes, R reduce) {
    scaled_row_max_of(t, t, y, n, lane, lanes, reduce);
}

// One row of at most THREADS * PER elements in registers: x (and bias or mask) read once.
template <class L, class T, int THREADS, int PER>
__device__ __forceinline__ void scaled_tile_row(const L& t, T* __restrict__ y, int n, float* scratch) {
    float v[PER];
    float m = neg_inf();
#pragma unroll
    for (int k = 0; k < PER; ++k) {
        const int i = k * THREADS + threadIdx.x;
        v[k] = i < n ? t(i) : neg_inf();
        m = fmaxf(m, v[k]);
    }
    m = THREADS == 32 ? warp_reduce(Max(), m) : block_reduce(Max(), m, scratch);
    float d = 0.0f;
#pragma unroll
    for (int k = 0; k < PER; ++k) {
        const int i = k * THREADS + threadIdx.x;
        v[k] = i < n ? expf(v[k] - m) : 0.0f;
        d += v[k];
    }
    d = THREADS == 32 ? warp_reduce(Sum(), d) : block_reduce(Sum(), d, scratch);
#pragma unroll
    for (int k = 0; k < PER; ++k) {
        const int i = k * THREADS + threadIdx.x;
        if (i < n) y[i] = from_float<T>(v[k] / d);
    }
}

// The row's logits for each form, from the kernel's arguments and the row's offset `at`.
template <class T>
__device__ __forceinline__ BiasLogits<T> row_logits(const T* x, const T* bias, float scale, size_t at, size_t) {
    return {x + at, bias + at, scale};
}
template <class T>
__device__ __forceinline__ MaskLogits<T> row_logits(const T* x, const bool* mask, float scale, size_t at, size_t) {
    return {x + at, mask + at, scale};
}
template <class T>
__device__ __forceinline__ CausalLogits<T> row_logits(const T* x, int n_cols, float scale, size_t at,
                                                      size_t row) {
    return {x + at, static_cast<int>(row % static_cast<size_t>(n_cols)), scale};
}

struct NoReduce {  // one thread holds the whole row
    template <class Op>
    __device__ __forceinline__ float operator()(Op, float v) const { return v; }
};
struct WarpReduce {
    template <class Op>
    __device__ __forceinline__ float operator()(Op op, float v) const { return warp_reduce(op, v); }
};
struct BlockReduce {
    float* scratch;
    template <class Op>
    __device__ __forceinline__ float operator()(Op op, float v) const { return block_reduce(op, v, scratch); }
};

}  // namespace sh

// The extern "C" kernels of each form: (x, bias, y, n_rows, n_cols, scale), (x, mask, y, n_rows,
// n_cols, scale) and (x, y, n_rows, n_cols, scale). SECOND is the form's second argument (the bias
// or mask pointer; n_cols for the causal form, whose row logits need only it).
#define SCALED_ARGS_bias(T) const T *__restrict__ x, const T *__restrict__ second, T *__restrict__ y, int n_rows, int n_cols, float scale
#define SCALED_ARGS_mask(T) const T *__restrict__ x, const bool *__restrict__ second, T *__restrict__ y, int n_rows, int n_cols, float scale
#define SCALED_ARGS_causal(T) const T *__restrict__ x, T *__restrict__ y, int n_rows, int n_cols, float scale
#define SCALED_SECOND_bias second
#define SCALED_SECOND_mask second
#define SCALED_SECOND_causal n_cols

// One row a thread: every sum one sequential chain (neighbouring threads read rows C apart).
#define SCALED_THREAD(NAME, FORM, T)                                                                   \
    extern "C" __global__ void NAME(SCALED_ARGS_##FORM(T)) {                                           \
        const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x;                              \
        if (row >= (size_t)n_rows) return;                                                             \
        const size_t at = row * n_cols;                                                                \
        sh::scaled_row(sh::row_logits(x, SCALED_SECOND_##FORM, scale, at, row), y + at, n_cols, 0, 1,  \
                       sh::NoReduce());                                                                \
    }
// One row a warp (row = the warp's index in the grid).
#define SCALED_WARP(NAME, FORM, T)                                                                     \
    extern "C" __global__ void NAME(SCALED_ARGS_##FORM(T)) {                                           \
        const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;                  \
        if (row >= (size_t)n_rows) return; /* whole warps leave together */                           \
        const size_t at = row * n_cols;                                                                \
        sh::scaled_row(sh::row_logits(x, SCALED_SECOND_##FORM, scale, at, row), y + at, n_cols,        \
                       threadIdx.x & 31, 32, sh::WarpReduce());                                        \
    }
// One row a block, any length; x read three times (the second and third mostly from cache).
#define SCALED_BLOCK(NAME, FORM, T)                                                                    \
    extern "C" __global__ void NAME(SCALED_ARGS_##FORM(T)) {                                           \
        __shared__ float scratch[32];                                                                  \
        const size_t row = blockIdx.x, at = row * n_cols;                                              \
        sh::scaled_row(sh::row_logits(x, SCALED_SECOND_##FORM, scale, at, row), y + at, n_cols,        \
                       threadIdx.x, blockDim.x, sh::BlockReduce{scratch});                             \
    }
// One row of at most THREADS * PER elements a block, in registers.
#define SCALED_TILE(NAME, FORM, T, THREADS, PER)                                                       \
    extern "C" __global__ void __launch_bounds__(THREADS, 1) NAME(SCALED_ARGS_##FORM(T)) {             \
        __shared__ float scratch[32];                                                                  \
        const size_t row = blockIdx.x, at = row * n_cols;                                              \
        sh::scaled_tile_row<decltype(sh::row_logits(x, SCALED_SECOND_##FORM, scale, at, row)), T,      \
                            THREADS, PER>(sh::row_logits(x, SCALED_SECOND_##FORM, scale, at, row),     \
                                          y + at, n_cols, scratch);                                    \
    }
