"""``softmax-harness check`` and the plugin on a project of someone else's, without a GPU: the
kernel compiled offline, callables through the battery, a planted defect named by the property
that catches it, a repro line that replays it, one line for every bad target (and exit 2, the
rest still checked)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from timeouts import waits_out_timeouts

from softmax_harness import gpu

pytestmark = pytest.mark.skipif(gpu.available(), reason="the CPU path (the GPU one runs on the H200)")

#: A user's module: a correct softmax, and one that leaves the last column unwritten.
MODULE = '''
import numpy as np

def good(x):
    m = x.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(x.astype(np.float64) - m)
        return (e / e.sum(axis=1, keepdims=True)).astype(x.dtype)

def last_column_skipped(x, out):
    out[:, :-1] = good(x)[:, :-1]

def three(a, b, c):
    pass

def typed(x):
    return good(x.astype(np.float32)).astype(x.dtype)

def on_gpu(x):
    return good(x)

on_gpu.__softmax_harness__ = {"arrays": "torch", "device": "cuda"}

def with_cupy(x):
    import cupy

    return cupy.asnumpy(cupy.asarray(good(x)))

typed.__softmax_harness__ = {"arrays": "numpy", "dtype": ["float32", "float16"]}
'''

#: The seed post's kernel order, (out, in, N, C), declared with args=.
HEADER = ("// @variant name=reversed kernel=reversed algorithm=safe geometry=thread-per-row threads=128 "
          "args=out,in,rows,cols\n")
KERNEL = HEADER + """extern "C" __global__ void reversed(float* out, const float* in, int N, int C) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= N) return;
    const float* x = in + (size_t)row * C;
    float* y = out + (size_t)row * C;
    float m = __int_as_float(0xff800000u), d = 0.0f;
    for (int i = 0; i < C; ++i) m = fmaxf(m, x[i]);
    for (int i = 0; i < C; ++i) d += expf(x[i] - m);
    for (int i = 0; i < C; ++i) y[i] = expf(x[i] - m) / d;
}
"""


def project(tmp_path: Path) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "usermod.py").write_text(MODULE)
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "reversed.cu").write_text(KERNEL)
    (tmp_path / "kernels" / "helper.cu").write_text("__device__ int helper() { return 1; }\n")
    return tmp_path


#: The folder that holds the package under test, for a child started in a project folder (the
#: device's copy of the tree is not installed).
SOURCE = str(Path(gpu.__file__).resolve().parent.parent)


def check(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [SOURCE, os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "softmax_harness", "check", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_check_names_the_defect_by_its_property_and_the_repro_replays_it(tmp_path):
    where = project(tmp_path)
    done = check(where, "kernels", "usermod:good", "usermod:last_column_skipped", "--select", "classic",
                 "--profile", "ci")
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "skipped: kernels/helper.cu: no '// @variant ...' header line" in out
    assert re.search(r"kernels/reversed.cu sm_90 reversed: \d+ registers, 0 bytes spilled, "
                     r"16 blocks of 128 threads a multiprocessor", out), out
    assert "needs a GPU, not run: the battery on 1 kernel (" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("usermod:")}
    head = next(line.split() for line in out.splitlines() if line.startswith("subject "))
    assert set(rows["usermod:good"][1:10]) == {"pass"}, rows
    bad = dict(zip(head, rows["usermod:last_column_skipped"], strict=False))
    assert bad["written"] == "FAIL" and bad["matches"] == "pass"  # matches_reference skips unwritten
    assert dict(zip(head, rows["usermod:good"], strict=False))["stride"] == "pass"  # a view of a wider array
    assert "all_written failed for usermod:last_column_skipped" in out
    repro = next(line.split("reproduce: ", 1)[1] for line in out.splitlines() if "reproduce: " in line)
    assert repro.startswith("python -m softmax_harness repro --subject usermod:last_column_skipped --recipe ")
    again = subprocess.run([sys.executable, *shlex.split(repro)[1:]], cwd=where, capture_output=True,
                           text=True, timeout=120)
    assert again.returncode == 1 and "all_written failed for usermod:last_column_skipped" in again.stdout
    folder = Path(out.split("run folder: ")[1].splitlines()[0])
    assert folder.parent == where / "softmax-harness-runs" and (folder / "pytest.log").is_file()
    import json  # the same verdicts for a CI to read

    verdict = json.loads((folder / "verdicts.json").read_text())
    assert verdict["exit"] == 1 and verdict["ok"] is False and verdict["profile"] == "ci"
    by = {v["subject"]: v for v in verdict["subjects"]}
    assert set(by["usermod:good"]["properties"].values()) == {"pass"}
    assert by["usermod:last_column_skipped"]["properties"]["all_written"] == "FAIL"
    assert by["usermod:last_column_skipped"]["tests"] == 6
    assert list(verdict["not_run"]) == ["reversed@kernels"]
    assert verdict["not_run"]["reversed@kernels"].startswith("needs a GPU: ")
    assert verdict["skipped"] == ["kernels/helper.cu: no '// @variant ...' header line"]
    assert any("all_written failed for usermod:last_column_skipped" in f for f in verdict["failures"])


def test_checks_started_in_the_same_second_write_to_run_folders_of_their_own(tmp_path):
    from softmax_harness.check import _new_run_folder

    folders = [_new_run_folder(tmp_path / "runs") for _ in range(3)]  # (within one second, mostly)
    assert len(set(folders)) == 3 and all(f.is_dir() and f.parent == tmp_path / "runs" for f in folders)


def test_the_installed_command_imports_a_callable_from_the_current_folder(tmp_path):
    """The ``softmax-harness`` script, unlike ``python -m``, does not put the current folder on
    ``sys.path``: a repro line's ``--subject module:function`` must import from there all the same."""
    where = project(tmp_path)
    script = ("import os, sys; sys.path[:] = [p for p in sys.path if p not in ('', os.getcwd())]; "
              "from softmax_harness.cli import main; sys.exit(main(sys.argv[1:]))")
    recipe = '{"n_cols":5,"rows":[{"values":"randn","mask":"none"}],"n_rows":1}'
    done = subprocess.run([sys.executable, "-c", script, "repro", "--subject", "usermod:good", "--recipe",
                           recipe], cwd=where, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "all properties hold" in done.stdout, done.stdout + done.stderr


def test_a_correct_callable_passes_and_exits_0(tmp_path):
    done = check(project(tmp_path), "usermod:good", "usermod:good", "--select", "classic", "--profile", "ci")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all checks passed" in done.stdout
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith("usermod:good ")]
    assert len(rows) == 1 and rows[0][-4] == "6", done.stdout  # named twice, checked once
    written = {p.name for p in tmp_path.iterdir()} - {"usermod.py", "kernels", "__pycache__"}
    assert written == {"softmax-harness-runs"}, written  # Hypothesis' storage goes in it too


