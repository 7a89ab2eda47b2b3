"""basedpyright with the generated stubs agrees with each rule set's recorded truth, cell by cell.

For each rule set, one generated program holds a ``reveal_type`` for every
operator and operand pair of ``truth/<rules>.csv`` (in-place operators
assign, update and reveal a variable).  basedpyright runs over it (two
shards at once) with the stub package of that rule set on its path: the
checkout's ``stubs/`` for ``jax``, the default; for the others, the package
``python -m typing_pkg stubs --rules R --out DIR`` writes, as a pyright user
choosing another rule set does.  Every cell must give the library's dtype (a
weakly typed result: the weak marker), or an error exactly where the library
refuses the dtypes and where the rules call a shape or bug failure
undefined.  ``jax`` (the default, whose stubs ship) and ``tensorflow`` are
checked in full; the others, whose stubs the same encoding writes, on a fixed
sample (:data:`SAMPLED`), to keep the run short: in full, measured once, they
agree in the same way (numpy: 41,193 of 44,064 cells, 272 excluded, 2,599
under the named limitation; torch: 17,664 of 18,480, 178 excluded, 638 under
it; array-api: 7,532 of 8,112 cells, 166 excluded, 414 under it; jax-x64:
46,154 of 46,480, 326 excluded; jax-strict: 36,810 of 37,200, 390 excluded).

Excluded, and counted: ``1 == x`` and ``1 != x`` (``int.__eq__`` types them
``bool`` in every checker), ``x == 1.0`` where the promotion is undefined
(Python then falls back to ``float.__eq__(object)``, also ``bool``), and two
Python scalars (TensorFlow's table has ``1 + 2.0``: Python types it, no
array is involved).

Named limitation, and counted: an in-place operator the library refuses
while the binary operator is defined (NumPy's ``a -= b`` with ``a`` of
``int8`` and ``b`` of ``float32``: the result cannot be cast back to
``int8``).  pyright, when ``__isub__`` does not accept the operand, falls
back to ``a = a - b``, as Python does when ``__isub__`` returns
``NotImplemented``: on a variable of no declared type (the program's) that
rebinds it to the binary result, with no error.  On a declared variable (a
parameter, ``a: Array[int8] = ...``) the rebinding is an error,
``reportAssignmentType``: :func:`test_in_place_on_declared_variables`
checks a sample of the in-place cells there, refused or not (in full,
measured once, all 16,796 of numpy, 6,825 of torch and 2,873 of array-api
agree).  The ``jax`` rules rebind (``x += y`` is ``x = x + y``), so no cell
of theirs is concerned.

pyrefly runs over the ``jax`` program, the package and its stubs installed
in a virtual environment as ``pip install`` puts them: it agrees in every
cell but the same excluded ones and two named ones (``abs()`` of a 2- or
4-bit integer array: pyrefly 1.4.1 types ``abs(x)`` through ``SupportsAbs``
without rejecting the dtype).

A last test runs ``basedpyright --verifytypes typing_pkg`` on the package
installed with its stubs: the public API must be completely typed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from stubprogram import (
    ROOT,
    Diagnostics,
    Program,
    conformance_program,
    install,
    read_pyright,
    reflected_equality,
    start_pyright,
)

from tools.checkers.output import read_pyrefly
from tools.checkers.run import basedpyright_command, checker_env, timed_command
from tools.conformance.compare import expected
from tools.conformance.truthfile import Cell, read_truth
from typing_pkg import stubgen
from typing_pkg.ops import INPLACE_OF
from typing_pkg.rules import DEFAULT, RuleSet, Undefined, get_rules

RULES = get_rules(DEFAULT)

SAMPLED = {"numpy": 4, "torch": 4, "array-api": 4, "jax-x64": 16, "jax-strict": 16}
"""Rule sets checked on every n-th cell only, chosen by a hash of the cell (the same every run)."""

FIGURES = {
    # rule set: (cells, agreeing, excluded, in-place cells under the named limitation)
    "jax": (37200, 36906, 294, 0),
    "numpy": (10956, 10253, 75, 628),
    "torch": (4627, 4422, 52, 153),
    "array-api": (2053, 1911, 46, 96),
    "tensorflow": (324, 315, 9, 0),
    "jax-x64": (2782, 2768, 14, 0),
    "jax-strict": (2259, 2242, 17, 0),
}
"""What basedpyright gives, cell by cell, for each rule set's truth (a sample for ``SAMPLED``)."""


