"""What ``softmax-harness check`` is given: ``.cu`` files, folders of them and ``module:function``
callables, resolved to subjects by reference (a kernel's ``NAME@DIR``, a callable's
``module:function[:dtype]``); a target that names none is refused in one line, and the others
are still taken. A callable is loaded and probed in a child process: a user's module that
crashes or hangs there refuses that target alone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from . import callables, catalog
from .registry import KERNELS_DIR, HeaderError, NoHeaderError, parse_file


class TargetError(ValueError):
    """A target that cannot be checked; the message says why in one line."""


@dataclass
class Targets:
    """What the command line named: subjects by reference, the kernel files behind them."""

    kernels: list[str] = field(default_factory=list)  # NAME@DIR
    callables: list[str] = field(default_factory=list)  # module:function
    files: list[Path] = field(default_factory=list)  # the .cu files of the kernels
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)  # reference -> the subject's name (its tally key)
    ops: dict[str, str] = field(default_factory=dict)  # reference -> the op it computes
    strided: set[str] = field(default_factory=set)  # the subjects given rows of a stride (strided_rows)
    refused: list[str] = field(default_factory=list)  # a line for each target that names no subject
    needs_gpu: dict[str, str] = field(default_factory=dict)  # callable -> why it runs on a GPU alone


def here(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path.resolve())


def resolve(targets: list[str], timeout: float = 300) -> Targets:
    """The subjects ``targets`` name; a target that names none is refused with a line that says why
    (``Targets.refused``), and the others are still taken. A callable is loaded (and probed) in a
    child process (:func:`_callable`), ``timeout`` seconds at most."""
    found = Targets()
    for given in targets or [str(KERNELS_DIR)]:
        if callables.is_callable_ref(given) and not Path(given).exists():
            for record in _callable(given, timeout):  # one for each element type
                if "error" in record:
                    found.refused.append(record["error"])
                    continue
                if "needs_gpu" in record:
                    found.needs_gpu[record["ref"]] = record["needs_gpu"]
                    continue
                ref = record["ref"]
                found.names[ref], found.ops[ref] = record["name"], record["op"]
                if record["strided"]:
                    found.strided.add(ref)
                found.callables.append(ref)
            continue
        try:
            _resolve_file(given, found)
        except TargetError as exc:
            found.refused.append(str(exc))
    # a subject named twice (a file and its folder, a callable given again) is checked once
    found.kernels, found.callables = list(dict.fromkeys(found.kernels)), list(dict.fromkeys(found.callables))
    found.files = list(dict.fromkeys(found.files))
    return found


def _callable(given: str, timeout: float) -> list[dict]:
    """:func:`callables.describe` of ``given``, in a child process: importing a user's module and
    calling it once (to find its arrays) may crash or hang, which refuses that target alone.
    Where it does, its import and then each element type apart tell which."""
    from .run.isolation import IsolatedFailure, run_isolated

    probed = "(imported, and called on a 2 x 8 input where it does not declare its arrays)"
    try:
        return run_isolated(callables.describe, given, timeout=timeout, what=f"subject {given!r} {probed}")
    except IsolatedFailure as exc:
        first = exc
    try:
        refs = run_isolated(callables.expand, given, timeout=timeout,
                            what=f"subject {given!r} (its module imported)")
    except IsolatedFailure as exc:
        return [{"ref": given, "error": str(exc)}]
    if refs == [given]:
        return [{"ref": given, "error": str(first)}]
    found = []
    for ref in refs:
        try:
            found += run_isolated(callables.describe, ref, timeout=timeout, what=f"subject {ref!r} {probed}")
        except IsolatedFailure as exc:
            found.append({"ref": ref, "error": str(exc)})
    return found


def _relative(message: str) -> str:
    """``message`` with the paths under the current folder written relative to it, as the
    command's other lines name files."""
    return message.replace(f"{Path.cwd().resolve()}{os.sep}", "")


def _resolve_file(target: str, found: Targets) -> None:
    """Add the kernels that ``target`` (a ``.cu`` file or a folder) declares to ``found``, or raise
    TargetError before adding anything; a folder's files whose headers are refused go to
    ``found.refused``, each on its own line, and the rest are taken."""
    path = Path(target)
    if path.is_file() and path.suffix == ".cu":
        try:
            specs = parse_file(path)
        except NoHeaderError:
            raise TargetError(f"{target}: no '// @variant ...' header declares a kernel in it") from None
        except HeaderError as exc:
            raise TargetError(str(exc)) from None
        # its kernels are looked up by NAME@ITS_FOLDER: a name another file there declared first
        # would name that file's kernel
        why = dict(catalog.refused(path.parent)).get(path.resolve())
        if why is not None:
            raise TargetError(_relative(why))
        for spec in specs:
            ref = f"{spec.name}@{here(path.parent)}"
            found.kernels.append(ref)
            found.names[ref], found.ops[ref] = spec.name, spec.op
        found.files.append(path.resolve())
    elif path.is_dir():
        try:
            variants = catalog.variants(path)
        except (HeaderError, catalog.UnknownVariantError) as exc:
            raise TargetError(str(exc)) from None
        # a file the catalogue refuses is refused alone: the folder's other kernels are still taken
        found.refused += [_relative(why) for _, why in catalog.refused(path)]
        for v in variants:
            found.kernels.append(f"{v.name}@{here(path)}")
            found.names[found.kernels[-1]], found.ops[found.kernels[-1]] = v.name, v.spec.op
        found.files += sorted({v.spec.path for v in variants})
        found.skipped += catalog.skipped(path)
    elif not path.exists():
        a_path = path.suffix == ".cu" or os.sep in target or "/" in target
        hint = "" if a_path else " (a callable is module:function)"
        raise TargetError(f"unknown target {target!r}: no such file or folder{hint}")
    else:
        raise TargetError(f"unknown target {target!r}: not a .cu file, a folder or module:function")
