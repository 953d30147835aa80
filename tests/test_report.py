"""The benchmark report, on a small run written here in pytest-benchmark's format."""

from __future__ import annotations

import json

from softmax_harness import report


def bench(kernel, c, seconds, copy_seconds, dtype=None):
    moved = 2 * 2**30
    info = {"kernel": kernel, "C": c, "N": 2**28 // c, "bytes": moved, "gbps": moved / seconds / 1e9,
            "copy_gbps": moved / copy_seconds / 1e9, "fraction_of_copy": copy_seconds / seconds}
    if dtype:  # runs before half precision recorded no dtype: they are float32
        info["dtype"] = dtype
    return {"group": f"C={c}", "name": f"{kernel}-{c}", "stats": {"median": seconds}, "extra_info": info}


def save(tmp_path, rows):
    path = tmp_path / "0001_run.json"
    path.write_text(json.dumps({"benchmarks": rows, "machine_info": {"node": "test"},
                                "commit_info": {"id": "abcdef1234"}, "datetime": "2026-11-30T00:00:00"}))
    return path


def fake_run(tmp_path):
    rows = [bench("copy", 32, 0.5e-3, 0.5e-3), bench("copy", 1024, 0.5e-3, 0.5e-3),
            bench("torch.softmax", 32, 1.0e-3, 0.5e-3), bench("torch.softmax", 1024, 0.52e-3, 0.5e-3),
            bench("fast", 32, 0.55e-3, 0.5e-3), bench("slow", 32, 2e-3, 0.5e-3),
            bench("slow", 1024, 0.6e-3, 0.5e-3),
            bench("copy", 32, 0.25e-3, 0.25e-3, "bfloat16"),
            bench("halfway", 32, 0.5e-3, 0.25e-3, "bfloat16")]
    return save(tmp_path, rows)


def test_table_marks_the_best_and_compares_with_torch(tmp_path):
    text = report.markdown(report.load(fake_run(tmp_path)))
    assert "| fast | **3905 (91%)** |  |" in text
    assert "| slow | 1074 (25%) | **3579 (83%)** |" in text
    assert "| 32 | fast | 3905 | 91% | 1.82x |" in text
    assert "| 1024 | slow | 3579 | 83% | 0.87x |" in text


def test_each_element_type_has_its_own_table(tmp_path):
    text = report.markdown(report.load(fake_run(tmp_path)))
    fp32, bf16 = text.split("## float32")[1].split("## bfloat16")
    assert "halfway" not in fp32 and "| halfway | **4295 (50%)** |" in bf16
    assert "| fast |" not in bf16


def test_each_kernel_is_judged_against_the_copy_timed_beside_it(tmp_path):
    rows = [bench("copy", 32, 0.5e-3, 0.5e-3), bench("early", 32, 0.55e-3, 0.5e-3),
            bench("late", 32, 0.6e-3, 0.55e-3)]  # the card slowed: its copy too
    text = report.markdown(report.load(save(tmp_path, rows)))
    assert "| early | **3905 (91%)** |" in text and "| late | 3579 (92%) |" in text
    assert "| copy | 4295 (105%) |" in text  # timed on its own, against the median of those beside
    assert "| copy timed beside each kernel: GB/s, slowest-fastest | 3905-4295 |" in text


def test_plot_is_written(tmp_path):
    import pytest

    pytest.importorskip("matplotlib")
    report.plot(report.load(fake_run(tmp_path)), tmp_path / "bench.png")
    assert (tmp_path / "bench.png").stat().st_size > 1000


def test_newest_run_without_runs_says_what_to_do(tmp_path):
    import pytest

    with pytest.raises(FileNotFoundError, match="--bench"):
        report.newest_run(tmp_path)


