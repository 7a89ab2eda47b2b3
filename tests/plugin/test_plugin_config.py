"""The plugin's configuration: both file forms, mistakes, mypy's cache and the daemon.

Every mistake (a rule set that is not one, a misspelt section or option, a
custom rule set that fails to import or build) is one ``mypy: error:`` line
and exit status 2.  Plain mypy runs (pytest-mypy-plugins drops ``[tool.*]``
tables other than mypy's, so the TOML form is tested here): in a subprocess
where the exit status and stderr matter, in this process otherwise; ``dmypy``
in a subprocess, with the configuration changed between runs.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest
from mypy.options import Options
from mypy.version import __version__ as mypy_version
from plugin_harness import ROOT, parse, run_mypy, write_config

import mypy_plugin
from mypy_plugin.config import ConfigError, PluginConfig, fingerprint
from tools.checkers import run as checkers
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


def _cli(directory: Path, *args: str) -> checkers.Ran:
    """Run the mypy command line from ``directory`` with the repository importable."""
    return checkers.mypy(
        *args, cwd=directory, report=False,
        env=checkers.checker_env({"PYTHONPATH": str(ROOT), "MYPYPATH": str(ROOT)}),
    )  # fmt: skip


def _stops(directory: Path, file: str, *, end_to_end: bool) -> tuple[int, str, str]:
    """Start mypy with the configuration ``file`` of ``directory`` (holding ``demo.py``, and a
    custom rule set's module when there is one): its exit status, stdout and stderr.

    ``end_to_end``: the mypy command line.  Otherwise the plugin is built in this process with
    that configuration, as mypy's plugin loader builds it (the same ``mypy: error:`` line and
    ``SystemExit``), without mypy's start-up (about a second a case).
    """
    if end_to_end:
        done = _cli(directory, "--config-file", file, "--no-incremental", "demo.py")
        return done.status, done.stdout, done.stderr
    options = Options()
    options.config_file = str(directory / file)
    err = io.StringIO()
    sys.path.insert(0, str(directory))  # a custom rule set's module, as mypy finds it
    try:
        with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as stopped:
            mypy_plugin.plugin(mypy_version)(options)
    finally:
        sys.path.remove(str(directory))
        sys.modules.pop("myrules", None)
        for name in ("myrules:RULES", "bad", "fine"):
            unregister(name)
    return int(str(stopped.value.code)), "", err.getvalue()


def _revealed(out: str) -> list[str | None]:
    found = parse(out)
    return [found[line].revealed if line in found else None for line in (6, 7, 8)]


INI = "[mypy]\nplugins = mypy_plugin\n\n"
TOML = '[tool.mypy]\nplugins = ["mypy_plugin"]\n\n'
NOT_READ = "is not read by typing_pkg; did you mean"
CYCLE = 'LatticeRules("bad", {"int8": ("int16",), "int16": ("int8",)})'


BAD_CONFIGURATIONS: Final = [
    (
        "mypy.ini",
        INI + "[typing_pkg]\npromotion = jaxx\n",
        f'[typing_pkg] promotion = "jaxx" is not a rule set (did you mean "jax"?); '
        f"valid names: {VALID}",
    ),
    (
        "mypy.ini",
        INI + "[typing_pkg]\npromotion = JAX\n",
        f'[typing_pkg] promotion = "JAX" is not a rule set (did you mean "jax"?); '
        f"valid names: {VALID}",
    ),
    (
        "mypy.ini",
        INI + "[typing_pkg]\npromotion = tpu\n",
        f'[typing_pkg] promotion = "tpu" is not a rule set; valid names: {VALID}',
    ),
    (
        "pyproject.toml",
        TOML + '[tool.typing_pkg]\npromotion = "array_api"\n',
        '[tool.typing_pkg] promotion = "array_api" is not a rule set (did you mean '
        f'"array-api"?); valid names: {VALID}',
    ),
    (
        "pyproject.toml",
        TOML + "[tool.typing_pkg]\npromotion = 3\n",
        '[tool.typing_pkg] promotion must be a string such as "jax", got 3',
    ),
    # An option the plugin does not have.
    (
        "mypy.ini",
        INI + "[typing_pkg]\npromotions = numpy\n",
        '[typing_pkg] in mypy.ini: unknown option "promotions" (did you mean "promotion"?); '
        'the only option is "promotion"',
    ),
    (
        "pyproject.toml",
        TOML + '[tool.typing_pkg]\nrules = "numpy"\n',
        '[tool.typing_pkg] in pyproject.toml: unknown option "rules"; '
        'the only option is "promotion"',
    ),
]  # fmt: skip
"""The first case runs mypy's command line; the others build the plugin in process."""


