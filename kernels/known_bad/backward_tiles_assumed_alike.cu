// KNOWN BAD: the softmax backward's register tile taking y's and dy's rows as misaligned alike:
// each tile lines its vectors up by its own row's shift, so where dy starts unlike y, tile
// position p holds y's element p - s_y beside dy's element p - s_dy, and dx pairs the wrong
// elements. Right whenever the two rows start alike, as they do when both come from one
// allocator at one offset; the harness's inputs misaligned unlike each other (skew) show it.
//
// @variant name=bad_backward_tiles_assumed_alike op=softmax_backward kernel=bad_backward_tiles_assumed_alike algorithm=safe geometry=block-per-row threads=128 max_cols=1024 vector=4 catches=matches_reference defect="y's and dy's rows taken as misaligned alike"
#include "softmax.cuh"
#include "include/backward.cuh"
#include "include/tile_sum.cuh"

extern "C" __global__ void __launch_bounds__(128) bad_backward_tiles_assumed_alike(
    const float* __restrict__ y, const float* __restrict__ dy, float* __restrict__ dx, int n_rows, int n_cols) {
    const sh::RowSlot<128> slot(n_rows);
    const size_t row = slot.live ? slot.row : 0;
    const int n = slot.live ? n_cols : 0, lane = slot.lane;
    sh::RowTile<float, 128, 8> ta, tb;
    ta.load(sh::row_of(y, row, n_cols), n, lane);  // the defect: no check that the shifts agree
    tb.load(sh::row_of(dy, row, n_cols), n, lane);
    const float s = slot.reduce(sh::Sum(), sh::tile_sum(ta, n, lane, [&](int i) {
        return sh::SoftmaxGrad::add(0.0f, ta.get(i), tb.get(i)); }));
    if (slot.live)
        ta.write(sh::row_of(dx, row, n_cols), n, lane, [&](int i) { return sh::SoftmaxGrad::out(ta.get(i), tb.get(i), s); });
}