def test_a_kernel_whose_parameters_are_not_its_headers_is_named_and_not_run(tmp_path):
    where = project(tmp_path)
    (where / "kernels" / "wide.cu").write_text(
        "// @variant name=wide kernel=wide algorithm=safe geometry=thread-per-row threads=128\n"
        'extern "C" __global__ void wide(const float* x, float* y, long long n, long long c) { }\n')
    done = check(where, "kernels/wide.cu")
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("kernels/wide.cu wide: kernel 'wide' takes 4 parameters of 8, 8, 8, 8 bytes; its header "
            "passes 4 (8, 8, 4, 4 bytes") in done.stdout
    assert "not run: wide@kernels (a kernel unlike its header, above)" in done.stdout


def test_a_kernel_that_does_not_compile_or_is_not_in_its_file_is_named_and_a_pass_says_what_ran(tmp_path):
    where = project(tmp_path)
    (where / "kernels" / "broken.cu").write_text(HEADER.replace("reversed", "broken") + 'extern "C" '
                                                 "__global__ void broken(float* out) { this is not C }\n")
    mangled = "__global__ void mangled(float* out, const float* in, int N, int C) {}\n"  # not extern "C"
    (where / "kernels" / "mangled.cu").write_text(HEADER.replace("reversed", "mangled") + mangled)
    done = check(where, "kernels/broken.cu", "kernels/mangled.cu")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "kernels/broken.cu sm_90: does not compile: kernels/broken.cu(2): error: " in done.stdout
    assert "kernels/mangled.cu mangled: kernel 'mangled' is not in the compiled file (is it extern " \
        '"C" __global__?)' in done.stdout
    assert "not run: mangled@kernels (a kernel unlike its header, above)" in done.stdout
    good = check(where, "kernels/reversed.cu")  # compiled and agreeing: what ran passed, not the battery
    assert good.returncode == 0 and good.stdout.endswith("all checks that ran passed (the rest: not run, "
                                                         "above)\n"), good.stdout
    (where / "fake" / "cuda").mkdir(parents=True)  # a machine without cuda-bindings checks nothing here
    (where / "fake" / "cuda" / "__init__.py").write_text("raise ImportError('no cuda-bindings here')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(where / "fake"), *sys.path])}
    bare = subprocess.run([sys.executable, "-m", "softmax_harness", "check", "kernels/reversed.cu"],
                          cwd=where, env=env, capture_output=True, text=True, timeout=600)
    assert bare.returncode == 2 and "offline compile skipped: it needs cuda-bindings" in bare.stdout
    assert "offline compile (NVRTC" not in bare.stdout  # no heading for what never ran
    assert bare.stdout.endswith("nothing was checked (above: what it needs)\n"), bare.stdout


def test_the_offline_compile_reports_each_file_as_it_is_compiled(tmp_path, monkeypatch):
    """The bundled kernels take minutes of NVRTC: each file's lines reach ``report`` when that file
    is done, before the next one compiles, and are the lines returned."""
    pytest.importorskip("cuda.bindings.nvrtc", reason="the offline compile needs cuda-bindings")
    from softmax_harness import check as command
    from softmax_harness import compiler

    where = project(tmp_path)
    (where / "kernels" / "second.cu").write_text(KERNEL.replace("reversed", "second"))
    reported, compiles = [], []
    nvrtc = compiler.compile_offline

    def watched(path, *args):  # how many lines were reported when each compile began
        compiles.append((path.name, len(reported)))
        return nvrtc(path, *args)

    monkeypatch.setattr(compiler, "compile_offline", watched)
    files = [where / "kernels" / "reversed.cu", where / "kernels" / "second.cu"]
    lines, ok, unfit = command.compile_offline(files, report=reported.append)
    assert ok and not unfit and reported == lines and len(lines) == 4  # a kernel a file, sm_80 and sm_90
    assert compiles == [("reversed.cu", 0), ("reversed.cu", 0), ("second.cu", 2), ("second.cu", 2)]


def test_a_callable_that_runs_on_a_gpu_alone_is_not_run_without_one_as_a_kernel_is_not(tmp_path):
    where = project(tmp_path)
    done = check(where, "usermod:on_gpu", "usermod:good", "--select", "classic", "--profile", "ci")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "needs a GPU, not run: subject 'usermod:on_gpu': device=cuda, and no CUDA device is visible" \
        in done.stdout
    assert done.stdout.endswith("all checks that ran passed (the rest: not run, above)\n"), done.stdout
    assert not done.stderr and "usermod:on_gpu " not in done.stdout  # no row: nothing of it ran
    plugin = subprocess.run([sys.executable, "-m", "pytest", "-p", "softmax_harness.pytest_plugin", "-p",
                             "no:cacheprovider", "-q", "-rs", "--subject", "usermod:on_gpu", "-k", "classic"],
                            cwd=where, capture_output=True, text=True, timeout=600)
    assert plugin.returncode == 0 and "6 skipped" in plugin.stdout, plugin.stdout
    assert "device=cuda, and no CUDA device is visible" in plugin.stdout


def test_a_callable_that_uses_cupy_is_not_run_without_a_gpu_nor_refused(tmp_path):
    """It declares nothing, and no array kind here runs it: CuPy is missing (or has no device), which
    says it is a GPU's to run, not a subject of the wrong kind."""
    where = project(tmp_path)
    done = check(where, "usermod:with_cupy", "usermod:good", "--select", "classic", "--profile", "ci")
    assert done.returncode == 0 and not done.stderr, done.stdout + done.stderr
    assert "needs a GPU, not run: subject 'usermod:with_cupy' uses CuPy, and no CUDA device is visible" \
        in done.stdout


def test_a_callable_of_several_element_types_is_a_subject_in_each(tmp_path):
    done = check(project(tmp_path), "usermod:typed", "--select", "classic", "--profile", "ci")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split()[0] for line in done.stdout.splitlines() if line.startswith("usermod:")]
    assert rows == ["usermod:typed:float32", "usermod:typed:float16"]
    one = check(tmp_path, "usermod:typed:bfloat16")
    assert one.returncode == 2
    assert "'usermod:typed' declares dtype float32, float16, not bfloat16" in one.stderr
    unknown = check(tmp_path, "usermod:typed:float64")
    assert unknown.returncode == 2 and "'float64' is not an element type (float32, float16, bfloat16)" in \
        unknown.stderr, unknown.stderr


