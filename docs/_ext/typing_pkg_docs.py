"""Sphinx directives that draw the docs' tables and pictures from the rule sets.

Nothing these directives show is written by hand: every table, lattice
picture, count and rule-set description is computed from ``typing_pkg`` when
the docs are built, through ``typing_pkg.render`` and the rule sets
themselves.

``.. ruleset:: NAME``
    The whole body of a rule set's page: its one-line title and counts, the
    lattice drawn as SVG (or, for a ``PromotionTable``, what breaks the
    lattice laws), the module docstring of the rule set, and the full
    promotion table in HTML with the cells that differ from ``jax``
    highlighted (for ``jax`` itself: from ``numpy``, as JAX's page does).

``.. promotion-table:: NAME``
    One table: options ``:highlight: OTHER`` (mark the cells that differ from
    OTHER; ``none`` for no marks), ``:op: OP`` (an operator's result table
    instead of the promotion table), ``:only: a,b,c`` and ``:names: full``.

``.. lattice:: NAME``
    A lattice picture: a rule set's lattice, restricted to ``:only:`` types if
    given (the Hasse diagram of the order they inherit), or the lattice given
    by ``:edges: a -> b, b -> c`` (any node names).

``.. ruleset-summary::``
    One row per rule set: its kind, size, undefined pairs, lattice laws and
    how many promotions differ from ``jax``.

``.. conformance-report::``
    The cell counts of ``tools/conformance_report.py``: every rule set
    compared with its recorded truth file.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from typing_pkg import render
from typing_pkg.lattice import Lattice, PromotionTable, Verification, verify
from typing_pkg.rules import RuleSet, get_rules, names

ROOT = Path(__file__).resolve().parents[2]
TRUTH = ROOT / "truth"
REFERENCE = "jax"
"""The rule set whose cells the other pages compare against."""
BUILT_IN = names()
"""The built-in rule sets (taken before any page loads a custom one)."""


# --------------------------------------------------------------- helpers


def _raw(text: str) -> nodes.raw:
    return nodes.raw("", text, format="html")


def _split(text: str | None) -> list[str] | None:
    if not text:
        return None
    return [item.strip() for item in text.split(",") if item.strip()]


@functools.cache
def _verification(name: str) -> Verification:
    return verify(get_rules(name).promotion)


def _undefined(rules: RuleSet) -> int:
    """Return how many ordered pairs of the rule set's types have no promotion."""
    return sum(rules.promote(a, b) is None for a in rules.types for b in rules.types)


def _table_html(
    rules: RuleSet,
    *,
    highlight: RuleSet | None,
    op: str | None = None,
    only: Sequence[str] | None = None,
    names_: render.Names = "code",
) -> tuple[str, int]:
    """Return a promotion table as HTML in a scrolling box, and how many cells are marked."""
    grid = render.table_grid(rules, op=op, only=only, names=names_, highlight=highlight)
    table = render.format_grid(grid, "html").replace(
        '<table id="types">', '<table class="promotion-table">'
    )
    return f'<div class="promotion-scroll">\n{table}</div>\n', len(grid.marked)


def _inline_svg(lattice: Lattice, key: str, title: str) -> str:
    """Return the built-in SVG of ``lattice``, ready to sit inline in a page."""
    svg = render.render_svg(lattice, name=key, title=title, engine="builtin")
    svg = svg.removeprefix('<?xml version="1.0" encoding="UTF-8"?>\n')
    # Several pictures on one page must not share the arrow marker's id.
    slug = re.sub(r"[^A-Za-z0-9]+", "-", key)
    svg = svg.replace('id="arrow"', f'id="arrow-{slug}"').replace(
        "url(#arrow)", f"url(#arrow-{slug})"
    )
    return f'<div class="lattice-picture">\n{svg}</div>\n'


