"""The JAX version the JAX stubs are checked with: pinned, installed, named in the stubs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from typing_pkg.stubgen import jax as jaxstubs

ROOT = Path(__file__).resolve().parents[2]


def test_the_pinned_jax_is_the_tested_one() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = [r for extra in project["optional-dependencies"].values() for r in extra]
    pins = {r for r in requirements if re.match(r"jax(lib)?\b", r)}
    assert pins, "pyproject.toml pins no JAX"
    assert pins == {f"jax=={jaxstubs.TESTED_JAX}", f"jaxlib=={jaxstubs.TESTED_JAX}"}


def test_the_installed_jax_is_the_tested_one() -> None:
    # CI installs the pin: the stubs it generates and checks are the tested JAX's
    assert jaxstubs.jax_version() == jaxstubs.TESTED_JAX


def test_a_jax_without_its_stubs_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "version.py").write_text('_version: str = "9.9.9"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"^JAX 9\.9\.9 has no _src/basearray\.pyi: ") as error:
        jaxstubs.generate(root=tmp_path)
    assert "\n" not in str(error.value)
