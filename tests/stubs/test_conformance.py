"""basedpyright with the generated stubs agrees with JAX's recorded truth, cell by cell.

One generated program holds a ``reveal_type`` for every operator and operand
pair of ``truth/jax.csv`` (in-place operators assign, update and reveal a
variable).  basedpyright runs over it (two shards at once) with the stub
package on its path, and every cell must give the library's dtype (a weakly
typed result: the weak marker), or an error exactly where JAX refuses the
dtypes and where the rules call a shape or bug failure undefined.

Excluded, and counted: ``1 == x`` and ``1 != x`` (``int.__eq__`` types them
``bool`` in every checker), and ``x == 1.0`` where the promotion is
undefined: Python then falls back to ``float.__eq__(object)``, also ``bool``.

pyrefly runs over the same program, the package and its stubs installed in
a virtual environment as ``pip install`` puts them: it agrees in every cell
but the same excluded ones and two named ones (``abs()`` of a 2- or 4-bit
integer array: pyrefly 1.4.1 types ``abs(x)`` through ``SupportsAbs`` without
rejecting the dtype).

A last test runs ``basedpyright --verifytypes typing_pkg`` on the package
installed with its stubs: the public API must be completely typed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from stubprogram import (
    ROOT,
    Diagnostics,
    Program,
    basedpyright,
    conformance_program,
    install,
    read_pyright,
    reflected_equality,
    start_pyright,
)

from tools.conformance.compare import expected
from tools.conformance.truthfile import Cell, read_truth
from typing_pkg import stubgen
from typing_pkg.rules import get_rules

RULES = get_rules("jax")


@dataclass(frozen=True)
class Seen:
    """What basedpyright said about one cell."""

    cell: Cell
    want: str | None
    revealed: str | None
    errors: tuple[str, ...]

    @property
    def ok(self) -> bool:
        if self.want is None:
            return bool(self.errors)
        return not self.errors and self.revealed == f"Array[{self.want}]"


def _cells_seen(program: Program, said: Diagnostics) -> list[Seen]:
    """Return what a checker said about each cell of ``program``.

    An in-place cell is reported on its statement and revealed on the next line.
    """
    found = []
    for line, cell in program.lines.items():
        shown = line + 1 if cell.right and cell.op.startswith("i") else line
        errors = tuple(said.errors.get(line, ()))
        found.append(Seen(cell, expected(RULES, cell), said.revealed.get(shown), errors))
    return found


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> list[Seen]:
    cells = read_truth(ROOT / "truth" / "jax.csv")
    ops = list(dict.fromkeys(c.op for c in cells))
    shards = [[c for c in cells if ops.index(c.op) % 2 == k] for k in range(2)]
    base = tmp_path_factory.mktemp("conformance")
    programs = [conformance_program(shard) for shard in shards]
    runs = [start_pyright(base / f"shard{k}", p.source) for k, p in enumerate(programs)]
    found: list[Seen] = []
    for process, program in zip(runs, programs, strict=True):
        found += _cells_seen(program, read_pyright(process))
    return found


def _excluded(s: Seen) -> bool:
    """``1 == x``, and ``x == 1.0`` where undefined: typed by the scalar's ``__eq__``."""
    scalar_eq = s.cell.op in ("eq", "ne") and s.cell.right.startswith("py_") and s.want is None
    return reflected_equality(s.cell) or scalar_eq


def test_every_cell_agrees_with_jax(seen: list[Seen]) -> None:
    wrong = [s for s in seen if not _excluded(s) and not s.ok]
    assert not wrong, "\n".join(
        f"{s.cell.left} {s.cell.op} {s.cell.right}: want {s.want or 'an error'}, "
        f"got {s.revealed} {list(s.errors)[:1]}"
        for s in wrong[:40]
    )


def test_counts(seen: list[Seen]) -> None:
    counts = Counter(
        "excluded" if _excluded(s) else ("error" if s.want is None else "dtype") for s in seen
    )
    cells = read_truth(ROOT / "truth" / "jax.csv")
    assert len(seen) == len(cells)
    wanted = Counter("error" if expected(RULES, c) is None else "dtype" for c in cells)
    assert counts["dtype"] + counts["error"] + counts["excluded"] == len(cells)
    assert counts["dtype"] <= wanted["dtype"] and counts["error"] <= wanted["error"]
    assert counts["excluded"] == sum(_excluded(s) for s in seen) < len(cells) // 100
    reflected = sum(reflected_equality(s.cell) for s in seen)
    assert reflected == 248
    # The excluded cells are typed bool by the scalar's __eq__, not an Array.
    assert {s.revealed for s in seen if _excluded(s)} == {"bool"}


