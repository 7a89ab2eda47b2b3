"""``typing-pkg stubs --config FILE``: the rule set of the project's configuration, as mypy's.

The section is the mypy plugin's (``[tool.typing_pkg]`` in ``pyproject.toml``,
``[typing_pkg]`` in ``mypy.ini`` or ``setup.cfg``), read by the same code
(``typing_pkg.config``); every mistake is one line and exit status 2.  The
stub package written outside ``stubs/`` and ``site-packages`` is complete
(its ``py.typed`` is empty), and ``--check`` names the rule set a package was
generated from when it is not the one asked for.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from typing_pkg import stubgen
from typing_pkg.cli import main
from typing_pkg.rules import names, unregister

VALID = ", ".join(n for n in names() if ":" not in n)


@pytest.fixture(autouse=True)
def _console_script(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run as the ``typing-pkg`` console script, whatever started pytest (messages name it)."""
    monkeypatch.setattr(sys, "argv", ["typing-pkg"])


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def rules_module(tmp_path: Path) -> Iterator[str]:
    """A module name for a custom rule set beside the configuration, forgotten afterwards."""
    name = f"project_rules_{tmp_path.name.replace('-', '_')}"
    yield name
    sys.modules.pop(name, None)
    for registered in [n for n in names() if n.startswith(f"{name}:") or n == "tiny"]:
        unregister(registered)


@pytest.mark.parametrize(
    ("file", "text", "rules"),
    [
        ("pyproject.toml", '[tool.typing_pkg]\npromotion = "numpy"\n', "numpy"),
        ("mypy.ini", "[mypy]\nplugins = mypy_plugin\n\n[typing_pkg]\npromotion = torch\n", "torch"),
        ("setup.cfg", "[typing_pkg]\npromotion = jax-x64  ; x64 on\n", "jax-x64"),
        ("pyproject.toml", '[tool.mypy]\nplugins = ["mypy_plugin"]\n', "jax"),  # the default
    ],
)
def test_the_configured_rule_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], file: str, text: str, rules: str
) -> None:
    config, out = tmp_path / file, tmp_path / "typings"
    config.write_text(text)
    status, written, _ = run(capsys, "stubs", "--config", str(config), "--out", str(out))
    assert status == 0 and written.count("wrote ") == 5
    assert stubgen.recorded_rules(out) == rules
    assert stubgen.check(out, rules) == []
    assert (out / stubgen.PACKAGE / "py.typed").read_text() == ""  # complete: see stubgen
    assert run(capsys, "stubs", "--config", str(config), "--out", str(out), "--check") == (
        0, f"the stubs under {out} are fresh\n", ""
    )  # fmt: skip


def test_a_custom_lattice_beside_the_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rules_module: str
) -> None:
    (tmp_path / f"{rules_module}.py").write_text(
        "from typing_pkg.rules.custom import LatticeRules\n"
        'RULES = LatticeRules("tiny", {"int8": ["int16"], "int16": [], "float32": []})\n'
    )
    config, out = tmp_path / "pyproject.toml", tmp_path / "typings"
    config.write_text(f'[tool.typing_pkg]\npromotion = "{rules_module}:RULES"\n')
    assert str(tmp_path) not in sys.path
    status, _, err = run(capsys, "stubs", "--config", str(config), "--out", str(out))
    assert (status, err) == (0, "")
    assert str(tmp_path) not in sys.path  # only while the rules load
    assert stubgen.recorded_rules(out) == "tiny"
    dtypes = (out / stubgen.PACKAGE / "dtypes.pyi").read_text()
    assert "def __tp_add__(self, left: int8 | int16, /) -> int16: ..." in dtypes


