"""A pyright user chooses the rule set: its stubs generated into the project's ``typings/``.

As a user does it: typing_pkg installed with the wheel's stub package (the
``jax`` rules) in ``site-packages``; a project whose ``pyproject.toml``
configures basedpyright (``[tool.basedpyright]``, ``stubPath`` left at its
default, ``typings``) and, for a custom lattice, typing_pkg
(``[tool.typing_pkg]``, the section the mypy plugin reads, naming a rule set
in a module of the project); ``python -m typing_pkg stubs --rules numpy --out
typings`` or ``--config pyproject.toml --out typings``; then basedpyright in
the project with the environment's interpreter.  It must read the project's
stubs, not the installed ones: the programs' results differ under ``jax``.

Also pinned: why the package written to ``typings/`` is complete (no
``partial`` in ``py.typed``): a partial copy there is ignored, pyright lays
the installed one over the package instead.
"""

from __future__ import annotations

import re
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest
from stubprogram import install

from tools.checkers import run as checkers
from typing_pkg import stubgen

PYPROJECT = """\
[project]
name = "demo"
version = "0"

[tool.basedpyright]
include = ["program.py"]
pythonVersion = "3.11"
typeCheckingMode = "standard"
"""

LATTICE = (Path(__file__).resolve().parents[2] / "examples/mixed_precision/rules.py").read_text()
"""The examples project's own rule set (integers and floats never mix), as a project module."""

CUSTOM = """\
from typing_pkg import Array
from typing_pkg.dtypes import bool_, float16, float32, int8, int16
from typing_pkg.rules.custom import LatticeRules

def f(a: Array[int8], b: Array[int16], h: Array[float16], t: Array[bool_]) -> None:
    reveal_type(a + b)  # Array[int16]
    reveal_type(t * a)  # Array[int8]
    reveal_type(h * 2.0)  # Array[float16]
    reveal_type(a + 1)  # Array[int8]
    reveal_type(a + h)  # error
    reveal_type(h + 1.0 + h.astype(float32))  # Array[float32]
    assert isinstance(LatticeRules, type)
"""
"""Each revealed line says what it must give: under ``jax``, ``a + h`` is ``float16``."""

NUMPY = """\
from typing_pkg import Array, promote_types
from typing_pkg.dtypes import float8_e4m3fn, float16, int8, int64, uint64

def f(a: Array[uint64], b: Array[int64], c: Array[int8], e: Array[float8_e4m3fn],
      h: Array[float16]) -> None:
    reveal_type(a + b)  # Array[float64]
    reveal_type(c + 1.5)  # Array[float64]
    reveal_type(e * h)  # Array[float32]
    reveal_type(c / c)  # Array[float64]
    reveal_type(promote_types(uint64, int64, rules="numpy"))  # type[float64]
    reveal_type(promote_types(uint64, int64))  # type[DType]
    reveal_type(-(c < c))  # error
"""
"""Under ``jax``: ``int32``, ``weak_float``, an error, ``float32``; ``promote_types`` without
``rules`` runs the default (``jax``) rules, which these stubs do not encode."""

