"""Rendering rule sets: promotion tables, operator tables, diffs and lattice pictures.

Every function here returns a string and has no side effects (except
``render_svg``, which may run Graphviz's ``dot``); the command line
(``python -m typing_pkg table|diff|lattice``) is a thin layer over them.

Tables
    ``render_table(rules)`` is the promotion table of a rule set: one row and
    one column per type, in the rule set's table order; the cell in row ``a``
    and column ``b`` is ``promote(a, b)`` (the row is the left operand, which
    matters for asymmetric tables).  With ``op="add"`` (any name of
    ``typing_pkg.ops``) the cells are what ``a + b`` gives instead; a unary
    operator gives a single column.  Undefined cells show ``-``.  Labels are
    the short codes of JAX's table (``f4``, ``i*``, ``bf``) or, with
    ``names="full"``, the marker names (``float32``, ``weak_int``).
    ``only=["bool_", "int8", ...]`` restricts the table to those types, in that
    order.  ``highlight=other_rules`` marks the cells where ``other_rules``
    differ, as JAX's page highlights where JAX differs from NumPy.

    Formats: ``text`` (an aligned grid), ``markdown``, ``html`` (a ``<table>``
    shaped like the one on JAX's type promotion page, ``class="d"`` on marked
    cells) and ``csv``.  Marked cells carry a trailing ``*`` in text, markdown
    and csv.

Diffs
    ``render_diff(r1, r2)`` is the same grid over the types both rule sets
    have (in ``r1``'s order); a cell where they differ shows
    ``r1-result/r2-result`` and is marked.  A closing line says
    ``N of M cells differ``.

Lattices
    ``render_dot(lattice)`` is the Hasse diagram in Graphviz's language: each
    type with an arrow to each immediate successor (``Lattice.edges``), weak
    types dashed, every node pinned (``pos="x,y!"``) where JAX's page draws
    it: booleans on the left, unsigned integers on the bottom row, signed ones
    on the top row, the weak types between, then floats and complex numbers to
    the right; the sub-byte integers sit beyond their rows and the 4-to-8-bit
    floats fan out under ``f*``.  Lattices over types that are not
    markers are laid out by rank instead.  ``render_svg(lattice)`` draws it
    with ``dot`` (``layout=neato`` honours the pins) when Graphviz is on
    ``PATH``, and otherwise with a small built-in writer using the same
    positions (``engine="builtin"`` forces it); its output depends only on
    its input, byte for byte.
"""

from __future__ import annotations

import csv
import html
import io
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from typing_pkg.dtypes import BY_NAME, NARROW_FLOATS
from typing_pkg.lattice import Lattice
from typing_pkg.ops import OPERATORS, SYMBOL, UNARY
from typing_pkg.rules.base import RuleSet, Undefined

__all__ = [
    "ENGINES",
    "LATTICE_FORMATS",
    "NAMES",
    "TABLE_FORMATS",
    "Engine",
    "Grid",
    "LatticeFormat",
    "Names",
    "RenderError",
    "TableFormat",
    "diff_grid",
    "format_grid",
    "label",
    "lattice_of",
    "layout",
    "render_diff",
    "render_dot",
    "render_svg",
    "render_table",
    "table_grid",
]

TableFormat = Literal["text", "markdown", "html", "csv"]
LatticeFormat = Literal["dot", "svg"]
Names = Literal["code", "full"]
TABLE_FORMATS: Final[tuple[TableFormat, ...]] = ("text", "markdown", "html", "csv")
LATTICE_FORMATS: Final[tuple[LatticeFormat, ...]] = ("dot", "svg")
NAMES: Final[tuple[Names, ...]] = ("code", "full")

UNDEFINED: Final = "-"
"""How an undefined cell is shown, in every format."""
MARK: Final = "*"
"""What follows a marked cell in text, markdown and csv."""


class RenderError(ValueError):
    """A request the renderer cannot satisfy: a type the rules lack, a bad operator, no lattice."""


# ------------------------------------------------------------------- grids


