"""What a type checker said about a program, read from its report: revealed types and errors.

One reader per report format, shared by the conformance tools and the tests
that run a checker over a generated program.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "Diagnostics",
    "MypyMessage",
    "read_basedpyright",
    "read_mypy",
    "read_pyrefly",
    "revealed_by_mypy",
    "revealed_by_pyright",
]

_REVEAL: Final = re.compile(r'^Type of ".*" is "(.*)"$', re.DOTALL)
_MYPY_LINE: Final = re.compile(
    r"^(?P<file>.+?):(?P<line>\d+)(?::(?P<column>\d+))?(?::\d+:\d+)?: "
    r"(?P<severity>error|note|warning): "
    r"(?P<message>.*?)(?:  \[(?P<code>[\w-]+)\])?$"
)
_MYPY_REVEALED: Final = re.compile(r'^Revealed type is "(?P<type>.*)"$')


@dataclass(frozen=True)
class Diagnostics:
    """What a checker said, by line (1-based): revealed types and error messages."""

    revealed: dict[int, str] = field(default_factory=dict[int, str])
    errors: dict[int, list[str]] = field(default_factory=dict[int, list[str]])

    def in_order(self) -> tuple[list[str], list[str]]:
        """The revealed types and the errors, each in the order of their lines."""
        return (
            [self.revealed[line] for line in sorted(self.revealed)],
            [message for line in sorted(self.errors) for message in self.errors[line]],
        )


def read_basedpyright(report: str) -> Diagnostics:
    """Read basedpyright's ``--outputjson`` report: each line's revealed type (``reveal_type``)
    and the first line of each of its errors.  ValueError if ``report`` is no JSON report."""
    if not report.strip().startswith("{"):
        raise ValueError(f"basedpyright gave no JSON report: {report[-2000:]}")
    found = Diagnostics()
    for diag in json.loads(report)["generalDiagnostics"]:
        line = diag["range"]["start"]["line"] + 1
        message = diag["message"]
        if diag["severity"] == "error":
            found.errors.setdefault(line, []).append(message.splitlines()[0])
        elif (revealed := revealed_by_pyright(message)) is not None:
            found.revealed[line] = revealed
    return found


def revealed_by_pyright(message: str) -> str | None:
    """The type in pyright's ``Type of "x" is "..."`` message, ``None`` for any other message."""
    found = _REVEAL.match(message)
    return None if found is None else found[1]


def read_pyrefly(report: str) -> Diagnostics:
    """Read pyrefly's ``--output-format json`` report: each line's revealed type and errors.
    ValueError if ``report`` is no JSON report."""
    if not report.strip().startswith("{"):
        raise ValueError(f"pyrefly gave no JSON report: {report[-2000:]}")
    found = Diagnostics()
    for diag in json.loads(report)["errors"]:
        if diag["name"] == "reveal-type":
            found.revealed[diag["line"]] = diag["description"].removeprefix("revealed type: ")
        elif diag["severity"] == "error":
            found.errors.setdefault(diag["line"], []).append(diag["description"])
    return found


@dataclass(frozen=True)
class MypyMessage:
    """One message of mypy's text report (``file:line[:column]: severity: message  [code]``;
    the column with ``--show-column-numbers``, 1-based)."""

    file: str
    line: int
    column: int | None
    severity: str
    message: str
    code: str | None
    text: str = ""
    """The whole line as mypy printed it."""

    @property
    def revealed(self) -> str | None:
        """The type of a ``reveal_type`` note, ``None`` for any other message."""
        return revealed_by_mypy(self.message) if self.severity == "note" else None


def revealed_by_mypy(message: str) -> str | None:
    """The type in mypy's ``Revealed type is "..."`` message (its text or its JSON report's
    ``message``), ``None`` for any other message."""
    found = _MYPY_REVEALED.match(message)
    return None if found is None else found["type"]


def read_mypy(output: str) -> list[MypyMessage]:
    """Read mypy's text report (``--no-pretty``): its messages in order, the lines that are
    not a message (a summary, a context line) left out."""
    found: list[MypyMessage] = []
    for text in output.splitlines():
        match = _MYPY_LINE.match(text)
        if match is not None:
            found.append(
                MypyMessage(
                    match["file"], int(match["line"]),
                    None if match["column"] is None else int(match["column"]),
                    match["severity"], match["message"], match["code"], text,
                )
            )  # fmt: skip
    return found
