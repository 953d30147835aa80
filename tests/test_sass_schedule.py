"""``tools/sass-scoreboards``' reading of SASS scheduling (softmax_harness/run/schedule.py): which
scoreboard a load sets and where it is first waited on, from crafted listings and, where this
machine can compile offline, from kernels compiled for sm_90."""

from __future__ import annotations

import pytest

from softmax_harness.run import schedule


def _second(stall=1, sets=None, reads=None, waits=()):
    """The second half of an encoding with these scheduling fields (the rest 0)."""
    bits = stall | (7 if sets is None else sets) << 5 | (7 if reads is None else reads) << 8
    bits |= sum(1 << (11 + b) for b in waits)
    return bits << 41


def _listing(*rows):
    """A kernel's text as sass.functions keeps it: each instruction's line, then its second half."""
    lines = []
    for offset, text, second in rows:
        lines.append(f"/*{offset:04x}*/ {text} ; /* 0x{0:016x} */")
        lines.append(f"/* 0x{second:016x} */")
    return "\n".join(lines)


def test_the_control_bits_of_known_encodings():
    assert schedule.control(0x000FE20000000800) == (1, None, None, frozenset())  # LDC R1, c[0x0][0x28]
    assert schedule.control(_second(stall=2, sets=5, waits=(0, 3))) == (2, 5, None, frozenset({0, 3}))
    assert schedule.control(_second(reads=1)) == (1, None, 1, frozenset())


def test_a_load_is_charged_with_the_nearest_wait_on_any_path_not_one_a_branch_skips():
    body = _listing(
        (0x00, "LDG.E.128 R4, desc[UR6][R2.64]", _second(sets=5)),
        (0x10, "@P0 BRA 0x50", _second()),
        (0x20, "LDG.E.64 R8, desc[UR6][R2.64+0x10]", _second(sets=5)),
        (0x30, "BRA 0x60", _second()),  # skips the wait at 0x40
        (0x40, "FADD R1, R4, R5", _second(waits=(5,))),
        (0x50, "IADD3 R1, R1, 0x1, RZ", _second()),
        (0x60, "FMUL R2, R4, R8", _second(waits=(5,))),
        (0x70, "EXIT", _second()),
    )
    slots = schedule.schedule(body)
    assert [s.offset for s in slots] == [0x00, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70]
    first = schedule.waited(slots)
    assert first[0x20] == 0x60  # the branch at 0x30 jumps past 0x40
    assert first[0x00] == 0x60  # taken at 0x10: 0x50, 0x60; not taken: 0x20, 0x30, 0x60
    assert schedule.is_memory("@!P1 LDG.E.128 R28, desc[UR6][R8.64]")
    assert not schedule.is_memory("FADD R1, R2, R3")


def test_compiled_loads_of_independent_addresses_travel_together_and_a_dependent_one_waits(tmp_path,
                                                                                           disassembly):
    from softmax_harness import compiler
    from softmax_harness.run import sass

    source = tmp_path / "loads.cu"
    source.write_text(
        'extern "C" __global__ void together(const float* a, const float* b, float* y) {\n'
        "    int i = threadIdx.x; y[i] = a[i] * b[i]; }\n"
        'extern "C" __global__ void chained(const int* at, const float* a, float* y) {\n'
        "    int i = threadIdx.x; y[i] = a[at[i]]; }\n")
    kernels = sass.functions(sass.disassemble(compiler.compile_offline(source)["cubin"]))
    for name, chained in (("together", False), ("chained", True)):
        slots = schedule.schedule(kernels[name])
        loads = [s for s in slots if "LDG" in s.text]
        assert len(loads) == 2 and all(s.sets is not None for s in loads)
        first = schedule.waited(slots)
        waited_before_second = first[loads[0].offset] is not None and first[loads[0].offset] < loads[1].offset
        assert waited_before_second == chained, (name, [(hex(s.offset), s.text) for s in slots])


@pytest.mark.parametrize("text", ["BRA 0x60", "@!P2 BRA 0x21a0", "@P0 BRA !P1, 0x600"])
def test_branches_are_read_with_their_targets(text):
    assert schedule._BRANCH.search(text)
