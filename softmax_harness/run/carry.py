"""What a run takes over from an earlier complete report (``gpu-check --since REPORT``): the
outcomes of the variants whose sources are unchanged since it, and, with ``--same-sass FILE``,
of those whose sources changed but not their machine code (:mod:`.sass`).

A variant's digest covers what decides the code it runs and how it is launched: its kernel file
and every file that file includes (the expanded source, file by file), its Python launcher where
it declares one beside it (``launcher=``), the compiler's options, and the harness modules that
parse its header, compile it and launch it. A run with ``--since``
runs the variants whose digest differs from the earlier report's (or that it lacks), the
known-bad kernels likewise, and every test that takes no variant (the dispatcher's, the torch
operators', the graphs'); it carries the earlier outcomes, sanitizer results and error tallies
of the rest, and names the report they came from. What the digest leaves out (the properties,
the strategies, the tests) a carried outcome was judged by as the earlier report's run had them:
every report records the digest of each file of that suite (``suite_sha256``: the package's
modules but the runner's, the tests), and a run since a report names the files that changed
since it (``since.suite_changed``), so that a carried outcome says which suite judged it, and
on which card (``since.device``: the earlier report's, said when this run's differs).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .. import catalog, compiler
from ..registry import KERNELS_DIR
from .schema import ROOT, clean

#: The harness modules between a kernel file and its launch: the header's parser, the compiler
#: and the launch (plans, workspaces, the driver's parameter block).
LAUNCH_PATH = tuple(Path(compiler.__file__).parent / name
                    for name in ("registry.py", "compiler.py", "variant.py", "driver.py"))


def _suite_files() -> list[Path]:
    """What judges a kernel: the package's modules (but the runner's own, ``run/``), the tests and
    the root conftest where the package sits in the repository."""
    package = Path(compiler.__file__).parent
    files = [p for p in package.rglob("*.py") if "run" not in p.relative_to(package).parts[:-1]]
    files += sorted((ROOT / "tests").rglob("*.py")) + [ROOT / "conftest.py"]
    return sorted(p for p in files if p.is_file() and "__pycache__" not in p.parts)


def suite_digests() -> dict[str, str]:
    """file -> sha256 of each file of the suite (:func:`_suite_files`), the package's keyed
    ``softmax_harness/...`` wherever it is installed."""
    package = Path(compiler.__file__).parent

    def key(path: Path) -> str:
        return str(path.relative_to(package.parent)) if path.is_relative_to(package) else _key(path)

    return {key(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in _suite_files()}


def suite_changes(earlier: dict) -> list[str] | str:
    """The suite's files added, removed or changed since ``earlier``; ``"unrecorded"`` where it
    records no suite digests (made before reports did)."""
    before = earlier.get("suite_sha256")
    if not before:
        return "unrecorded"
    now = suite_digests()
    return sorted(k for k in before.keys() | now.keys() if before.get(k) != now.get(k))


def _key(path: Path, tree: Path | None = None) -> str:
    """A file's name in a digest: ``kernels/...`` wherever the package is installed (as
    :func:`.schema.kernel_digests` keys them), else relative to the repository where inside it
    (or to ``tree``, another copy of the repository, where given)."""
    for base in (tree.resolve(),) if tree else (KERNELS_DIR.resolve().parent, ROOT):
        if path.is_relative_to(base):
            return str(path.relative_to(base))
    return str(path)


def in_tree(path: Path, tree: Path) -> Path:
    """Where ``path`` (a file of this repository or of the installed package, kernels included)
    lies in ``tree``, another copy of the folder that holds the package (the repository, a
    commit's files; or where the package is installed, its kernels then inside it)."""
    path = path.resolve()
    for base in (Path(compiler.__file__).resolve().parent.parent, ROOT.resolve()):
        if path.is_relative_to(base):
            return tree / path.relative_to(base)
    raise ValueError(f"{path} lies outside the repository")


def launch_path_digest(tree: Path | None = None) -> str:
    """The digest of the compiler's options and the :data:`LAUNCH_PATH` modules (``tree``'s copies
    of them where given)."""
    h = hashlib.sha256(repr(compiler.OPTIONS + compiler.CUPY_IMPLICIT_OPTIONS).encode())
    for path in LAUNCH_PATH:
        path = in_tree(path, tree) if tree else path
        h.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def variant_digests(refs: list[str], tree: Path | None = None) -> dict[str, str]:
    """ref -> the digest of what ``ref`` runs (see the module's text); with ``tree``, of what it
    ran in that copy of the repository (the refs it lacks left out)."""
    launch = launch_path_digest(tree)
    digests = {}
    sources: dict[Path, list[Path]] = {}  # a kernel file's variants share its sources: read once
    keyed: dict[Path, bytes] = {}
    for ref in refs:
        path = catalog.variant(ref).spec.path
        if tree:
            path = in_tree(path, tree)
            if not path.is_file():
                continue
        if path not in sources:
            sources[path] = compiler.sources(path)
        h = hashlib.sha256(launch.encode())
        for source in [*sources[path], *launcher_file(catalog.variant(ref).spec, path)]:
            if source not in keyed:
                content = hashlib.sha256(source.read_bytes()).digest()
                keyed[source] = _key(source, tree).encode() + b"\0" + content
            h.update(keyed[source])
        digests[ref] = h.hexdigest()
    return digests


def launcher_file(spec, path: Path) -> list[Path]:
    """The file of the variant's Python launcher (``launcher=module:function``) where it lies
    beside its kernel file ``path``, as the launch looks for it first; none otherwise."""
    if not spec.launcher:
        return []
    module = path.parent / (spec.launcher.split(":")[0].replace(".", "/") + ".py")
    return [module] if module.is_file() else []


def runs_on(nodeid: str, refs: set[str]) -> bool:
    """Whether the test runs on one of ``refs``: its first parameter is one (a NAME@DIR's DIR
    may hold dashes, which also join the parameters)."""
    if not nodeid.endswith("]") or "[" not in nodeid:
        return False
    params = nodeid[nodeid.index("[") + 1:-1]
    if params.split("-")[0] in refs:
        return True
    return any(params == ref or params.startswith(ref + "-") for ref in refs if "-" in ref)


def check_base(earlier: dict, name: str) -> None:
    """ValueError unless ``earlier`` is a whole, clean report with the digests to compare."""
    if "variants_sha256" not in earlier:
        raise ValueError(f"--since {name}: the report records no variant digests (made before "
                         "gpu-check recorded them): run the whole suite once")
    if earlier.get("shard") or not clean(earlier["summary"]):
        raise ValueError(f"--since {name}: not a whole, clean report ({earlier['summary']}"
                         + (f", shard {earlier['shard']}" if earlier.get("shard") else "") + ")")
    if not all(r["ok"] for r in earlier["sanitizer"].values()):
        raise ValueError(f"--since {name}: a sanitizer result in it is not clean")


def unchanged(earlier: dict, refs: list[str], vouched: dict | None = None,
              now: dict | None = None) -> list[str]:
    """Those of ``refs`` whose digest is the one ``earlier`` recorded, or whose move from it to
    their digest now ``vouched`` (:func:`vouched_by`) vouches for, and that it has tests of
    (``now``: :func:`variant_digests` of ``refs`` where the caller has them)."""
    recorded, vouched = earlier["variants_sha256"], vouched or {}
    now = variant_digests(refs) if now is None else now
    same = {ref for ref in refs if recorded.get(ref) == now[ref]
            or vouched.get(ref) == {"before": recorded.get(ref), "now": now[ref]}}
    first = {t["nodeid"].partition("[")[2].split("-")[0] for t in earlier["tests"]}  # a quick answer
    return [ref for ref in refs if ref in same
            and (ref in first or any(runs_on(t["nodeid"], {ref}) for t in earlier["tests"]))]


def read_same_sass(path: Path) -> dict:
    """``tools/sass-same``'s answer in ``path``; ValueError where it is not one."""
    try:
        answer = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"--same-sass {path}: {exc}") from None
    if not isinstance(answer, dict) or not {"report_generated", "arch", "toolchain", "same"} <= answer.keys():
        raise ValueError(f"--same-sass {path}: not an answer of tools/sass-same")
    return answer


