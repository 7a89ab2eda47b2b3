"""basedpyright with the generated stubs types the runtime API as the rules compute it.

One generated program (two shards, run at once) calls ``promote_types`` on
every ordered pair of the jax rule set's dtypes (its types and the 64-bit ones
it canonicalises), with a Python type or a NumPy scalar type or dtype on
either side; ``result_type`` on every pair of arrays, an array alone, an
array and a Python scalar either way; ``astype`` with every marker name, every
NumPy scalar type and dtype, every Python type; and every binary operator with
a NumPy array.  What basedpyright reveals is compared with the run-time
functions, which read the rules:

* a marker (or an array) with a marker (or an array): ``type[X]`` where
  ``promote_types``/``result_type`` return ``X``, and an error where they
  raise ``PromotionError``;
* a Python or NumPy scalar type (or Python scalar) on the left, a Python type
  (or scalar) on the right: ``type[X]`` where defined, else ``type[DType]``,
  never an error (the stubs refuse only two markers or arrays);
* a NumPy type or dtype on the right, a name, a category, ``rules="numpy"``:
  ``type[DType]`` (not read), never an error; so is the class ``np.bool`` on
  the left (generic in NumPy's annotations, so pyright reads the argument
  after the second and solves the rule without it; ``np.dtype(np.bool)``
  and a variable of type ``type[np.bool]`` are read);
* ``x.astype(d)``: the marker ``to_marker(d)`` names; a Python type, the dtype
  a weak value of its kind takes in JAX (``RuleSet.weak_dtypes``:
  ``astype(float)`` is ``float32`` with x64 off, as jax.numpy gives);
* a NumPy array operand: accepted, of unknown dtype (``Array[Any]``, a
  comparison ``Array[bool_]``), never an error.

The ``promote_types`` cells of two arrays are also checked against JAX's
recorded truth: for the jax rules ``a + b`` is the promotion of ``a`` and
``b``, so the truth file's ``+`` cells must agree with ``promote_types``.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from stubprogram import ROOT, read_pyright, start_pyright

from tools.conformance.compare import expected
from tools.conformance.truthfile import read_truth
from typing_pkg import promote_types, result_type
from typing_pkg.dtypelike import to_marker
from typing_pkg.dtypes import BY_NAME, EXTENDED_NAMES, DType
from typing_pkg.ops import BINARY, COMPARISON, SYMBOL
from typing_pkg.promotion import PromotionError
from typing_pkg.rules import PY_SCALARS, get_rules

RULES = get_rules("jax")
TYPES = (*RULES.types, *RULES.canonical)
"""The dtypes of the jax rules, and the 64-bit ones they canonicalise (``float64``)."""
PYTHON: dict[str, type] = {
    name: getattr(builtins, name) for name in (kind.removeprefix("py_") for kind in PY_SCALARS)
}
"""The Python scalar types, by name: ``bool``, ``int``, ``float``, ``complex``."""
NUMPY = {
    name: scalar.__name__
    for name in TYPES
    if not BY_NAME[name].weak and (scalar := np.dtype(BY_NAME[name]).type).__module__ == "numpy"
}
"""Marker → the name of NumPy's scalar type for it (read from NumPy): ``float32``."""


def _runtime(function: Callable[..., type[DType]], *args: object) -> str | None:
    """Return the name of what ``function(*args)`` returns, ``None`` if it raises PromotionError."""
    try:
        return function(*args).name
    except PromotionError:
        return None


@dataclass(frozen=True)
class Check:
    """One checked expression and the type the checker must reveal (``None``: an error)."""

    expr: str
    want: str | None


def _either_side(
    function: Callable[..., type[DType]], other: tuple[str, object], marker: tuple[str, object]
) -> list[Check]:
    """Return ``function(other, marker)`` and ``function(marker, other)``: what the run-time
    function gives, ``type[DType]`` where it raises (a Python type or scalar is never an error).

    Each argument is its source text and its run-time value.
    """
    return [
        Check(
            f"{function.__name__}({a[0]}, {b[0]})", _type(_runtime(function, a[1], b[1]) or "DType")
        )
        for a, b in ((other, marker), (marker, other))
    ]