_WANT = re.compile(r"#\s*(.+)$")


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter of an environment where typing_pkg is installed as the wheel installs it.

    Its ``site-packages`` holds ``typing_pkg`` and the wheel's ``typing_pkg-stubs``
    (partial, ``jax``); the libraries come from this interpreter's
    ``site-packages``, named by a ``.pth`` line (whose own ``.pth`` files, an
    editable typing_pkg's among them, are not read from there).
    """
    where = tmp_path_factory.mktemp("env")
    bin_dir = install(where / "env", stubs=stubgen.stubs_dir() / stubgen.PACKAGE)
    site = next((where / "env").glob("lib/python3*/site-packages"))
    (site / "_libraries.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return bin_dir / "python"


def _project(directory: Path, program: str, typing_pkg: str = "") -> Path:
    directory.mkdir()
    (directory / "pyproject.toml").write_text(PYPROJECT + typing_pkg)
    (directory / "lattice_rules.py").write_text(LATTICE)
    (directory / "program.py").write_text(program)
    return directory


def _stubs(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``python -m typing_pkg stubs ARGV`` in a fresh interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "typing_pkg", "stubs", *argv],
        capture_output=True, text=True, cwd=cwd, timeout=300, check=False,
    )  # fmt: skip


def _check(project: Path, python: Path) -> dict[int, str]:
    """Run basedpyright in ``project``; return what each line of ``program.py`` gives.

    A revealed type, or ``error`` for a line with an error.
    """
    done = checkers.basedpyright(cwd=project, python=python, timeout=600)
    assert done.stdout.strip().startswith("{"), done.stderr
    said = done.diagnostics()
    found = {line: "error" for line in said.errors}
    return {**said.revealed, **found}


def _wanted(program: str) -> dict[int, str]:
    return {
        number: match[1].strip()
        for number, line in enumerate(program.splitlines(), 1)
        if "reveal_type(" in line and (match := _WANT.search(line))
    }


def test_a_custom_lattice_from_the_projects_configuration(tmp_path: Path, python: Path) -> None:
    """``stubs --config pyproject.toml``: the lattice the mypy plugin would use, in pyright."""
    project = _project(
        tmp_path / "project",
        CUSTOM,
        '\n[tool.typing_pkg]\npromotion = "lattice_rules:OPTION0"\n',
    )
    # From another directory: the module beside the configuration still loads.
    config, out = project / "pyproject.toml", project / "typings"
    done = _stubs("--config", str(config), "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert stubgen.recorded_rules(out) == "option0"
    assert (out / stubgen.PACKAGE / "py.typed").read_text() == ""
    assert _check(project, python) == _wanted(CUSTOM)

    fresh = _stubs("--config", str(config), "--out", str(out), "--check", cwd=tmp_path)
    assert (fresh.returncode, fresh.stdout) == (0, f"the stubs under {out} are fresh\n")
    # The lattice changes: the stubs are stale, and the command to refresh them is named.
    rules = project / "lattice_rules.py"
    rules.write_text(rules.read_text().replace('"int32": [],', '"int32": ["float32"],'))
    stale = _stubs("--config", str(config), "--out", str(out), "--check", cwd=tmp_path)
    assert stale.returncode == 1
    assert stale.stderr.splitlines()[-1].endswith(
        f" are stale; regenerate them with: python -m typing_pkg stubs --config {config} "
        f"--out {out}"
    )


def test_a_built_in_rule_set_by_name(tmp_path: Path, python: Path) -> None:
    """``stubs --rules numpy --out typings``; ``--check`` must be given the same rule set."""
    project = _project(tmp_path / "project", NUMPY)
    done = _stubs("--rules", "numpy", "--out", "typings", cwd=project)
    assert done.returncode == 0, done.stderr
    assert _check(project, python) == _wanted(NUMPY)

    fresh = _stubs("--rules", "numpy", "--out", "typings", "--check", cwd=project)
    assert fresh.returncode == 0, fresh.stderr
    other = _stubs("--out", "typings", "--check", cwd=project)
    assert other.returncode == 1
    assert other.stderr.splitlines()[-1].endswith(
        "(they were generated from the 'numpy' rule set and checked against 'jax': to "
        "check them, name 'numpy' with --rules or --config)"
    )


def test_a_partial_copy_in_typings_is_ignored(tmp_path: Path, python: Path) -> None:
    """Why ``typings/`` gets a complete package: pyright ignores a partial one there.

    It lays every partial stub package it finds (``typings/``'s and the
    installed one) over the installed ``typing_pkg``, and the installed one
    wins: the ``jax`` results.  Pinned for basedpyright 1.40 (pyright 1.1.414).
    """
    project = _project(tmp_path / "project", NUMPY)
    stubgen.write(project / "typings", "numpy")
    (project / "typings" / stubgen.PACKAGE / "py.typed").write_text("partial\n")
    said = _check(project, python)
    assert said[6] == "Array[int32]"  # uint64 + int64 under jax, x64 off
    assert said[8] == "error"  # no float8_e4m3fn * float16 under jax


def test_the_run_time_modules_the_stubs_lack(tmp_path: Path, python: Path) -> None:
    """With a complete package in ``typings/``, pyright reads the modules it lacks from the
    run-time package when they are imported by their full name; as attributes of the
    package (``from typing_pkg import rules``) it does not find them (a named limitation)."""
    program = textwrap.dedent(
        """\
        import typing_pkg.api
        from typing_pkg.rules import get_rules
        from typing_pkg.rules.custom import LatticeRules
        from typing_pkg import rules
        reveal_type(get_rules)
        reveal_type(LatticeRules.join)
        reveal_type(typing_pkg.api.result_dtype)
        """
    )
    project = _project(tmp_path / "project", program)
    stubgen.write(project / "typings", "numpy")
    said = _check(project, python)
    assert said[4] == "error"  # "rules" is unknown import symbol
    assert said[5].startswith("(name: str | RuleSet")
    assert said[6].startswith("(self: LatticeRules, a: str, b: str)")
    assert said[7].startswith("(function: str, /")
