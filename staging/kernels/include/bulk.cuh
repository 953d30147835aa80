// Bulk copies from global into shared memory by the copy engine (cp.async.bulk, sm_90), counted
// on an mbarrier: one thread issues them, and every thread that reads what they bring waits on
// the barrier's phase. They take no registers, so a block can hold part of its slice of a row in
// shared memory beside the part its threads hold in registers.
#pragma once

namespace sh {

#if __CUDA_ARCH__ >= 900
struct BulkLanding {
    alignas(8) unsigned long long bar;

    __device__ __forceinline__ unsigned bar_addr() const {
        return static_cast<unsigned>(__cvta_generic_to_shared(&bar));
    }
    // By one thread, before a fence.mbarrier_init and a barrier that the waiting threads pass.
    __device__ __forceinline__ void init() {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" : : "r"(bar_addr()) : "memory");
    }
    // By the thread that called init, after the fence: `bytes` (a multiple of 16, from and to
    // 16-byte aligned addresses) from `from` into `to`, in pieces of at most PIECE bytes so that
    // the copy engine takes them in parallel; the phase completes once all have landed.
    template <int PIECE = 16384>
    __device__ __forceinline__ void copy(void* to, const void* from, unsigned bytes) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" : : "r"(bar_addr()), "r"(bytes) : "memory");
        const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(to));
        for (unsigned at = 0; at < bytes; at += PIECE) {
            const unsigned n = bytes - at < PIECE ? bytes - at : PIECE;
            asm volatile(
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                :
                : "r"(dst + at), "l"(static_cast<const char*>(from) + at), "r"(n), "r"(bar_addr())
                : "memory");
        }
    }
    // Until the first phase has completed (everything copy() issued has landed).
    __device__ __forceinline__ void wait() const {
        unsigned done = 0;
        while (!done)
            asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
                         "selp.u32 %0, 1, 0, p;\n\t}"
                         : "=r"(done)
                         : "r"(bar_addr())
                         : "memory");
    }
};
#endif

}  // namespace sh
