"""What needs the mypy plugin or the stubs: the examples project and the docs' configurations.

``examples/check.py`` (the README's main job) must report exactly
``examples/expected.txt``, and so must ``examples/check.py --pyright`` once
the generated stubs are in ``stubs/``.  ``docs/configuration/mypy.rst``
shows the ``pyproject.toml`` form and ``docs/custom-lattice.rst`` the
``[typing_pkg]`` section naming a custom rule set; each block is written to a
fresh project here and mypy must apply it.
(The ``mypy.ini`` form is ``examples/mypy.ini``, which ``check.py`` uses.)
The typed examples in the plugin's docstrings are checked too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tools.checkers import run as checkers
from tools.checkers.output import read_mypy
from tools.checkers.run import checker_env, find_basedpyright
from tools.checkers.seeds import plant

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
DEMO = textwrap.dedent(
    """\
    from typing import reveal_type

    from typing_pkg import Array, float16, int8, uint8


    def f(a: Array[int8], b: Array[uint8], c: Array[float16]) -> None:
        reveal_type(a + b)
        reveal_type(a + c)
    """
)


def stubs_exist() -> bool:
    """Return whether the generated stubs and a pyright are there."""
    return (
        find_basedpyright() is not None
        and (ROOT / "stubs" / "typing_pkg-stubs" / "typing.pyi").is_file()
    )


def _block(page: str, language: str) -> str:
    text = (DOCS / page).read_text(encoding="utf-8")
    match = re.search(rf"^\.\. code-block:: {language}\n\n((?:   .*\n|\n)+)", text, re.MULTILINE)
    assert match is not None, f"no {language} block in docs/{page}"
    return textwrap.dedent(match[1])


def _mypy(project: Path, config: str) -> str:
    (project / "demo.py").write_text(DEMO, encoding="utf-8")
    path = os.pathsep.join([str(ROOT), str(ROOT / "examples")])
    done = checkers.mypy(
        "--config-file", config, "--cache-dir", plant(project / "cache"), "demo.py",
        cwd=project, env=checker_env({"PYTHONPATH": path}),
    )  # fmt: skip
    assert done.status in (0, 1), done.output
    return done.stdout


def test_pyproject_form(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(_block("configuration/mypy.rst", "toml"))
    out = _mypy(tmp_path, "pyproject.toml")
    assert (
        'demo.py:7: note: Revealed type is "typing_pkg.typing.Array[typing_pkg.dtypes.int16]"'
        in out
    )
    assert (
        'demo.py:8: note: Revealed type is "typing_pkg.typing.Array[typing_pkg.dtypes.float16]"'
        in out
    )


def test_custom_rule_set_form(tmp_path: Path) -> None:
    config = "[mypy]\nplugins = mypy_plugin\n\n" + _block("custom-lattice.rst", "ini")
    (tmp_path / "mypy.ini").write_text(config)
    out = _mypy(tmp_path, "mypy.ini")
    assert (
        'demo.py:7: note: Revealed type is "typing_pkg.typing.Array[typing_pkg.dtypes.int16]"'
        in out
    )
    assert re.search(r"demo\.py:8: error: .*\[dtype-promotion\]", out), out


@pytest.fixture(scope="module")
def check_py() -> subprocess.CompletedProcess[str]:
    """``examples/check.py`` run once (mypy with the plugin, cold) for the tests that read it."""
    return subprocess.run(
        [sys.executable, str(ROOT / "examples" / "check.py")],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip


def test_check_reports_expected_output(check_py: subprocess.CompletedProcess[str]) -> None:
    assert check_py.returncode == 0, check_py.stdout + check_py.stderr
    assert "as expected" in check_py.stdout


def test_check_with_pyright_reports_expected_output() -> None:
    assert stubs_exist(), "the generated stubs or basedpyright are missing"
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "check.py"), "--pyright"],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "as expected" in done.stdout


def test_readme_shows_what_check_prints(check_py: subprocess.CompletedProcess[str]) -> None:
    """The mypy report quoted in the README's tour is part of what check.py prints."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    quoted = [line for block in re.findall(r"```text\n(.*?)```", text, re.DOTALL)
              for line in block.splitlines() if line]  # fmt: skip
    assert quoted
    printed = check_py.stdout.splitlines()
    for line in quoted:
        assert line in printed, line


def _docstring_programs() -> list[tuple[str, str]]:
    """Return the typed examples (``reveal_type`` or ``# error``) in the plugin's docstrings."""
    import importlib
    import inspect

    programs = []
    for name in ("mypy_plugin", "mypy_plugin.config", "mypy_plugin.errors"):
        doc = inspect.getdoc(importlib.import_module(name)) or ""
        for block in re.findall(r"::\n\n((?:    .*\n|\n)+)", doc + "\n"):
            code = textwrap.dedent(block)
            if "reveal_type(" in code or "# error" in code:
                programs.append((name, code))
    return programs


@pytest.mark.parametrize("name, code", _docstring_programs())
def test_plugin_docstring_examples_type_check(tmp_path: Path, name: str, code: str) -> None:
    """Each ``reveal_type(e)  # Array[T]`` reveals ``Array[T]``; each ``# error`` line errs."""
    header = "from typing import reveal_type\n\nfrom typing_pkg import *  # noqa: F403\n\n"
    (tmp_path / "example.py").write_text(header + code, encoding="utf-8")
    (tmp_path / "mypy.ini").write_text("[mypy]\nplugins = mypy_plugin\n", encoding="utf-8")
    done = checkers.mypy(
        "--config-file", "mypy.ini", "--cache-dir", plant(tmp_path / "cache"), "example.py",
        cwd=tmp_path, env=checker_env({"PYTHONPATH": str(ROOT)}),
    )  # fmt: skip
    report = done.stdout
    offset = header.count("\n")
    for number, line in enumerate(code.splitlines(), start=offset + 1):
        revealed = re.search(r"reveal_type\(.*\)\s+# (Array\[\w+\])", line)
        if revealed:
            shown = [
                m.revealed
                for m in read_mypy(report)
                if m.file == "example.py" and m.line == number and m.revealed is not None
            ]
            assert shown, f"{name}: {line}\n{report}"
            assert re.sub(r"typing_pkg\.(typing|dtypes)\.", "", shown[0]) == revealed[1], line
        elif re.search(r"\S.*# error", line):
            assert re.search(rf"^example\.py:{number}: error: ", report, re.M), f"{name}: {line}"
