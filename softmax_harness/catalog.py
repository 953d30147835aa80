"""The catalogue: names -> kernel variants and subjects under test.

A *root* is a folder of kernel files (``kernels/`` by default; ``staging/kernels`` or a
user's own folder otherwise). A *reference* names one variant: ``NAME`` (under the default
root) or ``NAME@DIR`` (the one declared under DIR, to set a staged file beside the verified
one of that name). Each root is read once per process: the variants it declares are cached,
so that every lookup returns the same :class:`~softmax_harness.variant.Variant` (and its
compiled function). :func:`select` is the one selection the pytest plugin and the GPU runner
use.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

from . import callables
from .registry import KERNELS_DIR, HeaderError, NoHeaderError, VariantSpec, kernel_files, parse_file
from .subject import Subject
from .variant import Variant


class UnknownVariantError(KeyError):
    """No variant of that name is declared (where it was looked for)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class RootError(UnknownVariantError):
    """A kernel root that is missing or declares no kernel; the message names the root."""

    def __init__(self, root: Path, why: str):
        super().__init__(f"kernel root {str(root)!r}: {why}")
        self.root, self.why = root, why


#: What each kind of selection takes (the pytest fixtures of the same names).
KINDS = {
    "variant": lambda v: not v.spec.known_bad,
    "softmax_variant": lambda v: not v.spec.known_bad and v.spec.op == "softmax",
    "split_variant": lambda v: not v.spec.known_bad and v.spec.geometry == "split-row",
    "bad_variant": lambda v: v.spec.known_bad,
}


def split_ref(ref: str) -> tuple[str, Path | None]:
    """``NAME@DIR`` -> (NAME, DIR); a plain name -> (name, None)."""
    name, at, where = ref.partition("@")
    return name, Path(where) if at else None


#: A file and why the catalogue leaves it out.
Reason = tuple[Path, str]


def survey(root: Path) -> tuple[list[VariantSpec], list[Reason], list[Reason]]:
    """What the catalogue takes of ``root``: the variants of every file whose header parses; the
    files without a header (skipped: a user's helper, say); and each file it refuses, with the
    reason (``file:line: ...``): a malformed header, or a variant name another file declared
    first (the later file refused whole: its ``NAME@DIR`` would name two kernels). One broken
    file in a user's folder does not take the folder's other kernels with it;
    ``registry.discover``, which this repository's own kernels are held to, raises instead."""
    specs: list[VariantSpec] = []
    headerless: list[Reason] = []
    broken: list[Reason] = []
    seen: dict[str, VariantSpec] = {}
    for path in kernel_files(root):
        try:
            found = parse_file(path)
        except NoHeaderError:
            headerless.append((path, "no '// @variant ...' header line"))
            continue
        except HeaderError as exc:
            broken.append((path, str(exc)))
            continue
        mine: dict[str, VariantSpec] = {}
        for spec in found:
            first = seen.get(spec.name) or mine.get(spec.name)
            if first is not None:
                broken.append((path, f"{spec.where}: variant name {spec.name!r} is already declared "
                                       f"at {first.where}"))
                break
            mine[spec.name] = spec
        else:
            seen.update(mine)
            specs.extend(found)
    return specs, headerless, broken


@functools.cache
def _surveyed(root: Path) -> tuple[tuple[Variant, ...], tuple[Reason, ...], tuple[Reason, ...]]:
    """:func:`survey` of ``root``, read once a process, its variants made."""
    if not root.is_dir():
        raise RootError(root, "not a directory")
    specs, headerless, broken = survey(root)
    return tuple(Variant(spec) for spec in specs), tuple(headerless), tuple(broken)


def _declared(root: Path) -> tuple[Variant, ...]:
    found, headerless, broken = _surveyed(root)
    if not found:
        raise RootError(root, "holds no kernel (no *.cu file with a '// @variant ...' header"
                        + (f"; {len(headerless)} without one skipped" if headerless else "")
                        + (f"; {len(broken)} refused: {broken[0][1]}" if broken else "") + ")")
    return found


def declared(root: Path | None = None) -> list[Variant]:
    """Every variant declared under ``root`` (default ``kernels/``), correct and known-bad."""
    return list(_declared(Path(root or KERNELS_DIR).resolve()))


def refused(root: Path | None = None) -> list[Reason]:
    """The kernel files under ``root`` whose header the catalogue refuses (malformed, or a name
    declared before), each with its ``file:line:`` reason: the rest of the root is still taken."""
    return list(_surveyed(Path(root or KERNELS_DIR).resolve())[2])


def skipped(root: Path | None = None) -> list[Reason]:
    """The kernel files under ``root`` that declare no variant, each with the reason (listed, not run)."""
    return list(_surveyed(Path(root or KERNELS_DIR).resolve())[1])


def refresh() -> None:
    """Forget what every root declared (after editing kernel files in this process)."""
    _surveyed.cache_clear()


def variants(root: Path | None = None) -> list[Variant]:
    """Every correct variant declared under ``root`` (known-bad ones left out)."""
    return [v for v in declared(root) if not v.spec.known_bad]


def known_bad(root: Path | None = None) -> list[Variant]:
    """The known-bad gallery: variants that carry a planted defect and the property that catches it."""
    return [v for v in declared(root) if v.spec.known_bad]


def variant(ref: str, root: Path | None = None) -> Variant:
    """The variant ``ref`` names (correct or known-bad), under ``root``; ``NAME@DIR`` names the
    one declared under DIR instead."""
    name, where = split_ref(ref)
    root = where if where is not None else root
    place = f" under {str(root)!r}" if root else ""
    try:
        found = declared(root)
    except RootError as exc:
        raise UnknownVariantError(f"no softmax variant named {name!r}{place}: {exc.why}") from None
    for v in found:
        if v.name == name:
            return v
    raise UnknownVariantError(f"no softmax variant named {name!r}{place}")


def subject(ref: str, root: Path | None = None) -> Subject:
    """The subject under test that ``ref`` names: a Python callable (``module:function``, see
    :mod:`softmax_harness.callables`) or a kernel variant (``NAME``, ``NAME@DIR``), with what its
    bound depends on."""
    if callables.is_callable_ref(ref):
        return callables.subject(ref)
    return Subject.of(variant(ref, root))


def select(kind: str, wanted: Sequence[str] | None = None) -> list[Variant]:
    """The variants of ``kind`` (a key of :data:`KINDS`) that ``wanted`` names, in declaration
    order, then those named ``NAME@DIR``; ``wanted=None`` selects all of ``kernels/``, an empty
    sequence none. An unknown name raises :class:`UnknownVariantError`."""
    take = KINDS[kind]
    if wanted is None:
        return [v for v in declared() if take(v)]
    elsewhere = [w for w in wanted if split_ref(w)[1] is not None]
    plain = set(wanted) - set(elsewhere)
    known = {v.name for v in declared()}
    for name in sorted(plain - known):
        raise UnknownVariantError(f"no softmax variant named {name!r}")
    chosen = [v for v in declared() if take(v) and v.name in plain]
    return chosen + [v for v in map(variant, elsewhere) if take(v)]
