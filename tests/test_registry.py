"""Kernel headers: every file parses; malformed headers name their file and line."""

from __future__ import annotations

import pytest

from softmax_harness import ops, registry
from softmax_harness.registry import HeaderError, discover, parse_file

GOOD = "name=k1 kernel=k algorithm=online geometry=warp-per-row threads=128"


def write(tmp_path, *headers, name="k.cu"):
    path = tmp_path / name
    lines = ["// a kernel", *(f"// @variant {h}" for h in headers), "__global__ void k() {}"]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_every_kernel_file_declares_valid_variants():
    specs = discover()
    assert specs, "no kernels found"
    for spec in specs:
        assert spec.threads % 32 == 0
        if spec.geometry == "cluster-per-row":
            assert spec.lanes == spec.threads * spec.cluster and spec.rows_per_block == 0
        elif spec.geometry != "launcher":  # a launcher's lanes are declared, its threads its own
            assert spec.threads % spec.lanes == 0 and spec.rows_per_block * spec.lanes == spec.threads
        if spec.known_bad:
            # "launch": the launch itself fails (a fault), before any property is judged
            assert spec.catches in (*ops.of(spec.op).properties, "launch"), \
                f"{spec.where}: catches={spec.catches} is no property of {spec.op}"


def test_good_header(tmp_path):
    (spec,) = parse_file(write(tmp_path, GOOD + " max_cols=4096 dtypes=float16"))
    assert (spec.name, spec.lanes, spec.rows_per_block, spec.max_cols) == ("k1", 32, 4, 4096)
    assert spec.dtype == "float16" and spec.dtypes == ("float16",) and spec.line == 2
    assert parse_file(write(tmp_path, GOOD, name="plain.cu"))[0].dtype == "float32"


def test_a_fast_kernel_names_the_form_of_its_exponentials(tmp_path):
    """exp= picks the fast exponential's terms of the bound; a fast kernel that does not say is
    charged the looser shifted form."""
    forms = [parse_file(write(tmp_path, GOOD + " fast_math=true" + extra, name=f"{i}.cu"))[0].exp
             for i, extra in enumerate(["", " exp=ex2", " exp=folded"])]
    assert forms == ["shifted", "ex2", "folded"]


def test_split_row_stash_in_dynamic_shared_memory(tmp_path, monkeypatch):
    import importlib

    from softmax_harness import Variant

    header = ("name=s kernel=s algorithm=online geometry=split-row threads=512 blocks_per_sm=2 tile=69568"
              " smem=90112")
    (spec,) = parse_file(write(tmp_path, header))
    assert spec.smem == 90112 and parse_file(write(tmp_path, GOOD, name="g.cu"))[0].smem == 0
    module = importlib.import_module("softmax_harness.variant")
    monkeypatch.setattr(module, "multiprocessor_count", lambda device_id: 132)
    assert Variant(spec).launch_config(1000, 65536) == ((264,), (512,), 90112)


@pytest.mark.parametrize("header,problem", [
    ("name=k1 kernel=k algorithm=online geometry=warp-per-row", "missing field.*threads"),
    (GOOD.replace("128", "100"), "threads=100 is not a multiple of 32"),
    (GOOD.replace("128", "2048"), r"threads=2048 is out of range"),
    (GOOD.replace("online", "magic"), "algorithm='magic' is not one of"),
    (GOOD + " colour=red", "unknown field 'colour'"),
    (GOOD + " threads=64", "given twice"),
    (GOOD + " max_cols=lots", "max_cols='lots' is not an integer"),
    (GOOD + " lanes=8", "lanes is implied"),
    (GOOD + " catches=deterministic", "both catches= and defect="),
    (GOOD.replace("name=k1", "name=1k"), "is not an identifier"),
    (GOOD + ' defect="unterminated', "cannot split"),
    (GOOD + " bare", "expected key=value"),
    (GOOD + " tile=4096", "tile= goes with geometry=split-row"),
    (GOOD.replace("warp-per-row", "split-row"), "tile= goes with geometry=split-row"),
    (GOOD.replace("warp-per-row", "split-row") + " tile=0", "tile=0 is out of range"),
    (GOOD + " exp=ex2", "exp= goes with fast_math=true"),
    (GOOD + " vector=3", "vector=3 must be a power of two"),
    (GOOD + " vector=32", "vector=32 is out of range"),
    (GOOD + " fast_math=true exp=exact", "exp='exact' is not one of ex2, shifted, folded"),
    # one extern "C" symbol has one signature: a list of types would be a promise nobody keeps
    (GOOD + " dtypes=float32,float16", "names 2 types: one kernel symbol takes one element type"),
    (GOOD + " sanitizer=racecheck", "sanitizer= goes with a known-bad kernel"),
    (GOOD + " args=out,in,rows", "must name in, out, rows and cols once each"),
    (GOOD + " args=out,in,rows,cols,cols", "must name in, out, rows and cols once each"),
    (GOOD + " args=out,in,rows,cols,pitch", "args='pitch' is not one of"),
    (GOOD + " launcher=mod:launch", "launcher= replaces geometry= and threads="),
    ("name=k1 kernel=k algorithm=safe launcher=not-a-ref", "launcher='not-a-ref' is not module:function"),
    (GOOD + ' catches=deterministic defect="x" sanitizer=asan', "sanitizer='asan' is not one of"),
])
def test_malformed_header_names_file_and_line(tmp_path, header, problem):
    path = write(tmp_path, GOOD.replace("k1", "k0"), header)
    with pytest.raises(HeaderError, match=rf"^{path}:3: .*{problem}"):
        parse_file(path)


