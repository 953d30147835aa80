"""``softmax-harness check`` on a GPU: a kernel that faults (an illegal address) loses the CUDA
context of the battery's process; that test fails under ``launch``, and the other kernel's tests
all run, in a fresh process. (The CPU path of the same, with the lost context stood in for:
``tests/test_check.py``.)"""

from __future__ import annotations

import pytest
from test_check import KERNEL, check

pytestmark = pytest.mark.gpu

#: The seed post's kernel, but rows past 500 columns also write 2^40 elements past the output.
WILD = KERNEL.replace("name=reversed kernel=reversed", "name=wild kernel=wild").replace(
    "void reversed(", "void wild(").replace(
    "if (row >= N) return;", "if (row >= N) return;\n    if (C > 500) out[1LL << 40] = 1.0f;")


def test_a_kernel_that_faults_fails_alone_and_the_others_run(tmp_path):
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "reversed.cu").write_text(KERNEL)
    (tmp_path / "kernels" / "wild.cu").write_text(WILD)
    assert "out[1LL << 40]" in WILD and "void wild(" in WILD
    done = check(tmp_path, "kernels", "--select", "classic", "--profile", "ci")
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    head = next((line.split() for line in out.splitlines() if line.startswith("subject ")), None)
    assert head, out + done.stderr  # the verdict table
    rows = {line.split()[0]: dict(zip(head, line.split(), strict=True)) for line in out.splitlines()
            if line.startswith(("reversed@", "wild@")) and len(line.split()) == len(head)}
    assert set(rows["reversed@kernels"][p] for p in head[1:-4]) == {"pass"}, out
    assert rows["reversed@kernels"]["tests"] == "6", out
    assert rows["wild@kernels"]["launch"] == "FAIL", out
    assert "wild@kernels: test_classic_failures_of_online_kernels[wild@kernels-C1000-" in out
    assert "lost the CUDA context (" in out and "llegal" in out, out