@pytest.mark.parametrize("target,problem", [
    ("nothing.cu", "unknown target 'nothing.cu': no such file or folder"),
    ("nowhere/", "unknown target 'nowhere/': no such file or folder"),
    ("usermod", "unknown target 'usermod': no such file or folder (a callable is module:function)"),
    ("usermod.py", "unknown target 'usermod.py': not a .cu file, a folder or module:function"),
    ("nomod:f", "module 'nomod' does not import (ModuleNotFoundError"),
    ("usermod:three", "takes 3 required arguments (a, b, c): expected fn(x) -> y or fn(x, out)"),
    ("usermod:nothing", "module 'usermod' has no 'nothing'"),
    ("kernels/helper.cu", "no '// @variant ...' header declares a kernel in it"),
    ("bad.cu", "bad.cu:1: threads=100 is not a multiple of 32"),
])
def test_a_bad_target_exits_2_with_one_line(tmp_path, target, problem):
    where = project(tmp_path)
    (where / "bad.cu").write_text("// @variant name=b kernel=b algorithm=safe geometry=block-per-row "
                                  "threads=100\n")
    done = check(where, target)
    assert done.returncode == 2 and problem in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert done.stderr.rstrip().endswith(problem) or problem.endswith("(ModuleNotFoundError"), done.stderr


