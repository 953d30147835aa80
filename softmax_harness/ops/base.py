"""What an op brings to the harness: its inputs, its float64 reference and bound, how its inputs
are made from a recipe, and its own properties beside the shared ones."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

#: The properties every op has, in the order they are evaluated (the cheap, single-launch ones
#: first); an op adds its own after ``matches_reference``.
SHARED_FIRST = ("all_written", "no_write_outside", "input_unchanged", "nonfinite_contract",
                "matches_reference")
SHARED_LAST = ("deterministic", "rows_independent", "strided_rows")

#: Input roles that are scalars (passed by value, after the pointers and sizes by default) and
#: boolean arrays (kept as bool: a kernel reads bytes); every other input is an array of the
#: subject's element type, of the first input's shape.
SCALAR_ROLES = ("scale",)
BOOL_ROLES = ("mask",)


class Op:
    """One op: ``inputs`` names what a subject takes, in call order (``fn(*inputs, out)``: arrays,
    and a scale where the op has one), and the roles a kernel header's ``args=`` gives them;
    ``own`` maps each property of its own to its function (an
    :class:`~softmax_harness.observation.Observation` -> a Finding or None)."""

    name: str = ""
    inputs: tuple[str, ...] = ("in",)
    output: str = "y"  # the output's name in failure messages
    grads: tuple[str, ...] | None = None  # the kinds of incoming gradient its recipes draw, if any
    own: dict = {}
    conventions: tuple[str, ...] = ("torch",)

    @property
    def properties(self) -> tuple[str, ...]:
        return (*SHARED_FIRST, *self.own, *SHARED_LAST)

    @property
    def arrays(self) -> tuple[str, ...]:
        """Its array inputs, in call order."""
        return tuple(r for r in self.inputs if r not in SCALAR_ROLES)

    @property
    def roles(self) -> tuple[str, ...]:
        """A kernel's arguments by role in the default order (a header's ``args=`` may reorder
        them): the array inputs, the output, the sizes, then the scalars."""
        return (*self.arrays, "out", "rows", "cols", *(r for r in self.inputs if r in SCALAR_ROLES))

    @property
    def draws(self) -> dict:
        """What ``strategies.batches`` must draw beyond the rows for this op's inputs."""
        return {"grads": self.grads} if self.grads else {}

    def strata(self, base) -> tuple:
        """Batches beyond the stratified design ``base`` (``strategies.STRATA``) that its own inputs
        need: one batch of every row kind under each kind of incoming gradient, for an op that
        takes one."""
        return tuple(replace(base[k], grad=g) for k, g in enumerate(self.grads or ()))

    def build(self, x: np.ndarray, recipe=None, convention: str = "torch") -> tuple[np.ndarray, ...]:
        """The op's float32 host inputs made from the logits ``x`` of a batch (and the recipe's
        other fields, where it has one)."""
        return (x,)

    def reference(self, inputs, convention: str = "torch"):
        """The float64 result over the last axis, from the inputs (exact in float32)."""
        raise NotImplementedError

    def bound(self, subject, inputs, ref):
        """The allowed |out - ref| per element for ``subject``."""
        raise NotImplementedError

    def exact(self, o):
        """Where the contract fixes the output exactly (a masked entry's 0, say), beyond what the
        reference's non-finite values fix: (a boolean mask, the values there), or None."""
        return None

    def perturb(self, inputs: tuple[np.ndarray, ...], rows: list[int], fmt) -> tuple[np.ndarray, ...]:
        """The inputs with ``rows`` changed so that a kernel leaking anything between rows shows it
        (``rows_independent``): here, each changed row becomes its reverse lifted above every other
        finite value of the batch."""
        x32 = inputs[0].astype(np.float32)
        finite = x32[np.isfinite(x32)]
        top = fmt.guard / 3  # far from overflow in the format
        lift = np.float32(min(2.0 * float(np.abs(finite).max()) + 1.0, top)) if finite.size else 1.0
        changed = x32.copy()
        with np.errstate(over="ignore"):
            for k in rows:
                changed[k] = np.where(np.isfinite(changed[k]), changed[k][::-1] / 2 + lift, changed[k])
        return (changed, *inputs[1:])

    def at_rows(self, rows) -> Op:
        """This op on a selection of a batch's rows (their indices), for an op whose result
        depends on the row's index (a causal mask)."""
        return self

    def device_inputs(self, xp, normal, fmt) -> tuple:
        """The inputs of a huge batch built on the device from standard normal rows ``normal`` in
        ``fmt`` (the batch past element 2^31)."""
        return (normal,)

    def __repr__(self) -> str:
        return f"<op {self.name}>"
