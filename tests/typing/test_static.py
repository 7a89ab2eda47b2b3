"""Static tests of the typing module: what mypy and basedpyright accept and reject.

Two suites, each a ``pass`` and a ``fail`` directory:

* **plain** (``pass/``, ``fail/``): the run-time module's own annotations, as
  mypy without the plugin and basedpyright without the stub package read
  them (operators give ``Array[Any]``);
* **precise** (``precise/pass/``, ``precise/fail/``): what each checker's
  dtype-precise path gives, mypy with the plugin and basedpyright with the
  stub package; the same ``assert_type`` must hold in both.

``pass/*.py`` must type-check cleanly (their ``assert_type`` calls are the
expected types); every line of ``fail/*.py`` that carries ``# E: <codes>``
must be an error and no other line may be.  The codes name the mypy error
code(s) and the basedpyright rule(s) (``report*``) the line must produce,
exactly: ``x + "a"  # E: operator reportOperatorIssue``.

Each checker runs once per suite over both directories, with explicit
options and not the project's configuration: ``mypy --strict`` (its own
cache directory; the precise suite's ``mypy.ini`` adds the plugin) and
basedpyright in strict mode (the suite's ``pyrightconfig.json``).  The
checkout's editable install puts ``stubs/`` on the environment's path, so
the plain suite runs basedpyright with an interpreter that sees the
environment's packages but not that directory.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

from tools.checkers import run as checkers

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
_MARK = re.compile(r"#\s*E:\s*(?P<codes>[\w\- ]+?)\s*$")

Location = tuple[str, int]  # (path relative to this directory, 1-based line)


@dataclass(frozen=True)
class Suite:
    """A pass and a fail directory and how each checker runs over them."""

    name: str
    root: Path
    mypy_options: tuple[str, ...]
    stubs: bool
    """Whether basedpyright reads the stub package."""

    @property
    def pass_files(self) -> list[Path]:
        return sorted((self.root / "pass").glob("*.py"))

    @property
    def fail_files(self) -> list[Path]:
        return sorted((self.root / "fail").glob("*.py"))


PLAIN = Suite("plain", HERE, ("--config-file=",), stubs=False)
PRECISE = Suite(
    "precise", HERE / "precise", (f"--config-file={HERE / 'precise' / 'mypy.ini'}",), stubs=True
)
SUITES = (PLAIN, PRECISE)


def _relative(path: str) -> str:
    return Path(path).resolve().relative_to(HERE).as_posix()


def _expectations() -> dict[Location, tuple[frozenset[str], frozenset[str]]]:
    """Return, per marked line of the fail files, the expected mypy codes and pyright rules."""
    found: dict[Location, tuple[frozenset[str], frozenset[str]]] = {}
    for path in (p for suite in SUITES for p in suite.fail_files):
        for number, text in enumerate(path.read_text().splitlines(), start=1):
            mark = _MARK.search(text)
            if mark is None:
                continue
            codes = mark["codes"].split()
            rules = frozenset(c for c in codes if c.startswith("report"))
            found[(_relative(str(path)), number)] = (frozenset(codes) - rules, rules)
    return found


EXPECTED = _expectations()
PASS_FILES = [p for suite in SUITES for p in suite.pass_files]


def _mypy(suite: Suite) -> dict[Location, set[str]]:
    """Run mypy once over a suite's directories; return the error codes per location."""
    done = checkers.mypy(
        "--strict", *suite.mypy_options, "--python-version=3.11",
        f"--cache-dir={ROOT / '.mypy_cache' / f'typing-tests-{suite.name}'}",
        str(suite.root / "pass"), str(suite.root / "fail"),
        cwd=ROOT,
    )  # fmt: skip
    if done.status not in (0, 1) or done.stderr.strip():
        pytest.fail(f"mypy did not run cleanly ({done.status}):\n{done.stderr}{done.stdout}")
    errors: dict[Location, set[str]] = defaultdict(set)
    read = [m for m in done.messages() if m.severity == "error"]
    for message in read:
        errors[(_relative(message.file), message.line)].add(message.code or "")
    shown = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(shown) == len(read), f"unparsed mypy error lines in {shown}"
    return errors


def _python_without_stubs(where: Path) -> Path:
    """Return a Python that imports this environment's packages but not ``stubs/``.

    A virtual environment whose ``.pth`` lists this one's ``site-packages``:
    the directories there are on its path, the ``.pth`` files in them (the
    editable install's ``stubs/``) are not read.
    """
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    site = next(where.glob("lib/python3*/site-packages"))
    ours = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    (site / "_packages.pth").write_text("".join(f"{p}\n" for p in ours))
    return where / "bin" / "python"


def _pyright(suite: Suite, python: Path) -> dict[Location, set[str]]:
    """Run basedpyright once over a suite's directories; return the rules per location."""
    done = checkers.basedpyright(
        "--project", suite.root / "pyrightconfig.json", cwd=ROOT, python=python
    )
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"basedpyright did not run ({done.status}):\n{done.stderr}{done.stdout}")
    errors: dict[Location, set[str]] = defaultdict(set)
    for diagnostic in report["generalDiagnostics"]:
        if diagnostic["severity"] == "error":
            where = (_relative(diagnostic["file"]), diagnostic["range"]["start"]["line"] + 1)
            errors[where].add(diagnostic.get("rule", "") or diagnostic["message"])
    assert report["summary"]["filesAnalyzed"] == len(suite.pass_files) + len(suite.fail_files)
    return errors


@pytest.fixture(scope="module")
def mypy_errors() -> dict[Location, set[str]]:
    """mypy's errors in both suites, by location."""
    return {where: codes for suite in SUITES for where, codes in _mypy(suite).items()}


@pytest.fixture(scope="module")
def pyright_errors(tmp_path_factory: pytest.TempPathFactory) -> dict[Location, set[str]]:
    """basedpyright's errors in both suites, by location."""
    plain = _python_without_stubs(tmp_path_factory.mktemp("plain-env"))
    found: dict[Location, set[str]] = {}
    for suite in SUITES:
        found.update(_pyright(suite, Path(sys.executable) if suite.stubs else plain))
    return found


def _unexpected(errors: dict[Location, set[str]], path: str) -> dict[Location, set[str]]:
    return {where: codes for where, codes in errors.items() if where[0] == path}


def _id(path: Path) -> str:
    return _relative(str(path))


@pytest.mark.parametrize("path", PASS_FILES, ids=_id)
def test_mypy_accepts(path: Path, mypy_errors: dict[Location, set[str]]) -> None:
    assert _unexpected(mypy_errors, _relative(str(path))) == {}


@pytest.mark.parametrize("path", PASS_FILES, ids=_id)
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
        stray = {w: c for w, c in errors.items() if "fail/" in w[0] and w not in EXPECTED}
        assert stray == {}


def test_every_mark_names_both_checkers() -> None:
    assert len(EXPECTED) >= 50
    for where, (codes, rules) in EXPECTED.items():
        assert codes and rules, where


def test_the_plain_suite_does_not_read_the_stubs(tmp_path: Path) -> None:
    """The plain suite's interpreter imports NumPy but cannot see the stub package."""
    python = _python_without_stubs(tmp_path / "env")
    done = subprocess.run(
        [str(python), "-c", "import numpy, sys; print(any(p.endswith('stubs') for p in sys.path))"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert done.stdout.strip() == "False"