def test_a_bad_target_beside_good_ones_is_refused_and_the_rest_still_run(tmp_path):
    done = check(project(tmp_path), "usermod:three", "usermod:good", "nomod:f", "--select", "classic",
                 "--profile", "ci")
    assert done.returncode == 2, done.stdout + done.stderr
    refused = done.stderr.strip().splitlines()
    assert len(refused) == 2 and "Traceback" not in done.stderr
    assert "usermod:three" in refused[0] and "module 'nomod' does not import" in refused[1]
    assert "usermod:good" in done.stdout and "2 targets refused (above); the rest passed" in done.stdout


def test_a_select_that_matches_no_test_is_the_users_error_not_a_failed_check(tmp_path):
    done = check(project(tmp_path), "usermod:good", "--select", "clasic")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == ("softmax-harness check: --select 'clasic' matches none of the battery's tests "
                           "(a pytest -k expression over its test names: classic, masked_rows, ...)\n")
    assert done.stdout.endswith("nothing was checked (--select matched no test)\n"), done.stdout


def test_a_broken_kernel_file_in_a_folder_is_refused_alone_and_the_folders_other_kernels_still_run(tmp_path):
    """``check kernels/`` and ``pytest --kernels kernels`` on a folder with one malformed header:
    that file is named in one line (a failing test under pytest) and the folder's good kernel is
    still compiled and collected."""
    where = project(tmp_path)
    (where / "kernels" / "bad.cu").write_text("// @variant name=b kernel=b algorithm=safe "
                                              "geometry=block-per-row threads=100\n")
    done = check(where, "kernels/")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == "softmax-harness check: kernels/bad.cu:1: threads=100 is not a multiple of 32\n"
    assert "kernels/reversed.cu sm_90 reversed:" in done.stdout and "battery on 1 kernel" in done.stdout
    assert done.stdout.endswith("1 target refused (above); the rest passed\n"), done.stdout
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [SOURCE, os.environ.get("PYTHONPATH")]))}
    plugin = subprocess.run([sys.executable, "-m", "pytest", "-p", "softmax_harness.pytest_plugin", "-p",
                             "no:cacheprovider", "-q", "--kernels", "kernels", "-k", "compiles or header"],
                            cwd=where, env=env, capture_output=True, text=True, timeout=600)
    assert plugin.returncode == 1, plugin.stdout
    assert "FAILED kernels/bad.cu::header - " in plugin.stdout
    assert "\nkernels/bad.cu:1: threads=100 is not a multiple of 32\n" in plugin.stdout
    assert "1 failed, 2 passed" in plugin.stdout, plugin.stdout  # reversed@kernels compiled for sm_80, sm_90
    # a file named alone whose kernel's name another file of its folder declared first: refused, not
    # checked as that other file's kernel (its reference, NAME@FOLDER, would name that one)
    (where / "kernels" / "same_name.cu").write_text(KERNEL)
    again = check(where, "kernels/same_name.cu")
    assert again.returncode == 2 and again.stderr == (
        "softmax-harness check: kernels/same_name.cu:1: variant name 'reversed' is already declared at "
        "kernels/reversed.cu:1\n"), again.stderr


