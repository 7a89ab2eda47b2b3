"""JAX only when used: a program that does not import JAX never has mypy load JAX's modules,
and ``Array`` has JAX's members whatever the order in which mypy checks the modules.

``typing_pkg.typing`` depends on nothing of JAX's (JAX's modules depend on it),
and ``Array`` declares ``jax.Array``'s members itself
("JAX's members" in ``typing_pkg/typing.py``).  The case that once gave a false
error: a module annotating ``Array[float32]`` without importing JAX, in a
program that does import JAX, is checked before JAX's modules are; its
``x.sum()`` and ``x.at[0].set(1.0)`` must type as in any other module.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from plugin_harness import run_mypy, write_config

from tools.checkers.output import read_mypy
from tools.checkers.run import mypy_in_process

LIB = """\
from typing_pkg import Array, float32, int8


def step(x: Array[float32], i: Array[int8]) -> Array[float32]:
    reveal_type(x.sum())
    reveal_type(x.at[0].set(1.0))
    reveal_type(x.block_until_ready())
    reveal_type(x.reshape(2, 3))
    reveal_type(i.mean())
    x.sharding.mesh
    x.copy_to_host_async()
    return x.at[0].add(2.0)
"""

MAIN = """\
import jax
import jax.numpy as jnp
from lib import step
from typing_pkg import Array, float32

x: Array[float32] = jnp.zeros(3, jnp.float32)
y = step(x, jnp.ones(3, jnp.int8))
reveal_type(y)
reveal_type(jnp.sin(y))
reveal_type(jnp.sin(y).at[1].multiply(2))
z: jax.Array = y
reveal_type(z.mean())
w = jnp.asarray(x, jnp.int8)
reveal_type(w + x)
"""

NO_JAX = """\
from typing_pkg import Array, float32, uint8


def scale(x: Array[float32], b: Array[uint8]) -> Array[float32]:
    reveal_type(x + b)
    reveal_type(x.sum())
    return x * 2
"""

F32 = "typing_pkg.typing.Array[typing_pkg.dtypes.float32]"


@pytest.mark.slow
def test_a_module_checked_before_jax_has_jax_s_members(tmp_path: Path) -> None:
    (tmp_path / "lib.py").write_text(LIB, encoding="utf-8")
    (tmp_path / "main.py").write_text(MAIN, encoding="utf-8")
    config = write_config(tmp_path, None)
    stdout, stderr, status = run_mypy(
        [tmp_path / "main.py", tmp_path / "lib.py"], config, tmp_path / "cache"
    )
    messages = read_mypy(stdout)
    assert [m.text for m in messages if m.severity == "error"] == [], stdout + stderr
    revealed = {(Path(m.file).name, m.line): m.revealed for m in messages if m.revealed}
    assert revealed == {
        ("lib.py", 5): F32,
        ("lib.py", 6): F32,
        ("lib.py", 7): F32,
        ("lib.py", 8): F32,
        ("lib.py", 9): F32,  # jnp.mean of int8: float32
        ("main.py", 8): F32,
        ("main.py", 9): F32,
        ("main.py", 10): F32,
        ("main.py", 12): "typing_pkg.typing.Array[Any]",
        ("main.py", 14): F32,  # int8 + float32
    }
    assert status == 0, stdout + stderr


@pytest.mark.slow
def test_a_program_without_jax_loads_no_jax_module(tmp_path: Path) -> None:
    (tmp_path / "scale.py").write_text(NO_JAX, encoding="utf-8")
    config = write_config(tmp_path, None)
    ran = mypy_in_process(
        str(tmp_path / "scale.py"), f"--config-file={config}", f"--cache-dir={tmp_path}/cache", "-v"
    )
    revealed = [m.revealed for m in read_mypy(ran.stdout) if m.revealed]
    assert revealed == [F32, F32], ran.output  # float32 + uint8 is float32 under jax
    assert ran.status == 0, ran.output
    parsed = re.findall(r"Parsing \S+ \(([\w.]+)\)", ran.stderr)
    assert "typing_pkg.typing" in parsed, ran.stderr[-3000:]
    assert [m for m in parsed if m == "jax" or m.startswith("jax.")] == []
