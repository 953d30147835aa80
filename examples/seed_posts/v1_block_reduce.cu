// Seed post 000, Softmax_v1 ("Reduce Softmax"), as the post writes it: one block a row, a
// block reduction of the maximum and then of the sum, broadcast through shared memory, the
// post's own (out, in, N, C) argument order. Changed only for NVRTC: INFINITY is defined here
// (NVRTC has no <math.h>), and the post's `warpSize` constant is renamed (CUDA declares it).
// The post gives no launch; one block of 256 threads a row is what it describes.
//
// @variant name=seed_v1_block_reduce kernel=mySoftmax_v1 algorithm=safe geometry=block-per-row threads=256 args=out,in,rows,cols
#define INFINITY __int_as_float(0x7f800000)

constexpr int kWarpSize = 32;
__device__ float block_reduce_sum(float val){
    unsigned int tid = threadIdx.x;
    int lane = tid % kWarpSize;
    int warpId = tid / kWarpSize;
    val += __shfl_down_sync(0xffffffff, val, 16);
    val += __shfl_down_sync(0xffffffff, val, 8);
    val += __shfl_down_sync(0xffffffff, val, 4);
    val += __shfl_down_sync(0xffffffff, val, 2);
    val += __shfl_down_sync(0xffffffff, val, 1);

    __shared__ float warpSum[32];
    if(lane == 0){
        warpSum[warpId] = val;
    }
    __syncthreads();
    if(warpId == 0){
        val = (tid < blockDim.x / kWarpSize) ? warpSum[tid] : 0.0f;
        val += __shfl_down_sync(0xffffffff, val, 16);
        val += __shfl_down_sync(0xffffffff, val, 8);
        val += __shfl_down_sync(0xffffffff, val, 4);
        val += __shfl_down_sync(0xffffffff, val, 2);
        val += __shfl_down_sync(0xffffffff, val, 1);
    }
    return val;
}

__device__ float block_reduce_max(float val){
    unsigned int tid = threadIdx.x;
    int lane = tid % kWarpSize;
    int warpId = tid / kWarpSize;
    val = fmaxf(val,  __shfl_down_sync(0xffffffff, val, 16));
    val = fmaxf(val,  __shfl_down_sync(0xffffffff, val, 8));
    val = fmaxf(val,  __shfl_down_sync(0xffffffff, val, 4));
    val = fmaxf(val,  __shfl_down_sync(0xffffffff, val, 2));
    val = fmaxf(val,  __shfl_down_sync(0xffffffff, val, 1));

    __shared__ float warpMax[32];
    if(lane == 0){
        warpMax[warpId] = val;
    }
    __syncthreads();
    if(warpId == 0){
        val = (tid < blockDim.x / kWarpSize) ? warpMax[tid] : -INFINITY;
        val = fmaxf(val,  __shfl_down_sync(0xffffffff, val, 16));
        val = fmaxf(val,  __shfl_down_sync(0xffffffff, val, 8));
        val = fmaxf(val,  __shfl_down_sync(0xffffffff, val, 4));
        val = fmaxf(val,  __shfl_down_sync(0xffffffff, val, 2));
        val = fmaxf(val,  __shfl_down_sync(0xffffffff, val, 1));
    }
    return val;
}

__device__ float reduce_max(const float *in_row, int C){
    unsigned tid = threadIdx.x;
    float max = -INFINITY;
    for(int i = tid; i < C; i += blockDim.x){
        max = fmaxf(max, in_row[i]);
    }
    max = block_reduce_max(max);
    return max;
}

__device__ float reduce_sum(const float *in_row, int C, float max){
    unsigned tid = threadIdx.x;
    float sum = 0.0f;
    for(int i = tid; i < C; i += blockDim.x){
        sum += expf(in_row[i] - max);
    }
    sum = block_reduce_sum(sum);
    return sum;
}

extern "C" __global__ void mySoftmax_v1(float* out, const float* in, int N, int C){
    unsigned int tid = threadIdx.x;
    const float *in_row = in + blockIdx.x * C;
    float *out_row = out + blockIdx.x * C;
    float max = reduce_max(in_row, C);
    __shared__ float s_max;
    if (threadIdx.x == 0) s_max = max;
    __syncthreads();
    max = s_max;

    float sum = reduce_sum(in_row, C, max);
    __shared__ float s_sum;
    if(threadIdx.x == 0) s_sum = sum;
    __syncthreads();
    sum = s_sum;

    for(int i = tid; i < C; i += blockDim.x){
        out_row[i] = expf(in_row[i] - max) / sum;
    }
}