def test_a_saved_run_names_the_commit_it_was_told_and_the_gpu(tmp_path, monkeypatch):
    """On the device the tree is a copy whose git (if any) is stale: SOFTMAX_HARNESS_COMMIT wins,
    and the run records the GPU (empty without one)."""
    import subprocess
    import sys
    from pathlib import Path

    import pytest

    pytest.importorskip("pytest_benchmark")
    (tmp_path / "test_one.py").write_text("def test_x(benchmark):\n    benchmark(lambda: None)\n")
    monkeypatch.setenv("SOFTMAX_HARNESS_COMMIT", "0123456789abcdef")
    # pytest-benchmark saves nothing in a process it takes for an xdist worker (this one, under -n)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.setenv("PYTHONPATH", str(Path(report.__file__).parent.parent))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "softmax_harness.pytest_plugin",
                           "-p", "no:cacheprovider", str(tmp_path / "test_one.py"), "--benchmark-save=run",
                           f"--benchmark-storage=file://{tmp_path / 'store'}"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    (saved,) = (tmp_path / "store").rglob("*.json")
    data = json.loads(saved.read_text())
    assert data["commit_info"]["id"] == "0123456789abcdef" and not data["commit_info"]["dirty"]
    assert "gpu" in data["machine_info"]
    assert report.load(saved)["commit"]["id"] == "0123456789abcdef"


def test_the_device_option_names_the_device_in_the_title(tmp_path):
    from softmax_harness.cli import main

    source = fake_run(tmp_path)
    out = tmp_path / "out"
    assert main(["report", str(source), "--out", str(out), "--no-plot", "--device", "Card X"]) == 0
    assert (out / "bench.md").read_text().startswith("# Softmax bandwidth, ~1 GiB inputs (Card X,")
    assert main(["report", str(source), "--out", str(tmp_path / "plain"), "--no-plot"]) == 0
    assert "inputs (test," in (tmp_path / "plain" / "bench.md").read_text()  # the run's own node name


def test_every_line_of_the_plot_has_its_own_colour():
    colours = [style[1] for style in report.STYLES.values()]
    assert len(set(colours)) == len(colours) and "0.8" not in colours  # grey is every variant's


def test_an_op_besides_the_forward_has_a_table_of_its_own(tmp_path):
    def op_bench(kernel, seconds, copy_seconds, op="softmax_backward"):
        row = bench(kernel, 4096, seconds, copy_seconds)
        row["extra_info"].update(op=op, dtype="float32", dispatched="backward_onepass_c4096")
        return row

    rows = [bench("copy", 4096, 0.5e-3, 0.5e-3), bench("fast", 4096, 0.55e-3, 0.5e-3),
            op_bench("softmax_harness.softmax_backward", 0.8e-3, 0.75e-3),
            op_bench("torch.softmax_backward", 1.6e-3, 0.75e-3),
            op_bench("quack.softmax_backward", 0.6e-3, 0.75e-3)]
    run = report.load(save(tmp_path, rows))
    assert set(run["tables"]["float32"]) == {"copy", "fast"}  # the op's rows stay out of the forward's
    text = report.markdown(run)
    forward, backward = text.split("## softmax_backward")
    assert "softmax_harness.softmax_backward" not in forward
    assert "| dtype | C | dispatched variant | GB/s | % of copy | torch: % of copy | quack: % of copy | " \
           "vs the fastest peer |" in backward  # Liger did not run: no column
    # against the fastest peer, Quack's 0.6 ms: ours takes 0.8 ms
    assert "| float32 | 4096 | backward_onepass_c4096 | 2684 | 94% | 47% | 125% | 0.75x |" in backward


def test_of_several_runs_each_op_comes_from_the_last_that_measured_it(tmp_path):
    def op_bench(kernel, seconds, op, dispatched):
        row = bench(kernel, 4096, seconds, 0.5e-3)
        row["extra_info"].update(op=op, dtype="float32", dispatched=dispatched)
        return row

    first = tmp_path / "first"
    second = tmp_path / "second"
    first.mkdir(), second.mkdir()
    old = save(first, [bench("copy", 4096, 0.5e-3, 0.5e-3), bench("fast", 4096, 0.55e-3, 0.5e-3),
                       op_bench("softmax_harness.softmax_backward", 1e-3, "softmax_backward", "old_tile"),
                       op_bench("softmax_harness.log_softmax", 1e-3, "log_softmax", "kept")])
    new = second / "0002_new.json"
    new.write_text(json.dumps({"benchmarks": [bench("copy", 4096, 0.5e-3, 0.5e-3),
                                              op_bench("softmax_harness.softmax_backward", 0.5e-3,
                                                       "softmax_backward", "new_tile")],
                               "machine_info": {"node": "test"}, "commit_info": {"id": "fedcba9876"},
                               "datetime": "2026-12-01T00:00:00"}))
    text = report.markdown(report.combine([old, new]))
    forward, rest = text.split("## softmax_backward")
    backward, log = rest.split("## log_softmax")
    assert "commit fedcba9876" in text.splitlines()[0]  # the newest run in the title
    assert "| fast |" in forward and "commit abcdef1234" in forward  # the forward from the only run with it
    assert "new_tile" in backward and "old_tile" not in backward and "commit fedcba9876" in backward
    assert "kept" in log and "commit abcdef1234" in log