def vouched_by(same_sass: dict, earlier: dict, name: str) -> dict:
    """ref -> {"before": digest, "now": digest} of the variants whose machine code ``same_sass``
    (``tools/sass-same``'s answer for ``earlier``) found unchanged; ValueError where it was made
    for another report."""
    if same_sass.get("report_generated") != earlier["generated"]:
        raise ValueError(f"--same-sass {name}: made for the report generated "
                         f"{same_sass.get('report_generated')}, not {earlier['generated']}")
    return {ref: {"before": v["before"], "now": v["now"]} for ref, v in same_sass["same"].items()}


def unspoken(same_sass: dict, earlier: dict, refs: list[str], now: dict | None = None) -> list[str]:
    """Those of ``refs`` whose sources moved since ``earlier`` recorded them that ``same_sass``
    neither vouches for as they are now nor names as changed: an answer made before they last
    moved (for the change before this one, say), which carries none of them (``now`` as in
    :func:`unchanged`)."""
    recorded = earlier["variants_sha256"]
    mine = [ref for ref in refs if ref in recorded]
    now = variant_digests(mine) if now is None else now
    named = same_sass.get("changed", {})
    return [ref for ref in mine if now[ref] != recorded[ref]
            and same_sass["same"].get(ref, {}).get("now") != now[ref] and ref not in named]


def carried(earlier: dict, correct: list[str], bad: list[str], tools) -> dict:
    """The parts of ``earlier`` that speak for the ``correct`` variants and ``bad`` kernels named:
    their tests, each sanitizer tool's result over them (``tools``: the tools run over the
    correct variants; a known-bad kernel's must-flag run under its own key), the gallery's
    catches and the error tallies."""
    names = set(correct) | set(bad)
    tests = [t for t in earlier["tests"]
             if not t["nodeid"].startswith("sanitizer::") and runs_on(t["nodeid"], names)]
    sanitizer = {}
    for key, result in earlier["sanitizer"].items():
        if key in tools:
            over = [v for v in result["variants"] if v in correct]
            if over:
                sanitizer[key] = {**result, "variants": over, "probed": 0, "output": "",
                                  "carried_from": earlier["generated"]}
        elif any(key.endswith(f"_flags_{b}") for b in bad):
            sanitizer[key] = {**result, "output": "", "carried_from": earlier["generated"]}
    return {
        "tests": tests,
        "sanitizer": sanitizer,
        "caught": {b: ok for b, ok in earlier["gallery"]["caught"].items() if b in bad},
        "tally": {k: v for k, v in earlier["tally"].items() if k in {catalog.split_ref(n)[0] for n in names}},
    }
