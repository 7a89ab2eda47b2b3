"""The plugin's configuration: both file forms, bad values, and mypy's cache.

Plain mypy runs (pytest-mypy-plugins drops ``[tool.*]`` tables other than
mypy's, so the TOML form is tested here): in a subprocess where the exit
status and stderr matter, in this process otherwise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_harness import ROOT, parse, run_mypy, write_config

from mypy_plugin.config import PluginConfig, fingerprint
from typing_pkg.rules import get_rules, names, unregister

PROGRAM = """\
from typing_pkg import Array, float16, int8, uint8

a: Array[int8]
b: Array[uint8]
c: Array[float16]
reveal_type(a / 2)
reveal_type(a + b)
reveal_type(a + c)
"""
VALID = ", ".join(names()[:7])


def _cli(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the mypy command line from ``directory`` with the repository importable."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", *args],
        cwd=directory, capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT), "MYPYPATH": str(ROOT)},
    )  # fmt: skip


def _revealed(out: str) -> list[str | None]:
    found = parse(out)
    return [found[line].revealed if line in found else None for line in (6, 7, 8)]


@pytest.mark.parametrize(
    ("file", "text", "message"),
    [
        (
            "mypy.ini",
            "[mypy]\nplugins = mypy_plugin\n\n[typing_pkg]\npromotion = jaxx\n",
            f'[typing_pkg] promotion = "jaxx" is not a rule set; valid names: {VALID}',
        ),
        (
            "pyproject.toml",
            '[tool.mypy]\nplugins = ["mypy_plugin"]\n\n[tool.typing_pkg]\npromotion = "jaxx"\n',
            f'[tool.typing_pkg] promotion = "jaxx" is not a rule set; valid names: {VALID}',
        ),
        (
            "pyproject.toml",
            '[tool.mypy]\nplugins = ["mypy_plugin"]\n\n[tool.typing_pkg]\npromotion = 3\n',
            '[tool.typing_pkg] promotion must be a string such as "jax", got 3',
        ),
    ],
)
def test_a_bad_rule_set_stops_mypy_with_one_line(
    tmp_path: Path, file: str, text: str, message: str
) -> None:
    (tmp_path / file).write_text(text)
    (tmp_path / "demo.py").write_text(PROGRAM)
    done = _cli(tmp_path, "--config-file", file, "--no-incremental", "demo.py")
    assert done.returncode == 2
    assert done.stderr == f"mypy: error: {message}\n"
    assert done.stdout == ""


def test_pyproject_form_selects_the_rules(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mypy]\nplugins = ["mypy_plugin"]\n\n[tool.typing_pkg]\npromotion = "numpy"\n'
    )
    (tmp_path / "demo.py").write_text(PROGRAM)
    done = _cli(tmp_path, "--config-file", "pyproject.toml", "--no-incremental", "demo.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _revealed(done.stdout) == [
        "typing_pkg.typing.Array[typing_pkg.dtypes.float64]",
        "typing_pkg.typing.Array[typing_pkg.dtypes.int16]",
        "typing_pkg.typing.Array[typing_pkg.dtypes.float16]",
    ]


def test_ini_form_reads_inline_comments_and_defaults_to_jax(tmp_path: Path) -> None:
    ini = tmp_path / "setup.cfg"
    ini.write_text("[mypy]\nplugins = mypy_plugin\n\n[typing_pkg]\npromotion = numpy  ; NEP 50\n")
    assert PluginConfig.from_file(str(ini)).promotion == "numpy"
    ini.write_text("[mypy]\nplugins = mypy_plugin\n")
    assert PluginConfig.from_file(str(ini)).promotion == "jax"
    assert PluginConfig.from_file(None).promotion == "jax"


def test_cache_cold_warm_changed_and_daemon(tmp_path: Path) -> None:
    """A warm run and dmypy match a cold run; changing the rules re-checks."""
    source = tmp_path / "demo.py"
    source.write_text(PROGRAM)
    cache = tmp_path / "cache"
    jax = write_config(tmp_path, "jax")

    cold, _, _ = run_mypy([source], jax, cache)
    warm, _, _ = run_mypy([source], jax, cache)
    assert warm == cold
    assert _revealed(cold)[0] == "typing_pkg.typing.Array[typing_pkg.dtypes.float32]"

    numpy = write_config(tmp_path, "numpy")
    changed, _, _ = run_mypy([source], numpy, cache)
    numpy_cold, _, _ = run_mypy([source], numpy, tmp_path / "cache-numpy")
    assert changed == numpy_cold != cold
    assert _revealed(changed)[0] == "typing_pkg.typing.Array[typing_pkg.dtypes.float64]"
    again, _, _ = run_mypy([source], write_config(tmp_path, "jax"), cache)
    assert again == cold

    status = tmp_path / "dmypy.json"
    daemon = [sys.executable, "-m", "mypy.dmypy", "--status-file", str(status)]
    flags = [
        *("--config-file", str(jax), f"--cache-dir={tmp_path / 'cache-daemon'}"),
        *("--no-error-summary", "--hide-error-context", "--no-pretty", "--show-traceback"),
    ]
    try:
        first = _cli_daemon(tmp_path, [*daemon, "run", "--", *flags, str(source)])
        second = _cli_daemon(tmp_path, [*daemon, "run", "--", *flags, str(source)])
    finally:
        _cli_daemon(tmp_path, [*daemon, "stop"])
    assert first == second == cold.replace(f"{tmp_path}{os.sep}", "")  # dmypy: relative paths


def _cli_daemon(directory: Path, command: list[str]) -> str:
    done = subprocess.run(
        command, cwd=directory, capture_output=True, text=True, check=False, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return done.stdout.removeprefix("Daemon started\n")


RULES_MODULE = """\
from typing_pkg.rules.custom import LatticeRules