def _promote_types() -> list[Check]:
    checks = [  # first: every pair of markers
        Check(f"promote_types({a}, {b})", _type(_runtime(promote_types, BY_NAME[a], BY_NAME[b])))
        for a in TYPES
        for b in TYPES
    ]
    for marker in TYPES:
        for name, python in PYTHON.items():
            checks += _either_side(promote_types, (name, python), (marker, BY_NAME[marker]))
        for scalar in NUMPY.values():
            found = _runtime(promote_types, getattr(np, scalar), BY_NAME[marker])
            generic = scalar == "bool"  # np.bool[T]: see the module documentation
            checks.append(
                Check(
                    f"promote_types(np.{scalar}, {marker})",
                    _type(None if generic else found or "DType") or "type[DType]",
                )
            )
            checks.append(
                Check(f"promote_types(np.dtype(np.{scalar}), {marker})", _type(found or "DType"))
            )
            checks.append(Check(f"promote_types({marker}, np.{scalar})", "type[DType]"))
        checks += [
            Check(f'promote_types("float32", {marker})', "type[DType]"),
            Check(f"promote_types(c_floating.dtype, {marker})", "type[DType]"),
            Check(f"promote_types({marker}, u_typevar.dtype)", "type[DType]"),
            Check(f'promote_types({marker}, {marker}, rules="numpy")', "type[DType]"),
        ]
    return checks


def _result_type() -> list[Check]:
    # A marker stands for an array of its dtype at run time.
    checks = [
        Check(f"result_type(a_{a}, a_{b})", _type(_runtime(result_type, BY_NAME[a], BY_NAME[b])))
        for a in TYPES
        for b in TYPES
    ]
    for marker in TYPES:
        alone = _type(_runtime(result_type, BY_NAME[marker]))
        checks.append(Check(f"result_type(a_{marker})", alone))
        for python in PYTHON.values():
            scalar = python(2)
            checks += _either_side(
                result_type, (repr(scalar), scalar), (f"a_{marker}", BY_NAME[marker])
            )
        checks += [
            Check(f"result_type(a_{marker}, u_any)", "type[DType]"),
            Check(f"result_type(c_floating, a_{marker})", "type[DType]"),
            Check(f"result_type(a_{marker}, a_{marker}, a_{marker})", "type[DType]"),
        ]
    return checks


def _astype() -> list[Check]:
    checks = [
        Check(f'a_float32.astype("{name}")', f"Array[{to_marker(name).name}]")
        for name, marker in BY_NAME.items()
        if not marker.abstract and name not in EXTENDED_NAMES  # no array is cast to a key
    ]
    for scalar in NUMPY.values():
        want = f"Array[{to_marker(getattr(np, scalar)).name}]"
        checks += [
            Check(f"a_float32.astype(np.{scalar})", want),
            Check(f"a_float32.astype(np.dtype(np.{scalar}))", want),
        ]
    for name, python in PYTHON.items():
        weak = to_marker(python).name
        converted = RULES.weak_dtypes.get(weak, weak) if BY_NAME[weak].weak else weak
        checks.append(Check(f"a_float32.astype({name})", f"Array[{converted}]"))
    checks += [Check(f"a_float32.astype({t})", "Array[Any]") for t in ("np.floating", '"f4"')]
    # The dtype by keyword, as jax.Array.astype allows.
    checks += [
        Check("a_float32.astype(dtype=int8)", "Array[int8]"),
        Check('a_float32.astype(dtype="bfloat16")', "Array[bfloat16]"),
    ]
    return checks


def _numpy_operands() -> list[Check]:
    """``Array[M] OP NDArray[S]``: where ``S`` is ``M``'s own NumPy type, what ``M OP M`` gives
    (``Array[Any]`` where that is undefined); any other NumPy array (another dtype, an
    unknown one, a category's or a weak marker's ``self``): ``Array[Any]``, a comparison
    ``Array[bool_]``.  Never an error.  (``np.intp`` is the platform's: pyright reads it as
    ``np.int64``.)"""
    checks: list[Check] = []
    operands: dict[str, str | None] = {f"n_{scalar}": name for name, scalar in NUMPY.items()}
    operands |= {"n_floating": None, "n_any": None, "n_intp": np.dtype(np.intp).name}
    for op in BINARY:
        unknown = "Array[bool_]" if op in COMPARISON else "Array[Any]"
        for marker in (*NUMPY, "weak_float"):
            for n, numpy_marker in operands.items():
                same = RULES.result(op, marker, marker) if numpy_marker == marker else None
                want = f"Array[{same}]" if isinstance(same, str) and op not in COMPARISON else None
                checks.append(Check(f"a_{marker} {SYMBOL[op]} {n}", want or unknown))
        checks += [Check(f"{a} {SYMBOL[op]} n_float32", unknown) for a in ("c_floating", "u_any")]
    return checks


