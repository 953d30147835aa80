"""The public API: variants(), their attributes, and clear errors for bad input."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import softmax_harness
from softmax_harness import Subject, dtypes, reference_softmax
from softmax_harness.observation import as_format


def test_variants_are_the_correct_ones_with_their_facts():
    found = softmax_harness.variants()
    assert {"safe_block_256", "online_warp"} <= {v.name for v in found}
    for v in found:
        assert not v.spec.known_bad
        assert v.algorithm in ("naive", "safe", "online")
        assert v.max_cols is None or v.max_cols >= 1
        assert callable(v)


def test_variant_lookup_names_the_missing_one():
    with pytest.raises(KeyError, match="no_such_kernel"):
        softmax_harness.variant("no_such_kernel")
    with pytest.raises(KeyError, match="'online_warp' under 'nowhere/kernels': not a directory"):
        softmax_harness.variant("online_warp@nowhere/kernels")


def test_a_variant_from_another_directory_is_named_with_it(tmp_path):
    """NAME@DIR sets a staged file beside the verified variant of that name, and failure
    messages name it so (their repro line replays that one)."""
    from softmax_harness.properties import Subject

    staged = tmp_path / "online_warp.cu"
    staged.write_text((softmax_harness.KERNELS_DIR / "online_warp.cu").read_text())
    verified = softmax_harness.variant("online_warp")
    other = softmax_harness.variant(f"online_warp@{tmp_path}")
    assert (verified.spec.path.parent, other.spec.path) == (softmax_harness.KERNELS_DIR, staged)
    assert verified.ref == "online_warp" and other.ref == f"online_warp@{tmp_path}"
    assert softmax_harness.variant(other.ref).spec.path == staged
    assert softmax_harness.known_bad()[0].ref == softmax_harness.known_bad()[0].name
    pytest.importorskip("cupy")
    assert Subject.of(other).repro == other.ref


def test_list_names_each_variant_as_the_command_line_takes_it(tmp_path, capsys):
    from softmax_harness.cli import main

    (tmp_path / "online_warp.cu").write_text((softmax_harness.KERNELS_DIR / "online_warp.cu").read_text())
    assert main(["list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == len(softmax_harness.variants() + softmax_harness.known_bad())
    assert any(line.startswith("onepass_vec4_c128 ") and " exp=ex2 " in line for line in listed)
    assert main(["list", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith(f"online_warp@{tmp_path} ")


def test_list_into_a_reader_that_leaves_early_ends_quietly():
    """``softmax-harness list | head -1``: the pipe closed under the listing is no error."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(Path(softmax_harness.__file__).resolve().parent.parent)}
    shell = f"{sys.executable} -m softmax_harness list | head -c 1 >/dev/null; echo ${{PIPESTATUS[0]}}"
    done = subprocess.run(["bash", "-c", shell], env=env, capture_output=True, text=True, timeout=120)
    assert (done.stdout, done.stderr) == ("0\n", ""), done.stderr


def test_the_command_line_names_an_unknown_variant_and_a_missing_gpu(capsys):
    from softmax_harness import gpu
    from softmax_harness.cli import main

    assert main(["measure", "online_warp", "no_such_kernel", "--cols", "100"]) == 2
    assert "softmax-harness measure: no softmax variant named 'no_such_kernel'" in capsys.readouterr().err
    assert main(["repro", "no_such_kernel@kernels", "--recipe", "{}"]) == 2
    assert "no softmax variant named 'no_such_kernel' under 'kernels'" in capsys.readouterr().err
    if not gpu.available():
        assert main(["measure", "online_warp", "--cols", "100"]) == 2
        assert "measure: no CUDA device visible" in capsys.readouterr().err


#: A user's module for ``measure``: the dispatcher as a CuPy callable (float32 only), and a NumPy one.
MEASURED = """
import numpy as np
import softmax_harness

def on_device(x, out):
    softmax_harness.softmax(x, out=out)

on_device.__softmax_harness__ = {"arrays": "cupy", "dtype": "float32"}

def on_host(x, out):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    out[...] = e / e.sum(axis=1, keepdims=True)

on_host.__softmax_harness__ = {"arrays": "numpy"}
"""


def test_measure_names_an_unknown_callable_and_leaves_out_one_it_cannot_time(tmp_path, capsys, monkeypatch):
    from softmax_harness.bench import callable_launch
    from softmax_harness.cli import main

    (tmp_path / "usermod_measured.py").write_text(MEASURED)
    monkeypatch.syspath_prepend(tmp_path)
    assert main(["measure", "usermod_nothere:f", "--cols", "100"]) == 2
    assert "measure: subject 'usermod_nothere:f': module 'usermod_nothere' does not import" in \
        capsys.readouterr().err
    assert callable_launch("usermod_measured:on_host", "softmax", "float32") is None  # NumPy: not on the GPU
    assert callable_launch("usermod_measured:on_device", "softmax", "float16") is None  # not its type
    assert callable_launch("usermod_measured:on_device:float32", "log_softmax", "float32") is None


@pytest.mark.gpu
def test_measure_times_a_callable_of_ones_own_beside_the_dispatcher(tmp_path, monkeypatch):
    """The same kernel, through a user's callable and through the dispatcher, in one process."""
    from softmax_harness.bench import fractions_of_copy

    (tmp_path / "usermod_measured.py").write_text(MEASURED)
    monkeypatch.syspath_prepend(tmp_path)
    # The suite's other workers and the sanitizers share the GPU: one pair of timings can land
    # apart (0.815 against 1.007 once, the copy at 2198 GB/s where it moves ~3040 alone); a gap
    # of the measure's own holds in every try.
    measured, rows = ["usermod_measured:on_device", "usermod_measured:on_host"], []
    for _ in range(3):
        (row,) = fractions_of_copy(["softmax", *measured], [4096])
        assert "usermod_measured:on_host" not in row
        rows.append(row)
        if 0.85 < row["usermod_measured:on_device"] / row["softmax"] < 1.15:
            break
    else:
        raise AssertionError(f"the callable and the dispatcher apart in three tries: {rows}")
    (half,) = fractions_of_copy(["softmax", "usermod_measured:on_device"], [4096], "float16")
    assert "usermod_measured:on_device" not in half and "softmax" in half


