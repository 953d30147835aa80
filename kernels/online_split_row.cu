// One-pass softmax for rows longer than a block can hold: a row is split over a
// group of PARTS co-resident blocks (at least ceil(C / tile)), each holding its slice on
// the chip, so every input element is read once and written once.
// Each block folds its slice into a (max, sum) state and publishes it in global
// memory; the group meets (an arrival counter per group), every block merges the PARTS
// states and writes its slice from the chip. The grid is
// persistent (blocks_per_sm per multiprocessor, launched cooperatively so that all
// blocks are resident and the barrier cannot deadlock). Group g starts on row g and then
// takes the next row from a shared ticket counter, so a group on faster multiprocessors does
// more rows instead of idling at the end (rows in a fixed turn measured slower even where a row
// is one block's: reports/measurements/split_dynamic_ab.json); groups, being independent,
// overlap one group's loads with another's barrier and stores.
// Unlike the cluster kernel it needs no sm_90 and no distributed shared memory.
//
// The fifth argument is a workspace of 7 * gridDim.x + 2 zeroed 32-bit words: two rounds of
// gridDim.x 64-bit states, two rounds of gridDim.x next rows (one a group), gridDim.x arrival
// counters (one a group), the ticket counter and an exit counter. The last block out zeroes it
// again, so the harness keeps one a stream instead of zeroing a new one before each launch
// (1-5 us a launch: reports/measurements/split_workspace_ab.json). The sixth
// is PARTS, which divides gridDim.x; the harness picks it (split_plan) so that every resident
// block holds part of a row, and no slice exceeds the tile.
//
// Each block holds E elements a thread in registers and S more in shared memory (copied in
// with cp.async beside the registers' loads), so that more rows fit on the chip. A slice
// fills the registers' tile shifted to the start of its first 128-byte line (a slice of a row
// of odd length starts anywhere) and the stash from the next line, so both move in vectors
// over whole lines; the tile, THREADS * (E + S) less a line, leaves room for that shift. The
// registers-only version measured slower at every C from 65536 to 2^21 in all three types
// (reports/measurements/split_vs_smem.json, stash_vector_loads.json).
// @variant name=split_row_smem_f32 kernel=split_row_smem_f32 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=19424 max_cols=2097152 fast_math=true exp=shifted
// @variant name=split_row_smem_f16 kernel=split_row_smem_f16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=34752 max_cols=2097152 dtypes=float16 fast_math=true exp=folded
// @variant name=split_row_smem_bf16 kernel=split_row_smem_bf16 algorithm=online geometry=split-row threads=256 blocks_per_sm=4 tile=34752 max_cols=2097152 dtypes=bfloat16 fast_math=true exp=folded
// @variant name=split_row_smem_f16_b512 kernel=split_row_smem_f16_b512 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=69568 smem=90112 max_cols=2097152 dtypes=float16 fast_math=true exp=folded
// @variant name=split_row_smem_bf16_b512 kernel=split_row_smem_bf16_b512 algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=69568 smem=90112 max_cols=2097152 dtypes=bfloat16 fast_math=true exp=folded
#include "softmax.cuh"
#include "include/split_row.cuh"

// 176 bytes of shared memory per thread: 44 KB per block, 4 blocks in 176 of an SM's 228 KB.
SPLIT_KERNEL(split_row_smem_f32, float, 256, 4, 32, 44, false)
SPLIT_KERNEL(split_row_smem_f16, sh::half_t, 256, 4, 48, 88, false)
SPLIT_KERNEL(split_row_smem_bf16, sh::bf16_t, 256, 4, 48, 88, false)
// 16-bit rows up to 69568 in one block of 512 threads (88 KB of stash, 2 blocks an SM): no
// meeting; faster than two 256-thread blocks a row in 19 of 20 timings at C = 34000-65535, 0.87-0.95
// of copy against 0.81-0.91, the exception 0.78 against 0.81 (reports/measurements/short_rows_ab.json,
// split_threads_ab.json).
SPLIT_KERNEL_DYNAMIC(split_row_smem_f16_b512, sh::half_t, 512, 2, 48, 88, false)
SPLIT_KERNEL_DYNAMIC(split_row_smem_bf16_b512, sh::bf16_t, 512, 2, 48, 88, false)
