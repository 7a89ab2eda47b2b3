"""TensorFlow's truth, transcribed from the project's design note.

TensorFlow is not installed, so its cells come from the table in section
"TensorFlow 类型提升" of ``shared/seeds/001_*.txt`` (next to the repository):
row = left operand ``x``, column = right operand ``y`` of ``tf.add(x, y)``,
``-`` = undefined.  Only the operator ``add`` is recorded; ``i*``, ``f*`` and
``c*`` (Python scalars) become ``py_int``, ``py_float`` and ``py_complex``.
"""

from __future__ import annotations

from pathlib import Path

from .observe import header_lines, sort_names
from .truthfile import Cell

SECTION_TITLE = "TensorFlow 类型提升"
#: The table's abbreviations -> our operand names.
LABELS: dict[str, str] = {
    "b": "bool_",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64",
    "c64": "complex64", "c128": "complex128",
    "i*": "py_int", "f*": "py_float", "c*": "py_complex",
}  # fmt: skip
UNDEFINED_ERROR = "undefined ('-') in the design note's TensorFlow table"


def seed_path() -> Path:
    """Return the design note holding the TensorFlow table, or raise FileNotFoundError."""
    seeds = Path(__file__).resolve().parents[3] / "shared" / "seeds"
    matches = sorted(seeds.glob("001_*.txt"))
    if not matches:
        raise FileNotFoundError(
            f"the TensorFlow truth is transcribed from {seeds}/001_*.txt, which does not exist"
        )
    return matches[0]


def _fields(line: str) -> list[str]:
    """Split a table line at ``|`` and drop empty trailing fields."""
    fields = [field.strip() for field in line.split("|")]
    while fields and not fields[-1]:
        fields.pop()
    return fields


def parse_tensorflow_table(text: str) -> dict[tuple[str, str], str | None]:
    """Return ``{(left, right): result or None}`` from the design note's TensorFlow table."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.startswith(SECTION_TITLE))
        header = next(i for i in range(start, len(lines)) if _fields(lines[i])[:1] == ["b"])
    except StopIteration:
        raise ValueError(f"no table under {SECTION_TITLE!r} in the design note") from None
    columns = _fields(lines[header])
    if [LABELS.get(c) for c in columns].count(None) or len(columns) != len(LABELS):
        raise ValueError(f"unexpected TensorFlow table header: {lines[header]!r}")
    table: dict[tuple[str, str], str | None] = {}
    for offset, line in enumerate(lines[header + 2 : header + 2 + len(columns)]):
        fields = _fields(line)
        if len(fields) != len(columns) + 1 or fields[0] != columns[offset]:
            raise ValueError(f"unexpected TensorFlow table row: {line!r}")
        for column, value in zip(columns, fields[1:], strict=True):
            if value != "-" and value not in LABELS:
                raise ValueError(f"unexpected TensorFlow table entry {value!r} in row {line!r}")
            key = (LABELS[fields[0]], LABELS[column])
            table[key] = None if value == "-" else LABELS[value]
    return table


def observe_tensorflow() -> tuple[list[str], list[Cell]]:
    """Return the truth-file comment lines and ``add`` cells of the TensorFlow table."""
    path = seed_path()
    table = parse_tensorflow_table(path.read_text(encoding="utf-8"))
    operands = sort_names(list(LABELS.values()))
    cells = [
        Cell("add", left, right, result, None, None, None)
        if (result := table[left, right]) is not None
        else Cell("add", left, right, None, None, "dtype", UNDEFINED_ERROR)
        for left in operands
        for right in operands
    ]
    meta = [
        *header_lines("tensorflow"),
        "rules: tensorflow: TensorFlow is not installed; transcribed from the table"
        f" {SECTION_TITLE!r} (tf.add(x, y), row = x, column = y) in ../shared/seeds/{path.name}",
        "versions: none (design note table)",
        "operands: " + " ".join(operands),
        "op: add only; '-' in the table is recorded as error_kind dtype",
    ]
    return meta, cells
