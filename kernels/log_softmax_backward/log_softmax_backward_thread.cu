// log_softmax backward, one thread a row: the sum of dy in one sequential chain, then
// dy - exp(z) * s. The bottom rung of the ladder (uncoalesced: neighbouring threads read rows C
// apart).
//
// @variant name=log_softmax_backward_thread op=log_softmax_backward kernel=log_softmax_backward_thread algorithm=safe geometry=thread-per-row threads=128
#include "softmax.cuh"
#include "include/backward.cuh"

GRAD_THREAD(log_softmax_backward_thread, sh::LogSoftmaxGrad, float)
