"""Reading and writing truth files.

A truth file (``truth/<rules>.csv``) records what a real array library does
for every operator and operand pair of one rule set.  It starts with comment
lines beginning with ``# `` (how the file was made, library versions, operand
list, skipped dtypes), followed by a CSV table with the header
``op,left,right,result,weak,error_kind,error``:

``op``
    operator name as in Python's :mod:`operator` module without a trailing
    underscore (``add``, ``iadd``, ``neg``, ...).
``left``, ``right``
    operand names: a dtype name (``int8``), a JAX weakly typed array
    (``weak_int``, ``weak_float``, ``weak_complex``) or a Python scalar
    (``py_bool``, ``py_int``, ``py_float``, ``py_complex``); ``right`` is empty
    for unary operators.
``result``
    dtype name of the result, empty when the operation raised.
``weak``
    ``1``/``0``: JAX's ``weak_type`` flag of the result; empty for other
    libraries and for errors.
``error_kind``
    empty on success, else ``dtype``, ``kernel``, ``shape`` or ``bug``.
``error``
    a message id (``m12``) for ``ExceptionType: first line of the message``
    (at most 160 characters); each distinct message is written once, in a
    comment line ``# m12 = TypeError: ...`` before the table.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

__all__ = [
    "COLUMNS",
    "Cell",
    "format_truth",
    "parse_truth",
    "read_truth",
    "read_truth_file",
    "write_truth",
]

COLUMNS: tuple[str, ...] = ("op", "left", "right", "result", "weak", "error_kind", "error")


@dataclass(frozen=True)
class Cell:
    """One observed operator application and its outcome."""

    op: str
    left: str
    right: str
    result: str | None
    weak: bool | None
    error_kind: str | None
    error: str | None


def _row(cell: Cell) -> list[str]:
    """Return the CSV fields of one cell."""
    weak = "" if cell.weak is None else ("1" if cell.weak else "0")
    return [
        cell.op,
        cell.left,
        cell.right,
        cell.result or "",
        weak,
        cell.error_kind or "",
        cell.error or "",
    ]


def _cell(row: list[str], line: int) -> Cell:
    """Build a cell from the CSV fields of one row."""
    if len(row) != len(COLUMNS):
        raise ValueError(f"line {line}: expected {len(COLUMNS)} fields, got {len(row)}")
    op, left, right, result, weak, error_kind, error = row
    if weak not in ("", "0", "1"):
        raise ValueError(f"line {line}: weak must be empty, 0 or 1, got {weak!r}")
    return Cell(
        op=op,
        left=left,
        right=right,
        result=result or None,
        weak=None if weak == "" else weak == "1",
        error_kind=error_kind or None,
        error=error or None,
    )


_MESSAGE_LINE = re.compile(r"^(m\d+) = (.*)$")


def format_truth(meta_lines: Iterable[str], cells: Iterable[Cell]) -> str:
    """Return the text of a truth file with the given comment lines and cells."""
    cells = list(cells)
    ids: dict[str, str] = {}
    for cell in cells:
        if cell.error and cell.error not in ids:
            ids[cell.error] = f"m{len(ids) + 1}"
    out = io.StringIO()
    for line in meta_lines:
        for part in line.splitlines() or [""]:
            out.write(f"# {part}".rstrip() + "\n")
    for message, ident in ids.items():
        out.write(f"# {ident} = {message}\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(_row(replace(c, error=ids[c.error]) if c.error else c) for c in cells)
    return out.getvalue()


def parse_truth(text: str) -> tuple[list[str], list[Cell]]:
    """Return the comment lines (without ``# ``) and the cells of a truth file's text."""
    lines = text.splitlines()
    meta: list[str] = []
    messages: dict[str, str] = {}
    start = 0
    while start < len(lines) and lines[start].startswith("#"):
        comment = lines[start][2:] if lines[start].startswith("# ") else lines[start][1:]
        found = _MESSAGE_LINE.match(comment)
        if found:
            messages[found[1]] = found[2]
        else:
            meta.append(comment)
        start += 1
    rows = list(csv.reader(lines[start:]))
    if not rows or tuple(rows[0]) != COLUMNS:
        raise ValueError(f"line {start + 1}: expected the header {','.join(COLUMNS)}")
    cells = [_cell(row, start + 2 + i) for i, row in enumerate(rows[1:]) if row]
    resolved = [replace(c, error=messages.get(c.error, c.error)) if c.error else c for c in cells]
    return meta, resolved


def write_truth(path: str | Path, meta_lines: Iterable[str], cells: Iterable[Cell]) -> None:
    """Write a truth file."""
    Path(path).write_text(format_truth(meta_lines, cells), encoding="utf-8")


def read_truth_file(path: str | Path) -> tuple[list[str], list[Cell]]:
    """Read a truth file's comment lines and cells."""
    return parse_truth(Path(path).read_text(encoding="utf-8"))


def read_truth(path: str | Path) -> list[Cell]:
    """Read the cells of a truth file."""
    return read_truth_file(path)[1]
