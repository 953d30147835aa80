"""A launch plan as a variant keeps one (``driver.Launch``), for the tests of the paths that call a
remembered plan directly instead of going through ``Variant.launch``."""

from __future__ import annotations


class RecordedPlan:
    """A launch plan whose calls are recorded, ``(operands, stream)`` each; ``cooperative``: whether
    it takes a workspace of the stream's, which sends every call through the variant instead."""

    def __init__(self, cooperative: bool = False):
        self.cooperative, self.calls = cooperative, []

    def __call__(self, operands, stream):
        self.calls.append((operands, stream))
