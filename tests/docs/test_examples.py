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
_NOT_DECLARED = re.compile(r"(?P<chain>.+) gives (?P<got>\w+), not the declared (?P<declared>\w+)")
_CALL = re.compile(r"(?P<function>[\w.]+)\((?P<args>[\w,=]*)\)")


def expected_lines() -> list[re.Match[str]]:
    """Return the parsed lines of ``expected.txt``."""
    lines = []
    for text in EXPECTED.read_text(encoding="utf-8").splitlines():
        if text and not text.startswith("#"):
            match = _LINE.match(text)
            assert match is not None, f"unreadable line in expected.txt: {text!r}"
            lines.append(match)
    return lines


def operand(token: str) -> str | Undefined:
    """Return a token's dtype: a dtype's name, or ``f(args)``, a JAX function's result.

    The arguments of ``f`` are dtype names and ``key=value`` options, separated
    by commas; ``typing_pkg.result_dtype`` gives the result.
    """
    call = _CALL.fullmatch(token)
    if call is None:
        return token
    args: list[str] = []
    options: dict[str, str] = {}
    for arg in filter(None, call["args"].split(",")):
        key, equals, value = arg.partition("=")
        if equals:
            options[key] = value
        else:
            args.append(arg)
    found = typing_pkg.result_dtype(call["function"], *args, **options)
    assert isinstance(found, type), f"{token} gives several arrays"
    return found.__name__


def evaluate(chain: str) -> str | Undefined:
    """Return what ``a OP b OP c …`` gives under the ``jax`` rules, left to right."""
    rules = get_rules("jax")
    tokens = chain.split()
    result = operand(tokens[0])
    for symbol, token in zip(tokens[1::2], tokens[2::2], strict=True):
        right = operand(token)
        if isinstance(result, Undefined) or isinstance(right, Undefined):
            return result
        result = rules.result(_OP_OF_SYMBOL[symbol], result, right)
    return result


def test_expected_lines_exist() -> None:
    lines = expected_lines()
    assert sum(m["dtype"] is not None for m in lines) >= 5
    assert {m["code"] for m in lines} >= {"dtype-promotion", "arg-type", "return-value"}
    assert any(_CALL.search(m["why"]) for m in lines if m["dtype"] is not None)


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
    elif line["code"] == "return-value":
        assert "# caught" in code
        declared = _NOT_DECLARED.fullmatch(line["why"])
        assert declared is not None, line["why"]
        assert evaluate(declared["chain"]) == declared["got"] != declared["declared"]
    else:
        assert line["code"] == "arg-type"
        assert "# caught" in code
        not_an = _NOT_AN.fullmatch(line["why"])
        assert not_an is not None, line["why"]
        passed, wanted = not_an.groups()
        assert not issubclass(BY_NAME[passed], getattr(typing_pkg, wanted))