#: A user's module whose callables crash the process, hang, or lose the CUDA context: when first
#: called, or only on rows longer than 500 (which the battery's classic rows of 1000 are).
#: ``lostctx``, loaded into the battery's process as a plugin, stands in for a lost context: a
#: GPU is not needed to see what the process does once ``gpu.context_lost`` says so.
BROKEN = '''
import ctypes, time
from usermod import good

def crash(x):
    ctypes.string_at(0)

def hang(x):
    time.sleep(10**6)

def crash_long(x):
    if x.shape[1] > 500:
        ctypes.string_at(0)
    return good(x)

def hang_long(x):
    if x.shape[1] > 500:
        time.sleep(10**6)
    return good(x)

def interrupted_long(x):
    if x.shape[1] > 500:
        raise KeyboardInterrupt  # pytest ends its session on it
    return good(x)

def lost_long(x):
    if x.shape[1] > 500:
        import lostctx
        lostctx.LOST.append("cudaErrorIllegalAddress: an illegal memory access was encountered")
        raise RuntimeError("CUDA error: an illegal memory access was encountered")
    return good(x)
'''
LOSTCTX = '''
import softmax_harness.gpu

LOST = []
softmax_harness.gpu.context_lost = lambda: LOST[0] if LOST else None
'''


@waits_out_timeouts
def test_a_callable_that_crashes_or_hangs_when_loaded_is_refused_and_the_rest_still_run(tmp_path):
    where = project(tmp_path)
    (where / "broken.py").write_text(BROKEN)
    (where / "crashes_on_import.py").write_text("import ctypes\nctypes.string_at(0)\n")
    done = check(where, "broken:crash", "usermod:good", "broken:hang", "crashes_on_import:f",
                 "--select", "classic", "--profile", "ci", "--test-timeout", "5")
    assert done.returncode == 2, done.stdout + done.stderr
    refused = [line.removeprefix("softmax-harness check: ") for line in done.stderr.strip().splitlines()]
    assert len(refused) == 3 and "Traceback" not in done.stderr, done.stderr
    assert refused[0].startswith("subject 'broken:crash' (imported, and called on a 2 x 8 input") and \
        refused[0].endswith("died (the process crashed)")
    assert refused[1].startswith("subject 'broken:hang' (imported") and "within 5 s (a hang?)" in refused[1]
    assert refused[2] == "subject 'crashes_on_import:f' (its module imported) died (the process crashed)"
    row = next(line.split() for line in done.stdout.splitlines() if line.startswith("usermod:good "))
    assert set(row[1:10]) == {"pass"}, done.stdout


@waits_out_timeouts
def test_what_the_runs_timeout_leaves_is_named_not_run_and_fails_the_check(tmp_path):
    where = project(tmp_path)
    (where / "broken.py").write_text(BROKEN)
    done = check(where, "usermod:good", "broken:hang_long", "--select", "classic", "--profile", "ci",
                 "--timeout", "8", "--test-timeout", "100")
    assert done.returncode == 1, done.stdout + done.stderr
    assert re.search(r"^broken:hang_long: \d of its tests not run \(stopped at the run's deadline\)$",
                     done.stdout, re.M), done.stdout
    assert done.stdout.endswith("some checks failed\n")


