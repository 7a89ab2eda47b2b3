"""Arrays of unknown dtype through the stubs: never an error, the plugin's results.

The specification says an unknown dtype (``Any``, a bare ``Array``, an
unsolved type variable, ``Array[DType]``) gives ``Array[Any]``-like results
and never an error.  One generated program puts each such operand through
every operator (forward, reflected, in-place, unary) against every Python
scalar kind and a concrete array on either side; basedpyright with the stubs
must report nothing, and each result must be what mypy with the plugin gives
for the same line (comparisons ``Array[bool_]``, other operators
``Array[Any]``, unary operators keep the dtype).

Categories (``Array[floating]``) are checked for "no false error" only: the
plugin gives a category result, the stubs ``Array[Any]``, because pyright
cannot tell a category from a type variable bounded by it (and a generic
function must get ``Array[Any]`` there, see the stubs' documentation).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pytest
from stubprogram import read_pyright, start_pyright

from tools.checkers.run import mypy_in_process
from typing_pkg.ops import BINARY, COMPARISON, INPLACE, SYMBOL, UNARY

UNKNOWN = {
    "u_any": "Array[Any]",
    "u_bare": "Array",  # a bare Array is Array[Any]
    "u_typevar": "Array[T]",
    "u_dtype": "Array[DType]",
}
CATEGORIES = {"c_floating": "Array[floating]", "c_integer": "Array[integer]"}
OTHERS = {"o_bool": "True", "o_int": "2", "o_float": "1.5", "o_complex": "1j", "o_int8": "a8"}
_REFLECTED = [op for op in BINARY if op not in COMPARISON]


def _program(operands: dict[str, str]) -> tuple[str, dict[int, str]]:
    lines = [
        "from typing import Any, TypeVar",
        "from typing_pkg import Array, DType, floating, int8, integer",
        'T = TypeVar("T", bound=DType)',
        "",
        "def check("
        + ", ".join(f"{n}: {t}" for n, t in operands.items())
        + ", a8: Array[int8]) -> None:",
    ]
    at: dict[int, str] = {}

    def reveal(expr: str) -> None:
        lines.append(f"    reveal_type({expr})")
        at[len(lines)] = expr

    for name in operands:
        for op in UNARY:
            reveal(f"abs({name})" if op == "abs" else f"{SYMBOL[op]}{name}")
        for op in BINARY:
            for other in OTHERS.values():
                reveal(f"{name} {SYMBOL[op]} {other}")
                if op in _REFLECTED or other == "a8":
                    reveal(f"{other} {SYMBOL[op]} {name}")
        for op in INPLACE:
            for other in OTHERS.values():
                var = f"v{len(lines)}"
                lines.append(f"    {var} = {name}")
                lines.append(f"    {var} {SYMBOL[op]} {other}")
                at[len(lines)] = f"{var} {SYMBOL[op]} {other}"
    return "\n".join(lines) + "\n", at


def _pyright(tmp: Path, source: str) -> tuple[dict[int, str], dict[int, list[str]]]:
    said = read_pyright(start_pyright(tmp, source))
    return said.revealed, said.errors


def _mypy(tmp: Path, source: str) -> dict[int, str]:
    (tmp / "prog.py").write_text(source)
    (tmp / "mypy.ini").write_text("[mypy]\nplugins = mypy_plugin\n")
    done = mypy_in_process(
        "--config-file", tmp / "mypy.ini", "--cache-dir", tmp / "cache", tmp / "prog.py"
    )
    assert not done.stderr, done.stderr
    return {
        m.line: m.revealed
        for m in done.messages()
        if m.revealed is not None and m.file.endswith("prog.py")
    }


def _short(mypy_type: str) -> str:
    """``typing_pkg.typing.Array[typing_pkg.dtypes.bool_]`` as pyright prints it."""
    return re.sub(r"typing_pkg\.\w+\.", "", mypy_type)


class Seen(NamedTuple):
    """The checked lines (line → expression) and what each checker said."""

    at: dict[int, str]
    revealed: dict[int, str]
    errors: dict[int, list[str]]
    plugin: dict[int, str]


@pytest.fixture(scope="module")
def unknown(tmp_path_factory: pytest.TempPathFactory) -> Seen:
    source, at = _program(UNKNOWN)
    base = tmp_path_factory.mktemp("unknown")
    (base / "pyright").mkdir()
    (base / "mypy").mkdir()
    revealed, errors = _pyright(base / "pyright", source)
    return Seen(at, revealed, errors, _mypy(base / "mypy", source))


def test_unknown_dtypes_are_never_an_error(unknown: Seen) -> None:
    at, _, errors, _ = unknown
    assert len(at) > 600
    assert not errors, [(at.get(line), messages) for line, messages in errors.items()][:10]


def test_unknown_dtypes_give_the_plugins_results(unknown: Seen) -> None:
    at, revealed, _, plugin = unknown
    checked = 0
    for line, expr in at.items():
        if line not in plugin:  # an in-place statement: nothing revealed
            continue
        theirs = _short(plugin[line])
        ours = revealed[line].replace("T@check", "T")  # pyright names a type variable's scope
        assert ours == theirs or {ours, theirs} <= {"Array[Any]", "Any"}, (expr, ours, theirs)
        checked += 1
    assert checked > 500


def test_categories_are_never_a_false_error(tmp_path: Path) -> None:
    source, at = _program(CATEGORIES)
    revealed, errors = _pyright(tmp_path, source)
    assert len(revealed) > 300
    assert not errors, [(at.get(line), messages) for line, messages in errors.items()][:10]
