"""The idioms of public JAX code that once crashed the plugin or drew a false error.

``public_idioms/*.py`` mark each line that must get an error (``# E: code``)
and what each ``reveal_type`` must show (``# R: type``); every other line
must be clean.  One mypy run (``check_untyped_defs``, as the primer runs it)
checks them all; the slow test checks that every way mypy runs (cold, warm,
after an edit, ``--no-incremental``, mypy 2's ``--num-workers`` and
``--native-parser``) reports the same.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import pytest
from plugin_harness import ROOT, parse, run_mypy

from tools.checkers import run as checkers

HERE: Final = Path(__file__).resolve().parent / "public_idioms"
_EXPECTED: Final = re.compile(r"\S  # (?P<kind>[ER]): (?P<what>[^`]+?)\s*$")


def write_config(directory: Path) -> Path:
    """Write the primer's configuration with the plugin (``check_untyped_defs``)."""
    config = directory / "mypy.ini"
    config.write_text(
        f"[mypy]\nplugins = mypy_plugin\nmypy_path = {ROOT}\ncheck_untyped_defs = True\n"
        "\n[typing_pkg]\npromotion = jax\n",
        encoding="utf-8",
    )
    return config


def expectations(path: Path) -> tuple[dict[int, list[str]], dict[int, str]]:
    """Return the error codes and the revealed type each line of ``path`` asks for."""
    errors: dict[int, list[str]] = {}
    reveals: dict[int, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = _EXPECTED.search(line)
        if match is None:
            continue
        if match["kind"] == "E":
            errors[number] = [code.strip() for code in match["what"].split(",")]
        else:
            reveals[number] = match["what"]
    return errors, reveals


@pytest.mark.slow  # mypy over JAX (its seed grown once a process)
def test_public_idioms(tmp_path: Path) -> None:
    files = sorted(HERE.glob("*.py"))
    assert files
    config = write_config(tmp_path)
    stdout, stderr, status = run_mypy(files, config, tmp_path / "cache", seeded=True)
    assert "INTERNAL ERROR" not in stdout + stderr, stdout + stderr
    assert status in (0, 1), stdout + stderr
    by_file: dict[str, list[str]] = {}
    for line in stdout.splitlines():
        by_file.setdefault(Path(line.split(":", 1)[0]).name, []).append(line)
    for path in files:
        want_errors, want_reveals = expectations(path)
        found = parse("\n".join(by_file.get(path.name, [])))
        got_errors = {n: sorted(c or "" for _, c in o.errors) for n, o in found.items() if o.errors}
        got_reveals = {  # mypy 1.x spells the builtins "builtins.tuple", "builtins.str"
            n: _BUILTINS.sub(r"\1", o.revealed) for n, o in found.items() if o.revealed is not None
        }
        assert got_errors == {n: sorted(c) for n, c in want_errors.items()}, (path.name, stdout)
        assert got_reveals == want_reveals, (path.name, stdout)


_BUILTINS: Final = re.compile(r"\bbuiltins\.(tuple|dict|list|str|int|float|bool)\b")


def _modes() -> list[list[str]]:
    """The ways to run mypy the installed mypy has besides the default (mypy 2: workers, parser)."""
    from mypy.main import process_options

    modes: list[list[str]] = [["--no-incremental"]]
    for flags in (["--num-workers=2"], ["--native-parser"]):
        try:
            process_options([*flags, "x.py"])
        except SystemExit:
            continue  # an older mypy: the mode does not exist there
        modes.append(flags)
    return modes


@pytest.mark.slow
def test_every_way_mypy_runs_gives_the_same_report(tmp_path: Path) -> None:
    """Cold, warm, after an edit, and each mode of the installed mypy: the same lines."""
    files = [tmp_path / path.name for path in sorted(HERE.glob("*.py"))]
    for path, copy in zip(sorted(HERE.glob("*.py")), files, strict=True):
        copy.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    config = write_config(tmp_path)

    def report(*flags: str, cache: str = "cache") -> list[str]:
        done = checkers.mypy(
            "--config-file", config, "--cache-dir", tmp_path / cache, "--no-error-summary",
            "--show-traceback", *flags, *(f.name for f in files),
            cwd=tmp_path, report=False,
        )  # fmt: skip
        assert done.status in (0, 1), done.output
        return sorted(done.stdout.splitlines())

    cold = report()
    assert cold and not any("INTERNAL ERROR" in line for line in cold)
    assert report() == cold  # warm: everything from the cache
    files[0].write_text(files[0].read_text(encoding="utf-8") + "\nEDITED = 1\n", encoding="utf-8")
    assert report() == cold  # incremental, one module edited
    for flags in _modes():
        assert report(*flags, cache=f"cache{'-'.join(flags)}") == cold, flags