@waits_out_timeouts
def test_a_subject_that_crashes_hangs_or_loses_its_context_in_a_test_fails_alone(tmp_path):
    """Each ends the battery's process (or its session) in its first test of a long row; the others go on in a
    fresh one, without it: every test of the correct subject runs and passes."""
    where = project(tmp_path)
    (where / "broken.py").write_text(BROKEN)
    (where / "lostctx.py").write_text(LOSTCTX)
    env = {**os.environ, "PYTEST_PLUGINS": "lostctx"}
    done = subprocess.run([sys.executable, "-m", "softmax_harness", "check", "broken:crash_long",
                           "broken:hang_long", "usermod:good", "broken:lost_long", "broken:interrupted_long",
                           "--select", "classic",
                           "--profile", "ci", "--test-timeout", "5"], cwd=where, env=env,
                          capture_output=True, text=True, timeout=600)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    head = next(line.split() for line in out.splitlines() if line.startswith("subject "))
    rows = {line.split()[0]: dict(zip(head, line.split(), strict=True))
            for line in out.splitlines() if line.startswith(("broken:", "usermod:")) and
            len(line.split()) == len(head)}
    assert rows["usermod:good"]["launch"] == "pass" and rows["usermod:good"]["tests"] == "6", out
    for broken in ("broken:crash_long", "broken:hang_long", "broken:lost_long", "broken:interrupted_long"):
        assert rows[broken]["launch"] == "FAIL" and rows[broken]["matches"] == "pass", out
    assert "test_classic_failures_of_online_kernels[broken:crash_long-C1000-tail]: the test process was " \
        "killed by SIGSEGV while this test was running:\nFatal Python error: Segmentation fault" in out
    assert re.search(r'File ".*broken.py", line \d+ in crash_long', out), out
    assert "the test process was stopped at the hang timeout (--hang-timeout) while this test was " \
        "running:\nTimeout (0:00:05)!" in out
    assert re.search(r'File ".*broken.py", line \d+ in hang_long', out), out
    assert "the test process stopped (pytest exited with code 2) while this test was running:\n" in out
    assert re.search(r"broken.py:\d+: KeyboardInterrupt", out), out
    assert "broken:lost_long: test_classic_failures_of_online_kernels[broken:lost_long-C1000-tail] lost " \
        "the CUDA context (cudaErrorIllegalAddress: an illegal memory access was encountered); its " \
        "later tests did not run" in out


@pytest.mark.skipif(not os.environ.get("SOFTMAX_HARNESS_WHEEL_TEST"),
                    reason="builds the wheel and installs it in a fresh venv: tox's py311 sets "
                           "SOFTMAX_HARNESS_WHEEL_TEST")
def test_the_wheel_in_a_fresh_venv_runs_the_battery_on_a_project_with_nothing_but_the_plugin(tmp_path):
    repo = Path(__file__).resolve().parent.parent
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels),
                    str(repo)], check=True, timeout=300)
    where = project(tmp_path / "project")
    # the venv inside the project, as most have it: pytest drops an argument under another, so
    # the plugin may not name the installed battery's file as one (it would collect nothing)
    venv = where / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    (wheel,) = wheels.glob("softmax_harness-*.whl")
    subprocess.run([python, "-m", "pip", "install", "--quiet", f"{wheel}[test]"], check=True, timeout=600)
    (where / "pytest.ini").write_text("[pytest]\nsoftmax_harness_kernels = kernels\n"
                                      "softmax_harness_subjects =\n    usermod:good\n"
                                      "    usermod:last_column_skipped\n")
    # the `pytest` script, as the README has it (unlike `python -m pytest`, it does not put the
    # current folder on sys.path: the plugin must, for module:function subjects)
    done = subprocess.run([str(venv / "bin" / "pytest"), "-v", "-p", "no:cacheprovider",
                           "--hypothesis-profile=ci",
                           "-k", "compiles or classic"], cwd=where, capture_output=True, text=True,
                          timeout=600)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    for arch in ("sm_80", "sm_90"):
        assert re.search(rf"^softmax_harness/battery.py::test_the_kernel_compiles_offline_without_spills"
                         rf"\[reversed@kernels-{arch}\] PASSED", out, re.M), out
    assert re.search(r"classic_failures_of_online_kernels\[usermod:good-C1-none\] PASSED", out), out
    assert not re.search(r"usermod:good\S* FAILED", out), out
    assert re.search(r"classic_failures_of_online_kernels\[usermod:last_column_skipped-C1-none\] FAILED", out)
    assert "all_written failed for usermod:last_column_skipped" in out
    repro = next(line.split("reproduce: ", 1)[1] for line in out.splitlines() if "reproduce: " in line)
    again = subprocess.run([python, *shlex.split(repro)[1:]], cwd=where, capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 1 and "all_written failed" in again.stdout, again.stdout + again.stderr
    listed = subprocess.run([str(venv / "bin" / "softmax-harness"), "list"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert len(listed.stdout.splitlines()) >= 70, listed.stdout  # the bundled kernels, from anywhere