def _sampled(cell: Cell, step: int) -> bool:
    """Whether ``cell`` is in the sample of every ``step``-th cell (a hash: the same every run)."""
    return zlib.crc32(f"{cell.op} {cell.left} {cell.right}".encode()) % step == 0


def truth_cells(name: str) -> list[Cell]:
    """Return the cells of ``truth/<name>.csv`` checked here: all, or the sample of ``SAMPLED``."""
    cells = read_truth(ROOT / "truth" / f"{name}.csv")
    step = SAMPLED.get(name)
    return cells if step is None else [c for c in cells if _sampled(c, step)]


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


def _cells_seen(program: Program, said: Diagnostics, rules: RuleSet = RULES) -> list[Seen]:
    """Return what a checker said about each cell of ``program``.

    An in-place cell is reported on its statement and revealed on the next line.
    """
    found: list[Seen] = []
    for line, cell in program.lines.items():
        shown = line + 1 if cell.right and cell.op.startswith("i") else line
        errors = tuple(said.errors.get(line, ()))
        found.append(Seen(cell, expected(rules, cell), said.revealed.get(shown), errors))
    return found


def _run(
    base: Path, cells: Sequence[Cell], rules: RuleSet, stubs: Path, *, declared: bool = False
) -> list[Seen]:
    """Run basedpyright (two shards, by operator) over the program of ``cells``."""
    ops = list(dict.fromkeys(c.op for c in cells))
    shards = [[c for c in cells if ops.index(c.op) % 2 == k] for k in range(2)]
    programs = [conformance_program(shard, declared=declared) for shard in shards if shard]
    runs = [start_pyright(base / f"shard{k}", p.source, stubs) for k, p in enumerate(programs)]
    found: list[Seen] = []
    for process, program in zip(runs, programs, strict=True):
        found += _cells_seen(program, read_pyright(process), rules)
    return found


def _stubs(name: str, base: Path) -> Path:
    """Return the directory holding the stub package of rule set ``name``.

    The checkout's for the default rules; for another, the package written as
    ``stubs --rules R --out DIR`` writes it, which is complete: pyright reads it
    before the installed (partial) one.
    """
    if name == DEFAULT:
        return stubgen.stubs_dir()
    stubgen.write(base / "stubs", name)
    assert not stubgen.is_partial(base / "stubs")
    return base / "stubs"


@dataclass(frozen=True)
class Conformance:
    """One rule set's run: what basedpyright said about each of its cells."""

    rules: RuleSet
    cells: int
    seen: list[Seen]