@dataclass(frozen=True)
class Grid:
    """A labelled table of cells, some marked, with an optional closing line."""

    corner: str
    columns: tuple[str, ...]
    rows: tuple[str, ...]
    cells: tuple[tuple[str, ...], ...]
    marked: frozenset[tuple[int, int]] = frozenset()
    summary: str = ""


def label(name: str, names: Names = "code") -> str:
    """Return how type ``name`` is labelled: its marker's code, or its name."""
    marker = BY_NAME.get(name)
    if names == "full" or marker is None:
        return name
    return marker.code


def _select(types: Sequence[str], only: Sequence[str] | None, owner: str) -> tuple[str, ...]:
    """Return ``only`` (checked against ``types``) or all of ``types``."""
    if only is None:
        return tuple(types)
    known = set(types)
    missing = [t for t in only if t not in known]
    if missing:
        raise RenderError(f"{', '.join(missing)}: not among the types {owner} have")
    return tuple(only)


def _check_op(op: str | None) -> None:
    """Raise ``RenderError`` unless ``op`` is ``None`` or an operator of ``typing_pkg.ops``."""
    if op is not None and op not in OPERATORS:
        raise RenderError(f"unknown operator {op!r}; valid operators: {', '.join(OPERATORS)}")


def _cell(rules: RuleSet, op: str | None, a: str, b: str | None) -> str | None:
    """Return the result name of one cell, or ``None`` where it is undefined."""
    if op is None:
        assert b is not None
        return rules.promote(a, b)
    outcome = rules.result(op, a, b)
    return None if isinstance(outcome, Undefined) else outcome


def _shape(op: str | None, types: tuple[str, ...]) -> tuple[str, tuple[str | None, ...]]:
    """Return the corner label and the right operands of a grid (``None``: unary)."""
    if op is None:
        return "", types
    symbol = SYMBOL[op]
    if op in UNARY:
        header = f"{symbol[:-1]}x)" if symbol.endswith("()") else f"{symbol}x"
        return header, (None,)
    return symbol, types


def _value(result: str | None, names: Names) -> str:
    return UNDEFINED if result is None else label(result, names)


def table_grid(
    rules: RuleSet,
    *,
    op: str | None = None,
    names: Names = "code",
    only: Sequence[str] | None = None,
    highlight: RuleSet | None = None,
) -> Grid:
    """Build the promotion (or ``op``) grid of ``rules``, marking where ``highlight`` differs."""
    _check_op(op)
    types = _select(rules.types, only, f"the {rules.name!r} rules")
    corner, right = _shape(op, types)
    other: set[str] = set(highlight.types) if highlight is not None else set()
    cells: list[tuple[str, ...]] = []
    marked: set[tuple[int, int]] = set()
    for i, a in enumerate(types):
        row: list[str] = []
        for j, b in enumerate(right):
            result = _cell(rules, op, a, b)
            row.append(_value(result, names))
            if highlight is not None and (
                a not in other
                or (b is not None and b not in other)
                or _cell(highlight, op, a, b) != result
            ):
                marked.add((i, j))
        cells.append(tuple(row))
    columns = tuple(label(b, names) for b in types) if right != (None,) else (corner,)
    return Grid(
        corner="" if right == (None,) else corner,
        columns=columns,
        rows=tuple(label(a, names) for a in types),
        cells=tuple(cells),
        marked=frozenset(marked),
    )


def diff_grid(
    left: RuleSet,
    right: RuleSet,
    *,
    op: str | None = None,
    names: Names = "code",
    only: Sequence[str] | None = None,
) -> Grid:
    """Build the grid over the types both rule sets have, marking the cells that differ."""
    _check_op(op)
    theirs = set(right.types)
    common = tuple(t for t in left.types if t in theirs)
    types = _select(common, only, f"both the {left.name!r} and the {right.name!r} rules")
    corner, columns = _shape(op, types)
    cells: list[tuple[str, ...]] = []
    marked: set[tuple[int, int]] = set()
    for i, a in enumerate(types):
        row: list[str] = []
        for j, b in enumerate(columns):
            mine, other = _cell(left, op, a, b), _cell(right, op, a, b)
            if mine == other:
                row.append(_value(mine, names))
            else:
                row.append(f"{_value(mine, names)}/{_value(other, names)}")
                marked.add((i, j))
        cells.append(tuple(row))
    total = len(types) * len(columns)
    return Grid(
        corner="" if columns == (None,) else corner,
        columns=(corner,) if columns == (None,) else tuple(label(b, names) for b in types),
        rows=tuple(label(a, names) for a in types),
        cells=tuple(cells),
        marked=frozenset(marked),
        summary=f"{len(marked)} of {total} cells differ between {left.name} and {right.name}",
    )


