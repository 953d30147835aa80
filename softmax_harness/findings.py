"""What a property reports when it fails: a :class:`Finding`, and where in a 2-d mask the first
offending element is."""

from __future__ import annotations

from dataclasses import dataclass, field


def first_true(xp, mask):
    """(row, col) of the first True in a 2-d mask, or None."""
    if not bool(mask.any()):
        return None
    flat = int(xp.argmax(mask.ravel()))
    return divmod(flat, mask.shape[1])


@dataclass
class Finding:
    """Why a property failed: a message, and where (row, column) with the arrays to show there
    (the observation's own unless given)."""

    message: str | None
    where: tuple[int, int] | None = None
    arrays: dict = field(default_factory=dict)  # x, y, ref, bound to show instead of the observation's