@pytest.mark.parametrize(("file", "text", "message"), BAD_CONFIGURATIONS)
def test_a_bad_configuration_stops_mypy_with_one_line(
    tmp_path: Path, file: str, text: str, message: str
) -> None:
    (tmp_path / file).write_text(text)
    (tmp_path / "demo.py").write_text(PROGRAM)
    end_to_end = (file, text, message) == BAD_CONFIGURATIONS[0]
    assert _stops(tmp_path, file, end_to_end=end_to_end) == (2, "", f"mypy: error: {message}\n")


MISSPELT_SECTIONS: Final = [
    ("mypy.ini", "[typing-pkg]", "[typing_pkg]"),
    ("mypy.ini", "[typing_pkg ]", "[typing_pkg]"),
    ("setup.cfg", "[Typing_Pkg]", "[typing_pkg]"),
    ("setup.cfg", "[tool.typing_pkg]", "[typing_pkg]"),
    ("setup.cfg", "[tool:typing-pkg]", "[typing_pkg]"),
    ("pyproject.toml", "[tool.typing-pkg]", "[tool.typing_pkg]"),
    ("pyproject.toml", "[tool.typingpkg]", "[tool.typing_pkg]"),
    ("pyproject.toml", "[tool.typing_pkgs]", "[tool.typing_pkg]"),
    ("pyproject.toml", "[typing_pkg]", "[tool.typing_pkg]"),
]
"""The first case runs mypy's command line; the others build the plugin in process."""


@pytest.mark.parametrize(("file", "section", "meant"), MISSPELT_SECTIONS)
def test_a_misspelt_section_stops_mypy_with_one_line(
    tmp_path: Path, file: str, section: str, meant: str
) -> None:
    """mypy never reads these: the rules would silently be the default ones."""
    value = '"numpy"' if file.endswith(".toml") else "numpy"
    header = TOML if file.endswith(".toml") else INI
    (tmp_path / file).write_text(f"{header}{section}\npromotion = {value}\n")
    (tmp_path / "demo.py").write_text(PROGRAM)
    end_to_end = (file, section, meant) == MISSPELT_SECTIONS[0]
    assert _stops(tmp_path, file, end_to_end=end_to_end) == (
        2, "", f"mypy: error: {section} in {file} {NOT_READ} {meant}?\n"
    )  # fmt: skip


FAILING_RULE_SETS: Final = [
    (
        f"from typing_pkg.rules.custom import LatticeRules\nRULES = {CYCLE}\n",
        "cannot load the rule set: LatticeError: not a lattice: int8 and int16 lie on a "
        "cycle (int8 -> int16 -> int8) (raised at {path}:2)",
    ),
    (
        "from typing_pkg.rules.custom import LatticeRules\n"
        'RULES = LatticeRules("bad", [("int8", "int16")])\n',
        "cannot load the rule set: LatticeError: not a lattice of dtypes: the edges must be "
        "a mapping from each marker name to the names immediately above it (such as "
        "{{'int8': ('int16',), 'int16': ()}}), not a list (raised at {path}:2)",
    ),
    (
        "from typing_pkg.rules.custom import LatticeRules\n"
        'RULES = LatticeRules("bad", {"int8": ("flaot32",)})\n',
        "cannot load the rule set: LatticeError: not a lattice of dtypes: 'flaot32' (did you "
        "mean 'float32'?) is not a marker (raised at {path}:2)",
    ),
    (
        "import math\nRULES = math.floor(1 / 0)\n",
        "cannot load the rule set: ZeroDivisionError: division by zero (raised at {path}:2)",
    ),
    (
        "import sys\nsys.exit(3)\n",
        "cannot load the rule set: it called sys.exit(3) (raised at {path}:2)",
    ),
    (
        "from typing_pkg.rules.custom import LatticeRules\n"
        'RULE = LatticeRules("fine", {"int8": ("int16",)})\n',
        "cannot load rule set 'myrules:RULES': module 'myrules' has no attribute 'RULES' "
        "(did you mean 'RULE'?)",
    ),
]  # fmt: skip
"""The first case runs mypy's command line; the others build the plugin in process."""