def test_file_without_header(tmp_path):
    path = tmp_path / "bare.cu"
    path.write_text("__global__ void k() {}\n")
    with pytest.raises(HeaderError, match=rf"^{path}:1: no '// @variant"):
        parse_file(path)


def test_duplicate_names_across_files(tmp_path):
    write(tmp_path, GOOD, name="a.cu")
    write(tmp_path, GOOD, name="b.cu")
    with pytest.raises(HeaderError, match="already declared at .*a.cu:2"):
        discover(tmp_path)


def test_group_geometry_needs_a_sensible_lane_count(tmp_path):
    base = "name=g kernel=g algorithm=online geometry=group-per-row threads=128"
    assert parse_file(write(tmp_path, base + " lanes=8"))[0].rows_per_block == 16
    with pytest.raises(HeaderError, match="lanes=48 must divide"):
        parse_file(write(tmp_path, base + " lanes=48", name="bad.cu"))


def test_default_root_is_the_repository_kernels_folder():
    assert registry.KERNELS_DIR.name == "kernels" and registry.KERNELS_DIR.is_dir()


def test_a_length_fits_a_variant_whatever_its_element_type():
    """``supports(n)`` asks about the length only (the GPU tests fit a batch to a variant by it);
    ``supports(n, dtype)`` also about the element type."""
    import softmax_harness

    for v in softmax_harness.variants():
        assert v.supports(1) and v.supports(v.max_cols or 10**6), v.name
        assert all(v.supports(1, d) for d in v.dtypes), v.name
        assert not any(v.supports(1, d) for d in registry.DTYPES if d not in v.dtypes), v.name


def test_a_kernel_outside_kernels_includes_the_shared_header(tmp_path):
    """A staged kernel (``staging/kernels/``) compiles against the live ``kernels/softmax.cuh``."""
    from softmax_harness.compiler import expand_source

    staged = tmp_path / "staging" / "kernels" / "k.cu"
    staged.parent.mkdir(parents=True)
    staged.write_text('#include "softmax.cuh"\n__global__ void k() {}\n')
    assert "struct RowTile" in expand_source(staged)