RULES = LatticeRules(
    "fingerprinted",
    {{"bool_": ("weak_int",), "weak_int": ("int8", "uint8"), "int8": ("int16",),
      "uint8": ("int16",), "int16": ({top}), "weak_float": ("float16",), "float16": ()}},
)
"""


def test_a_change_to_the_rules_source_rechecks(tmp_path: Path) -> None:
    """mypy fingerprints only the plugin's entry module: the rule set's sources are in the key."""
    package = tmp_path / "myrules"
    package.mkdir()
    module = package / "__init__.py"
    module.write_text(RULES_MODULE.format(top=""))
    source = tmp_path / "demo.py"
    source.write_text(PROGRAM)
    cache = tmp_path / "cache"
    config = write_config(tmp_path, "myrules:RULES")
    sys.path.insert(0, str(tmp_path))
    try:
        before, _, _ = run_mypy([source], config, cache)
        assert _revealed(before)[2] == "Any"  # int8 + float16: no path in this lattice
        first = fingerprint(get_rules("myrules:RULES"), "myrules:RULES")
        module.write_text(RULES_MODULE.format(top='"float16",'))
        assert fingerprint(get_rules("myrules:RULES"), "myrules:RULES") != first
        for name in ("myrules:RULES", "fingerprinted"):
            unregister(name)
        sys.modules.pop("myrules", None)
        after, _, _ = run_mypy([source], config, cache)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("myrules", None)
        shutil.rmtree(package)
    assert _revealed(after)[2] == "typing_pkg.typing.Array[typing_pkg.dtypes.float16]"


def test_importing_the_plugin_loads_no_array_library() -> None:
    """The plugin imports typing_pkg's rules (one source of truth) and nothing heavy."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys, mypy_plugin; print(sorted(m for m in "
         "('numpy', 'jax', 'torch', 'ml_dtypes', 'array_api_strict') if m in sys.modules))"],
        capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.stdout.strip() == "[]"
