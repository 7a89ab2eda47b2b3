"""Measured figures read from ``docs/measured.json``, never typed into a page.

``:measured:`KEY```
    The value of the entry ``KEY`` (``tools/measured.py`` describes the
    file), as an abbreviation whose title says when, at which commit and with
    which command it was measured.  A key the file lacks is an error naming
    the key and the line, and the build fails (with or without ``-W``).

``.. measured-figures::``
    A table of the figures the page shows through the role: each key, its
    value, the date and commit it was measured at and the command.
"""

from __future__ import annotations

import functools
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

from tools.measured import MEASURED, Entry, load

logger = logging.getLogger(__name__)
SHOWN = "docs/measured.json"


@functools.cache
def _entries(stamp: int) -> dict[str, Entry]:
    """The file's entries, read once for each version of the file (``stamp``: its mtime)."""
    return load(MEASURED)


def entries() -> dict[str, Entry]:
    return _entries(MEASURED.stat().st_mtime_ns)


def describe(entry: Entry) -> str:
    """When, where and how a figure was measured, in one line."""
    where = f" at {entry['commit']}" if entry.get("commit") else ""
    return f"measured {entry['date']}{where}: {entry['command']}"


class measured_figures(nodes.General, nodes.Element):
    """Where the page's table of figures goes, filled in once the page is read."""


def _unknown(env: BuildEnvironment) -> dict[str, list[tuple[str, int | None]]]:
    """The unknown keys each page used, and their lines.

    Kept in the environment, so that an incremental build that does not read
    the page again reports them (and fails) all the same.
    """
    if not hasattr(env, "measured_unknown"):
        env.measured_unknown = {}  # type: ignore[attr-defined]
    found: dict[str, list[tuple[str, int | None]]] = env.measured_unknown  # type: ignore[attr-defined]
    return found


class MeasuredRole(SphinxRole):
    """``:measured:`KEY```: the figure ``KEY`` of the measurement file."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        key = self.text.strip()
        self.env.note_dependency(str(MEASURED))
        entry = entries().get(key)
        if entry is None:  # reported by _report, once the pages are read
            _, line = self.get_source_info()
            _unknown(self.env).setdefault(self.env.docname, []).append((key, line))
            return [nodes.problematic(self.rawtext, self.rawtext)], []
        node = nodes.abbreviation(
            self.rawtext, entry["value"], explanation=describe(entry), classes=["measured"]
        )
        node["measured"] = key
        return [node], []


class MeasuredFiguresDirective(SphinxDirective):
    """``.. measured-figures::``: the table of the page's figures."""

    def run(self) -> list[nodes.Node]:
        self.env.note_dependency(str(MEASURED))
        return [measured_figures()]


def _row(cells: list[nodes.Node]) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        entry += nodes.paragraph("", "", cell)
        row += entry
    return row


def _table(keys: list[str], known: dict[str, Entry]) -> nodes.table:
    table = nodes.table(classes=["measured-figures"])
    group = nodes.tgroup(cols=4)
    table += group
    for width in (28, 22, 18, 32):
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    head += _row([nodes.Text(label) for label in ("figure", "value", "measured", "command")])
    body = nodes.tbody()
    group += body
    for key in keys:
        entry = known[key]
        when = entry["date"] + (f" at {entry['commit']}" if entry.get("commit") else "")
        body += _row(
            [
                nodes.literal(key, key),
                nodes.Text(entry["value"]),
                nodes.Text(when),
                nodes.literal(entry["command"], entry["command"]),
            ]
        )
    return table


def _fill_tables(app: Sphinx, doctree: nodes.document) -> None:
    """Replace each ``measured-figures`` placeholder by the table of the page's figures."""
    known = entries()
    keys = list(  # in the order the page shows them
        dict.fromkeys(
            str(node["measured"])
            for node in doctree.findall(nodes.abbreviation)
            if "measured" in node
        )
    )
    for placeholder in list(doctree.findall(measured_figures)):
        placeholder.replace_self(_table(keys, known) if keys else [])


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    _unknown(env).pop(docname, None)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: Any) -> None:
    for docname in docnames:
        if docname in _unknown(other):
            _unknown(env)[docname] = _unknown(other)[docname]


def _report(app: Sphinx, env: BuildEnvironment) -> None:
    """One error line for each unknown key: the page, the line and the key."""
    app.measured_reported = True  # type: ignore[attr-defined]
    for docname, found in sorted(_unknown(env).items()):
        for key, line in found:
            message = "unknown figure %r: %s has no such key"
            logger.error(message, key, SHOWN, location=(docname, line))


def _fail(app: Sphinx, exception: Exception | None) -> None:
    """An unknown key fails the build even without ``-W``."""
    if exception is None and any(_unknown(app.env).values()):
        if not getattr(app, "measured_reported", False):  # no page read again: say it again
            _report(app, app.env)
        app.statuscode = 1


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_role("measured", MeasuredRole())
    app.add_node(measured_figures)
    app.add_directive("measured-figures", MeasuredFiguresDirective)
    app.connect("doctree-read", _fill_tables)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _report)
    app.connect("build-finished", _fail)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
