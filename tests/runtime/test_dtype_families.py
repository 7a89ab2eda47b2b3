"""The dtype families are defined once, in ``typing_pkg.dtypes``, and match ml_dtypes.

A table that needs "the floats narrower than 16 bits" imports
``dtypes.NARROW_FLOATS``; a literal list of the same names elsewhere is a
second source of truth that a new dtype would leave behind.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ml_dtypes
import pytest

from typing_pkg import dtypes

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = {
    "NARROW_INTS": dtypes.NARROW_INTS,
    "NARROW_UINTS": dtypes.NARROW_UINTS,
    "NARROW_FLOATS": dtypes.NARROW_FLOATS,
    "SUB_BYTE_FLOATS": dtypes.SUB_BYTE_FLOATS,
    "SUB_BYTE_INTEGERS": dtypes.SUB_BYTE_INTEGERS,
    "WEAK_NAMES": dtypes.WEAK_NAMES,
}


_IINFO: Callable[[object], Any] = ml_dtypes.iinfo  # ml_dtypes declares no types for them
_FINFO: Callable[[object], Any] = ml_dtypes.finfo


def _bits(name: str) -> int:
    """The width ml_dtypes gives one of its types."""
    kind = getattr(ml_dtypes, name)
    info = _IINFO(kind) if "int" in name else _FINFO(kind)
    return int(info.bits)


def test_the_families_are_the_libraries_narrow_types() -> None:
    # every integer and float type ml_dtypes defines, by its own width
    ints = [n for n in ("int1", "int2", "int4") if hasattr(ml_dtypes, n)]
    uints = [n for n in ("uint1", "uint2", "uint4") if hasattr(ml_dtypes, n)]
    assert tuple(ints) == dtypes.NARROW_INTS
    assert tuple(uints) == dtypes.NARROW_UINTS
    assert set(dtypes.SUB_BYTE_INTEGERS) == {*ints, *uints}
    assert all(_bits(name) < 8 for name in dtypes.SUB_BYTE_INTEGERS)
    floats = [
        name
        for name in dir(ml_dtypes)
        if name.startswith("float") and name[5:6].isdigit() and name != "float16"
    ]
    assert set(dtypes.NARROW_FLOATS) == {n for n in floats if _bits(n) < 16}
    assert set(dtypes.SUB_BYTE_FLOATS) == {n for n in floats if _bits(n) < 8}
    assert dtypes.WEAK_NAMES == ("weak_int", "weak_float", "weak_complex")


def _restatements(path: Path, root: Path = ROOT) -> list[str]:
    """The literal sets, lists and tuples of ``path`` that spell out a family."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, (ast.Set, ast.List, ast.Tuple)):
            continue
        names = [e.value for e in node.elts if isinstance(e, ast.Constant)]
        if len(names) != len(node.elts) or not all(isinstance(n, str) for n in names):
            continue
        for family, members in FAMILIES.items():
            if len(names) == len(members) and set(names) == set(members):
                found.append(f"{path.relative_to(root)}:{node.lineno}: dtypes.{family}")
    return found


@pytest.mark.parametrize("package", ["typing_pkg", "mypy_plugin", "tools", "benchmarks"])
def test_no_module_restates_a_family(package: str) -> None:
    found = [
        line
        for path in sorted((ROOT / package).rglob("*.py"))
        if path != ROOT / "typing_pkg" / "dtypes.py"
        for line in _restatements(path)
    ]
    assert found == [], "import these from typing_pkg.dtypes:\n" + "\n".join(found)


def test_the_scan_finds_a_restated_family(tmp_path: Path) -> None:
    module = tmp_path / "restated.py"
    module.write_text('X = 1\nY = frozenset({"int4", "int1", "int2"})\n', encoding="utf-8")
    assert _restatements(module, tmp_path) == ["restated.py:2: dtypes.NARROW_INTS"]