def _marked_text(grid: Grid, i: int, j: int, escape: bool = False) -> str:
    cell = _md_escape(grid.cells[i][j]) if escape else grid.cells[i][j]
    if (i, j) in grid.marked:
        return cell + ("\\" + MARK if escape else MARK)
    return cell


def _md_escape(text: str) -> str:
    for char in ("\\", "|", "*", "_"):
        text = text.replace(char, "\\" + char)
    return text


def _format_text(grid: Grid) -> str:
    rows = [[grid.corner, *grid.columns]]
    rows += [
        [name, *(_marked_text(grid, i, j) for j in range(len(grid.columns)))]
        for i, name in enumerate(grid.rows)
    ]
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    if grid.summary:
        lines.append(grid.summary)
    return "\n".join(lines) + "\n"


def _format_markdown(grid: Grid) -> str:
    rows = [[_md_escape(grid.corner), *map(_md_escape, grid.columns)]]
    rows += [
        [_md_escape(name), *(_marked_text(grid, i, j, True) for j in range(len(grid.columns)))]
        for i, name in enumerate(grid.rows)
    ]
    widths = [max(3, *(len(row[k]) for row in rows)) for k in range(len(rows[0]))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(rows[0], widths, strict=True)) + " |"]
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    lines += [
        "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
        for row in rows[1:]
    ]
    if grid.summary:
        lines += ["", grid.summary]
    return "\n".join(lines) + "\n"


def _format_html(grid: Grid) -> str:
    esc = html.escape
    lines = ['<table id="types">']
    lines.append(
        "<tr><th>" + esc(grid.corner) + "</th>"
        + "".join(f"<th>{esc(c)}</th>" for c in grid.columns) + "</tr>"
    )  # fmt: skip
    for i, name in enumerate(grid.rows):
        tds = "".join(
            f'<td class="d">{esc(cell)}</td>' if (i, j) in grid.marked else f"<td>{esc(cell)}</td>"
            for j, cell in enumerate(grid.cells[i])
        )
        lines.append(f"<tr><td>{esc(name)}</td>{tds}</tr>")
    lines.append("</table>")
    if grid.summary:
        lines.append(f"<p>{esc(grid.summary)}</p>")
    return "\n".join(lines) + "\n"


def _format_csv(grid: Grid) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([grid.corner, *grid.columns])
    for i, name in enumerate(grid.rows):
        writer.writerow([name, *(_marked_text(grid, i, j) for j in range(len(grid.columns)))])
    if grid.summary:
        out.write(f"# {grid.summary}\n")
    return out.getvalue()


_FORMATTERS: Final = {
    "text": _format_text,
    "markdown": _format_markdown,
    "html": _format_html,
    "csv": _format_csv,
}


def format_grid(grid: Grid, fmt: TableFormat = "text") -> str:
    """Return ``grid`` written in format ``fmt``."""
    formatter = _FORMATTERS.get(fmt)
    if formatter is None:
        valid = ", ".join(TABLE_FORMATS)
        raise RenderError(f"unknown table format {fmt!r}; valid formats: {valid}")
    return formatter(grid)


def render_table(
    rules: RuleSet,
    fmt: TableFormat = "text",
    *,
    op: str | None = None,
    names: Names = "code",
    only: Sequence[str] | None = None,
    highlight: RuleSet | None = None,
) -> str:
    """Return the promotion table (or the ``op`` result table) of ``rules`` in format ``fmt``."""
    return format_grid(table_grid(rules, op=op, names=names, only=only, highlight=highlight), fmt)