PYREFLY_EXCEPTIONS = {("abs", "int2"), ("abs", "int4")}
"""Cells pyrefly gets wrong and basedpyright right: ``abs()`` of an undefined dtype."""


@pytest.fixture(scope="module")
def pyrefly_seen(tmp_path_factory: pytest.TempPathFactory) -> list[Seen]:
    cells = read_truth(ROOT / "truth" / "jax.csv")
    program = conformance_program(cells)
    base = tmp_path_factory.mktemp("pyrefly")
    bin_dir = install(base / "env", stubs=stubgen.stubs_dir() / stubgen.PACKAGE)
    work = base / "work"
    work.mkdir()
    # pyrefly wants reveal_type imported; on the first line, so no line moves.
    source = program.source.replace("from ", "from typing import reveal_type; from ", 1)
    (work / "prog.py").write_text(source)
    pyrefly = Path(sys.executable).with_name("pyrefly")
    done = subprocess.run(
        [str(pyrefly), "check", "--preset", "default", "--output-format", "json",
         "--python-interpreter-path", str(bin_dir / "python"), "prog.py"],
        capture_output=True, text=True, cwd=work, timeout=600,
    )  # fmt: skip
    assert done.stdout.strip().startswith("{"), done.stderr
    said = Diagnostics({}, {})
    for diag in json.loads(done.stdout)["errors"]:
        if diag["name"] == "reveal-type":
            said.revealed[diag["line"]] = diag["description"].removeprefix("revealed type: ")
        elif diag["severity"] == "error":
            said.errors.setdefault(diag["line"], []).append(diag["description"])
    return _cells_seen(program, said)


def test_pyrefly_agrees_with_jax(pyrefly_seen: list[Seen]) -> None:
    assert len(pyrefly_seen) == len(read_truth(ROOT / "truth" / "jax.csv"))
    wrong = [s for s in pyrefly_seen if not _excluded(s) and not s.ok]
    assert {(s.cell.op, s.cell.left) for s in wrong} == PYREFLY_EXCEPTIONS, [
        (s.cell.left, s.cell.op, s.cell.right, s.want, s.revealed, s.errors[:1]) for s in wrong[:20]
    ]
    assert all(s.want is None and s.revealed == "Array" for s in wrong)  # Array[Any], no error
    agreed = sum(s.ok for s in pyrefly_seen if not _excluded(s))
    print(f"pyrefly: {agreed} of {agreed + len(wrong)} cells agree")
    checked = sum(not _excluded(s) for s in pyrefly_seen)
    assert agreed == checked - len(PYREFLY_EXCEPTIONS)
    # The excluded cells: bool, through the Python scalar's __eq__, as in basedpyright.
    assert {s.revealed for s in pyrefly_seen if _excluded(s)} == {"bool"}


def test_public_api_is_completely_typed(tmp_path: Path) -> None:
    """``basedpyright --verifytypes``, the package installed with its stub package."""
    bin_dir = install(tmp_path / "env", stubs=stubgen.stubs_dir() / stubgen.PACKAGE)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(
        [*basedpyright(), "--verifytypes", "typing_pkg", "--ignoreexternal", "--outputjson"],
        capture_output=True,
        text=True,
        cwd=work,
        env=env,
    )
    report = json.loads(done.stdout)["typeCompleteness"]
    assert report["packageRootDirectory"].endswith("typing_pkg")
    score = report["completenessScore"]
    incomplete = [
        s["name"]
        for s in report["symbols"]
        if (s["isExported"] and not s["isTypeKnown"]) or s["isTypeAmbiguous"]
    ]
    print(f"verifytypes: completeness {score:.1%}; incomplete: {incomplete}")
    stubbed = ("typing_pkg.typing.", "typing_pkg.dtypes.", "typing_pkg.promotion.")
    assert not [n for n in incomplete if n.startswith(stubbed)]
    assert score >= 0.99