@pytest.mark.parametrize(("module", "message"), FAILING_RULE_SETS)
def test_a_custom_rule_set_that_fails_stops_mypy_with_one_line(
    tmp_path: Path, module: str, message: str
) -> None:
    """Whatever importing or building the user's rule set raises: one line, never a crash."""
    (tmp_path / "myrules.py").write_text(module)
    (tmp_path / "mypy.ini").write_text(INI + "[typing_pkg]\npromotion = myrules:RULES\n")
    (tmp_path / "demo.py").write_text(PROGRAM)
    setting = '[typing_pkg] promotion = "myrules:RULES"'
    expected = message.format(path=tmp_path / "myrules.py")
    end_to_end = (module, message) == FAILING_RULE_SETS[0]
    assert _stops(tmp_path, "mypy.ini", end_to_end=end_to_end) == (
        2, "", f"mypy: error: {setting}: {expected}\n"
    )  # fmt: skip


def test_a_rule_set_the_plugin_cannot_use_is_refused(tmp_path: Path) -> None:
    """A user's RuleSet subclass naming types that are not markers (the plugin builds types)."""
    (tmp_path / "myrules.py").write_text(
        "from typing_pkg.rules.custom import LatticeRules\n"
        "RULES = LatticeRules('odd', {'int8': ()})\n"
        "RULES.array_types = ('int8', 'int9')\n"
    )
    ini = tmp_path / "mypy.ini"
    ini.write_text(INI + "[typing_pkg]\npromotion = myrules:RULES\n")
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(ConfigError) as raised:
            PluginConfig.from_file(str(ini)).load_rules()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("myrules", None)
        for name in ("myrules:RULES", "odd"):
            unregister(name)
    assert str(raised.value) == (
        '[typing_pkg] promotion = "myrules:RULES": the rule set is not usable: '
        "its array_types name 'int9', not markers"
    )


def test_the_section_of_another_tool_is_not_mistaken_for_ours(tmp_path: Path) -> None:
    ini = tmp_path / "setup.cfg"
    ini.write_text(
        "[mypy]\nplugins = mypy_plugin\n\n[mypy-typing_pkg.*]\nignore_errors = True\n\n"
        "[typing]\nx = 1\n\n[tool:pytest]\naddopts = -q\n\n[DEFAULT]\npromotions = 1\n\n"
        "[typing_pkg]\npromotion = numpy\n"
    )
    assert PluginConfig.from_file(str(ini)).promotion == "numpy"
    toml = tmp_path / "pyproject.toml"
    toml.write_text('[tool.mypy]\nplugins = ["mypy_plugin"]\n[tool.typing]\nx = 1\n')
    assert PluginConfig.from_file(str(toml)).promotion == "jax"


def test_pyproject_form_selects_the_rules(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mypy]\nplugins = ["mypy_plugin"]\n\n[tool.typing_pkg]\npromotion = "numpy"\n'
    )
    (tmp_path / "demo.py").write_text(PROGRAM)
    done = _cli(tmp_path, "--config-file", "pyproject.toml", "--no-incremental", "demo.py")
    assert done.status == 0, done.output
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


