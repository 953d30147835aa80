// The fused forward (bias, bool mask, causal) for rows past the clusters, on the forward's
// split-row kernel (include/scaled_split.cuh): a row over a group of co-resident blocks of a
// persistent grid, each block's slice of x in registers and a shared-memory stash (read once;
// the bias or the mask's bytes beside it), the group meeting once a row on a (max, sum) pair.
// The split_row kernels of these forms meet twice and hold 8188 (16-bit: 16376) elements a block
// at two blocks a multiprocessor: 0.34-0.51 of a copy at 2^20 (run 0028), where log_softmax on
// this machinery reaches 0.91-0.93 (run 0027). A second input takes room: the bias form holds
// 20 elements a thread in registers and 20 in the stash in fp32 (24 spilled), 16 and 40 in 16
// bits (32 and more, held as 16-bit words, spilled 120 bytes and more on sm_90); the mask form's
// stash is smaller than the causal form's by its bytes, and its registers hold 12 (fp32) and 32
// (16 bits) elements: the tile's mask words, loaded together, spill 4-40 bytes at 16-28 and 40-48
// (sm_90), erratically; with them fp32 rows reach 0.80-0.91 of a copy against 0.69-0.72
// (reports/measurements/online_split_mask_and_crossovers.jsonl).
// Two blocks a multiprocessor, 48 16-bit elements a thread in registers (128 registers, no
// spills), ran the bias and mask forms at 0.55-0.77 of a copy against four blocks' 0.77-0.89
// (reports/measurements/fused_split_b2.json, H100).
// @variant name=scaled_bias_online_split op=scaled_softmax_bias kernel=scaled_bias_online_split algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=10208 max_cols=1048576 fast_math=true exp=shifted
// @variant name=scaled_bias_online_split_f16 op=scaled_softmax_bias kernel=scaled_bias_online_split_f16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=14272 max_cols=1048576 dtypes=float16 fast_math=true exp=folded
// @variant name=scaled_bias_online_split_bf16 op=scaled_softmax_bias kernel=scaled_bias_online_split_bf16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=14272 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=scaled_mask_online_split op=scaled_softmax_mask kernel=scaled_mask_online_split algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=12256 max_cols=1048576 fast_math=true exp=shifted
// @variant name=scaled_mask_online_split_f16 op=scaled_softmax_mask kernel=scaled_mask_online_split_f16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=22464 max_cols=1048576 dtypes=float16 fast_math=true exp=folded
// @variant name=scaled_mask_online_split_bf16 op=scaled_softmax_mask kernel=scaled_mask_online_split_bf16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=22464 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=scaled_causal_online_split op=scaled_softmax_causal kernel=scaled_causal_online_split algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=19424 max_cols=1048576 fast_math=true exp=shifted
// @variant name=scaled_causal_online_split_f16 op=scaled_softmax_causal kernel=scaled_causal_online_split_f16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=34752 max_cols=1048576 dtypes=float16 fast_math=true exp=folded
// @variant name=scaled_causal_online_split_bf16 op=scaled_softmax_causal kernel=scaled_causal_online_split_bf16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=34752 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// The 16-bit bias form's on blocks of 512 threads, two a multiprocessor (the same threads and
// registers a multiprocessor as four of 256; both stashes dynamic, 96 KB a block): each block's
// slice twice as long, so that a row meets over half the blocks, 8 elements a thread in registers
// and 48 in the stashes. On an H100, bf16, each length in one call
// (reports/measurements/split_blocks_regs_h100.jsonl): 0.875-0.984 of a copy at a misaligned
// 65535, 81920, 100000, 150000, 200001, 524288 and 2^20 against 0.798-0.963 with 16 in registers
// and 40 in the stashes (80 KB) and 0.862-0.958 with 8 and 40; 16 + 40 had led the 256-thread
// kernel at 81920-200001 and 2^20 (0.795-0.967 against 0.766-0.903) but trailed it at 36000 and
// 524288 (split_blocks_h100.jsonl), 8 + 48 leads or is level with it at every length from 32769
// to 2^20 (bf16 0.784-0.979 against 0.758-0.962: split_blocks_map_h100.jsonl). One 1024-thread
// block a multiprocessor ran behind nearly everywhere. The mask form's likewise, with 8 elements a thread in
// registers (16-56 spilled 12-24 bytes on sm_90 and ran 0.67-0.78 against 0.82-0.88) and the rest
// of a 40896-element slice in the stash beside its mask bytes (108 KB a block): on an H100, each
// length in one call (reports/measurements/split_blocks_ops_h100.jsonl), bf16 0.905-0.992 of a
// copy against 0.818-0.884 at 20000, 40000, 100000, 150000, 200001, 524288 and 2^20, 0.843
// against 0.820 at a misaligned 65535 (fp16 0.850 and 0.911 against 0.820 and 0.832 at 65535
// and 2^20). log_softmax's backward on the same blocks ran level or behind (0.875-0.994 against
// 0.892-1.000): not kept.
// The bias form's with 56 in each stash (112 KB a block, two blocks in a multiprocessor's 228 KB)
// and 8 or 16 elements a thread in registers (_s56: 32704 a block, _e16s56: 36800): a row meets
// over fewer blocks (2^20: 33, every block of 132 multiprocessors busy at 8 rows at once, where
// 8 + 48 takes 37 at 7; 32769-36800: one block with 16 in registers). On an H100, bf16, each
// length in one call (reports/measurements/bias_s56_h100.jsonl): _s56 0.892 of a copy at 2^20
// against 0.865, 0.943 / 0.963 / 0.952 / 0.987 at 524288 / 300000 / 150001 / 80000 against
// 0.921 / 0.950 / 0.883 / 0.978, level at 55001-72702, 98303 and 200001, behind at 45001
// (0.910 against 0.917); _e16s56 0.983 at 36001 against 0.826, 0.956 / 0.982 at the misaligned
// 69631 / 72702 against 0.918 / 0.947, behind at 45001, 55001, 65535 and from 80000 (0.83-0.94).
// @variant name=scaled_bias_online_split_f16_b512 op=scaled_softmax_bias kernel=scaled_bias_online_split_f16_b512 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=28608 smem=98304 max_cols=1048576 dtypes=float16 fast_math=true exp=folded
// @variant name=scaled_bias_online_split_bf16_b512 op=scaled_softmax_bias kernel=scaled_bias_online_split_bf16_b512 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=28608 smem=98304 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=scaled_bias_online_split_f16_s56 op=scaled_softmax_bias kernel=scaled_bias_online_split_f16_s56 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=32704 smem=114688 max_cols=1048576 dtypes=float16 fast_math=true exp=folded
// @variant name=scaled_bias_online_split_f16_e16s56 op=scaled_softmax_bias kernel=scaled_bias_online_split_f16_e16s56 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=36800 smem=114688 max_cols=1048576 dtypes=float16 fast_math=true exp=folded
// @variant name=scaled_bias_online_split_bf16_s56 op=scaled_softmax_bias kernel=scaled_bias_online_split_bf16_s56 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=32704 smem=114688 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=scaled_bias_online_split_bf16_e16s56 op=scaled_softmax_bias kernel=scaled_bias_online_split_bf16_e16s56 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=36800 smem=114688 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=scaled_mask_online_split_f16_b512 op=scaled_softmax_mask kernel=scaled_mask_online_split_f16_b512 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=40896 smem=110592 max_cols=1048576 dtypes=float16 fast_math=true exp=folded
// @variant name=scaled_mask_online_split_bf16_b512 op=scaled_softmax_mask kernel=scaled_mask_online_split_bf16_b512 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=40896 smem=110592 max_cols=1048576 dtypes=bfloat16 fast_math=true exp=folded
#include "softmax.cuh"
#include "include/scaled_split.cuh"

