"""Static tests of the typing module: what mypy and basedpyright accept and reject.

``pass/*.py`` must type-check cleanly (their ``assert_type`` calls are the
expected types); every line of ``fail/*.py`` that carries ``# E: <codes>``
must be an error and no other line may be.  The codes name the mypy error
code(s) and the basedpyright rule(s) (``report*``) the line must produce,
exactly: ``x + "a"  # E: operator reportOperatorIssue``.

Each checker runs once over both directories, with explicit options and not
the project's configuration: ``mypy --strict`` (its own cache directory) and
basedpyright in strict mode (``pyrightconfig.json`` here).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PASS_FILES = sorted((HERE / "pass").glob("*.py"))
FAIL_FILES = sorted((HERE / "fail").glob("*.py"))
_MARK = re.compile(r"#\s*E:\s*(?P<codes>[\w\- ]+?)\s*$")
_MYPY_LINE = re.compile(
    r"^(?P<path>[^:\n]+\.py):(?P<line>\d+): error: (?P<message>.*?)(?:  \[(?P<code>[\w-]+)\])?$"
)

Location = tuple[str, int]  # (path relative to this directory, 1-based line)


def _relative(path: str) -> str:
    return Path(path).resolve().relative_to(HERE).as_posix()


def _expectations() -> dict[Location, tuple[frozenset[str], frozenset[str]]]:
    """Return, per marked line of the fail files, the expected mypy codes and pyright rules."""
    found: dict[Location, tuple[frozenset[str], frozenset[str]]] = {}
    for path in FAIL_FILES:
        for number, text in enumerate(path.read_text().splitlines(), start=1):
            mark = _MARK.search(text)
            if mark is None:
                continue
            codes = mark["codes"].split()
            rules = frozenset(c for c in codes if c.startswith("report"))
            found[(_relative(str(path)), number)] = (frozenset(codes) - rules, rules)
    return found


EXPECTED = _expectations()


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def mypy_errors() -> dict[Location, set[str]]:
    """Run mypy once over both directories; return the error codes per location."""
    done = _run(
        [
            sys.executable, "-m", "mypy", "--strict", "--config-file=", "--python-version=3.11",
            f"--cache-dir={ROOT / '.mypy_cache' / 'typing-tests'}", "--hide-error-context",
            "--no-error-summary", "--no-pretty", "--show-error-codes",
            str(HERE / "pass"), str(HERE / "fail"),
        ]
    )  # fmt: skip
    if done.returncode not in (0, 1) or done.stderr.strip():
        pytest.fail(f"mypy did not run cleanly ({done.returncode}):\n{done.stderr}{done.stdout}")
    errors: dict[Location, set[str]] = defaultdict(set)
    for line in done.stdout.splitlines():
        match = _MYPY_LINE.match(line)
        if match is not None:
            errors[(_relative(match["path"]), int(match["line"]))].add(match["code"] or "")
        elif ": error:" in line:
            pytest.fail(f"unparsed mypy error line: {line}")
    return errors


@pytest.fixture(scope="module")
def pyright_errors() -> dict[Location, set[str]]:
    """Run basedpyright once over both directories; return the rules per location."""
    exe = shutil.which("basedpyright", path=str(Path(sys.executable).parent)) or shutil.which(
        "basedpyright"
    )
    assert exe is not None, "basedpyright is not installed: pip install -e '.[test]'"
    done = _run(
        [
            exe, "--project", str(HERE / "pyrightconfig.json"),
            "--pythonpath", sys.executable, "--outputjson",
        ]
    )  # fmt: skip
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"basedpyright did not run ({done.returncode}):\n{done.stderr}{done.stdout}")
    errors: dict[Location, set[str]] = defaultdict(set)
    for diagnostic in report["generalDiagnostics"]:
        if diagnostic["severity"] == "error":
            where = (_relative(diagnostic["file"]), diagnostic["range"]["start"]["line"] + 1)
            errors[where].add(diagnostic.get("rule", "") or diagnostic["message"])
    assert report["summary"]["filesAnalyzed"] == len(PASS_FILES) + len(FAIL_FILES)
    return errors


def _unexpected(errors: dict[Location, set[str]], path: str) -> dict[Location, set[str]]:
    return {where: codes for where, codes in errors.items() if where[0] == path}


@pytest.mark.parametrize("path", PASS_FILES, ids=lambda p: f"pass/{p.name}")
def test_mypy_accepts(path: Path, mypy_errors: dict[Location, set[str]]) -> None:
    assert _unexpected(mypy_errors, _relative(str(path))) == {}


@pytest.mark.parametrize("path", PASS_FILES, ids=lambda p: f"pass/{p.name}")
def test_pyright_accepts(path: Path, pyright_errors: dict[Location, set[str]]) -> None:
    assert _unexpected(pyright_errors, _relative(str(path))) == {}


@pytest.mark.parametrize("where", sorted(EXPECTED), ids=lambda w: f"{w[0]}:{w[1]}")
def test_mypy_rejects(where: Location, mypy_errors: dict[Location, set[str]]) -> None:
    assert mypy_errors.get(where, set()) == set(EXPECTED[where][0])


@pytest.mark.parametrize("where", sorted(EXPECTED), ids=lambda w: f"{w[0]}:{w[1]}")
def test_pyright_rejects(where: Location, pyright_errors: dict[Location, set[str]]) -> None:
    assert pyright_errors.get(where, set()) == set(EXPECTED[where][1])


def test_only_marked_lines_fail(
    mypy_errors: dict[Location, set[str]], pyright_errors: dict[Location, set[str]]
) -> None:
    for errors in (mypy_errors, pyright_errors):
        stray = {w: c for w, c in errors.items() if w[0].startswith("fail/") and w not in EXPECTED}
        assert stray == {}


def test_every_mark_names_both_checkers() -> None:
    assert len(EXPECTED) >= 50
    for where, (codes, rules) in EXPECTED.items():
        assert codes and rules, where
