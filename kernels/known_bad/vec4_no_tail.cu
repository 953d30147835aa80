// KNOWN BAD: a vectorised kernel that handles the row four elements at a time and
// assumes C is a multiple of 4: the last C % 4 elements are never read or written.
//
// @variant name=bad_vec4_no_tail kernel=bad_vec4_no_tail algorithm=safe geometry=block-per-row threads=256 catches=all_written defect="vectorised loads that ignore the tail when C is not a multiple of 4"
#include "softmax.cuh"

// Four consecutive elements: one 16-byte load when the address allows it.
__device__ __forceinline__ float4 load4(const float* p) {
    if ((reinterpret_cast<size_t>(p) & 15) == 0) return *reinterpret_cast<const float4*>(p);
    return make_float4(p[0], p[1], p[2], p[3]);
}

extern "C" __global__ void bad_vec4_no_tail(const float* __restrict__ x, float* __restrict__ y,
                                            int n_rows, int n_cols) {
    __shared__ float scratch[32];
    const float* xr = sh::row_of(x, blockIdx.x, n_cols);
    float* yr = sh::row_of(y, blockIdx.x, n_cols);
    const int vecs = n_cols / 4;
    float m = sh::neg_inf();
    for (int k = threadIdx.x; k < vecs; k += blockDim.x) {
        const float4 v = load4(xr + 4 * k);
        m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
    m = sh::block_reduce(sh::Max(), m, scratch);
    float d = 0.0f;
    for (int k = threadIdx.x; k < vecs; k += blockDim.x) {
        const float4 v = load4(xr + 4 * k);
        d += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
    }
    d = sh::block_reduce(sh::Sum(), d, scratch);
    for (int k = threadIdx.x; k < vecs; k += blockDim.x) {
        const float4 v = load4(xr + 4 * k);
        float* out = yr + 4 * k;
        out[0] = expf(v.x - m) / d;
        out[1] = expf(v.y - m) / d;
        out[2] = expf(v.z - m) / d;
        out[3] = expf(v.w - m) / d;
    }
}