@pytest.mark.parametrize(
    ("file", "text", "message"),
    [
        (
            "pyproject.toml",
            '[tool.typing_pkg]\npromotion = "nmupy"\n',
            '[tool.typing_pkg] promotion = "nmupy" is not a rule set (did you mean "numpy"?); '
            f"valid names: {VALID}",
        ),
        (
            "pyproject.toml",
            '[tool.typing-pkg]\npromotion = "numpy"\n',
            "[tool.typing-pkg] in pyproject.toml is not read by typing_pkg; "
            "did you mean [tool.typing_pkg]?",
        ),
        (
            "mypy.ini",
            "[typing_pkg]\npromotions = numpy\n",
            '[typing_pkg] in mypy.ini: unknown option "promotions" (did you mean "promotion"?); '
            'the only option is "promotion"',
        ),
        (
            "pyproject.toml",
            '[tool.typing_pkg]\npromotion = "no_such_module:RULES"\n',
            '[tool.typing_pkg] promotion = "no_such_module:RULES": cannot load rule set '
            "'no_such_module:RULES': No module named 'no_such_module'",
        ),
        (
            "pyproject.toml",
            "[tool.typing_pkg\n",
            "cannot read {config}: ",  # and tomllib's message
        ),
    ],
)  # fmt: skip
def test_a_bad_configuration_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], file: str, text: str, message: str
) -> None:
    config = tmp_path / file
    config.write_text(text)
    status, out, err = run(capsys, "stubs", "--config", str(config), "--out", str(tmp_path))
    assert (status, out) == (2, "")
    assert err.startswith(f"typing-pkg: error: {config}: {message.format(config=config)}")
    assert err.endswith("\n") and err.count("\n") == 1
    assert err == f"typing-pkg: error: {config}: {message}\n" or message.endswith(": ")
    assert not (tmp_path / stubgen.PACKAGE).exists()


def test_a_lattice_that_is_not_one_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rules_module: str
) -> None:
    module = tmp_path / f"{rules_module}.py"
    module.write_text(
        "from typing_pkg.rules.custom import LatticeRules\n"
        'RULES = LatticeRules("bad", {"int8": ("int16",), "int16": ("int8",)})\n'
    )
    config = tmp_path / "pyproject.toml"
    config.write_text(f'[tool.typing_pkg]\npromotion = "{rules_module}:RULES"\n')
    status, _, err = run(capsys, "stubs", "--config", str(config), "--out", str(tmp_path))
    assert status == 2
    assert err == (
        f'typing-pkg: error: {config}: [tool.typing_pkg] promotion = "{rules_module}:RULES": '
        "cannot load the rule set: LatticeError: not a lattice: int8 and int16 lie on a cycle "
        f"(int8 -> int16 -> int8) (raised at {module}:2)\n"
    )


def test_missing_configuration_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "pyproject.toml"
    status, _, err = run(capsys, "stubs", "--config", str(config), "--out", str(tmp_path))
    assert status == 2
    assert err == (
        f"typing-pkg: error: {config}: cannot read {config}: [Errno 2] No such file or "
        f"directory: '{config}'\n"
    )


def test_rules_or_config_not_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.typing_pkg]\npromotion = "numpy"\n')
    status, _, err = run(
        capsys, "stubs", "--rules", "numpy", "--config", str(config), "--out", str(tmp_path)
    )
    assert (status, err) == (
        2, "typing-pkg: error: argument --config: not allowed with argument --rules\n"
    )  # fmt: skip


def test_check_names_the_rule_set_the_stubs_came_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "typings"
    assert run(capsys, "stubs", "--rules", "numpy", "--out", str(out))[0] == 0
    assert run(capsys, "stubs", "--rules", "numpy", "--out", str(out), "--check")[0] == 0
    status, _, err = run(capsys, "stubs", "--out", str(out), "--check")
    assert status == 1
    assert err.splitlines()[-1] == (
        f"4 generated stub file(s) under {out} are stale; regenerate them with: "
        f"python -m typing_pkg stubs --out {out} (they were generated from the 'numpy' rule "
        "set and checked against 'jax': to check them, name 'numpy' with --rules or --config)"
    )
    # The same rule set, stubs of an older generator: no hint, the command that refreshes them.
    (out / stubgen.PACKAGE / "py.typed").write_text("partial\n")
    status, _, err = run(capsys, "stubs", "--rules", "numpy", "--out", str(out), "--check")
    assert status == 1
    assert err.splitlines()[-1] == (
        f"1 generated stub file(s) under {out} are stale; regenerate them with: "
        f"python -m typing_pkg stubs --rules numpy --out {out}"
    )


def test_where_the_package_is_partial(tmp_path: Path) -> None:
    """Partial beside the package it types (``stubs/``, ``site-packages``), complete elsewhere."""
    assert stubgen.is_partial(stubgen.stubs_dir())
    assert not stubgen.is_partial(tmp_path)
    (tmp_path / "typing_pkg").mkdir()
    assert stubgen.is_partial(tmp_path)
    assert stubgen.generate()[f"{stubgen.PACKAGE}/py.typed"] == "partial\n"
    assert stubgen.generate("numpy", partial=False)[f"{stubgen.PACKAGE}/py.typed"] == ""
