"""Generated programs that ask a checker for the type of every cell of a truth table.

``conformance_program(cells)`` returns the source of a module with one
``reveal_type`` per cell (an in-place cell assigns, updates and reveals a
variable) and the line each cell is reported on.
``tools.conformance.compare.expected(rules, cell)`` says what a checker must
give for a cell: a marker name, or ``None`` where it must report an error.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tools.checkers.output import Diagnostics, read_basedpyright
from tools.checkers.run import basedpyright_command
from tools.conformance.truthfile import Cell
from typing_pkg.ops import INPLACE, SYMBOL, UNARY
from typing_pkg.rules import PY_SCALARS

__all__ = [
    "ROOT",
    "Diagnostics",
    "Program",
    "conformance_program",
    "install",
    "operand",
    "read_pyright",
    "reflected_equality",
    "start_pyright",
]

ROOT = Path(__file__).resolve().parents[2]

_SCALAR_TYPES = {kind: kind.removeprefix("py_") for kind in PY_SCALARS}
"""Python scalar kind → the Python type a parameter standing for it is declared (``int``)."""


def operand(name: str) -> str:
    """Return the parameter that stands for operand ``name`` in a generated program."""
    return f"s_{_SCALAR_TYPES[name]}" if name in _SCALAR_TYPES else f"a_{name}"


def reflected_equality(cell: Cell) -> bool:
    """Return whether ``cell`` is ``1 == x`` or ``1 != x``: typed ``bool`` by ``int.__eq__``."""
    return cell.op in ("eq", "ne") and cell.left in _SCALAR_TYPES


@dataclass(frozen=True)
class Program:
    """A generated module and the line (1-based) each cell is checked on."""

    source: str
    lines: dict[int, Cell]


def _signature(cells: Iterable[Cell]) -> str:
    names = {c.left for c in cells} | {c.right for c in cells if c.right}
    return ", ".join(
        f"{operand(n)}: {_SCALAR_TYPES.get(n) or f'Array[{n}]'}" for n in sorted(names)
    )


def conformance_program(cells: Sequence[Cell], *, declared: bool = False) -> Program:
    """Return a program with one checked line per cell, a function per operator and left operand.

    An in-place cell updates a variable of its own, undeclared (its type is what
    it is bound to, as JAX rebinds ``x += y`` to ``x + y``) or, with
    ``declared``, declared as the left operand's ``Array`` type (NumPy and
    PyTorch update the array, which keeps its dtype).
    """
    arrays = sorted({n for c in cells for n in (c.left, c.right) if n and n not in _SCALAR_TYPES})
    lines = ["from typing_pkg import Array", f"from typing_pkg.dtypes import {', '.join(arrays)}"]
    at: dict[int, Cell] = {}
    groups: dict[tuple[str, str], list[Cell]] = {}
    for cell in cells:
        groups.setdefault((cell.op, cell.left), []).append(cell)
    for (op, left_name), group in groups.items():
        lines += ["", f"def check_{op}_{left_name}({_signature(group)}) -> None:"]
        left = operand(left_name)
        for cell in group:
            if op in UNARY:
                expr = f"abs({left})" if op == "abs" else f"{SYMBOL[op]}{left}"
                lines.append(f"    reveal_type({expr})")
            elif op in INPLACE:
                # One variable per cell: pyright infers a variable's declared
                # type from all its assignments.
                var = f"v{len(lines)}"
                annotation = f": Array[{left_name}]" if declared else ""
                lines.append(f"    {var}{annotation} = {left}")
                lines.append(f"    {var} {SYMBOL[op]} {operand(cell.right)}")
                at[len(lines)] = cell
                lines.append(f"    reveal_type({var})")
                continue
            else:
                lines.append(f"    reveal_type({left} {SYMBOL[op]} {operand(cell.right)})")
            at[len(lines)] = cell
    return Program("\n".join(lines) + "\n", at)


def start_pyright(
    directory: Path, source: str, stubs: Path = ROOT / "stubs"
) -> subprocess.Popen[str]:
    """Start basedpyright (JSON output) on ``source`` saved as ``directory/prog.py``.

    ``stubs`` is the directory holding the ``typing_pkg-stubs`` it reads (by
    default the checkout's, for the default rules).
    """
    directory.mkdir(exist_ok=True)
    (directory / "prog.py").write_text(source)
    config = {
        "include": ["prog.py"],
        "pythonVersion": "3.11",
        "typeCheckingMode": "standard",
        "extraPaths": [str(stubs), str(ROOT)],
    }
    (directory / "pyrightconfig.json").write_text(json.dumps(config))
    return subprocess.Popen(
        [*basedpyright_command(), "--outputjson", "-p", str(directory)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def read_pyright(process: subprocess.Popen[str]) -> Diagnostics:
    """Wait for a run of ``start_pyright`` and return what it revealed and reported."""
    out, err = process.communicate(timeout=600)
    assert out.strip().startswith("{"), err
    return read_basedpyright(out)


def install(where: Path, *, stubs: Path | None) -> Path:
    """Create a virtual environment where ``typing_pkg`` (and the stub package) are installed.

    ``typing_pkg`` is linked, not copied; ``stubs`` is the stub package's
    directory, copied into ``site-packages`` as ``pip install`` puts it.
    Return the environment's ``bin`` directory.
    """
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(where)],
        check=True,
    )
    site = next(where.glob("lib/python3*/site-packages"))
    (site / "typing_pkg").symlink_to(ROOT / "typing_pkg", target_is_directory=True)
    if stubs is not None:
        shutil.copytree(stubs, site / stubs.name)
    return where / "bin"
