"""What a type checker said about a program, read from its report: revealed types and errors.

One reader per report format, shared by the conformance tools and the tests
that run a checker over a generated program.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Final

__all__ = ["Diagnostics", "read_basedpyright", "read_pyrefly"]

_REVEAL: Final = re.compile(r'^Type of ".*" is "(.*)"$', re.DOTALL)


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
        elif match := _REVEAL.match(message):
            found.revealed[line] = match[1]
    return found


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