def _type(name: str | None) -> str | None:
    return None if name is None else f"type[{name}]"


def _program(checks: list[Check]) -> tuple[str, dict[int, Check]]:
    markers = sorted({*TYPES, "float32", "int8", "bool_", "weak_float", "floating"})
    numpy = ", ".join(f"n_{s}: npt.NDArray[np.{s}]" for s in NUMPY.values())
    lines = [
        "from typing import Any, TypeVar",
        "import numpy as np",
        "import numpy.typing as npt",
        "from typing_pkg import Array, DType, promote_types, result_type",
        f"from typing_pkg.dtypes import {', '.join(markers)}",
        'T = TypeVar("T", bound=DType)',
        "",
        "def check("
        + ", ".join(f"a_{m}: Array[{m}]" for m in TYPES)
        + f", {numpy}, n_floating: npt.NDArray[np.floating], n_any: npt.NDArray[Any]"
        + ", n_intp: npt.NDArray[np.intp], c_floating: Array[floating], u_any: Array[Any]"
        + ", u_typevar: Array[T]) -> None:",
    ]
    at: dict[int, Check] = {}
    for check in checks:
        lines.append(f"    reveal_type({check.expr})")
        at[len(lines)] = check
    return "\n".join(lines) + "\n", at


@dataclass(frozen=True)
class Seen:
    check: Check
    revealed: str | None
    errors: tuple[str, ...]

    @property
    def ok(self) -> bool:
        if self.check.want is None:
            return bool(self.errors)
        return not self.errors and self.revealed == self.check.want


GROUPS: dict[str, Callable[[], list[Check]]] = {
    "promote_types": _promote_types,
    "result_type": _result_type,
    "astype": _astype,
    "numpy operands": _numpy_operands,
}


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Seen]]:
    base = tmp_path_factory.mktemp("runtime_api")
    shards = [["promote_types"], ["result_type", "astype", "numpy operands"]]
    programs = [_program([c for g in shard for c in GROUPS[g]()]) for shard in shards]
    runs = [start_pyright(base / f"shard{k}", p[0]) for k, p in enumerate(programs)]
    found: dict[str, list[Seen]] = {}
    for shard, process, (_, at) in zip(shards, runs, programs, strict=True):
        said = read_pyright(process)
        assert not said.errors.keys() - at.keys(), "errors outside the checked lines"
        checks = iter(at.items())
        for group in shard:
            count = len(GROUPS[group]())
            found[group] = [
                Seen(check, said.revealed.get(line), tuple(said.errors.get(line, ())))
                for line, check in (next(checks) for _ in range(count))
            ]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("group", GROUPS)
def test_pyright_agrees_with_the_runtime(seen: dict[str, list[Seen]], group: str) -> None:
    wrong = [s for s in seen[group] if not s.ok]
    assert not wrong, "\n".join(
        f"{s.check.expr}: want {s.check.want or 'an error'}, got {s.revealed} {list(s.errors)[:1]}"
        for s in wrong[:30]
    )


@pytest.mark.slow
def test_counts(seen: dict[str, list[Seen]]) -> None:
    assert len(TYPES) == 35  # 31 dtypes of JAX with x64 off, and 4 it canonicalises
    assert len(NUMPY) == 14  # bool, 8 integers, 3 floats, 2 complex types
    marker_pairs = seen["promote_types"][: len(TYPES) ** 2]
    refused = sum(s.check.want is None for s in marker_pairs)
    counts = {group: len(found) for group, found in seen.items()}
    print(f"checked {counts}; promote_types refuses {refused} of {len(marker_pairs)} marker pairs")
    assert 0 < refused < len(marker_pairs)
    assert all(s.errors for s in marker_pairs if s.check.want is None)


def test_truth_agrees_with_promote_types() -> None:
    """JAX's recorded ``a + b`` is ``promote_types(a, b)``: the pyright cells above are JAX's."""
    cells = [
        c
        for c in read_truth(ROOT / "truth" / "jax.csv")
        if c.op == "add"
        and c.right
        and not c.left.startswith("py_")
        and not c.right.startswith("py_")
    ]
    assert len(cells) == len(RULES.types) ** 2
    for cell in cells:
        runtime = _runtime(promote_types, BY_NAME[cell.left], BY_NAME[cell.right])
        assert expected(RULES, cell) == runtime, (cell.left, cell.right)
