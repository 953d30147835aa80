// Softmax backward, one thread a row: the dot product in one sequential chain, then the scale.
// The bottom rung of the ladder (uncoalesced: neighbouring threads read rows C apart).
//
// @variant name=backward_thread op=softmax_backward kernel=backward_thread algorithm=safe geometry=thread-per-row threads=128
#include "softmax.cuh"
#include "include/backward.cuh"

GRAD_THREAD(backward_thread, sh::SoftmaxGrad, float)
