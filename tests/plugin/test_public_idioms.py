"""The idioms of public JAX code that once crashed the plugin or drew a false error.

``public_idioms/*.py`` mark each line that must get an error (``# E: code``)
and what each ``reveal_type`` must show (``# R: type``); every other line
must be clean.  One mypy run (``check_untyped_defs``, as the primer runs it)
checks them all.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from plugin_harness import ROOT, parse, run_mypy

HERE: Final = Path(__file__).resolve().parent / "public_idioms"
_EXPECTED: Final = re.compile(r"\S  # (?P<kind>[ER]): (?P<what>[^`]+?)\s*$")


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


def test_public_idioms(tmp_path: Path) -> None:
    files = sorted(HERE.glob("*.py"))
    assert files
    config = tmp_path / "mypy.ini"
    config.write_text(
        f"[mypy]\nplugins = mypy_plugin\nmypy_path = {ROOT}\ncheck_untyped_defs = True\n"
        "\n[typing_pkg]\npromotion = jax\n",
        encoding="utf-8",
    )
    stdout, stderr, status = run_mypy(files, config, tmp_path / "cache")
    assert "INTERNAL ERROR" not in stdout + stderr, stdout + stderr
    assert status in (0, 1), stdout + stderr
    by_file: dict[str, list[str]] = {}
    for line in stdout.splitlines():
        by_file.setdefault(Path(line.split(":", 1)[0]).name, []).append(line)
    for path in files:
        want_errors, want_reveals = expectations(path)
        found = parse("\n".join(by_file.get(path.name, [])))
        got_errors = {n: sorted(c or "" for _, c in o.errors) for n, o in found.items() if o.errors}
        got_reveals = {n: o.revealed for n, o in found.items() if o.revealed is not None}
        assert got_errors == {n: sorted(c) for n, c in want_errors.items()}, (path.name, stdout)
        assert got_reveals == want_reveals, (path.name, stdout)
