"""softmax-harness: correctness, fuzzing and benchmarking for CUDA softmax kernels."""

from __future__ import annotations

from pathlib import Path

from .compiler import KernelCompileError
from .dispatch import softmax
from .reference import reference_softmax
from .registry import KERNELS_DIR, HeaderError, VariantSpec, discover
from .variant import Variant

__all__ = [
    "HeaderError", "KernelCompileError", "UnknownVariantError", "Variant", "VariantSpec", "known_bad",
    "reference_softmax", "softmax", "variant", "variants",
]


class UnknownVariantError(KeyError):
    """No variant of that name is declared (where it was looked for)."""


def _all(root: Path | None = None) -> list[Variant]:
    return [Variant(spec) for spec in discover(root or KERNELS_DIR)]


def variants(root: Path | None = None) -> list[Variant]:
    """Every correct variant declared under ``kernels/`` (known-bad ones left out)."""
    return [v for v in _all(root) if not v.spec.known_bad]


def known_bad(root: Path | None = None) -> list[Variant]:
    """The known-bad gallery: variants that carry a planted defect and the property that catches it."""
    return [v for v in _all(root) if v.spec.known_bad]


def split_ref(ref: str) -> tuple[str, Path | None]:
    """``NAME@DIR`` -> (NAME, DIR); a plain name -> (name, None)."""
    name, at, where = ref.partition("@")
    return name, Path(where) if at else None


def variant(name: str, root: Path | None = None) -> Variant:
    """The variant called ``name`` (correct or known-bad). ``NAME@DIR`` names the one declared
    under DIR instead (``split_row_smem_f16@staging/kernels``: a staged file, to set beside the
    verified one of that name)."""
    name, where = split_ref(name)
    if where is not None:
        root = where
    place = f" under {str(root)!r}" if root else ""
    if root is not None and not Path(root).is_dir():
        raise UnknownVariantError(f"no softmax variant named {name!r}{place}: not a directory")
    for v in _all(root):
        if v.name == name:
            return v
    raise UnknownVariantError(f"no softmax variant named {name!r}{place}")