def render_diff(
    left: RuleSet,
    right: RuleSet,
    fmt: TableFormat = "text",
    *,
    op: str | None = None,
    names: Names = "code",
    only: Sequence[str] | None = None,
) -> str:
    """Return the table of ``left`` and ``right`` with the cells where they differ marked."""
    return format_grid(diff_grid(left, right, op=op, names=names, only=only), fmt)


# ---------------------------------------------------------------- lattices

# Where each marker sits, in units of about one node spacing, y pointing up:
# JAX's picture for the 18 types of its table, the rest placed around them.
_POSITIONS: Final[Mapping[str, tuple[float, float]]] = {
    "bool_": (0.0, 0.0),
    "weak_int": (1.0, 1.0),
    "uint8": (2.0, 0.0), "uint16": (3.0, 0.0), "uint32": (4.0, 0.0), "uint64": (5.0, 0.0),
    "int8": (2.0, 2.0), "int16": (3.0, 2.0), "int32": (4.0, 2.0), "int64": (5.0, 2.0),
    # The sub-byte integers hang off i* alone: beyond their rows, on the left.
    "uint1": (0.4, -1.0), "uint2": (1.0, -1.0), "uint4": (1.6, -1.0),
    "int1": (0.4, 3.0), "int2": (1.0, 3.0), "int4": (1.6, 3.0),
    "weak_float": (6.0, 1.0),
    "bfloat16": (7.5, 0.6), "float16": (7.5, 1.4), "float32": (9.0, 1.0), "float64": (10.0, 1.0),
    "weak_complex": (7.0, 2.0), "complex64": (10.0, 2.0), "complex128": (11.0, 2.0),
    "complex32": (8.2, 2.7), "bcomplex32": (9.2, 2.7),
    # The 4-to-8-bit floats hang off f* alone: a fan of two arcs beneath it,
    # the outer arc's arrows passing between the inner arc's nodes.
    **{
        name: (
            round(6.0 + (2.3 if k % 2 == 0 else 3.1) * math.cos(math.radians(-120 + 9 * k)), 2),
            round(1.0 + (2.3 if k % 2 == 0 else 3.1) * math.sin(math.radians(-120 + 9 * k)), 2),
        )
        for k, name in enumerate(NARROW_FLOATS)
    },
}  # fmt: skip

_UNIT: Final = 72.0
"""Pixels (SVG) or points (Graphviz: one inch) per layout unit."""
_RADIUS: Final = 20.0
_MARGIN: Final = 28.0
_TITLE_HEIGHT: Final = 24.0
_FONT: Final = 11.0


def lattice_of(rules: RuleSet) -> Lattice:
    """Return the lattice of ``rules``; raise ``RenderError`` if its promotion is a table."""
    promotion = rules.promotion
    if not isinstance(promotion, Lattice):
        raise RenderError(
            f"the {rules.name!r} rules are a promotion table ({type(promotion).__name__}), "
            "not a lattice: there is no lattice to draw (the 'table' command shows them)"
        )
    return promotion


def layout(lattice: Lattice) -> dict[str, tuple[float, float]]:
    """Return each type's position in layout units (JAX's picture, or by rank for other names)."""
    if all(t in _POSITIONS for t in lattice.types):
        return {t: _POSITIONS[t] for t in lattice.types}
    rank: dict[str, int] = {}
    below: dict[str, list[str]] = {t: [] for t in lattice.types}
    for node, above in lattice.edges.items():
        for other in above:
            below[other].append(node)

    def rank_of(node: str) -> int:
        if node not in rank:
            rank[node] = max((rank_of(b) + 1 for b in below[node]), default=0)
        return rank[node]

    columns: dict[int, list[str]] = {}
    for t in lattice.types:
        columns.setdefault(rank_of(t), []).append(t)
    return {
        t: (1.4 * r, (len(members) - 1) / 2 - k)
        for r, members in columns.items()
        for k, t in enumerate(members)
    }


