"""The examples project (``examples/``) says what the rules say, and mypy agrees.

``examples/expected.txt`` is written by hand: each line names a revealed
dtype or an error, and in parentheses the operation behind it.  Here every
revealed dtype is recomputed from the ``jax`` rule set, every
``dtype-promotion`` error must be an undefined operation, and every line must
point at the source line it describes.  That mypy reports exactly these
lines is ``test_plugin_examples.py``'s business.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import typing_pkg
from typing_pkg.dtypes import BY_NAME
from typing_pkg.ops import BINARY, SYMBOL
from typing_pkg.rules import Undefined, get_rules

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
EXPECTED = EXAMPLES / "expected.txt"
_OP_OF_SYMBOL = {SYMBOL[op]: op for op in BINARY}
_LINE = re.compile(
    r"^(?P<path>\S+?):(?P<line>\d+): "
    r"(?:revealed Array\[(?P<dtype>\w+)\]|error \[(?P<code>[a-z-]+)\])"
    r"\s+\((?P<why>.*)\)$"
)
_NOT_AN = re.compile(r"Array\[(\w+)\] is not an Array\[(\w+)\]")


def expected_lines() -> list[re.Match[str]]:
    """Return the parsed lines of ``expected.txt``."""
    lines = []
    for text in EXPECTED.read_text(encoding="utf-8").splitlines():
        if text and not text.startswith("#"):
            match = _LINE.match(text)
            assert match is not None, f"unreadable line in expected.txt: {text!r}"
            lines.append(match)
    return lines


def evaluate(chain: str) -> str | Undefined:
    """Return what ``a OP b OP c …`` gives under the ``jax`` rules, left to right."""
    rules = get_rules("jax")
    tokens = chain.split()
    result: str | Undefined = tokens[0]
    for symbol, operand in zip(tokens[1::2], tokens[2::2], strict=True):
        if isinstance(result, Undefined):
            return result
        result = rules.result(_OP_OF_SYMBOL[symbol], result, operand)
    return result


def test_expected_lines_exist() -> None:
    lines = expected_lines()
    assert sum(m["dtype"] is not None for m in lines) >= 5
    assert {m["code"] for m in lines} >= {"dtype-promotion", "arg-type"}


@pytest.mark.parametrize("line", expected_lines(), ids=lambda m: f"{m['path']}:{m['line']}")
def test_expected_line_agrees_with_rules(line: re.Match[str]) -> None:
    source = (EXAMPLES / line["path"]).read_text(encoding="utf-8").splitlines()
    code = source[int(line["line"]) - 1]
    if line["dtype"] is not None:
        assert "reveal_type(" in code
        assert evaluate(line["why"]) == line["dtype"]
    elif line["code"] == "dtype-promotion":
        assert "# caught" in code
        assert isinstance(evaluate(line["why"]), Undefined)
    else:
        assert line["code"] == "arg-type"
        assert "# caught" in code
        not_an = _NOT_AN.fullmatch(line["why"])
        assert not_an is not None, line["why"]
        passed, wanted = not_an.groups()
        assert not issubclass(BY_NAME[passed], getattr(typing_pkg, wanted))
