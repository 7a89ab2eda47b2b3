"""The plugin fails loudly and never crashes: what a rule set or the build may do wrong.

A rule set is code (a user's custom one included): one that raises, or that
answers something that is not a marker, is reported at the expression with
the ``typing-pkg-unexpected`` code, and so is a marker the build's
``typing_pkg`` does not define; a dtype string ``promote_types`` would refuse
at run time is a ``dtype-promotion`` error.  Nothing is silently
``Array[Any]``, and mypy finishes normally.  Also: the plugin's modules
define nothing they do not use.
"""

from __future__ import annotations

import ast
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from plugin_harness import ROOT, parse, run_mypy, write_config

from typing_pkg.rules import unregister

BUGGY = """\
from typing_pkg.rules.custom import LatticeRules


class Buggy(LatticeRules):
    def result(self, op, left, right=None):
        if op == "mul":
            raise KeyError(left)
        if op == "sub":
            return "int99"
        return super().result(op, left, right)


RULES = Buggy("buggy", {"bool_": ("weak_int",), "weak_int": ("int8",), "int8": ("int16",)})
"""

PROGRAM = """\
from typing_pkg import Array, int8, int16

a: Array[int8]
b: Array[int16]
reveal_type(a + b)
reveal_type(a * b)
reveal_type(a - b)
reveal_type(-a)
"""

UNEXPECTED = "The typing_pkg mypy plugin ran into unexpected behavior: "
REPORT = "; please report this bug with this message"


@pytest.fixture
def buggy_rules(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "buggy.py").write_text(BUGGY)
    sys.path.insert(0, str(tmp_path))
    try:
        yield write_config(tmp_path, "buggy:RULES")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("buggy", None)
        for name in ("buggy:RULES", "buggy"):
            unregister(name)


@pytest.mark.slow  # a cold mypy run (typing_pkg brings JAX's modules in)
def test_a_rule_set_that_raises_or_answers_nonsense_is_reported(
    tmp_path: Path, buggy_rules: Path
) -> None:
    source = tmp_path / "demo.py"
    source.write_text(PROGRAM)
    out, err, status = run_mypy([source], buggy_rules, tmp_path / "cache")
    assert (status, err) == (1, ""), out + err
    found = parse(out)
    assert found[5].revealed == "typing_pkg.typing.Array[typing_pkg.dtypes.int16]"
    assert not found[5].errors
    rules = 'the "buggy" rules (buggy.Buggy)'
    assert found[6].errors == [
        (f"{UNEXPECTED}{rules} raised KeyError: 'int8' for mul(int8, int16){REPORT}",
         "typing-pkg-unexpected"),
    ]  # fmt: skip
    assert found[7].errors == [
        (f"{UNEXPECTED}{rules} answered 'int99' for sub(int8, int16), not a marker{REPORT}",
         "typing-pkg-unexpected"),
    ]  # fmt: skip
    assert found[8].revealed == "typing_pkg.typing.Array[typing_pkg.dtypes.int8]"


FAKE_DTYPES = """\
class DType: ...
class int8(DType): ...
class uint8(DType): ...
"""
FAKE_TYPING = """\
from typing import Any, Generic, TypeVar
from typing_pkg.dtypes import DType

DT = TypeVar("DT", bound=DType, covariant=True)

class Array(Generic[DT]):
    def __add__(self, other: Array[Any], /) -> Array[Any]: ...
    # As typing_pkg's own Array: the reflected form takes Python scalars only (with JAX
    # installed the class gets jax.Array's members, whose __radd__ takes arrays too).
    def __radd__(self, other: bool | int | float | complex, /) -> Array[Any]: ...
"""
FAKE_INIT = """\
from typing_pkg.dtypes import int8 as int8, uint8 as uint8
from typing_pkg.typing import Array as Array
"""