def _induced(lattice: Lattice, only: Sequence[str]) -> Lattice:
    """Return the Hasse diagram of the order ``lattice`` induces on the types ``only``."""
    keep = list(only)
    above = {t: {u for u in keep if u != t and lattice.leq(t, u)} for t in keep}
    edges = {
        t: tuple(u for u in keep if u in above[t] and not any(u in above[v] for v in above[t]))
        for t in keep
    }
    return Lattice(edges)


def _explain_table(rules: RuleSet) -> str:
    """Return, as reST, why the promotion of ``rules`` is a table and not a lattice."""
    check = _verification(rules.name)
    promotion = rules.promotion
    kind = type(promotion).__name__
    lines = [
        f"The ``{rules.name}`` rules are a ``{kind}``, not a lattice, so there is no "
        "lattice to draw: no graph has joins that give this table.  Checking the "
        f"lattice laws on every pair and triple of its {check.types} types finds:",
        "",
    ]
    if check.not_commutative:
        a, b = check.not_commutative[0]
        lines.append(
            f"* {len(check.not_commutative)} pairs that are not commutative, "
            f"e.g. ``{a}`` with ``{b}`` gives ``{promotion.join(a, b) or '-'}`` but "
            f"``{b}`` with ``{a}`` gives ``{promotion.join(b, a) or '-'}``;"
        )
    if check.not_associative:
        a, b, c = _pick_triple(check.not_associative)
        left, right = promotion.join(a, b), promotion.join(b, c)
        lr = promotion.join(left, c) if left else None
        rr = promotion.join(a, right) if right else None
        lines.append(
            f"* {len(check.not_associative)} triples that are not associative, "
            f"e.g. ``({a} ∨ {b}) ∨ {c}`` is ``{lr or 'undefined'}`` but "
            f"``{a} ∨ ({b} ∨ {c})`` is ``{rr or 'undefined'}``;"
        )
    if check.not_idempotent:
        lines.append(f"* {len(check.not_idempotent)} types that do not promote to themselves;")
    lines.append(
        f"* {check.undefined} of the {check.types**2} ordered pairs with no promotion "
        f"(``-`` in the table)."
    )
    return "\n".join(lines)


def _pick_triple(triples: Sequence[tuple[str, str, str]]) -> tuple[str, str, str]:
    """Prefer the design note's example (``int8, uint8, float16``) when it is one of them."""
    for wanted in (("int8", "uint8", "float16"),):
        if wanted in triples:
            return wanted
    defined = [t for t in triples if "weak" not in "".join(t)]
    return (defined or list(triples))[0]


def _rules(directive: SphinxDirective, name: str) -> RuleSet:
    """Return the rule set ``name``, or stop the directive with an error naming it."""
    try:
        return get_rules(name)
    except (ValueError, ImportError) as error:
        raise directive.error(f"no rule set {name!r}: {error}") from None


def _parse_rst(directive: SphinxDirective, text: str) -> list[nodes.Node]:
    """Parse reST ``text`` in the directive's context and return the nodes."""
    container = nodes.container()
    source = directive.get_source_info()[0] or "<generated>"
    directive.state.nested_parse(
        StringList(text.splitlines(), source=source), directive.content_offset, container
    )
    return list(container.children)


# ------------------------------------------------------------- directives


class PromotionTableDirective(SphinxDirective):
    """``.. promotion-table:: NAME``: one table of a rule set, as HTML."""

    required_arguments = 1
    option_spec: ClassVar[dict[str, Any]] = {
        "highlight": directives.unchanged,
        "op": directives.unchanged,
        "only": directives.unchanged,
        "names": lambda value: directives.choice(value, ("code", "full")),
    }

    def run(self) -> list[nodes.Node]:
        rules = _rules(self, self.arguments[0])
        other = self.options.get("highlight", "none")
        highlight = None if other == "none" else _rules(self, other)
        table, _ = _table_html(
            rules,
            highlight=highlight,
            op=self.options.get("op"),
            only=_split(self.options.get("only")),
            names_=self.options.get("names", "code"),
        )
        return [_raw(table)]