def test_runs_on_two_cards_name_each_sections_card(tmp_path):
    def on(card, name, rows):
        path = tmp_path / name
        machine = {"node": "host", "gpu": {"device": card}}
        path.write_text(json.dumps({"benchmarks": rows, "machine_info": machine,
                                    "commit_info": {"id": name[5:]}, "datetime": "2026-12-01T00:00:00"}))
        return path

    op = bench("softmax_harness.log_softmax", 4096, 0.5e-3, 0.5e-3)
    op["extra_info"].update(op="log_softmax", dtype="float32", dispatched="tile")
    forward = on("Card A", "0001_aaaa.json", [bench("fast", 4096, 0.55e-3, 0.5e-3)])
    ops = on("Card B", "0002_bbbb.json", [bench("copy", 4096, 0.5e-3, 0.5e-3), op])
    run = report.combine([forward, ops])
    text = report.markdown(run)
    title, rest = text.split("\n", 1)
    assert "Card A and Card B" in title
    fp32, log = rest.split("## log_softmax")
    assert "(Card A, commit aaaa" in fp32 and "Card B" not in fp32
    assert "(Card B, commit bbbb" in log
    assert report._device(run, "float32") == "Card A"  # the forward plot's panels


def test_small_batches_have_a_latency_and_a_host_overhead_table(tmp_path):
    def small(key, who, n, c, us, dtype="float32"):
        info = {key: who, "N": n, "C": c, "dtype": dtype, "us": us}
        return {"group": "small", "name": f"{who}-{n}x{c}", "stats": {"median": us / 1e6}, "extra_info": info}

    rows = [small("latency_of", "harness-torch", 8, 128256, 10.5),
            small("latency_of", "torch", 8, 128256, 45.0),
            small("latency_of", "torch", 1, 32000, 14.7, "bfloat16"),
            small("host_overhead_of", "harness-cupy", 1, 4096, 6.25),
            small("host_overhead_of", "torch", 1, 4096, 6.5),
            small("host_overhead_of", "harness-cupy-bound", 1, 4096, 4.75)]
    text = report.markdown(report.load(save(tmp_path, rows)))
    latency = text.split("## Small batches: latency (µs)")[1].split("##")[0]
    assert "| float32 | 8 x 128256 | **10.5** | 45.0 |" in latency
    assert "| bfloat16 | 1 x 32000 | n/a | **14.7** |" in latency
    assert latency.index("float32") < latency.index("bfloat16")
    host = text.split("## Small batches: host overhead (µs)")[1]
    assert "| dtype | N x C | harness-cupy | harness-cupy-bound | torch |" in host
    assert "| float32 | 1 x 4096 | 6.2 | **4.8** | 6.5 |" in host


def test_a_run_of_small_batches_alone_is_titled_so_and_draws_no_plot(tmp_path):
    row = {"group": "small", "name": "torch-1x4096", "stats": {"median": 5e-6},
           "extra_info": {"latency_of": "torch", "N": 1, "C": 4096, "dtype": "float32", "us": 5.0}}
    path = save(tmp_path, [row])
    from softmax_harness import cli

    assert cli.main(["report", str(path), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "bench.md").read_text().startswith("# Softmax, small batches (")
    assert not (tmp_path / "out" / "bench.png").exists()


def test_without_matplotlib_the_page_is_written_and_the_plot_named_in_one_line(tmp_path, monkeypatch, capsys):
    import importlib.util

    from softmax_harness import cli

    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else found(name, *a))
    assert cli.main(["report", str(fake_run(tmp_path)), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "bench.md").is_file() and not (tmp_path / "out" / "bench.png").exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "matplotlib is not installed" in err[0] and "--no-plot" in err[0]
