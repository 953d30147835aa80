"""When a kernel's loads are in flight together, read from its SASS without a GPU
(``tools/sass-scoreboards``).

From sm_70 on, each instruction's encoding carries its scheduling: bits 41-63 of its second 64-bit
half hold the stall count (4 bits), the yield flag (1), the scoreboard its result sets when it
lands (3: a variable-latency instruction, a load; 7 for none), the one its operands' read sets
(3), the scoreboards it waits on before it issues (a 6-bit mask) and the operand reuse flags (4).
A load whose scoreboard is waited on before the next load issues costs a round trip to memory of
its own; loads issued before any wait on them travel together.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

NONE = 7  # a scoreboard field that names none

# an instruction's line as :func:`.sass.functions` keeps it, and the line with its second half
_LINE = re.compile(r"/\*([0-9a-f]+)\*/ (.*?) ; /\* 0x[0-9a-f]{16} \*/")
_SECOND = re.compile(r"/\* (0x[0-9a-f]{16}) \*/$")
_BRANCH = re.compile(r"\bBRA (?:!?U?P\w+, )?(0x[0-9a-f]+)$")
MEMORY = ("LDG", "STG", "LDS", "STS", "LDSM", "LD.", "ST.", "ATOM", "RED", "LDGSTS", "UBLKCP", "SYNCS")


@dataclass(frozen=True)
class Slot:
    """One instruction and its scheduling."""

    offset: int
    text: str
    stall: int
    sets: int | None  # the scoreboard its result sets, None for a fixed-latency instruction
    reads: int | None  # the scoreboard its operands' read sets (a store's, say)
    waits: frozenset[int]  # the scoreboards it waits on before it issues


def control(second: int) -> tuple[int, int | None, int | None, frozenset[int]]:
    """(stall, sets, reads, waits) of an instruction whose encoding's second half is ``second``."""
    bits = second >> 41
    write, read = (bits >> 5) & 7, (bits >> 8) & 7
    return (bits & 0xF, None if write == NONE else write, None if read == NONE else read,
            frozenset(b for b in range(6) if bits >> (11 + b) & 1))


def schedule(body: str) -> list[Slot]:
    """The instructions of a kernel's listing (:func:`.sass.functions`' text of one kernel) with
    their scheduling."""
    lines, slots = body.splitlines(), []
    for line, below in zip(lines, lines[1:], strict=False):
        first, second = _LINE.match(line), _SECOND.search(below)
        if first and second and not _LINE.match(below):
            slots.append(Slot(int(first.group(1), 16), first.group(2), *control(int(second.group(1), 16))))
    return slots


def is_memory(text: str) -> bool:
    """Whether the instruction (its text, a predicate first perhaps) moves memory."""
    words = text.split()
    op = words[1] if words and words[0].startswith("@") and len(words) > 1 else (words[0] if words else "")
    return op.startswith(MEMORY)


def waited(slots: list[Slot]) -> dict[int, int | None]:
    """offset of each instruction that sets a scoreboard -> the offset of the nearest instruction
    after it, on any path, that waits on that scoreboard (None where none does before the kernel
    exits). A scoreboard counts its instructions in flight, so others setting it do not end the
    search; a branch is followed both ways where it has a predicate, its way only where not."""
    at = {slot.offset: i for i, slot in enumerate(slots)}

    def after(j: int) -> list[int]:
        text = slots[j].text
        jump = _BRANCH.search(text)
        if text.startswith("EXIT"):
            return []
        if jump:
            target = at.get(int(jump.group(1), 16))
            ways = [] if target is None else [target]
            return ways + [j + 1] if text.startswith("@") else ways
        return [j + 1]

    found = {}
    for i, slot in enumerate(slots):
        if slot.sets is None:
            continue
        found[slot.offset], queue, seen = None, deque(after(i)), set()
        while queue:
            j = queue.popleft()
            if j >= len(slots) or j in seen:
                continue
            seen.add(j)
            if slot.sets in slots[j].waits:
                found[slot.offset] = slots[j].offset
                break
            queue.extend(after(j))
    return found
