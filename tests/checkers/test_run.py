"""``tools.checkers``: running a checker (time, status, output) and the warm caches (seeds)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tools.checkers import run, seeds

PROGRAM = """\
import jax.numpy as jnp
from typing_pkg import Array, float8_e4m3fn, float16

x = jnp.ones(3, jnp.bfloat16)
reveal_type(x * 2)
a: Array[float8_e4m3fn]
b: Array[float16]
c = a * b
"""


def test_a_checker_s_processor_time_is_its_own(tmp_path: Path) -> None:
    # a command that sleeps takes wall-clock time and next to no processor time; one that
    # computes (in a child of its own: descendants count) takes both
    sleeping = run.timed_command([sys.executable, "-c", "import time; time.sleep(0.6)"],
                                 tmp_path, 60.0)  # fmt: skip
    assert (sleeping.status, sleeping.timed_out) == (0, False)
    assert sleeping.seconds >= 0.6
    assert sleeping.cpu_seconds < 0.4
    busy = "import time\nend = time.process_time() + 0.6\nwhile time.process_time() < end: pass"
    child = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {busy!r}])"
    computing = run.timed_command([sys.executable, "-c", child], tmp_path, 60.0)
    assert computing.cpu_seconds >= 0.6
    printing = run.timed_command(
        [sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); exit(3)"],
        tmp_path,
        60.0,
    )
    assert (printing.status, printing.stdout, printing.stderr) == (3, "out\n", "err\n")
    assert printing.output == "out\nerr\n"
    stuck = run.timed_command([sys.executable, "-c", "import time; time.sleep(30)"], tmp_path, 0.5)
    assert stuck.timed_out
    assert stuck.seconds < 20
    with pytest.raises(TimeoutError, match=r"ran past 0\.5 s"):
        run.mypy("--version", cwd=tmp_path, timeout=0.5, report=False, python=_sleeper(tmp_path))


def _sleeper(where: Path) -> Path:
    """An 'interpreter' that sleeps whatever it is asked: a checker that never answers."""
    path = where / "sleeper"
    path.write_text("#!/bin/sh\nexec sleep 30\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def test_a_missing_basedpyright_is_named(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="no-such-checker is missing"):
        run.basedpyright_command(tmp_path / "python", "no-such-checker")


@pytest.mark.slow  # grows a seed and runs mypy cold
def test_a_seed_changes_how_long_a_run_takes_not_what_it_says(tmp_path: Path) -> None:
    (tmp_path / "demo.py").write_text(PROGRAM, encoding="utf-8")
    (tmp_path / "mypy.ini").write_text(seeds.PLUGIN_CONFIG, encoding="utf-8")
    planted = seeds.plant(tmp_path / "seeded")
    warm = run.mypy(
        "--config-file", "mypy.ini", "--cache-dir", planted, "demo.py", "-v", cwd=tmp_path
    )  # fmt: skip
    cold = run.mypy("--config-file", "mypy.ini", "--no-incremental", "demo.py", cwd=tmp_path)
    assert warm.status == cold.status == 1, cold.output
    assert warm.stdout == cold.stdout
    assert cold.revealed() == ["typing_pkg.typing.Array[typing_pkg.dtypes.bfloat16]"]
    assert [(m.line, m.code) for m in cold.messages() if m.severity == "error"] == [
        (8, "dtype-promotion")
    ]
    # JAX's modules came from the seed (mypy's log, -v)
    assert "Metadata fresh for jax.numpy:" in warm.stderr
