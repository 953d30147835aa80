"""How many blocks of a kernel one multiprocessor holds for its registers: what the offline compile
reports beside a kernel's registers and spills (``softmax-harness check`` without a GPU,
``tools/registers``). Kept apart from :mod:`.compiler`, which is on every variant's launch path
(:data:`.run.carry.LAUNCH_PATH`)."""

from __future__ import annotations

#: A multiprocessor's register file (in four quarters, a warp's registers in one), threads and
#: blocks, sm_80 and sm_90 alike.
SM_REGISTERS, SM_THREADS, SM_BLOCKS = 65536, 2048, 32


def blocks_per_sm(threads: int, registers: int) -> int:
    """How many blocks of ``threads`` one multiprocessor holds at ``registers`` a thread, as the
    registers (a warp's allocated 256 at a time), the threads and the blocks allow; shared memory
    apart. A register tile's bytes in flight, and what overlaps one block's reductions, grow with it."""
    warps = -(-threads // 32)
    per_warp = -(-registers * 32 // 256) * 256
    by_registers = 4 * (SM_REGISTERS // 4 // per_warp) // warps if per_warp else SM_BLOCKS
    return min(by_registers, SM_THREADS // (32 * warps), SM_BLOCKS)
