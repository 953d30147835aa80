"""What a compiled kernel takes, against what its header says the harness passes it.

A launch hands the driver a pointer to each argument, and the driver copies as many bytes from
each as the kernel's parameter is wide: a kernel whose header says ``rows`` where it takes an
``int64_t`` (or a ``double`` scale, or one parameter more than ``args=`` names) reads past what
it was given, and runs on garbage or faults. The widths are in the cubin: each kernel's
``.nv.info.<kernel>`` ELF section holds a KPARAM_INFO record for each parameter (its ordinal, its
offset and, in bits 18-31 of its last word, its size in bytes). Read offline, from NVRTC's cubin,
so that ``softmax-harness check`` names the mismatch in one line before anything is launched.
"""

from __future__ import annotations

import struct

from . import ops
from .ops.base import SCALAR_ROLES
from .registry import VariantSpec

_KPARAM_INFO = 0x17
_SIZED = 0x04  # EIFMT_SVAL: a 16-bit size, then that many bytes; every other format is 4 bytes


def param_sizes(cubin: bytes, kernel: str) -> tuple[int, ...] | None:
    """The sizes in bytes of ``kernel``'s parameters, in order, from a cubin (an ELF64 file);
    None where the cubin has no section for it."""
    section = _section(cubin, f".nv.info.{kernel}")
    if section is None:
        return None
    sizes, at = {}, 0
    while at + 4 <= len(section):
        fmt, attr = section[at], section[at + 1]
        if fmt != _SIZED:
            at += 4
            continue
        (size,) = struct.unpack_from("<H", section, at + 2)
        if attr == _KPARAM_INFO and size >= 12:
            _, ordinal, _, word = struct.unpack_from("<IHHI", section, at + 4)
            sizes[ordinal] = (word >> 18) & 0x3FFF
        at += 4 + size
    return tuple(sizes[k] for k in sorted(sizes))


def _section(elf: bytes, name: str) -> bytes | None:
    (table,) = struct.unpack_from("<Q", elf, 0x28)
    entry, count, names = struct.unpack_from("<HHH", elf, 0x3A)

    def header(k):  # (name offset, file offset, size)
        fields = struct.unpack_from("<IIQQQQ", elf, table + k * entry)
        return fields[0], fields[4], fields[5]

    strings = header(names)[1]
    wanted = name.encode() + b"\0"
    for k in range(count):
        at, offset, size = header(k)
        if elf[strings + at:strings + at + len(wanted)] == wanted:
            return elf[offset:offset + size]
    return None


def passed_sizes(spec: VariantSpec) -> tuple[int, ...]:
    """The sizes of what a launch passes a variant, in ``args=`` order: 8 for an array's address,
    4 for a scale (float) and for the sizes (int); a split-row kernel's workspace address and
    its blocks a row after them."""
    arrays = {*ops.of(spec.op).inputs, "out"} - set(SCALAR_ROLES)
    sizes = [8 if role in arrays else 4 for role in spec.args]
    if spec.geometry == "split-row":
        sizes += [8, 4]
    return tuple(sizes)


def mismatch(spec: VariantSpec, cubin: bytes) -> str | None:
    """One line naming how ``spec``'s kernel in ``cubin`` takes other parameters than its header
    passes it; None where they agree, or where a launcher of the user's own passes them."""
    if spec.launcher is not None:
        return None
    found = param_sizes(cubin, spec.kernel)
    if found is None:
        return f"kernel {spec.kernel!r} is not in the compiled file (is it extern \"C\" __global__?)"
    passed = passed_sizes(spec)
    if found == passed:
        return None
    return (f"kernel {spec.kernel!r} takes {len(found)} parameters of {', '.join(map(str, found))} bytes; "
            f"its header passes {len(passed)} ({', '.join(map(str, passed))} bytes: "
            f"args={','.join(spec.args)}, an address 8, a size int 4, a scale float 4): "
            "declare the order with args=, or take int sizes and a float scale")