def _font_size(text: str) -> float:
    """Return a font size at which ``text`` fits inside a node."""
    fits = 2 * _RADIUS * 0.85 / (0.6 * max(len(text), 1))
    return round(min(_FONT, fits), 1)


def _weak(name: str) -> bool:
    marker = BY_NAME.get(name)
    return marker is not None and marker.weak


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _num(value: float) -> str:
    """Format a coordinate with two decimals and no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def render_dot(lattice: Lattice, *, name: str = "lattice", title: str = "") -> str:
    """Return the Hasse diagram of ``lattice`` in Graphviz's dot language, nodes pinned."""
    positions = layout(lattice)
    caption = title or f"promotion lattice: {name}"
    lines = [
        f"// generated by typing_pkg.render: the promotion lattice {name!r}",
        f"digraph {_quote(name)} {{",
        f"  graph [layout=neato, splines=true, overlap=true, label={_quote(caption)}, "
        'labelloc=t, fontname="Helvetica"];',
        f"  node [shape=circle, fixedsize=true, width={_num(2 * _RADIUS / _UNIT)}, "
        f'style=filled, fillcolor=lightgray, fontname="Helvetica", fontsize={_num(_FONT)}];',
        "  edge [arrowsize=0.6];",
    ]
    for t in lattice.types:
        x, y = positions[t]
        text = label(t)
        attrs = [f"label={_quote(text)}", f'pos="{_num(x)},{_num(y)}!"']
        if _font_size(text) != _FONT:
            attrs.append(f"fontsize={_num(_font_size(text))}")
        if _weak(t):
            attrs.append('style="filled,dashed"')
        lines.append(f"  {_quote(t)} [{', '.join(attrs)}];")
    for t in lattice.types:
        for above in lattice.edges[t]:
            lines.append(f"  {_quote(t)} -> {_quote(above)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _distance(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    """Return the distance from point ``p`` to the segment ``a``-``b``."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    along = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2 if length2 else 0.0
    t = max(0.0, min(1.0, along))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def _bezier(
    a: tuple[float, float], c: tuple[float, float], b: tuple[float, float], steps: int = 24
) -> list[tuple[float, float]]:
    """Return points along the quadratic Bézier curve from ``a`` to ``b`` through control ``c``."""
    points: list[tuple[float, float]] = []
    for k in range(steps + 1):
        t = k / steps
        u = 1 - t
        x = u * u * a[0] + 2 * u * t * c[0] + t * t * b[0]
        y = u * u * a[1] + 2 * u * t * c[1] + t * t * b[1]
        points.append((x, y))
    return points


def _route(
    a: tuple[float, float], b: tuple[float, float], obstacles: list[tuple[float, float]]
) -> tuple[float, float] | None:
    """Return a control point bending edge ``a``-``b`` around the obstacles (``None``: straight)."""
    clearance = _RADIUS + 4

    def clear(points: list[tuple[float, float]]) -> bool:
        return all(
            _distance(o, p, q) > clearance for o in obstacles for p, q in itertools.pairwise(points)
        )

    if clear([a, b]):
        return None
    mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    length = math.hypot(b[0] - a[0], b[1] - a[1]) or 1.0
    normal = (-(b[1] - a[1]) / length, (b[0] - a[0]) / length)
    for k in range(1, 9):
        for sign in (1, -1):
            offset = sign * k * 0.3 * _UNIT
            control = (mid[0] + normal[0] * offset, mid[1] + normal[1] * offset)
            if clear(_bezier(a, control, b)):
                return control
    return None


def _toward(p: tuple[float, float], q: tuple[float, float], r: float) -> tuple[float, float]:
    """Return the point at distance ``r`` from ``p`` toward ``q``."""
    length = math.hypot(q[0] - p[0], q[1] - p[1]) or 1.0
    return (p[0] + (q[0] - p[0]) * r / length, p[1] + (q[1] - p[1]) * r / length)


def _svg_builtin(lattice: Lattice, name: str, title: str) -> str:
    """Draw the lattice as SVG with circles, labels and arrows, at the dot positions."""
    positions = layout(lattice)
    xs = [x for x, _ in positions.values()] or [0.0]
    ys = [y for _, y in positions.values()] or [0.0]
    left, top = min(xs), max(ys)
    pad = _MARGIN + _RADIUS
    width = (max(xs) - left) * _UNIT + 2 * pad
    height = (top - min(ys)) * _UNIT + 2 * pad + _TITLE_HEIGHT
    at = {
        t: ((x - left) * _UNIT + pad, (top - y) * _UNIT + pad + _TITLE_HEIGHT)
        for t, (x, y) in positions.items()
    }
    esc = html.escape
    caption = title or f"promotion lattice: {name}"
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" height="{_num(height)}" '
        f'viewBox="0 0 {_num(width)} {_num(height)}" font-family="Helvetica, Arial, sans-serif">',
        f"<title>{esc(caption)}</title>",
        "<defs>",
        '<marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M 0 0 L 10 5 L 0 10 z" fill="#444"/></marker>',
        "</defs>",
        f'<text x="{_num(width / 2)}" y="{_num(_MARGIN)}" text-anchor="middle" '
        f'font-size="13">{esc(caption)}</text>',
        '<g class="edges" fill="none" stroke="#444" stroke-width="1.2">',
    ]
    for t in lattice.types:
        for above in lattice.edges[t]:
            a, b = at[t], at[above]
            control = _route(a, b, [p for u, p in at.items() if u not in (t, above)])
            if control is None:
                start, end = _toward(a, b, _RADIUS), _toward(b, a, _RADIUS)
                path = f"M {_num(start[0])} {_num(start[1])} L {_num(end[0])} {_num(end[1])}"
            else:
                start, end = _toward(a, control, _RADIUS), _toward(b, control, _RADIUS)
                path = (
                    f"M {_num(start[0])} {_num(start[1])} Q {_num(control[0])} {_num(control[1])} "
                    f"{_num(end[0])} {_num(end[1])}"
                )
            out.append(
                f'<path d="{path}" marker-end="url(#arrow)">'
                f"<title>{esc(t)} → {esc(above)}</title></path>"
            )
    out.append("</g>")
    out.append('<g class="nodes" stroke="#333" stroke-width="1.2">')
    for t in lattice.types:
        x, y = at[t]
        text = label(t)
        dash = ' stroke-dasharray="4 3"' if _weak(t) else ""
        out.append(
            f'<g class="node"><title>{esc(t)}</title>'
            f'<circle cx="{_num(x)}" cy="{_num(y)}" r="{_num(_RADIUS)}" fill="#d3d3d3"{dash}/>'
            f'<text x="{_num(x)}" y="{_num(y)}" text-anchor="middle" dominant-baseline="central" '
            f'stroke="none" fill="#000" font-size="{_num(_font_size(text))}">{esc(text)}</text></g>'
        )
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


Engine = Literal["auto", "graphviz", "builtin"]
ENGINES: Final[tuple[Engine, ...]] = ("auto", "graphviz", "builtin")


def render_svg(
    lattice: Lattice, *, name: str = "lattice", title: str = "", engine: Engine = "auto"
) -> str:
    """Return the lattice as SVG, drawn by Graphviz's ``dot`` if available, else built in."""
    if engine not in ENGINES:
        raise RenderError(f"unknown SVG engine {engine!r}; valid engines: {', '.join(ENGINES)}")
    if engine != "builtin":
        import shutil
        import subprocess

        dot = shutil.which("dot")
        if dot is None:
            if engine == "graphviz":
                raise RenderError("Graphviz's 'dot' is not on PATH")
        else:
            try:
                done = subprocess.run(
                    [dot, "-Tsvg"],
                    input=render_dot(lattice, name=name, title=title),
                    capture_output=True,
                    text=True,
                    check=True,
                    timeout=60,
                )
            except (OSError, subprocess.SubprocessError) as error:
                if engine == "graphviz":
                    raise RenderError(f"Graphviz's 'dot' failed: {error}") from error
            else:
                return done.stdout
    return _svg_builtin(lattice, name, title)