@pytest.mark.parametrize("args,problem", [
    (["repro", "--subject", "usermod_cli:good", "--recipe", "{bad"], "repro: --recipe is not a batch "
     "recipe as a failure prints it (JSONDecodeError: Expecting property name enclosed in double quotes"),
    (["repro", "--subject", "usermod_cli:good", "--recipe", '{"n_cols": 5}'], "repro: --recipe is not a "
     "batch recipe as a failure prints it (KeyError: 'rows')"),
    (["repro", "--subject", "usermod_cli:good", "--npy", "{tmp}/nothere.npy"], "repro: --npy "
     "{tmp}/nothere.npy: [Errno 2] No such file or directory"),
    (["report", "{tmp}/nothere.json"], "report: No such file or directory: {tmp}/nothere.json"),
    (["report", "{tmp}/empty.json", "--out", "{tmp}"], "report: {tmp}/empty.json is not a saved "
     "pytest-benchmark run (it has no 'benchmarks' list)"),
    (["report", "{tmp}/text.json", "--out", "{tmp}"], "report: {tmp}/text.json is not JSON (Expecting value"),
])
def test_a_bad_argument_is_named_in_one_line(tmp_path, capsys, monkeypatch, args, problem):
    from softmax_harness.cli import main

    (tmp_path / "usermod_cli.py").write_text("def good(x, out):\n    out[...] = 1\n")
    monkeypatch.syspath_prepend(tmp_path)
    (tmp_path / "empty.json").write_text("{}")
    (tmp_path / "text.json").write_text("not json")
    assert main([a.replace("{tmp}", str(tmp_path)) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("softmax-harness " + problem.replace("{tmp}", str(tmp_path))), err
    assert len(err.strip().splitlines()) == 1


def test_the_gpu_suite_takes_a_variant_from_another_directory(tmp_path):
    """``pytest -m gpu --variant NAME@DIR`` runs every variant test on the file under DIR (and
    only there); a name that DIR does not declare stops the collection, named."""
    import subprocess
    import sys

    (tmp_path / "online_warp.cu").write_text((softmax_harness.KERNELS_DIR / "online_warp.cu").read_text())

    def collect(*wanted):
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q",
                   "-m", "gpu", "tests/test_kernels.py", *(f"--variant={w}" for w in wanted)]
        return subprocess.run(command, cwd=Path(__file__).resolve().parent.parent, capture_output=True,
                              text=True, timeout=120)

    done = collect(f"online_warp@{tmp_path}")
    ids = [line.split("::")[1] for line in done.stdout.splitlines() if "::test_every_property_holds" in line]
    assert ids == [f"test_every_property_holds_on_adversarial_batches[online_warp@{tmp_path}]"], done.stdout
    assert "[online_warp]" not in done.stdout and "zeroed[online_warp" not in done.stdout  # not split-row
    done = collect(f"online_warp@{tmp_path}", f"no_such_kernel@{tmp_path}")
    assert done.returncode != 0
    assert f"no softmax variant named 'no_such_kernel' under '{tmp_path}'" in done.stdout


def ones(variant, shape):
    """A CuPy array of ones in the variant's element type."""
    import cupy

    return cupy.ones(shape, dtypes.of(variant.dtypes[0]).numpy())


def call(variant, x, **kwargs):
    """The variant on ``x`` as each of its op's array inputs (a backward's y and dy alike; a mask
    nowhere set) and a scale of 1."""
    given = {"mask": x != x if hasattr(x, "shape") else x, "scale": 1.0}
    return variant(*[given.get(role, x) for role in variant.op.inputs], **kwargs)


@pytest.mark.gpu
class TestBadInputOnTheGPU:
    def test_wrong_dtype_names_variant_and_dtype(self, variant):
        import cupy

        with pytest.raises(TypeError, match=rf"{variant.name}.*float64"):
            call(variant, cupy.zeros((2, 8), cupy.float64))

    def test_not_a_cupy_array(self, variant):
        with pytest.raises(TypeError, match=rf"{variant.name}.*cupy.ndarray"):
            call(variant, np.zeros((2, 8), np.float32))

    @pytest.mark.parametrize("shape", [(8,), (2, 2, 8)])
    def test_wrong_ndim(self, variant, shape):
        with pytest.raises(ValueError, match=rf"{variant.name}.*ndim={len(shape)}"):
            call(variant, ones(variant, shape))

    def test_non_contiguous(self, variant):
        with pytest.raises(ValueError, match=rf"{variant.name}.*not C-contiguous"):
            call(variant, ones(variant, (4, 16))[:, ::2])

    def test_bad_out(self, variant):
        import cupy

        x = ones(variant, (4, 16))
        with pytest.raises(ValueError, match="out has shape"):
            call(variant, x, out=cupy.empty((4, 15), x.dtype))
        with pytest.raises(ValueError, match="overlaps"):
            call(variant, x, out=x)

    def test_a_layout_passed_before_still_has_its_addresses_and_scalars_checked(self, variant):
        """check_input remembers a layout (types, shapes, strides) it passed; a call again in it
        is still refused for what the layout does not fix."""
        import cupy

        x = ones(variant, (4, 16))
        call(variant, x, out=cupy.empty_like(x))
        with pytest.raises(ValueError, match="overlaps"):
            call(variant, x, out=x)
        buffer = cupy.zeros(x.nbytes + x.dtype.itemsize, cupy.uint8)
        shifted = cupy.ndarray(x.shape, x.dtype, memptr=buffer.data + 1)
        assert shifted.strides == x.strides
        aligned_others = {"mask": x != x, "scale": 1.0}  # nothing may read the shifted array
        with pytest.raises(ValueError, match=rf"{variant.name}.*not aligned to its element size"):
            variant(shifted, *[aligned_others.get(role, x) for role in variant.op.inputs[1:]],
                    out=cupy.empty_like(x))
        if "scale" in variant.op.inputs:
            given = {"mask": x != x, "scale": float("nan")}
            with pytest.raises(TypeError, match="scale must be a finite real number"):
                variant(*[given.get(role, x) for role in variant.op.inputs], out=cupy.empty_like(x))

    def test_too_long_rows(self, variant):
        if variant.max_cols is None:
            pytest.skip("no row-length limit")
        with pytest.raises(ValueError, match=rf"{variant.name}.*max_cols={variant.max_cols}"):
            call(variant, ones(variant, (1, variant.max_cols + 1)))

    @pytest.mark.parametrize("shape", [(0, 16), (0, 0), (3, 0)])
    def test_empty(self, variant, shape):
        y = call(variant, ones(variant, shape))
        assert y.shape == shape

    def test_out_is_filled_and_returned(self, variant):
        import cupy

        n_cols = min(40, variant.max_cols or 40)
        x = np.random.default_rng(0).standard_normal((5, n_cols)).astype(np.float32)
        fmt = dtypes.of(variant.dtypes[0])
        inputs = [cupy.asarray(a) if a.ndim else a for a in (as_format(a, fmt) for a in variant.op.build(x))]
        out = cupy.full_like(inputs[0], 7.0)
        assert variant(*inputs, out=out) is out
        exact = tuple(a.astype(cupy.float32) for a in inputs)
        expected = variant.op.reference(exact)
        if variant.op.name == "softmax":
            np.testing.assert_allclose(expected.get(), reference_softmax(exact[0].get()), rtol=1e-12)
        bound = variant.op.bound(Subject.of(variant), exact, expected)
        assert bool((cupy.abs(out.astype(cupy.float64) - expected) <= bound).all())


def test_dispatch_covers_every_row_length_with_declared_variants():
    from softmax_harness import dispatch

    names = {v.name: v for v in softmax_harness.variants()}
    for dtype, table in dispatch.TABLE.items():
        assert all(name in names and dtype in names[name].dtypes for _, name in table), dtype
        limits = [limit for limit, _ in table]
        assert limits[:-1] == sorted(limits[:-1]), f"{dtype}: entries out of order"
        for n_cols in (1, 31, 32, 33, 1000, 4097, 32768, 32769, 262144, 262145, 2**20, 2**21):
            chosen = dispatch.choose(n_cols, dtype=dtype)
            assert chosen.supports(n_cols, dtype), (dtype, n_cols, chosen.name)
    assert dispatch.TABLE["float32"][-1][0] is None, "fp32 takes any row length"


def test_the_few_rows_and_small_batch_tables_name_declared_variants_that_hold_their_rows():
    # a misspelt name there would not fail a call: the dispatcher skips a variant it lacks (one
    # waiting in staging/) and takes the table's entry instead
    from softmax_harness.dispatch import forward

    names = {v.name: v for v in softmax_harness.variants()}
    for table in (forward.ONE_ROW_TABLE, forward.FEW_ROWS_TABLE):
        for dtype, entries in table.items():
            for size, name in entries:
                assert name in names and names[name].supports(size, dtype), (dtype, name)
    for packed, (kept, most) in forward.KEPT.items():
        assert kept in names and packed in names and most > 0, kept
        assert names[kept].spec.max_cols == names[packed].spec.max_cols, kept
        assert names[kept].spec.dtypes == names[packed].spec.dtypes, kept
    for dtype, tiles in forward.SMALL_BATCH_TILES.items():
        for shortest, longest, most, name in tiles:
            assert name in names and names[name].supports(longest, dtype), (dtype, name)
            assert 0 < shortest <= longest and most > 0, (dtype, name)


def test_every_op_dispatches_every_row_length_to_a_declared_variant_of_its_op():
    from softmax_harness import dispatch

    names = {v.name: v for v in softmax_harness.variants()}
    for op, tables in dispatch.OP_TABLES.items():
        for dtype, table in tables.items():
            assert all(name in names and names[name].op.name == op for _, name in table), (op, dtype)
            limits = [limit for limit, _ in table]
            assert limits[:-1] == sorted(limits[:-1]) and limits[-1] is None, (op, dtype)
            for n_cols in (1, 33, 1000, 16385, 32769, 65536, 65537, 131072, 131073, 2**20):
                chosen = dispatch.choose_op(op, n_cols, dtype=dtype)
                assert chosen.supports(n_cols, dtype), (op, dtype, n_cols, chosen.name)


def test_a_misaligned_row_leaves_a_cluster_kernel_only_for_a_size_close_above():
    """A misaligned row whose shift may overflow the blocks' tiles goes to the next cluster size
    when that one is at most an eighth larger (few lanes idle); to one twice the size it does not
    (measured slower than reading element by element)."""
    from softmax_harness.dispatch.ladders import _misaligned_rooms

    ladder = ((32768, "f_onepass_bf16_c32768"), (65536, "f_cluster_bf16_c65536"),
              (73728, "f_cluster_bf16_c73728"), (131072, "f_cluster_bf16_c131072"), (None, "f_block_bf16"))
    assert _misaligned_rooms(ladder, "_bf16") == (32768, 65536 - 8 * 8, 73728, 131072, None)
    fp32 = ((65536, "f_cluster_c65536"), (73728, "f_cluster_c73728"), (None, "f_block_1024"))
    assert _misaligned_rooms(fp32, "") == (65536 - 8 * 4, 73728, None)


def test_an_aligned_row_takes_the_smallest_size_that_holds_it():
    """(but at the lengths of ``OP_ALIGNED_TILES``, which take another tile of that size, and of
    ``SPLIT_WIDE``, which take the split kernel on 512-thread blocks)"""
    from softmax_harness import dispatch
    from softmax_harness.dispatch import ladders

    for op, tables in dispatch.OP_TABLES.items():
        for dtype, table in tables.items():
            other = ladders.OP_ALIGNED_TILES.get(op, {}).get(dtype, {})
            wide = ladders.SPLIT_WIDE.get(ladders.LADDERS[op], {}).get(ladders.SUFFIX[dtype], ())
            for limit, name in table[:-1]:
                chosen = dispatch.choose_op(op, limit, dtype=dtype, aligned=True)
                expected = other.get(limit, name)
                if "_online_split" in expected:
                    expected += next((blocks for a, b, blocks in wide if a <= limit <= b), "")
                assert chosen.name == expected, (op, dtype, limit)


def test_16_bit_rows_between_and_past_the_cluster_sizes():
    """The ops' 16-bit rows past their tiles: the backwards' and the bias form's on a cluster push
    kernel sized to the row where one measured faster (ladders.PUSH), and the bias form's
    misaligned rows of 59001-65472 and 72703-73664 too (0.83-0.88 of a copy against 0.76-0.78)
    and the mask form's of 65409-65472, 65521-66049 and 73601-73664, where its 512-thread split
    kernel dips (ladders.MISALIGNED_PUSH), every other misaligned row and every other row on the
    online split kernel (the bias form's shortest too, 32769-40959: its cluster sized 65536 ran
    0.56-0.78 of a copy there against 0.77-0.97), the bias form's, aligned or not, on its split kernel of
    512-thread blocks (ladders.SPLIT_WIDE: ahead of the 256-thread kernel from 32769 to 2^20 and
    of its barrier cluster at the misaligned 65473-72702): with 16 elements a thread in registers
    and 56 in each stash where a row takes one block fewer (one at 32769-36800, 0.98 of a copy against
    0.83; two at the misaligned 65537-72702), with 8 and 56 from 73729 (33 blocks at 2^20 where 8 and
    48 take 37: 0.89 against 0.87), 8 and 48 between; log_softmax's and the causal form's all on
    the online split kernel, the mask form's but its aligned rows of 51200-73728 and 114688-131072
    (its push kernels), from 16896 on its split kernel of 512-thread blocks."""
    from softmax_harness import dispatch
    from softmax_harness.dispatch import ladders

    for op, family in ladders.LADDERS.items():
        for dtype, short in (("float16", "f16"), ("bfloat16", "bf16")):
            def chosen(n_cols, aligned=True, op=op, dtype=dtype):
                return dispatch.choose_op(op, n_cols, dtype=dtype, aligned=aligned).name
            split, push = f"{family}_online_split_{short}", f"{family}_cluster_push_{short}_c"
            wide = split + "_b512" if family in ("scaled_mask", "scaled_bias") else split
            if family == "scaled_bias":
                s56, e16 = split + "_s56", split + "_e16s56"
                assert chosen(245760 + 16385) == chosen(2**20) == s56
            else:
                assert chosen(245760 + 16385) == chosen(2**20) == wide
            if family != "scaled_bias":
                assert chosen(73729) == chosen(151936) == chosen(229376) == wide
                assert chosen(73728, aligned=False) == wide
                if family != "scaled_mask":
                    assert chosen(65535, aligned=False) == wide
            if family in ("log_softmax", "scaled_causal"):
                assert chosen(32769) == chosen(65536) == chosen(73728) == chosen(262144) == split
                if family.startswith("scaled_"):
                    assert chosen(16385) == chosen(24576) == chosen(32768) == split
            elif family == "scaled_mask":
                assert chosen(16385) == chosen(16895) == split
                assert chosen(16896) == chosen(28672) == chosen(32768) == chosen(51199) == wide
                assert chosen(32768, aligned=False) == chosen(262144) == wide
                assert chosen(51200) == chosen(65536) == push + "65536"
                assert chosen(65537) == chosen(73728) == push + "73728"
                assert chosen(114687) == chosen(131073) == wide
                assert chosen(114688) == chosen(131072) == push + "131072"
                assert chosen(65409, aligned=False) == chosen(65472, aligned=False) == push + "65536"
                assert chosen(65521, aligned=False) == chosen(65535, aligned=False) == \
                    chosen(66049, aligned=False) == push + "73728"
                assert chosen(73601, aligned=False) == chosen(73664, aligned=False) == push + "73728"
                assert chosen(65408, aligned=False) == chosen(65473, aligned=False) == \
                    chosen(65520, aligned=False) == chosen(66050, aligned=False) == \
                    chosen(73600, aligned=False) == chosen(73665, aligned=False) == wide
            elif family == "scaled_bias":
                assert chosen(24576) == chosen(32768) == f"{family}_onepass_{short}_c32768"
                assert chosen(59001, aligned=False) == chosen(65472, aligned=False) == push + "65536"
                assert chosen(72703, aligned=False) == chosen(73664, aligned=False) == push + "73728"
                assert chosen(59000, aligned=False) == chosen(65473, aligned=False) == \
                    chosen(65535, aligned=False) == chosen(73665, aligned=False) == wide
                assert chosen(120001, aligned=False) == chosen(245760, aligned=False) == \
                    chosen(262144, aligned=False) == s56
                assert chosen(73729) == chosen(86015) == chosen(98303, aligned=False) == chosen(131073) == \
                    chosen(151936) == chosen(245759) == chosen(262145) == chosen(524288) == s56
                assert chosen(65537, aligned=False) == chosen(69631, aligned=False) == \
                    chosen(72702, aligned=False) == e16
                assert chosen(73729, aligned=False) == chosen(90001, aligned=False) == \
                    chosen(131073, aligned=False) == chosen(245759, aligned=False) == \
                    chosen(262145, aligned=False) == s56
                assert chosen(32769) == chosen(36800) == chosen(36001, aligned=False) == e16
                assert chosen(36801) == chosen(40959) == chosen(45001, aligned=False) == wide
                assert chosen(40960) == chosen(65536) == push + "65536"
                assert chosen(65537) == chosen(73728) == push + "73728"
                assert chosen(86016) == chosen(94000) == chosen(131072) == push + "131072"
                assert chosen(245760) == chosen(262144) == push + "262144"
            else:
                first = 53248 if family == "backward" else 57345
                assert chosen(32769) == chosen(first - 1) == chosen(61441, aligned=False) == split
                assert chosen(first) == chosen(65536) == push + "65536"
                assert chosen(73728) == push + "73728" and chosen(131072) == chosen(262144) == split
                assert chosen(65537) == (push + "73728" if family == "backward" else split)


def test_a_push_range_takes_its_rows_from_whatever_entries_held_them():
    from softmax_harness.dispatch.forward import overlay

    ladder = [(100, "tile"), (1000, "split")]
    assert overlay(ladder, (), str) == ladder
    assert overlay(ladder, ((50, 100), (600, 800)), lambda size: f"push{size}") == [
        (49, "tile"), (100, "push100"), (599, "split"), (800, "push800"), (1000, "split")]
    # a range across two entries, and one ending on the ladder's last limit
    assert overlay(ladder, ((80, 200), (901, 1000)), lambda size: f"push{size}") == [
        (79, "tile"), (200, "push200"), (900, "split"), (1000, "push1000")]


def test_a_misaligned_push_span_ends_where_its_tiles_still_hold_the_shifted_row():
    """Past the shifted room a push kernel's tile reads its row element by element (0.54 of a copy
    against 0.90 just inside it, mask_misaligned_h100.jsonl), so no span of misaligned rows may
    reach past it, and the spans of a type are disjoint and in order."""
    from softmax_harness.dispatch.ladders import MISALIGNED_PUSH, _shifted_room

    for family, types in MISALIGNED_PUSH.items():
        for suffix, spans in types.items():
            for first, last, size in spans:
                assert first <= last <= _shifted_room(size, suffix), (family, suffix, size)
            assert all(a[1] < b[0] for a, b in itertools.pairwise(spans)), (family, suffix)


def test_each_wide_split_span_names_a_512_thread_kernel_that_takes_its_rows():
    """A span of ``SPLIT_WIDE`` whose kernel is missing would fall back to the 256-thread kernel
    unseen; the spans of a type are disjoint and in order."""
    from softmax_harness import catalog
    from softmax_harness.dispatch.ladders import SPLIT_WIDE

    by_name = {v.name: v for v in catalog.variants()}
    for family, types in SPLIT_WIDE.items():
        for suffix, spans in types.items():
            for first, last, blocks in spans:
                v = by_name.get(f"{family}_online_split{suffix}{blocks}")
                assert v is not None, (family, suffix, blocks)
                assert v.spec.threads == 512 and first <= last <= v.max_cols, v.name
            assert all(a[1] < b[0] for a, b in itertools.pairwise(spans)), (family, suffix)


def test_a_misaligned_row_never_goes_to_a_cluster_push_kernel_of_an_op():
    from softmax_harness.dispatch.ladders import _misaligned_rooms

    ladder = ((49151, "f_online_split_bf16"), (65536, "f_cluster_push_bf16_c65536"),
              (73728, "f_cluster_push_bf16_c73728"), (2**20, "f_online_split_bf16"), (None, "f_block_bf16"))
    assert _misaligned_rooms(ladder, "_bf16") == (49151, 0, 0, 2**20, None)


def test_every_ops_rows_past_its_last_tile_or_cluster_go_to_its_online_split_kernel_up_to_2_20():
    """The rows past the last tile or cluster kept (fp32: the cluster sized 32768, but for the mask
    and causal forms, whose last tiles kept are sized 8192 and 16384, log_softmax, whose tiles
    end at 32768, and log_softmax's backward, whose block ends at 22528; 16 bits:
    the bias form's cluster push kernel sized 262144, the mask and causal forms' and log_softmax's
    tiles at 16384, the others' tiles at 32768, the backwards' push kernels between) up to 2^20 go
    over a group of blocks meeting once a row (the 16-bit mask form's from 16896 and the bias
    form's from 262145 on its 512-thread blocks), the longer ones to the block."""
    from softmax_harness import dispatch
    from softmax_harness.dispatch import ladders

    for op, family in ladders.LADDERS.items():
        for dtype, suffix in (("float32", ""), ("float16", "_f16"), ("bfloat16", "_bf16")):
            def chosen(n_cols, op=op, dtype=dtype):
                return dispatch.choose_op(op, n_cols, dtype=dtype).name
            if (family, suffix) == ("log_softmax_backward", ""):
                last, kernel = 22528, "log_softmax_backward_block_1024"
            elif (family, suffix) in (("scaled_mask", ""), ("scaled_causal", "")):
                last, kernel = (8192, "scaled_mask_onepass_c8192") if family == "scaled_mask" else \
                    (16384, "scaled_causal_onepass_c16384")
            elif (family == "log_softmax" and not suffix) or (suffix and family.endswith("backward")):
                last, kernel = 32768, f"{family}_onepass{suffix}_c32768"
            elif suffix and family != "scaled_bias":
                last, kernel = 16384, f"{family}_onepass{suffix}_c16384"
            elif suffix:
                last, kernel = 262144, f"{family}_cluster_push{suffix}_c262144"
            else:
                last, kernel = 32768, f"{family}_cluster_c32768"
            assert chosen(last) == kernel
            split = f"{family}_online_split{suffix}"
            wide = {"scaled_mask": "_b512", "scaled_bias": "_s56"}.get(family, "") if suffix else ""
            assert chosen(last + 1) == split + wide * (family == "scaled_bias")
            assert chosen(2**20) == split + wide
            assert chosen(2**20 + 1).startswith(f"{family}_block")


def _few(n_cols, n_rows, dtype="float32", aligned=True):
    from softmax_harness import dispatch

    return dispatch.choose(n_cols, dtype=dtype, aligned=aligned, n_rows=n_rows).name


def test_a_few_long_rows_go_to_the_forward_cluster_kernel_sized_for_them():
    assert _few(151935, 2) == "cluster_push_c155648"
    assert _few(120000, 8) == "cluster_push_c131072"
    assert _few(200000, 8) == _few(262144, 8) == "cluster_push_c262144"
    # many rows, 2^21 elements passed, short rows, rows past the clusters and an unknown count
    # keep the table
    assert _few(180000, 12) == _few(180000, None) == "cluster16_push_c262144"
    assert _few(262144, 9) == _few(262144, None) == "cluster16_push_c262144"
    assert _few(100000, 17) == "split_row_smem_f32"
    assert _few(31999, 1) == "cluster2_push_c32768"  # shorter rows: a small batch's, not the 8 blocks
    assert _few(32000, 2) == _few(32768, 16) == "cluster_push_c65536"
    assert _few(32000, 2, "bfloat16") == "cluster_push_bf16_c65536_keep"  # 16 bits: see KEPT
    assert _few(32768, 16, "float16") == "cluster_push_f16_c65536_keep"
    assert _few(40000, 17, "float16") == _few(40000, None, "float16") == "split_row_smem_f16_b512"
    assert _few(262145, 1) == "split_row_smem_f32"
    assert _few(100000, 0) == "split_row_smem_f32"


def test_one_long_row_goes_over_the_cluster_of_16_blocks_sized_to_it():
    assert _few(151936, 1) == "cluster16_push_c163840"
    assert _few(32000, 1) == _few(65536, 1) == "cluster16_push_c65536"
    assert _few(32000, 1, "bfloat16") == "cluster16_push_bf16_c65536_keep"  # 16 bits: see KEPT
    assert _few(128256, 1, "float16") == "cluster16_push_f16_c131072_keep"
    # the 16-bit sizes 163840 and 262144 on 256 threads
    assert _few(200000, 1, "bfloat16") == _few(262144, 1, "bfloat16") == \
        "cluster16_push_bf16_c262144_b256_keep"
    assert _few(151936, 1, "float16") == "cluster16_push_f16_c163840_b256_keep"
    assert _few(65535, 1, aligned=False) == "cluster16_push_c131072"  # no room for the shift
    assert _few(31999, 1) == "cluster2_push_c32768"
    assert _few(262145, 1) == "split_row_smem_f32"


def test_rows_of_a_32000_vocabulary_go_over_8_blocks_up_to_a_few_dozen():
    assert _few(32000, 64) == _few(32768, 17) == "cluster_push_c65536"
    assert _few(32000, 64, "bfloat16") == "cluster_push_bf16_c65536_keep"
    assert _few(32768, 33, "float16") == "cluster_push_f16_c65536_keep"
    assert _few(32000, 65) == _few(32768, 256) == "cluster2_push_c32768"  # past them, a cluster of 2
    assert _few(32000, 65, "bfloat16") == "cluster2_push_bf16_c32768_keep"  # 16 bits: 65-160 rows
    assert _few(32000, 161, "bfloat16") == "cluster2_push_bf16_c32768"
    assert _few(32000, 1025) == _few(32000, None) == "onepass_vec4_c32768"
    assert _few(31999, 64) == "cluster2_push_c32768"


def test_a_few_rows_take_the_cluster_size_that_holds_them():
    assert _few(65536, 2) == _few(32769, 8) == "cluster_push_c65536"
    assert _few(65533, 2, aligned=False) == "cluster_push_c65536"
    assert _few(65535, 2, aligned=False) == "cluster_push_c73728"  # no room for the shift
    assert _few(80000, 4, "bfloat16") == "cluster_push_bf16_c98304"
    assert _few(110000, 16, "float16") == "cluster_push_f16_c131072_keep"
    assert _few(140000, 8, "bfloat16") == "cluster_push_bf16_c163840"
    assert _few(100000, 17) == _few(100000, None) == "split_row_smem_f32"


def test_a_few_16_bit_rows_take_the_cluster_kernels_that_keep_their_exponentials():
    # keep_latency_h100.jsonl, keep_bounds_h100.jsonl: the 16 blocks up to 32 rows, the 8 blocks up
    # to 64 (FEW_ROWS and SHORT_FEW_ROWS take them no further but for rows of 32000-32768), never
    # fp32, whose tiles keep them anyway
    for dtype, short in (("bfloat16", "_bf16"), ("float16", "_f16")):
        assert _few(151936, 1, dtype) == _few(151936, 32, dtype) == f"cluster16_push{short}_c163840_b256_keep"
        assert _few(151936, 33, dtype) == f"cluster16_push{short}_c163840_b256"
        assert _few(32000, 64, dtype) == _few(65536, 2, dtype) == f"cluster_push{short}_c65536_keep"
        assert _few(100000, 4, dtype) == f"cluster_push{short}_c131072_keep"
        assert _few(80000, 4, dtype) == f"cluster_push{short}_c98304"  # no kernel keeps them there
        assert _few(151936, None, dtype) == f"cluster16_push{short}_c163840_b256"
    assert _few(151936, 1) == "cluster16_push_c163840" and _few(32000, 64) == "cluster_push_c65536"


def test_more_rows_go_over_16_blocks_where_those_measured_faster():
    # few_rows_cluster16.jsonl and few_rows_cluster16_rows.jsonl: fp32 from 16 rows to 256
    assert _few(151936, 16) == _few(155648, 256) == "cluster16_push_c163840"
    assert _few(151936, 8) == _few(151936, 2) == "cluster_push_c155648"  # the 8 blocks ahead at 8 rows
    assert _few(128256, 16) == _few(114688, 256) == "cluster16_push_c131072"
    assert _few(262144, 16) == _few(229376, 64) == "cluster16_push_c262144"
    assert _few(128256, 8) == "cluster_push_c131072"  # the 8 blocks ahead at 8 rows
    assert _few(262144, 8) == "cluster_push_c262144"
    # past 2^21 elements or 256 rows the table's: many rows over the 16 blocks (PUSH16_FROM)
    assert _few(262144, 15) == "cluster16_push_c262144"
    assert _few(151936, 257) == _few(151936, None) == "cluster16_push_c163840"
    # 16 bits: 128256 and 151936 from 2 rows to 256 (past them the table's: the 8 blocks at 128256),
    # 262144 from 16 rows, the sizes 163840 and 262144 on 256 threads (cluster16_b256.jsonl)
    assert _few(128256, 33, "bfloat16") == "cluster16_push_bf16_c131072"  # (fewer: KEPT's)
    assert _few(110592, 64, "float16") == _few(110592, 256, "float16") == "cluster16_push_f16_c131072"
    assert _few(128256, 256, "bfloat16") == "cluster16_push_bf16_c131072"
    assert _few(128256, 257, "bfloat16") == "cluster_push_bf16_c131072"
    assert _few(110592, 2, "float16") == "cluster16_push_f16_c131072_keep"
    assert _few(151936, 33, "bfloat16") == _few(151936, 256, "bfloat16") == "cluster16_push_bf16_c163840_b256"
    assert _few(151936, 33, "float16") == "cluster16_push_f16_c163840_b256"
    assert _few(262144, 33, "bfloat16") == _few(262144, 256, "bfloat16") == "cluster16_push_bf16_c262144_b256"
    assert _few(262144, 16, "bfloat16") == "cluster16_push_bf16_c262144_b256_keep"
    assert _few(262144, 8, "bfloat16") == "cluster_push_bf16_c262144_keep"  # the 8 blocks ahead at 8 rows
    # and 2-6 rows of 188416-262144 (rows16_h100.jsonl), where 7 and 8 rows keep the 8 blocks
    for dtype, short in (("bfloat16", "bf16"), ("float16", "f16")):
        assert _few(188416, 2, dtype) == _few(200000, 4, dtype) == _few(262144, 6, dtype) == \
            f"cluster16_push_{short}_c262144_b256_keep"
        assert _few(262144, 7, dtype) == _few(200000, 8, dtype) == f"cluster_push_{short}_c262144_keep"
        assert _few(188415, 4, dtype) == f"cluster_push_{short}_c262144_keep"
    assert _few(262144, 257, "bfloat16") == "cluster_push_bf16_c262144"  # level on many rows
    # a misaligned row with no room for its shift in the size takes the 8 blocks' larger one
    assert _few(163840, 8, "bfloat16", aligned=False) == "cluster_push_bf16_c262144_keep"


def test_many_long_rows_go_over_16_blocks_where_those_measured_faster():
    # cluster16_many_rows.jsonl, cluster16_b256_many_rows.json: ~1 GiB of rows, the 16 blocks
    # beside the 8 and the split-row kernel
    assert _few(110592, None) == _few(128256, None) == _few(131072, None) == "cluster16_push_c131072"
    assert _few(131073, None) == _few(140000, None) == _few(163840, None) == "cluster16_push_c163840"
    assert _few(163841, None) == _few(180000, None) == _few(262144, None) == "cluster16_push_c262144"
    # 16-bit rows of 110592-131072 on the 8 blocks, as the H200 ran them faster (runs 0037, 0049)
    assert _few(110592, None, "bfloat16") == _few(131072, None, "bfloat16") == "cluster_push_bf16_c131072"
    assert _few(128256, None, "float16") == "cluster_push_f16_c131072"
    assert _few(140000, None, "float16") == _few(163840, None, "float16") == "cluster16_push_f16_c163840_b256"
    # from 163841 the 16-bit rows stay on the 8 blocks sized 262144, no longer the split-row kernel
    assert _few(163841, None, "bfloat16") == _few(180000, None, "bfloat16") == "cluster_push_bf16_c262144"
    assert _few(262144, None, "float16") == "cluster_push_f16_c262144"
    # not measured below 110592: as before
    assert _few(110591, None) == "split_row_smem_f32"
    assert _few(100000, None, "bfloat16") == "split_row_smem_bf16"
    # a misaligned row with no room for its shift takes the next size
    assert _few(131072, None, aligned=False) == "cluster16_push_c163840"
    assert _few(262144, None, aligned=False) == "split_row_smem_f32"


def test_a_few_rows_whose_sized_cluster_kernel_is_staged_keep_the_table(monkeypatch):
    from softmax_harness import dispatch
    from softmax_harness.dispatch import choice

    staged = {"cluster_push_c131072", "cluster16_push_c131072", "cluster16_push_c163840"}
    verified = {k: v for k, v in choice.by_name().items() if k not in staged}
    monkeypatch.setattr(choice, "by_name", lambda: verified)
    choice._choose.cache_clear()
    try:
        # the table's next entry: the 16 blocks of the size past the staged ones
        assert dispatch.choose(120000, dtype="float32", n_rows=2).name == "cluster16_push_c262144"
        assert dispatch.choose(262144, dtype="float32", n_rows=2).name == "cluster_push_c262144"
        # one row whose cluster of 16 is staged: the 8 blocks sized to it
        assert dispatch.choose(151936, dtype="float32", n_rows=1).name == "cluster_push_c155648"
    finally:
        choice._choose.cache_clear()


def test_a_small_batch_of_short_rows_takes_the_tile_measured_faster_for_it():
    # tile_1024_rows.jsonl: fp32 rows of 900-1024 on 64 threads of 16 floats up to 16384 rows
    assert _few(1024, 4096) == _few(900, 16384) == _few(876, 1) == "onepass_vec4_c1024_b64"
    assert _few(1024, 16385) == _few(1024, None) == _few(900, 0) == "onepass_vec4_c1024_b128"
    assert _few(875, 4096) == "onepass_vec4_c1024_b64"
    assert _few(1025, 4096) == "onepass_vec4_c2048"
    # half16_blocks_rows_h100.jsonl: 16-bit rows of 800-1024 on 128 threads of 8 up to 1024 rows,
    # of 960-1024 on 64 of 16 up to 4096, on a warp a row past those
    for dtype, short in (("bfloat16", "bf16"), ("float16", "f16")):
        assert _few(1024, 8, dtype) == _few(800, 1024, dtype) == f"onepass_{short}_c1024_b128"
        assert _few(1024, 1025, dtype) == _few(960, 4096, dtype) == f"onepass_{short}_c1024_b64"
        assert _few(1024, 4097, dtype) == _few(959, 2048, dtype) == _few(799, 256, dtype) == \
            _few(1024, None, dtype) == f"onepass_{short}_c1024"
    # cluster_pair_latency_h100.jsonl, cluster_pair_16384_latency_h100.jsonl: rows of 8193-32768
    # up to 1024 rows on a cluster of 2 blocks, but rows of 32000 or more up to 32 rows in 16 bits,
    # 64 in fp32, on the cluster of 8 sized 65536 (short_few_rows_boundary_h100.jsonl,
    # cluster_pair_16384_rows_h100.jsonl)
    # (16 bits up to 128 rows of 16385-32768, 160 from 24576 columns, on the pair that keeps its
    # exponentials: cluster2_keep_h100.jsonl, cluster2_keep_lengths_h100.jsonl)
    for dtype, short in (("float32", ""), ("bfloat16", "_bf16"), ("float16", "_f16")):
        tile = "onepass_vec4" if dtype == "float32" else f"onepass{short}"
        kept = "" if dtype == "float32" else "_keep"
        assert _few(8193, 1, dtype) == _few(12000, 256, dtype) == _few(16384, 1024, dtype) == \
            f"cluster2_push{short}_c16384"
        assert _few(16385, 1, dtype) == _few(20000, 128, dtype) == _few(24576, 160, dtype) == \
            _few(32768, 160, dtype) == f"cluster2_push{short}_c32768{kept}"
        assert _few(16385, 129, dtype) == _few(24575, 160, dtype) == _few(24576, 161, dtype) == \
            _few(32768, 1024, dtype) == f"cluster2_push{short}_c32768"
        assert _few(32000, 1025, dtype) == _few(16385, None, dtype) == f"{tile}_c32768"
        assert _few(12000, 1025, dtype) == _few(8193, None, dtype) == f"{tile}_c16384"
        assert _few(8192, 1, dtype) == f"{tile}_c8192"
    for dtype, short in (("bfloat16", "bf16"), ("float16", "f16")):
        assert _few(32000, 64, dtype) == f"cluster_push_{short}_c65536_keep"
        assert _few(32000, 65, dtype) == _few(32000, 160, dtype) == f"cluster2_push_{short}_c32768_keep"
        assert _few(32000, 161, dtype) == f"cluster2_push_{short}_c32768"
    assert _few(32000, 64) == "cluster_push_c65536"
    # tile_4096_threads_latency.jsonl: fp32 rows of 2049-4096 on 256 threads of 16 up to 16384 rows
    assert _few(4096, 1) == _few(3000, 256) == _few(4096, 16384) == "onepass_vec4_c4096_b256"
    assert _few(4096, 16385) == _few(3000, None) == "onepass_vec4_c4096"
    assert _few(4096, 8, "bfloat16") == "onepass_bf16_c4096"


def test_dispatch_picks_the_tile_shape_measured_faster_within_a_size():
    from softmax_harness import dispatch

    # short_rows_2_ab.json: fp32 rows of 513 ran faster on a warp, of 600-850 on a 64-thread
    # block; 16-bit rows up to 505 (any shift fits 512) on 8 lanes of 64, of 506-512 on 16 of 32.
    # shapes_1024_16384_ab.json: fp32 rows of 900-1024 on a 128-thread block, of 15000-16384
    # on the safe (two-reduction) tile, of 9000-13000 on the online one.
    assert dispatch.choose(513, dtype="float32").name == "onepass_vec4_c1024"
    assert dispatch.choose(600, dtype="float32").name == "onepass_vec4_c1024_b64"
    assert dispatch.choose(850, dtype="float32").name == "onepass_vec4_c1024_b64"
    assert dispatch.choose(900, dtype="float32").name == "onepass_vec4_c1024_b128"
    assert dispatch.choose(1024, dtype="float32", n_rows=65536).name == "onepass_vec4_c1024_b128"
    # tile_4096_threads_bw.json: fp32 rows of 2049-2560 on 256 threads of 16, from 2816 on 512 of 8
    assert dispatch.choose(2049, dtype="float32", aligned=False).name == "onepass_vec4_c4096_b256"
    assert dispatch.choose(2560, dtype="float32").name == "onepass_vec4_c4096_b256"
    assert dispatch.choose(2816, dtype="float32").name == "onepass_vec4_c4096"
    assert dispatch.choose(13000, dtype="float32").name == "onepass_vec4_c16384"
    assert dispatch.choose(15000, dtype="float32").name == "safe_onepass_vec4_c16384"
    assert dispatch.choose(500, dtype="float16", aligned=False).name == "onepass_f16_c512_l8"
    assert dispatch.choose(505, dtype="bfloat16", aligned=False).name == "onepass_bf16_c512_l8"
    assert dispatch.choose(506, dtype="float16", aligned=False).name == "onepass_f16_c512"
    assert dispatch.choose(129, dtype="bfloat16").name == "onepass_bf16_c256"
    # c64_tiles.json: 16-bit rows of 33-64 on the tile sized 64, aligned 40, 48 and 56 on 4 lanes of 16
    assert dispatch.choose(33, dtype="bfloat16", aligned=False).name == "onepass_bf16_c64"
    assert dispatch.choose(64, dtype="bfloat16").name == "onepass_bf16_c64"
    assert dispatch.choose(65, dtype="float16", aligned=False).name == "onepass_f16_c128"
    for c in (40, 48, 56):
        assert dispatch.choose(c, dtype="float16").name == "onepass_f16_c64_l4"
        assert dispatch.choose(c, dtype="bfloat16", aligned=False).name == "onepass_bf16_c64"
    # c128_lanes_every.json: aligned 16-bit rows of 72, 80, 96 and 112 on 4 lanes of 32, rows of
    # 127 on 16 lanes of 8, the rest of 65-128 on 8 lanes of 16
    for c in (72, 80, 96, 112):
        assert dispatch.choose(c, dtype="float16").name == "onepass_f16_c128_l4"
        assert dispatch.choose(c, dtype="bfloat16", aligned=False).name == "onepass_bf16_c128"
    for c in (81, 88, 104, 120, 126):
        assert dispatch.choose(c, dtype="bfloat16").name == "onepass_bf16_c128"
    assert dispatch.choose(72, dtype="float32").name == "onepass_vec4_c128"
    assert dispatch.choose(127, dtype="bfloat16", aligned=False).name == "onepass_bf16_c128_l16"
    assert dispatch.choose(128, dtype="float16").name == "onepass_f16_c128"  # the H200's (run 0049)
    assert dispatch.choose(257, dtype="float16").name == "onepass_f16_c512_l8"


def test_dispatch_leaves_room_for_the_shift_of_misaligned_rows():
    from softmax_harness import dispatch

    # fp32 moves 4 elements a vector, 16-bit types 8: a misaligned row needs up to 3 or 7 more,
    # left only from the entries where the next kernel measured faster on such rows.
    assert dispatch.choose(32768, dtype="float32").name == "onepass_vec4_c32768"
    assert dispatch.choose(32765, dtype="float32", aligned=False).name == "onepass_vec4_c32768"
    assert dispatch.choose(32766, dtype="float32", aligned=False).name == "split_row_smem_f32"
    assert dispatch.choose(16383, dtype="float32", aligned=False).name == "safe_onepass_vec4_c16384"
    assert dispatch.choose(1023, dtype="float32", aligned=False).name == "onepass_vec4_c1024_b128"
    assert dispatch.choose(1023, dtype="float16", aligned=False).name == "onepass_f16_c1024"
    assert dispatch.choose(127, dtype="bfloat16", aligned=False).name == "onepass_bf16_c128_l16"
    assert dispatch.choose(32761, dtype="float16", aligned=False).name == "onepass_f16_c32768"
    assert dispatch.choose(32762, dtype="bfloat16", aligned=False).name == "split_row_smem_bf16_b512"
    assert dispatch.choose(53240, dtype="float16", aligned=False).name == "split_row_smem_f16_b512"
    assert dispatch.choose(57344, dtype="float16", aligned=False).name == "cluster_push_f16_c65536"
    assert dispatch.choose(65536, dtype="float16").name == "cluster_push_f16_c65536"
    assert dispatch.choose(65530, dtype="float16", aligned=False).name == "cluster_push_f16_c73728"
    assert dispatch.choose(65535, dtype="float32", aligned=False).name == "cluster_push_c73728"
    assert dispatch.choose(65533, dtype="float32", aligned=False).name == "cluster_push_c65536"
    assert dispatch.choose(131066, dtype="bfloat16", aligned=False).name == "cluster16_push_bf16_c163840_b256"
    assert dispatch.choose(163834, dtype="bfloat16", aligned=False).name == "cluster_push_bf16_c262144"
    assert dispatch.choose(32768, dtype="bfloat16", aligned=True).name == "onepass_bf16_c32768"
    assert dispatch.choose(2**21, dtype="bfloat16", aligned=False).name == "split_row_smem_bf16"
    assert set(dispatch.forward.ROOM_FOR_SHIFT_FROM) == set(dispatch.TABLE)


@pytest.mark.parametrize("ptr,n_cols,dtype,aligned", [
    (0, 1024, "float32", True), (4, 1024, "float32", False), (0, 1023, "float32", False),
    (0, 1000, "float16", True), (0, 1001, "float16", False), (16, 8, "float16", True)])
def test_rows_aligned_reads_the_pointer_and_the_row_length(ptr, n_cols, dtype, aligned):
    from types import SimpleNamespace

    from softmax_harness import dispatch

    x = SimpleNamespace(data=SimpleNamespace(ptr=ptr), shape=(3, n_cols), ndim=2, dtype=np.dtype(dtype))
    assert dispatch.rows_aligned(x) is aligned


def test_dispatch_names_what_it_cannot_do():
    from softmax_harness import dispatch

    with pytest.raises(LookupError, match="float16 softmax variant for rows of 3000000 columns "
                                          r"\(the longest supported: 2097152\)"):
        dispatch.choose(3_000_000, dtype="float16")
    with pytest.raises(TypeError, match="dtype int32 is not supported"):
        dispatch.choose(100, dtype="int32")


@pytest.mark.parametrize("n_rows", [1, 3, 7, 100, 256, 4096, 100_000])
@pytest.mark.parametrize("n_cols", [1, 100, 19424, 19425, 65536, 131072, 2**20, 2**21])
def test_split_plan_fits_the_grid_and_the_tile(n_rows, n_cols):
    from softmax_harness.variant import split_plan

    tile, blocks, threads, chunk, line = 19424, 528, 256, 4, 32
    groups, parts = split_plan(n_rows, n_cols, tile, blocks, threads, chunk)
    per_part = -(-n_cols // parts)
    slice_ = -(-per_part // line) * line  # the kernel's slice: whole 128-byte lines
    assert 1 <= groups <= n_rows and groups * parts <= blocks
    assert slice_ <= tile, "a block holds no more than its tile"
    # Rounds times elements a block holds: never more than with the fewest blocks a row (the
    # left-over blocks only ever take work off the others).
    least = -(-n_cols // tile)
    fewest_parts = -(-n_rows // min(n_rows, blocks // least)) * -(-n_cols // least)
    assert -(-n_rows // groups) * per_part <= fewest_parts


def test_split_plan_uses_the_blocks_left_over():
    from softmax_harness.variant import split_plan

    # 2^20 fp32 columns need 54 blocks of 19424: 9 rows at a time on 54 blocks each would idle
    # 42 of 528 blocks, on 58 blocks each 6; 2^21 columns: 4 rows on 108 blocks would idle 96.
    assert split_plan(256, 2**20, 19424, 528, 256, 4) == (9, 58)
    assert split_plan(128, 2**21, 19424, 528, 256, 4) == (4, 132)
    assert split_plan(4096, 65536, 19424, 528, 256, 4) == (132, 4)
    # Few rows: spread over the grid, down to one 16-byte chunk a thread.
    assert split_plan(2, 65536, 19424, 528, 256, 4) == (2, 64)


def test_split_plan_names_a_row_too_long_for_the_device():
    from softmax_harness.variant import split_plan

    with pytest.raises(ValueError, match="rows of 2097152 columns need 108 resident blocks of 19424 "
                                         "elements; this device holds 100"):
        split_plan(1, 2**21, 19424, 100, 256, 4)
    with pytest.raises(ValueError, match="no block of it fits on a multiprocessor"):
        split_plan(1, 1000, 19424, 0, 256, 4)


def test_the_ops_take_other_lane_counts_only_at_the_aligned_lengths_measured():
    """``dispatch.ladders.OP_ALIGNED_TILES``: an aligned 16-bit row of a length measured faster on 4 lanes
    of 32 (or 2 of 16: the fused forms, the backwards) goes there; the same length misaligned, and
    a length between, keep the ladder's tile; every name is a declared variant of its op that
    takes the length."""
    from softmax_harness import dispatch

    names = {v.name: v for v in softmax_harness.variants()}
    for op, types in dispatch.ladders.OP_ALIGNED_TILES.items():
        for dtype, lengths in types.items():
            for n_cols, name in lengths.items():
                assert name in names and names[name].op.name == op and names[name].supports(n_cols, dtype)
                assert dispatch.choose_op(op, n_cols, dtype=dtype, aligned=True).name == name
                assert dispatch.choose_op(op, n_cols, dtype=dtype, aligned=False).name != name
    bias = "scaled_softmax_bias"
    assert dispatch.choose_op(bias, 96, dtype="bfloat16").name == "scaled_bias_onepass_bf16_c128_l4"
    assert dispatch.choose_op(bias, 88, dtype="bfloat16").name == "scaled_bias_onepass_bf16_c128"
    assert dispatch.choose_op("scaled_softmax_mask", 96, dtype="float32").name == "scaled_mask_onepass_c128"
    assert dispatch.choose_op("softmax_backward", 24, dtype="float16").name == "backward_onepass_f16_c32_l2"
    assert dispatch.choose_op("softmax_backward", 32, dtype="float16").name == "backward_onepass_f16_c32"