@pytest.fixture(scope="module", params=list(FIGURES))
def conformance(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Conformance:
    name: str = request.param
    rules = get_rules(name)
    cells = truth_cells(name)
    base = tmp_path_factory.mktemp(f"conformance-{name}")
    return Conformance(rules, len(cells), _run(base, cells, rules, _stubs(name, base)))


def _excluded(s: Seen) -> bool:
    """``1 == x``, ``x == 1.0`` where undefined (typed by the scalar's ``__eq__``), ``1 + 2.0``."""
    scalar_eq = s.cell.op in ("eq", "ne") and s.cell.right.startswith("py_") and s.want is None
    scalars = s.cell.left.startswith("py_") and s.cell.right.startswith("py_")
    return reflected_equality(s.cell) or scalar_eq or scalars


def _in_place_fallback(rules: RuleSet, s: Seen) -> bool:
    """An in-place cell the rules refuse and pyright types as the binary operator's result.

    The named limitation (see the module's docstring): the binary operator is
    defined, and the variable is rebound to its result with no error.
    """
    binary = INPLACE_OF.get(s.cell.op)
    if binary is None or s.want is not None:
        return False
    outcome = rules.result(binary, s.cell.left, s.cell.right)
    return not isinstance(outcome, Undefined) and not s.errors and s.revealed == f"Array[{outcome}]"


def test_every_cell_agrees_with_the_library(conformance: Conformance) -> None:
    rules, seen = conformance.rules, conformance.seen
    wrong = [s for s in seen if not _excluded(s) and not s.ok and not _in_place_fallback(rules, s)]
    assert not wrong, "\n".join(
        f"{rules.name}: {s.cell.left} {s.cell.op} {s.cell.right}: want {s.want or 'an error'}, "
        f"got {s.revealed} {list(s.errors)[:1]}"
        for s in wrong[:40]
    )


def test_counts(conformance: Conformance) -> None:
    rules, seen = conformance.rules, conformance.seen
    assert len(seen) == conformance.cells
    excluded = [s for s in seen if _excluded(s)]
    fallback = [s for s in seen if not _excluded(s) and _in_place_fallback(rules, s)]
    agreeing = sum(s.ok for s in seen if not _excluded(s))
    figures = (len(seen), agreeing, len(excluded), len(fallback))
    sample = f" (every {SAMPLED[rules.name]}th cell)" if rules.name in SAMPLED else ""
    print(
        f"{rules.name}{sample}: {agreeing} of {len(seen)} cells agree, {len(excluded)} excluded, "
        f"{len(fallback)} in-place cells under the named limitation"
    )
    assert figures == FIGURES[rules.name]
    assert agreeing + len(excluded) + len(fallback) == len(seen)
    # The excluded cells are typed bool by the scalar's __eq__, or by Python: not an Array.
    assert {s.revealed for s in excluded} <= {"bool", "int", "float", "complex"}
    if rules.name == DEFAULT:
        assert sum(reflected_equality(s.cell) for s in seen) == 248


@pytest.mark.parametrize("name", ["numpy", "torch"])
def test_in_place_on_declared_variables(tmp_path: Path, name: str) -> None:
    """An in-place operator on a declared variable: every cell right, refusals reported.

    The program declares each variable as its left operand's ``Array`` type,
    as a parameter is: pyright's fallback to the binary operator then
    rebinds it to another dtype, an error.  A sample of the in-place cells
    (every sixteenth, as ``SAMPLED`` samples), the limitation's among them.
    """
    rules = get_rules(name)
    cells = [
        c
        for c in read_truth(ROOT / "truth" / f"{name}.csv")
        if c.op in INPLACE_OF and _sampled(c, 16)
    ]
    seen = _run(tmp_path, cells, rules, _stubs(name, tmp_path), declared=True)
    wrong = [s for s in seen if not s.ok]
    assert not wrong, [
        (s.cell.left, s.cell.op, s.cell.right, s.want, s.revealed) for s in wrong[:20]
    ]
    refused = [s for s in seen if s.want is None]
    rebound = [
        s
        for s in refused
        if not isinstance(rules.result(INPLACE_OF[s.cell.op], s.cell.left, s.cell.right), Undefined)
    ]
    print(
        f"{name}: {len(seen)} in-place cells on declared variables agree; {len(refused)} "
        f"refused, {len(rebound)} of them where the binary operator is defined"
    )
    assert rebound and all("not assignable to declared type" in s.errors[0] for s in rebound)


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
    return _cells_seen(program, read_pyrefly(done.stdout))


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
    env = checker_env({"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
    work = tmp_path / "work"
    work.mkdir()
    done = timed_command(
        [
            *basedpyright_command(),
            "--verifytypes",
            "typing_pkg",
            "--ignoreexternal",
            "--outputjson",
        ],
        work,
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
