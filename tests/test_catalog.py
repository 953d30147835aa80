"""The catalogue owns names -> variants; the package front only re-exports it and the rest."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import softmax_harness
import softmax_harness.dispatch
from softmax_harness import catalog

PACKAGE = Path(softmax_harness.__file__).parent


FRONTS = [softmax_harness, softmax_harness.dispatch]


@pytest.mark.parametrize("front", FRONTS, ids=lambda module: module.__name__)
def test_the_front_re_exports_exactly_its_all(front):
    public = {name for name in vars(front) if not name.startswith("_")}
    modules = {name for name in public if type(getattr(front, name)).__name__ == "module"}
    assert sorted(front.__all__) == sorted(public - modules)
    for name in front.__all__:
        origin = getattr(getattr(front, name), "__module__", f"{front.__name__}.data")
        assert origin != front.__name__, f"{name} is defined in the front, not re-exported"


@pytest.mark.parametrize("front", FRONTS, ids=lambda module: module.__name__)
def test_the_front_defines_nothing_of_its_own(front):
    tree = ast.parse(Path(front.__file__).read_text())
    defined = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert not defined, f"{front.__file__} defines {defined}: move them to a module"


SUBMODULES = {p.stem for p in PACKAGE.iterdir()}


def _front_imports(source: str, depth: int) -> list[int]:
    """Lines of ``source`` (a module ``depth`` folders below the front) that import the package
    front: ``import softmax_harness``, ``from softmax_harness import X`` or a relative ``from .
    import X`` that reaches the front, X not a submodule."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import) and any(a.name == "softmax_harness" for a in node.names):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom):
            front = node.module == "softmax_harness" or (node.level == depth + 1 and node.module is None)
            if front and any(a.name not in SUBMODULES for a in node.names):
                lines.append(node.lineno)
    return lines


def test_no_module_of_the_package_imports_its_front():
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "__init__.py":
            continue
        lines = _front_imports(path.read_text(), len(path.relative_to(PACKAGE).parts) - 1)
        if lines:
            offenders[str(path.relative_to(PACKAGE))] = lines
    assert not offenders, f"modules that import the package front (the cycle it invites): {offenders}"


def test_the_import_check_sees_a_front_import():
    """The check above can fail: imports of the front inside a function are found, at any depth."""
    late = "def f():\n    import softmax_harness\n    from . import variants\n    from .. import softmax\n"
    assert _front_imports(late, 0) == [2, 3]
    assert _front_imports(late, 1) == [2, 4]
    assert _front_imports("from . import catalog, dtypes\nfrom .catalog import variant\n", 0) == []


def test_lookups_are_cached_and_return_one_variant():
    assert catalog.variant("online_warp") is catalog.variant("online_warp")
    assert catalog.variants()[0] is catalog.variants()[0]


def test_a_root_that_is_missing_or_empty_is_named(tmp_path):
    with pytest.raises(catalog.RootError, match=rf"kernel root '{tmp_path / 'nope'}': not a directory"):
        catalog.variants(tmp_path / "nope")
    with pytest.raises(catalog.RootError, match=rf"kernel root '{tmp_path}': holds no kernel"):
        catalog.variants(tmp_path)
    with pytest.raises(catalog.UnknownVariantError, match=r"'k' under .*: holds no kernel"):
        catalog.variant(f"k@{tmp_path}")


def test_selection_by_kind_and_name(tmp_path):
    every = catalog.select("variant")
    assert every and not any(v.spec.known_bad for v in every)
    assert all(v.spec.geometry == "split-row" for v in catalog.select("split_variant"))
    assert [v.name for v in catalog.select("variant", ["online_warp", "bad_early_return"])] == ["online_warp"]
    assert [v.name for v in catalog.select("bad_variant", ["online_warp", "bad_early_return"])] == \
        ["bad_early_return"]
    assert catalog.select("variant", []) == []
    (tmp_path / "online_warp.cu").write_text((catalog.KERNELS_DIR / "online_warp.cu").read_text())
    (staged,) = catalog.select("variant", [f"online_warp@{tmp_path}"])
    assert staged.spec.path.parent == tmp_path.resolve()
    with pytest.raises(catalog.UnknownVariantError, match="'no_such_kernel'"):
        catalog.select("variant", ["no_such_kernel"])


def test_split_ref():
    assert catalog.split_ref("a") == ("a", None)
    assert catalog.split_ref("a@staging/kernels") == ("a", Path("staging/kernels"))


def test_the_suite_runs_against_the_installed_package():
    """tox installs the built package and says so (SOFTMAX_HARNESS_EXPECT_INSTALLED): then the code
    under test, and the kernels it lists, must come from the installation, not the source tree,
    so that a file the wheel leaves out fails the suite."""
    import os

    if not os.environ.get("SOFTMAX_HARNESS_EXPECT_INSTALLED"):
        pytest.skip("not under tox (the source tree is under test)")
    source_tree = Path(__file__).resolve().parent.parent
    assert source_tree / "softmax_harness" != PACKAGE, f"the source tree's package is under test: {PACKAGE}"
    assert catalog.KERNELS_DIR == PACKAGE / "kernels", catalog.KERNELS_DIR
    def files(root):
        from softmax_harness.run.schema import source_files

        return [p.relative_to(root) for p in source_files(root)]

    shipped, in_tree = files(catalog.KERNELS_DIR), files(source_tree / "kernels")
    assert shipped == in_tree, "the package ships other kernel files than the tree holds"
