// A block-per-row softmax whose block follows the row: its Python launcher (fit_launch.py,
// beside this file) gives a row of C columns the smallest power of two of threads, 32 to
// 1024, that leaves each thread at most four elements, and dynamic shared memory for two
// floats a warp. Online (running maximum and sum), in the (out, in, N, C) order; a geometry
// the harness does not know, so the header names the launcher instead. Each thread's chain
// is at most C / 32 elements long, then a tree: lanes=32 states a bound that holds.
//
// @variant name=fitted_block kernel=fitted_block_softmax algorithm=online launcher=fit_launch:launch lanes=32
#define NEG_INF __int_as_float(0xff800000)

// exp(a - b) for a <= b, and 0 for a = -inf (also when b = -inf, where a - b is NaN). A NaN
// a stays NaN: fmaxf drops a NaN from the maximum, and this keeps it in the sum.
__device__ __forceinline__ float exp_below(float a, float b) {
    return a == NEG_INF ? 0.0f : expf(a - b);
}

__device__ __forceinline__ void merge(float& m, float& d, float om, float od) {
    const float nm = fmaxf(m, om);
    d = d * exp_below(m, nm) + od * exp_below(om, nm);
    m = nm;
}

extern "C" __global__ void fitted_block_softmax(float* out, const float* in, int N, int C) {
    extern __shared__ float partial[];  // [warps] maxima, then [warps] sums
    const float* x = in + (size_t)blockIdx.x * C;
    float* y = out + (size_t)blockIdx.x * C;
    const int warps = blockDim.x / 32, warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    float m = NEG_INF, d = 0.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x) merge(m, d, x[i], 1.0f);
    for (int offset = 16; offset > 0; offset /= 2)
        merge(m, d, __shfl_xor_sync(0xffffffff, m, offset), __shfl_xor_sync(0xffffffff, d, offset));
    if (lane == 0) {
        partial[warp] = m;
        partial[warps + warp] = d;
    }
    __syncthreads();
    if (warp == 0) {
        m = lane < warps ? partial[lane] : NEG_INF;
        d = lane < warps ? partial[warps + lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2)
            merge(m, d, __shfl_xor_sync(0xffffffff, m, offset), __shfl_xor_sync(0xffffffff, d, offset));
    }
    __syncthreads();  // every warp has read its partials before lane 0 overwrites them
    if (threadIdx.x == 0) {
        partial[0] = m;
        partial[1] = d;
    }
    __syncthreads();
    m = partial[0];
    d = partial[1];
    // An all -inf row: m = -inf, and (-inf) - (-inf) gives NaN, torch's answer for it.
    for (int i = threadIdx.x; i < C; i += blockDim.x) y[i] = expf(x[i] - m) / d;
}