SCALED_ONLINE_SPLIT_bias(scaled_bias_online_split, float, 256, 4, 20, 20)
SCALED_ONLINE_SPLIT_bias(scaled_bias_online_split_f16, sh::half_t, 256, 4, 16, 40)
SCALED_ONLINE_SPLIT_bias(scaled_bias_online_split_bf16, sh::bf16_t, 256, 4, 16, 40)
SCALED_ONLINE_SPLIT_mask(scaled_mask_online_split, float, 256, 4, 12, 36)
SCALED_ONLINE_SPLIT_mask(scaled_mask_online_split_f16, sh::half_t, 256, 4, 32, 56)
SCALED_ONLINE_SPLIT_mask(scaled_mask_online_split_bf16, sh::bf16_t, 256, 4, 32, 56)
SCALED_ONLINE_SPLIT_causal(scaled_causal_online_split, float, 256, 4, 32, 44)
SCALED_ONLINE_SPLIT_causal(scaled_causal_online_split_f16, sh::half_t, 256, 4, 48, 88)
SCALED_ONLINE_SPLIT_causal(scaled_causal_online_split_bf16, sh::bf16_t, 256, 4, 48, 88)
SCALED_ONLINE_SPLIT_bias_DYNAMIC(scaled_bias_online_split_f16_b512, sh::half_t, 512, 2, 8, 48)
SCALED_ONLINE_SPLIT_bias_DYNAMIC(scaled_bias_online_split_bf16_b512, sh::bf16_t, 512, 2, 8, 48)
SCALED_ONLINE_SPLIT_bias_DYNAMIC(scaled_bias_online_split_f16_s56, sh::half_t, 512, 2, 8, 56)
SCALED_ONLINE_SPLIT_bias_DYNAMIC(scaled_bias_online_split_f16_e16s56, sh::half_t, 512, 2, 16, 56)
SCALED_ONLINE_SPLIT_bias_DYNAMIC(scaled_bias_online_split_bf16_s56, sh::bf16_t, 512, 2, 8, 56)
SCALED_ONLINE_SPLIT_bias_DYNAMIC(scaled_bias_online_split_bf16_e16s56, sh::bf16_t, 512, 2, 16, 56)
SCALED_ONLINE_SPLIT_mask_DYNAMIC(scaled_mask_online_split_f16_b512, sh::half_t, 512, 2, 8, 72)
SCALED_ONLINE_SPLIT_mask_DYNAMIC(scaled_mask_online_split_bf16_b512, sh::bf16_t, 512, 2, 8, 72)
