"""The typed JAX stubs (``typing-pkg stubs --jax``): what basedpyright infers through them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from typing_pkg import jaxstubs

PROGRAM = """\
import jax
import jax.numpy as jnp

def keep(x: jax.Array) -> jax.Array:
    return x

key = jax.random.key(0)
x8 = jnp.zeros(3, dtype=jnp.int8)
reveal_type(jnp.zeros(3, jnp.bfloat16))
reveal_type(jnp.zeros(3))
reveal_type(jnp.exp(x8))
reveal_type(x8.astype(jnp.float16))
reveal_type(jax.random.normal(key, (3,)))
reveal_type(jnp.sum(x8))
reveal_type(jax.nn.softmax(jnp.ones(3, jnp.bfloat16)))
reveal_type(jnp.float32(2.0))
reveal_type(x8 + x8)
reveal_type(keep(x8))
reveal_type(jnp.exp(keep(x8)))
"""
EXPECTED = [
    "Array[bfloat16]",
    "Array[float32]",
    "Array[float32]",
    "Array[float16]",
    "Array[float32]",
    "Array[int32]",
    "Array[bfloat16]",
    "Array[float32]",
    "Array[int8]",
    "Array[Any]",  # a bare jax.Array annotation: unknown dtype
    "Array[Any]",  # and it stays unknown
]


def _basedpyright() -> str:
    found = shutil.which("basedpyright", path=str(Path(sys.executable).parent))
    found = found or shutil.which("basedpyright")
    if found is None:
        pytest.skip("basedpyright is not installed")
    return found


def _reveal(tmp_path: Path, rules: str = "jax") -> tuple[list[str], list[str]]:
    stubs = tmp_path / "typings"
    jaxstubs.write(stubs, rules)
    (tmp_path / "program.py").write_text(PROGRAM, encoding="utf-8")
    config = {"include": ["program.py"], "stubPath": str(stubs), "typeCheckingMode": "standard"}
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    done = subprocess.run(
        [_basedpyright(), "--pythonpath", sys.executable, "--outputjson"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    report = json.loads(done.stdout)
    types: list[str] = []
    errors: list[str] = []
    for diagnostic in report["generalDiagnostics"]:
        found = re.match(r'^Type of ".*" is "(.*)"$', diagnostic["message"], re.DOTALL)
        if found:
            types.append(found[1])
        elif diagnostic["severity"] == "error":
            errors.append(diagnostic["message"])
    return types, errors


def test_results_carry_their_dtype(tmp_path: Path) -> None:
    types, errors = _reveal(tmp_path)
    assert errors == []
    assert types == EXPECTED


def test_x64_rules(tmp_path: Path) -> None:
    types, errors = _reveal(tmp_path, "jax-x64")
    assert errors == []
    assert types[1] == "Array[float64]"  # jnp.zeros(3): JAX's default float with x64 on
    assert types[2] == "Array[float32]"  # exp of int8 is float32 either way


def test_partial_package_keeps_jax() -> None:
    files = jaxstubs.generate()
    assert files["py.typed"] == "partial\n"
    assert set(files) == {
        "py.typed",
        "_src/basearray.pyi",
        "numpy/__init__.pyi",
        "nn/__init__.pyi",
        "random.pyi",
    }


def test_needs_a_jax_rule_set() -> None:
    with pytest.raises(ValueError, match="JAX rule set"):
        jaxstubs.generate("numpy")