@pytest.mark.slow  # a cold mypy run (typing_pkg brings JAX's modules in)
def test_a_marker_the_build_does_not_define_is_reported(tmp_path: Path) -> None:
    """typing_pkg's stubs of another version than the plugin's: int16 is missing."""
    fake = tmp_path / "fake" / "typing_pkg"
    fake.mkdir(parents=True)
    for name, text in (("dtypes", FAKE_DTYPES), ("typing", FAKE_TYPING), ("__init__", FAKE_INIT)):
        (fake / f"{name}.pyi").write_text(text)
    config = tmp_path / "mypy.ini"
    config.write_text(f"[mypy]\nplugins = mypy_plugin\nmypy_path = {fake.parent}\n")
    source = tmp_path / "demo.py"
    source.write_text(
        "from typing_pkg import Array, int8, uint8\n\n"
        "a: Array[int8]\nb: Array[uint8]\nreveal_type(a + b)\nreveal_type(a + a)\n"
    )
    out, err, status = run_mypy([source], config, tmp_path / "cache")
    assert (status, err) == (1, ""), out + err
    found = parse(out)
    assert found[5].errors == [
        (f"{UNEXPECTED}the typing_pkg that mypy reads defines no typing_pkg.dtypes.int16 (are "
         f"its stubs or sources another version than the plugin's?){REPORT}",
         "typing-pkg-unexpected"),
    ]  # fmt: skip
    # The forward operator failed and the reflected one takes no array: mypy gives Any, as
    # for any operation the rules leave undefined.
    assert found[5].revealed == "Any"
    assert found[6].revealed == "typing_pkg.typing.Array[typing_pkg.dtypes.int8]"


@pytest.mark.slow  # a cold mypy run (typing_pkg brings JAX's modules in)
def test_promote_types_reports_what_fails_at_run_time(tmp_path: Path) -> None:
    source = tmp_path / "demo.py"
    source.write_text(
        textwrap.dedent(
            """\
            from typing_pkg import Array, float32, promote_types, result_type

            x: Array[float32]
            reveal_type(promote_types("flaot32", x.dtype))
            reveal_type(result_type(x, "M8[xx]"))
            reveal_type(promote_types("int8", "uint8", rules="numpy"))
            reveal_type(promote_types("int8", "uint8", rules="registered_at_run_time"))
            reveal_type(promote_types("int8", "uint8", rules="some.module:RULES"))
            """
        )
    )
    out, err, status = run_mypy(
        [source], write_config(tmp_path, "jax"), tmp_path / "cache", seeded=True
    )
    assert (status, err) == (1, ""), out + err
    found = parse(out)
    for line, function, text in ((4, "promote_types", "'flaot32'"), (5, "result_type", "'M8[xx]'")):
        [(message, code)] = found[line].errors
        assert message.startswith(f"{function}() fails at run time: cannot interpret {text} ")
        assert code == "dtype-promotion"
    assert "did you mean 'float32'?" in found[4].errors[0][0]
    assert found[6].revealed == "type[typing_pkg.dtypes.int16]"
    for line in (7, 8):  # not known statically: a module is not imported on the program's say
        assert (found[line].revealed, found[line].errors) == ("type[typing_pkg.dtypes.DType]", [])


def _definitions(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def test_the_plugin_defines_nothing_it_does_not_use() -> None:
    """Every top-level name of ``mypy_plugin`` is used in it (mypy's entry point aside)."""
    sources = {path: path.read_text() for path in sorted((ROOT / "mypy_plugin").glob("*.py"))}
    used: set[str] = set()
    for text in sources.values():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                used.add(node.id)
            elif isinstance(node, ast.Attribute):
                used.add(node.attr)
    entry_points = {"plugin", "__version__", "__all__", "TypingPkgPlugin"}
    unused = {
        f"{path.name}:{name}"
        for path, text in sources.items()
        for name in _definitions(ast.parse(text)) - entry_points
        if name not in used
    }
    assert not unused