class LatticeDirective(SphinxDirective):
    """``.. lattice:: NAME`` or ``.. lattice:: TITLE`` with ``:edges:``: a lattice as SVG."""

    required_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, Any]] = {
        "only": directives.unchanged,
        "edges": directives.unchanged,
        "title": directives.unchanged,
    }

    def run(self) -> list[nodes.Node]:
        key = self.arguments[0]
        if "edges" in self.options:
            edges: dict[str, list[str]] = {}
            for item in _split(self.options["edges"]) or []:
                low, _, high = (part.strip() for part in item.partition("->"))
                edges.setdefault(low, []).append(high)
                edges.setdefault(high, [])
            lattice = Lattice(edges)
            title = self.options.get("title", key)
        else:
            rules = _rules(self, key)
            lattice = render.lattice_of(rules)
            only = _split(self.options.get("only"))
            if only:
                lattice = _induced(lattice, only)
            title = self.options.get("title", f"{rules.name}: {rules.title}")
        return [_raw(_inline_svg(lattice, key, title))]


class RulesetDirective(SphinxDirective):
    """``.. ruleset:: NAME``: a rule set's whole page body."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        rules = _rules(self, self.arguments[0])
        module = importlib.import_module(type(rules).__module__)
        self.env.note_dependency(inspect.getfile(module))
        promotion = rules.promotion
        is_lattice = isinstance(promotion, Lattice)
        reference = get_rules("numpy" if rules.name == REFERENCE else REFERENCE)
        table, marked = _table_html(rules, highlight=reference)
        count = len(rules.types)
        out: list[nodes.Node] = []

        kind = "a lattice" if is_lattice else f"a promotion table (``{type(promotion).__name__}``)"
        intro = (
            f"**{rules.title}.**  Configured as ``promotion = {rules.name}`` (mypy) or "
            f'``rules="{rules.name}"`` (``promote_types``, ``result_type``, '
            f"``--rules {rules.name}`` on the command line).  Its promotion is {kind} "
            f"over {count} types; {_undefined(rules)} of the {count**2} ordered "
            "pairs have no promotion."
        )
        out += _parse_rst(self, intro)

        out.append(nodes.rubric(text="The lattice" if is_lattice else "Not a lattice"))
        if is_lattice:
            out += _parse_rst(
                self,
                "Each arrow points from a type to the types immediately above it; the "
                "promotion of two types is the first type both reach (their join).  "
                "Dashed circles are the weak types (Python scalars).  Labels are the codes "
                "of the table below.",
            )
            assert isinstance(promotion, Lattice)
            out.append(_raw(_inline_svg(promotion, rules.name, f"{rules.name}: {rules.title}")))
        else:
            assert isinstance(promotion, PromotionTable)
            out += _parse_rst(self, _explain_table(rules))

        out.append(nodes.rubric(text="How the rules are defined"))
        doc = inspect.getdoc(module) or ""
        first, _, rest = doc.partition("\n\n")
        out += _parse_rst(self, rest or first)

        out.append(nodes.rubric(text="Promotion table"))
        if rules.name == REFERENCE:
            legend = (
                "Row ``a``, column ``b``: the promotion of ``a`` and ``b`` (``-``: undefined).  "
                f"Highlighted: the {marked} cells where NumPy (the ``numpy`` rules) differs or "
                "lacks one of the types, as JAX's own page highlights them."
            )
        else:
            legend = (
                "Row ``a`` (left operand), column ``b``: the promotion of ``a`` and ``b`` "
                f"(``-``: undefined).  Highlighted: the {marked} cells that differ from the "
                f"``{REFERENCE}`` rules, or whose types ``{REFERENCE}`` lacks."
            )
        out += _parse_rst(self, legend)
        out.append(_raw(table))
        out += _parse_rst(
            self,
            "Operators add their own steps on top of this table (true division, "
            "comparisons, the dtypes each operator refuses, in-place casts): "
            f"``typing-pkg table --rules {rules.name} --op truediv`` prints any "
            "operator's table.",
        )
        return out


class RulesetSummaryDirective(SphinxDirective):
    """``.. ruleset-summary::``: one row per built-in rule set."""

    def run(self) -> list[nodes.Node]:
        reference = get_rules(REFERENCE)
        header = ["rule set", "reproduces", "promotion", "types", "undefined pairs",
                  "lattice laws", f"differ from {REFERENCE}"]  # fmt: skip
        rows = []
        for name in BUILT_IN:
            rules = get_rules(name)
            check = _verification(name)
            diff = render.diff_grid(rules, reference)
            kind = "lattice" if isinstance(rules.promotion, Lattice) else "table"
            laws = "hold" if check.ok else (
                f"{len(check.not_associative)} triples not associative"
                + (f", {len(check.not_commutative)} pairs not commutative"
                   if check.not_commutative else "")
            )  # fmt: skip
            differ = "—" if name == REFERENCE else f"{len(diff.marked)} of {len(diff.rows) ** 2}"
            rows.append([f":doc:`{name} <{name}>`", rules.title, kind, str(len(rules.types)),
                         str(_undefined(rules)), laws, differ])  # fmt: skip
        return _parse_rst(self, _list_table(header, rows))


class ConformanceReportDirective(SphinxDirective):
    """``.. conformance-report::``: every rule set against its recorded truth file."""

    def run(self) -> list[nodes.Node]:
        from tools.conformance.compare import compare
        from tools.conformance.truthfile import read_truth

        header = ["rule set", "cells", "exact", "refused", "failed", "excepted", "mismatches"]
        rows = []
        for name in BUILT_IN:
            path = TRUTH / f"{name}.csv"
            self.env.note_dependency(str(path))
            report = compare(name, read_truth(path))
            counts = _summary_counts(report.summary())
            rows.append([f"``{name}``", *(counts.get(k, "?") for k in header[1:])])
        return _parse_rst(self, _list_table(header, rows))


def _summary_counts(summary: str) -> dict[str, str]:
    """Read the counts out of a ``Report.summary()`` line."""
    found: dict[str, str] = {}
    cells = re.search(r"(\d+) cells", summary)
    if cells:
        found["cells"] = cells.group(1)
    for key in ("exact", "refused", "failed", "excepted", "mismatches"):
        match = re.search(rf"{key} (\d+)", summary)
        if match:
            found[key] = match.group(1)
    return found


def _list_table(header: list[str], rows: list[list[str]]) -> str:
    lines = [".. list-table::", "   :header-rows: 1", ""]
    for row in [header, *rows]:
        lines.append(f"   * - {row[0]}")
        lines += [f"     - {cell}" for cell in row[1:]]
    return "\n".join(lines)


_TITLE_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1+$")


def titles_to_rubrics(lines: list[str]) -> None:
    """Turn section titles of a docstring into rubrics, in place.

    Module docstrings are user documentation and may have titles (``What it
    infers`` underlined with ``---``); inside an autodoc directive a title is an
    error, a rubric is the same heading.
    """
    i = 0
    while i + 1 < len(lines):
        title, underline = lines[i], lines[i + 1]
        if (
            title.strip()
            and not title.startswith(" ")
            and _TITLE_UNDERLINE.match(underline)
            and len(underline) >= len(title.rstrip())
        ):
            lines[i : i + 2] = [f".. rubric:: {title.strip()}"]
        i += 1


def _process_docstring(
    app: Sphinx, what: str, name: str, obj: object, options: object, lines: list[str]
) -> None:
    if what == "module":
        titles_to_rubrics(lines)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the directives and the docstring processing."""
    app.connect("autodoc-process-docstring", _process_docstring)
    app.add_directive("ruleset", RulesetDirective)
    app.add_directive("promotion-table", PromotionTableDirective)
    app.add_directive("lattice", LatticeDirective)
    app.add_directive("ruleset-summary", RulesetSummaryDirective)
    app.add_directive("conformance-report", ConformanceReportDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


__all__ = ["setup"]
