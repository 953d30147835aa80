"""The launch trace (``softmax_harness/run/launch_trace.py``), without a GPU: an edit to the launch
path that launches every variant alike leaves every trace as it was (the output made by another
CuPy function as the same array among them), and one that moves a launch, an allocation, the
parameters packed or a refusal moves the traces of exactly the variants it touches; through
it ``tools/sass-same`` carries the others across a launch-path change."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from softmax_harness.registry import KERNELS_DIR
from softmax_harness.run import carry, sass

#: a block-per-row tile, the split-row kernel (a workspace, a cooperative launch), a cluster of
#: 8 blocks of 256 threads and one of 1024, the fused bias form (a float parameter) and a
#: known-bad kernel with a launcher of its own
REFS = ["onepass_vec4_c1024", "split_row_smem_f32", "cluster_push_c65536", "onepass_cluster_c262144",
        "scaled_bias_online_split", "bad_own_stream"]
#: the clusters of more than 512 threads given 16 bytes more shared memory a launch
BIGGER_CLUSTERS = ("return (n_rows * spec.cluster,), (spec.threads,), ",
                   "return (n_rows * spec.cluster,), (spec.threads,), 16 * (spec.threads > 512) + ")


#: a dispatched call's output as variant.py makes it: CuPy's empty_like of x, or ndarray of x's
#: shape and type (the same C-contiguous array)
OUTPUT = re.compile(r"out = (?:cupy|_cupy\(\))\.(empty_like\(x\)|ndarray\(x\.shape, x\.dtype\))")


def _copy(root: Path) -> Path:
    """A copy in ``root`` of the folder that holds the harness (the repository, or where it is
    installed, as tox runs it): the package, and its kernels where they lie apart from it."""
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(sass.harness_tree() / "softmax_harness", root / "softmax_harness", ignore=ignore)
    if not carry.in_tree(KERNELS_DIR, root).is_dir():
        shutil.copytree(KERNELS_DIR, carry.in_tree(KERNELS_DIR, root), ignore=ignore)
    return root


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{path.name} no longer has {old!r}: the test's edit needs another anchor"
    path.write_text(text.replace(old, new))


def _moved(tree: Path) -> set[str]:
    now, before = sass.launch_traces(REFS, sass.harness_tree()), sass.launch_traces(REFS, tree)
    assert all(before[r]["sources"] == now[r]["sources"] and now[r]["sources"] for r in REFS)
    return {r for r in REFS if before[r]["trace"] != now[r]["trace"]}


def test_a_launch_path_edit_moves_the_traces_of_the_variants_it_launches_otherwise(tmp_path):
    tree = _copy(tmp_path)
    package = tree / "softmax_harness"
    _edit(package / "variant.py", '"""A kernel variant', '"""Reworded: a kernel variant')
    assert carry.launch_path_digest(tree) != carry.launch_path_digest()
    assert _moved(tree) == set()
    _edit(package / "variant.py", *BIGGER_CLUSTERS)
    assert _moved(tree) == {"onepass_cluster_c262144"}
    shutil.copyfile(sass.harness_tree() / "softmax_harness" / "variant.py", package / "variant.py")
    # a float parameter packed doubled: only the kernel that takes one
    _edit(package / "driver.py", "value.value = operands[index]\n", "value.value = 2 * operands[index]\n")
    assert _moved(tree) == {"scaled_bias_online_split"}
    shutil.copyfile(sass.harness_tree() / "softmax_harness" / "driver.py", package / "driver.py")
    # the output made the other way (empty_like or ndarray of x's shape and type): the same array
    text = (package / "variant.py").read_text()
    made = OUTPUT.search(text)
    other = "ndarray(x.shape, x.dtype)" if made.group(1).startswith("empty_like") else "empty_like(x)"
    (package / "variant.py").write_text(text.replace(made.group(0), f'out = __import__("cupy").{other}'))
    assert _moved(tree) == set()
    # ... of the shape transposed: every variant (a launcher's output is made before it runs)
    (package / "variant.py").write_text(text.replace(made.group(0), 'out = __import__("cupy").ndarray('
                                                     "x.shape[::-1], x.dtype)"))
    assert _moved(tree) == set(REFS)
    shutil.copyfile(sass.harness_tree() / "softmax_harness" / "variant.py", package / "variant.py")
    # a strided input no longer refused: every variant (a launcher's is checked before it runs)
    _edit(package / "variant.py", "if not x.flags.c_contiguous:", "if False:")
    assert _moved(tree) == set(REFS)


def test_a_trace_runs_the_harness_of_its_tree_or_says_why_not(tmp_path):
    (tmp_path / "softmax_harness").mkdir()
    with pytest.raises(RuntimeError, match="launch_trace in"):
        sass.launch_traces(REFS[:1], tmp_path)


def test_sass_same_carries_across_a_launch_path_change_the_variants_launched_alike(tmp_path, disassembly):
    tree = _copy(tmp_path)
    _edit(tree / "softmax_harness" / "variant.py", *BIGGER_CLUSTERS)
    # and a kernel file reworded since: its source moved, not its launch; its SASS is compared
    tile = carry.in_tree(KERNELS_DIR / "online_onepass_vec4.cu", tree)
    tile.write_text(tile.read_text() + "// reworded\n")
    earlier = {"generated": "2026-12-01T00:00:00Z", "variants_sha256": carry.variant_digests(REFS, tree)}
    answer = sass.same_machine_code(earlier, tree, refs=REFS, workers=2)
    assert answer["changed"] == {"onepass_cluster_c262144": "its launch moved (its trace differs)"}
    assert set(answer["same"]) == set(REFS) - {"onepass_cluster_c262144"}
    assert all(v["before"] == earlier["variants_sha256"][r] != v["now"] for r, v in answer["same"].items())
    assert [r for r, v in answer["same"].items() if "sass" in v] == ["onepass_vec4_c1024"]
    assert answer["launch_path"].startswith("moved")