@pytest.mark.slow
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
    daemon = checkers.dmypy_command(status)
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
    done = checkers.timed_command(
        command, directory, 120, checkers.checker_env({"PYTHONPATH": str(ROOT)})
    )
    assert done.status in (0, 1) and not done.timed_out, done.output
    return done.stdout.removeprefix("Daemon started\n")


def _dmypy_run(directory: Path, *args: str) -> checkers.Ran:
    path = os.pathsep.join([str(ROOT), str(directory)])
    return checkers.timed_command(
        [*checkers.dmypy_command(directory / "dmypy.json"), *args], directory, 120,
        checkers.checker_env({"PYTHONPATH": path}),
    )  # fmt: skip


@pytest.mark.slow
def test_dmypy_run_restarts_when_the_rules_change(tmp_path: Path) -> None:
    """``dmypy run`` builds the plugin again: new rules (or new rules' sources) restart it."""
    (tmp_path / "demo.py").write_text(PROGRAM)
    (tmp_path / "myrules.py").write_text(RULES_MODULE.format(top=""))
    config = tmp_path / "mypy.ini"
    run = ("run", "--", "--config-file", str(config), "--no-error-summary", "demo.py")

    def check(promotion: str) -> tuple[str, list[str | None]]:
        write_config(tmp_path, promotion)
        done = _dmypy_run(tmp_path, *run)
        assert done.status in (0, 1) and not done.stderr, done.output
        restarted = "Restarting: plugins changed" if "Restarting" in done.stdout else ""
        return restarted, _revealed(done.stdout)

    f32, f64, i16, f16 = (
        f"typing_pkg.typing.Array[typing_pkg.dtypes.{t}]"
        for t in ("float32", "float64", "int16", "float16")
    )
    try:
        assert check("jax") == ("", [f32, i16, f16])
        assert check("numpy") == ("Restarting: plugins changed", [f64, i16, f16])
        assert check("numpy") == ("", [f64, i16, f16])
        write_config(tmp_path, "nump")
        bad = _dmypy_run(tmp_path, *run)
        assert (bad.status, bad.stdout) == (2, "")
        assert bad.stderr.startswith('mypy: error: [typing_pkg] promotion = "nump" is not a rule')
        assert len(bad.stderr.splitlines()) == 1
        assert check("numpy") == ("", [f64, i16, f16])  # the daemon lived on
        restarted, revealed = check("myrules:RULES")
        assert restarted and revealed[2] == "Any"  # int8 + float16: no path in this lattice
        (tmp_path / "myrules.py").write_text(RULES_MODULE.format(top='"float16",'))
        restarted, revealed = check("myrules:RULES")
        assert restarted and revealed[2] == f16
    finally:
        _dmypy_run(tmp_path, "stop")


def test_the_version_mypy_records_changes_only_in_a_daemon_built_with_other_rules() -> None:
    """What ``dmypy run`` compares: a plain run always records the release (its cache lives)."""
    plain, daemon = Options(), Options()
    daemon.fine_grained_incremental = True
    release = mypy_plugin.__version__
    try:
        assert mypy_plugin._snapshot_version(plain, "a") == release
        assert mypy_plugin._snapshot_version(plain, "b") == release
        assert mypy_plugin._snapshot_version(daemon, "a") == release  # the daemon's build
        assert mypy_plugin._snapshot_version(plain, "a") == release  # dmypy run, same rules
        assert mypy_plugin._snapshot_version(plain, "b") == f"{release}+rules.b"
    finally:
        mypy_plugin._daemon_rules = None


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
        for name in ("myrules:RULES", "fingerprinted"):
            unregister(name)  # the second run registered them again
    assert _revealed(after)[2] == "typing_pkg.typing.Array[typing_pkg.dtypes.float16]"


def test_importing_the_plugin_loads_no_array_library() -> None:
    """The plugin imports typing_pkg's rules (one source of truth) and nothing heavy."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys, mypy_plugin; print(sorted(m for m in "
         "('numpy', 'jax', 'torch', 'ml_dtypes', 'array_api_strict') if m in sys.modules))"],
        capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.stdout.strip() == "[]"
