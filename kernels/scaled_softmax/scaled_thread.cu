// The fused forward, one thread a row: the three passes over the row in one thread, each sum one
// sequential chain. The bottom rung of the ladder (uncoalesced: neighbouring threads read rows C
// apart).
//
// @variant name=scaled_bias_thread op=scaled_softmax_bias kernel=scaled_bias_thread algorithm=safe geometry=thread-per-row threads=128
// @variant name=scaled_mask_thread op=scaled_softmax_mask kernel=scaled_mask_thread algorithm=safe geometry=thread-per-row threads=128
// @variant name=scaled_causal_thread op=scaled_softmax_causal kernel=scaled_causal_thread algorithm=safe geometry=thread-per-row threads=128
#include "softmax.cuh"
#include "include/scaled.cuh"

SCALED_THREAD(scaled_bias_thread, bias, float)
SCALED_THREAD(scaled_mask_thread, mask, float)
SCALED_THREAD(scaled_causal_thread, causal, float)
