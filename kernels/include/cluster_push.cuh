// A row's (max, sum), or a float sum, over a thread-block cluster (sm_90) with no cluster-wide
// barrier between the blocks' folds and their stores: every warp pushes its value into a mailbox
// in every block's shared memory (st.async, whose bytes count down the receiving block's
// mbarrier), and a block waits only until the bytes it is owed have landed. The one cluster barrier (arrive at the start,
// wait before the first push) only orders the mbarriers' initialisation before any push, and its
// arrive and wait lie on either side of the loads, so its latency hides under them. The barrier-
// based exchange (online_onepass_cluster.cu) waits on every block twice and reads the others'
// states one remote load after another.
#pragma once

#include "include/cluster.cuh"

namespace sh {

#if __CUDA_ARCH__ >= 900
// v into the shared memory at `there` of another block of the cluster, its bytes counted on that
// block's mbarrier at `bar` (both as mapa gives them).
__device__ __forceinline__ void push_to(unsigned there, unsigned bar, float v) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
                 :
                 : "r"(there), "r"(__float_as_uint(v)), "r"(bar)
                 : "memory");
}
__device__ __forceinline__ void push_to(unsigned there, unsigned bar, MaxSum v) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];"
                 :
                 : "r"(there), "f"(v.m), "f"(v.d), "r"(bar)
                 : "memory");
}

// SLOTS values of type V (CLUSTER blocks x their warps: an online-softmax state, or a float),
// each written once by its warp's pushes.
template <int SLOTS, class V = MaxSum>
struct ClusterMailbox {
    alignas(8) V slot[SLOTS];
    alignas(8) unsigned long long bar;

    __device__ __forceinline__ unsigned bar_addr() const {
        return static_cast<unsigned>(__cvta_generic_to_shared(&bar));
    }

    // Before anything else: the mbarrier initialised for one arrival (thread 0's, with the bytes
    // owed) and made visible to the cluster, then this block's arrival on the cluster barrier.
    __device__ __forceinline__ void open() {
        if (threadIdx.x == 0) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" : : "r"(bar_addr()) : "memory");
            asm volatile("fence.mbarrier_init.release.cluster;" : : : "memory");
        }
        asm volatile("barrier.cluster.arrive.relaxed.aligned;" : : : "memory");
    }

    // This warp's value into slot `at` of every block of the cluster; then the values of the
    // whole cluster, combined by `op` in slot order by every warp alike (the same value in every
    // block, bitwise: op is commutative, and each lane's chain and the butterfly run alike).
    template <int CLUSTER, class Op = FastMerge>
    __device__ __forceinline__ V exchange(V warp_value, int at, Op op = Op()) {
        const int lane = threadIdx.x & 31;
        // Every mailbox initialised; and this block's initialisation ordered before its own use
        // of the mbarrier below (the cluster barrier orders every thread of the block too).
        asm volatile("barrier.cluster.wait.aligned;" : : : "memory");
        // A peer's bytes may land before the count is armed: the count goes below zero for a
        // while, and the phase cannot complete before this arrival.
        if (threadIdx.x == 0)
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                         :
                         : "r"(bar_addr()), "r"(static_cast<unsigned>(SLOTS * sizeof(V)))
                         : "memory");
        if (lane < CLUSTER) {
            const unsigned here = static_cast<unsigned>(__cvta_generic_to_shared(&slot[at]));
            unsigned there, their_bar;
            asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(there) : "r"(here), "r"(lane));
            asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(their_bar) : "r"(bar_addr()), "r"(lane));
            push_to(there, their_bar, warp_value);
        }
        unsigned done = 0;
        while (!done)
            asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
                         "selp.u32 %0, 1, 0, p;\n\t}"
                         : "=r"(done)
                         : "r"(bar_addr())
                         : "memory");
        V s = Op::identity();
#pragma unroll
        for (int i = lane; i < SLOTS; i += 32) s = op(s, slot[i]);
        return warp_reduce(op, s);
    }
};
#endif

}  // namespace sh