def test_discovery_skips_a_file_without_a_header_and_says_so(tmp_path, capsys):
    """A helper .cu with no header (a user's own launcher, say) is listed as skipped, with the
    reason, and the rest of the folder is still discovered; a malformed header still raises."""
    from softmax_harness import catalog
    from softmax_harness.cli import main

    write(tmp_path, GOOD, name="a.cu")
    (tmp_path / "helper.cu").write_text("__device__ int helper() { return 1; }\n")
    assert [s.name for s in discover(tmp_path)] == ["k1"]
    assert registry.skipped(tmp_path) == [(tmp_path / "helper.cu", "no '// @variant ...' header line")]
    assert main(["list", "--root", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"k1@{tmp_path.resolve()} ")
    assert f"skipped: {tmp_path.resolve()}/helper.cu: no '// @variant" in out
    (tmp_path / "a.cu").unlink()
    catalog.refresh()  # the catalogue reads a root once a process
    with pytest.raises(catalog.RootError, match="holds no kernel .*; 1 without one skipped"):
        catalog.variants(tmp_path)
    write(tmp_path, GOOD.replace("128", "100"), name="broken.cu")
    with pytest.raises(HeaderError, match="threads=100 is not a multiple of 32"):
        discover(tmp_path)


def test_the_catalogue_refuses_a_broken_file_alone_and_takes_the_rest_of_its_folder(tmp_path):
    """A user's folder with one malformed header and one file redeclaring a name: the catalogue's
    ``survey`` keeps the good file's variants and names each refused file with its line;
    ``discover`` (what this repository's own kernels are held to) still raises."""
    from softmax_harness import catalog

    write(tmp_path, GOOD, name="a.cu")
    write(tmp_path, GOOD.replace("128", "100"), name="b.cu")
    write(tmp_path, GOOD.replace("k1", "k2"), GOOD, name="c.cu")
    specs, skipped, refused = catalog.survey(tmp_path)
    assert [s.name for s in specs] == ["k1"] and skipped == []
    assert refused == [(tmp_path / "b.cu", f"{tmp_path / 'b.cu'}:2: threads=100 is not a multiple of 32"),
                       (tmp_path / "c.cu", f"{tmp_path / 'c.cu'}:3: variant name 'k1' is already "
                                           f"declared at {tmp_path / 'a.cu'}:2")]
    with pytest.raises(HeaderError, match="threads=100"):
        discover(tmp_path)
    catalog.refresh()
    assert [v.name for v in catalog.variants(tmp_path)] == ["k1"]
    assert [path.name for path, _ in catalog.refused(tmp_path)] == ["b.cu", "c.cu"]
    assert catalog.skipped(tmp_path) == []  # refused is not skipped
    (tmp_path / "a.cu").unlink()
    (tmp_path / "c.cu").unlink()
    catalog.refresh()
    with pytest.raises(catalog.RootError, match=r"holds no kernel .*; 1 refused: .*b\.cu:2: threads=100"):
        catalog.variants(tmp_path)


def test_a_kernel_declares_its_own_argument_order_or_a_launcher(tmp_path):
    """The seed posts' and llm.c's (out, in, N, C), a row stride, or a Python launcher instead of
    a geometry (its lanes set the bound: one, the loosest, unless it says)."""
    (spec,) = parse_file(write(tmp_path, GOOD + " args=out,in,rows,cols"))
    assert spec.args == ("out", "in", "rows", "cols")
    (spec,) = parse_file(write(tmp_path, GOOD + " args=in,out,cols,rows,stride", name="s.cu"))
    assert spec.args == ("in", "out", "cols", "rows", "stride")
    assert parse_file(write(tmp_path, GOOD, name="plain.cu"))[0].args == ("in", "out", "rows", "cols")
    header = "name=l kernel=l algorithm=online launcher=my.mod:launch lanes=32"
    (spec,) = parse_file(write(tmp_path, header, name="l.cu"))
    assert (spec.geometry, spec.launcher, spec.lanes) == ("launcher", "my.mod:launch", 32)
    (spec,) = parse_file(write(tmp_path, "name=m kernel=m algorithm=safe launcher=m:f", name="m.cu"))
    assert spec.lanes == 1


def test_a_launcher_is_imported_from_beside_its_kernel(tmp_path, monkeypatch):
    """``launcher=module:function`` finds the module in the kernel file's folder, where a user
    keeps it, from any working directory (and in the sanitizers' child processes, which load
    the variant the same way); a launcher that does not import is named in one line."""
    import sys

    from softmax_harness.callables import SubjectError
    from softmax_harness.variant import Variant

    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "my_launch.py").write_text("def launch(kernel, x, out):\n    return 'launched'\n")
    header = "name=l kernel=l algorithm=online launcher=my_launch:launch lanes=32"
    (spec,) = parse_file(write(folder, header, name="l.cu"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert Variant(spec)._launcher()(None, None, None) == "launched"
    (spec,) = parse_file(write(folder, header.replace("my_launch", "not_there"), name="n.cu"))
    with pytest.raises(SubjectError, match="softmax variant 'l': launcher 'not_there:launch': "
                                           "module 'not_there' does not import"):
        Variant(spec)._launcher()


def test_discovery_leaves_out_hidden_folders_and_installed_packages(tmp_path):
    """``check .`` in a project: its virtual environment holds the package's own kernels (and
    installed packages, other people's), which are not the project's."""
    kernel = (registry.KERNELS_DIR / "online_warp.cu").read_text()
    for folder in ("mine", ".venv/lib/python3.12/site-packages/softmax_harness/kernels",
                   "venv/lib/python3.12/site-packages/other", ".git/objects", "node_modules/pkg"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "online_warp.cu").write_text(kernel)
    assert [s.path for s in discover(tmp_path)] == [tmp_path / "mine" / "online_warp.cu"]
    assert discover(tmp_path / ".git")  # a folder named is searched, hidden or not
