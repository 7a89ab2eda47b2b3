"""Typed JAX stubs for pyright: the installed JAX's own stubs, rewritten from the function table.

``python -m typing_pkg stubs --jax --out DIR`` writes ``DIR/jax-stubs``, a
*partial* PEP 561 stub package (``py.typed`` says ``partial``), and beside it
``DIR/typing_pkg-stubs`` for the same rule set (the JAX stubs use its rule
protocols, so the two must come from one rule set).  ``DIR`` is the project's
``typings/`` (pyright's default ``stubPath``) or any directory on the search
path (``site-packages``).

How pyright reads it
====================

pyright maps a partial stub package over the installed package's directory
(its ``PartialStubService``): every ``.pyi`` file of ``jax-stubs`` replaces
the file of the same path in ``jax/``, and the installed package's ``.py``
files stay visible; but the installed package's *own* ``.pyi`` files are
hidden by the mapping, so the package carries a rewritten copy of each of
them (``jax/numpy/__init__.pyi``, ``jax/nn/__init__.pyi``,
``jax/_src/basearray.pyi``) plus ``jax/random.pyi`` and ``jax/__init__.pyi``
(``jax/__init__.py``'s imports and assignments, with a typed ``jit``).  A plain ``typings/jax/``
directory does not work: pyright then takes ``typings/jax`` for the whole
``jax`` package and ``jax.jit``, ``jax.random`` are unknown.

What the files say
==================

* ``jax._src.basearray.Array`` (``jax.Array``) is generic in a dtype marker
  that defaults to ``Any`` (a bare ``jax.Array`` stays valid) and subclasses
  ``typing_pkg.Array``, so a JAX array is accepted where an ``Array[float32]``
  is expected.  Its operators are the overloads of ``typing_pkg``'s stubs
  (the rule protocols, under the same rule set), returning ``jax.Array``,
  each followed by JAX's own signature as a last overload.
* ``jnp.float32``, ``jnp.bfloat16``, … (``Any`` in JAX's stubs) are
  ``_ScalarType[float32]`` objects: a ``dtype=`` / ``astype`` argument that
  names its dtype, and callable (``jnp.float32(2.0)`` is an
  ``Array[float32]``); ``jnp.float64`` is ``_ScalarType[float32]`` with x64
  off, as JAX canonicalises it.
* Each function of the table (:func:`typing_pkg.api.table`) with at most one
  array parameter whose dtype matters gets overloads computed by asking the
  table (:func:`typing_pkg.result_dtype`) for every dtype: first one per
  result for each ``dtype=`` value, then, with ``dtype`` absent, one per
  result for the array parameter (the dtypes a function keeps share one
  overload through a constrained type variable), one per Python scalar kind,
  and JAX's own signature last, so that everything JAX accepts stays
  accepted (with an ``Array`` of unknown dtype).
* A function of two arrays whose table equals an operator family's
  (``maximum``, ``where``, ``dot``, ``matmul``, ``divide``… : the table is
  asked for every pair of dtypes and compared with ``typing_pkg``'s
  families) gets that operator's overloads, its rule protocols
  (``y: Array[AddRule[Left, Result]]``) and its Python-scalar ones, both ways
  round when the table is symmetric; a ufunc object (``jnp.maximum``) gets
  them as its ``__call__`` and keeps its methods.  A function of one
  sequence of arrays that keeps the dtype (``concatenate``, ``stack``) gets a
  constrained type variable over the strong dtypes.  Other functions of
  several arrays keep JAX's signature, except where their result does not
  depend on them.
* The members of ``jax.Array`` that keep the dtype in ``typing_pkg``'s
  ``Array`` (``x[i]``, ``x.T``, ``x.mT``) say so, iterating gives what
  ``x[0]`` gives, and ``x.at[i]`` is generic in the dtype: its methods that
  keep every dtype in the table (``set``, ``add``, ``min``…) return it.
* ``jax.jit(f)`` is a ``JitWrapped`` called as ``f`` is (``vmap`` keeps the
  signature in JAX's own annotations); ``grad`` keeps JAX's signature.

``stubs --jax --out DIR --check`` (:func:`check`) fails when ``DIR``'s files
differ from a fresh generation for the installed JAX.
"""

from __future__ import annotations

import ast
import builtins
import copy
import importlib.util
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Final

from typing_pkg import stubgen
from typing_pkg.dtypes import BY_NAME
from typing_pkg.rules import DEFAULT, RuleSet, get_rules

__all__ = ["PACKAGE", "check", "generate", "jax_dir", "write"]

PACKAGE: Final = "jax-stubs"
"""The name of the partial stub package written beside ``typing_pkg-stubs``."""

_SCALAR_TYPES: Final = (
    ("py_bool", "_builtins.bool"),
    ("py_int", "_builtins.int"),
    ("py_float", "_builtins.float"),
)
"""Python scalar kinds and their types, narrowest first (a checker accepts a bool as an int)."""
_PY_DTYPES: Final = (("bool", bool), ("int", int), ("float", float), ("complex", complex))
_PROBES: Final = ("float32", "int32", "bool_", "bfloat16", "float16", "int8", "uint8")
"""Operand dtypes tried to see whether a ``dtype=`` result depends on the operand."""
_IMPORTS: Final = (
    "from typing import Any as _Any, Generic as _Generic, Literal as _Literal, "
    "TypeVar as _TypeVar, overload as _overload\n"
    "import builtins as _builtins\n"
    "import typing as _typing\n"
    "import typing_pkg.typing as _tpt\n"
    "import numpy as _np\n"
    "import typing_pkg.dtypes as _tpd\n"
    '_Requested = _TypeVar("_Requested", bound=_tpd.DType)\n'
)


def jax_dir() -> Path:
    """Return the installed ``jax`` package's directory (without importing it)."""
    spec = importlib.util.find_spec("jax")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("jax is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _jax_version(root: Path) -> str:
    text = (root / "version.py").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.startswith("_version"):
            return line.split("=", 1)[1].strip().strip("\"'")
    return "unknown"


# ------------------------------------------------------------------ the table's answers


def _concrete() -> list[str]:
    return [name for name, marker in BY_NAME.items() if not marker.abstract and not marker.weak]


def _marker_name(found: object) -> str | None:
    name = getattr(found, "__name__", None)
    if isinstance(name, str) and name in BY_NAME and not BY_NAME[name].abstract:
        return name
    return None


@dataclass
class _Oracle:
    """The table's results under one rule set, cached."""

    rules: RuleSet
    cache: dict[tuple[object, ...], str | None] = field(default_factory=dict)

    def result(self, function: str, operand: str | None, dtype: object = None) -> str | None:
        """The result marker of ``function(operand, dtype=dtype)``, None when not one marker."""
        key = (function, operand, dtype)
        if key not in self.cache:
            from typing_pkg.api import result_dtype

            args = () if operand is None else (operand,)
            options: dict[str, object] = {} if dtype is None else {"dtype": dtype}
            try:
                found: object = result_dtype(function, *args, rules=self.rules.name, **options)
            except (TypeError, ValueError, LookupError):
                found = None
            self.cache[key] = _marker_name(found)
        return self.cache[key]

    def call(self, function: str, args: tuple[object, ...]) -> str | None:
        """The result marker of ``function(*args)``, None when not one marker."""
        key = (function, "call", repr(args))
        if key not in self.cache:
            from typing_pkg.api import result_dtype

            try:
                found: object = result_dtype(function, *args, rules=self.rules.name)
            except (TypeError, ValueError, LookupError):
                found = None
            self.cache[key] = _marker_name(found)
        return self.cache[key]


# ------------------------------------------------------------------ source editing


def _name(node: ast.expr | None) -> str:
    return ast.unparse(node) if node is not None else ""


def _all_args(fn: ast.FunctionDef) -> list[ast.arg]:
    a = fn.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs]


def _arg(fn: ast.FunctionDef, name: str) -> ast.arg | None:
    return next((arg for arg in _all_args(fn) if arg.arg == name), None)


def _expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def _decorate(fn: ast.FunctionDef) -> ast.FunctionDef:
    out = copy.deepcopy(fn)
    names = {_name(d) for d in out.decorator_list}
    if not names & {"overload", "_overload", "typing.overload"}:
        out.decorator_list = [ast.Name("_overload"), *out.decorator_list]
    out.body = [ast.Expr(ast.Constant(...))]
    return out


@dataclass
class _Module:
    """What one rewritten module needs: its constrained type variables, its array type."""

    array: str
    marker: Callable[[str], str] = lambda name: f"_tpd.{name}"
    keeps: dict[tuple[str, ...], str] = field(default_factory=dict)

    def keep(self, markers: tuple[str, ...]) -> str:
        """The constrained type variable for the dtypes a function keeps."""
        if markers not in self.keeps:
            self.keeps[markers] = f"_Keep{len(self.keeps)}"
        return self.keeps[markers]

    def variables(self) -> str:
        """The type variables' declarations."""
        return "".join(
            f"{var} = _TypeVar({var!r}, {', '.join(self.marker(m) for m in markers)})\n"
            for markers, var in self.keeps.items()
        )

    def arrays(self, markers: Iterable[str]) -> str:
        """``Array[a] | Array[b]``."""
        return " | ".join(f"{self.array}[{self.marker(m)}]" for m in markers)


def _numpy_type(marker: str) -> str | None:
    import numpy as np

    found: object = getattr(np, marker, None)
    if not isinstance(found, type) or not issubclass(found, np.generic):
        return None
    try:
        name: str = np.dtype(marker).name
    except TypeError:
        return None
    return f"_np.{marker}" if name == marker or marker == "bool_" else None


def _require(fn: ast.FunctionDef, name: str) -> None:
    """Make parameter ``name`` of ``fn`` required (keyword-only if a default precedes it)."""
    a = fn.args
    for index, arg in enumerate(a.kwonlyargs):
        if arg.arg == name:
            a.kw_defaults[index] = None
            return
    positional = [*a.posonlyargs, *a.args]
    names = [arg.arg for arg in positional]
    if name not in names or name in {arg.arg for arg in a.posonlyargs}:
        return
    index = names.index(name)
    first_default = len(positional) - len(a.defaults)
    if index == first_default:
        a.defaults = a.defaults[1:]
        return
    start = index - len(a.posonlyargs)
    moved = a.args[start:]
    moved_defaults = a.defaults[len(a.defaults) - len(moved) :]
    a.args = a.args[:start]
    a.defaults = a.defaults[: len(a.defaults) - len(moved)]
    a.kwonlyargs = [*moved, *a.kwonlyargs]
    a.kw_defaults = [None, *moved_defaults[1:], *a.kw_defaults]


def _signature(
    fn: ast.FunctionDef,
    changes: Mapping[str, str],
    returns: str,
    module: _Module,
    required: str | None = None,
) -> ast.FunctionDef:
    out = _decorate(fn)
    if required is not None:
        _require(out, required)
    for arg in _all_args(out):
        if arg.arg in changes:
            arg.annotation = _expr(changes[arg.arg])
    out.returns = _expr(returns)
    if fn.returns is not None and isinstance(fn.returns, ast.Subscript):
        # ``list[Array]`` (``split``), ``tuple[Array, Array]`` (``frexp``): each array is one
        out.returns = _Replace("Array", out.returns).visit(copy.deepcopy(fn.returns))
    return out


class _Replace(ast.NodeTransformer):
    """Replace the name ``name`` (not subscripted) with ``by``."""

    def __init__(self, name: str, by: ast.expr) -> None:
        self.name, self.by = name, by

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        if _name(node.value) == self.name:
            return node
        node.slice = self.visit(node.slice)
        return node

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return copy.deepcopy(self.by) if node.id == self.name else node


def _by_result(pairs: Iterable[tuple[str, str | None]]) -> dict[str | None, list[str]]:
    groups: dict[str | None, list[str]] = {}
    for operand, result in pairs:
        groups.setdefault(result, []).append(operand)
    return groups


def _dtype_overloads(
    function: str, operand: str | None, fn: ast.FunctionDef, oracle: _Oracle, module: _Module
) -> list[ast.FunctionDef]:
    """The overloads for a ``dtype=`` argument: JAX's scalar types, NumPy's, Python's.

    A scalar type object (``jnp.float32``) carries the dtype JAX makes of it
    (canonicalised), so one overload with a type variable serves every dtype
    for which the function's result is the requested dtype; the others come
    first, one per result.  NumPy's types come one overload per result, and
    Python's ``bool``, ``int``, ``float``, ``complex`` one each.
    """
    arr = module.array
    probes: tuple[str | None, ...] = _PROBES if operand is not None else (None,)

    def requested(dtype: object) -> str | None:
        found = {oracle.result(function, probe, dtype) for probe in probes}
        return found.pop() if len(found) == 1 else None

    def returns(result: str | None) -> str:
        return f"{arr}[{module.marker(result)}]" if result is not None else f"{arr}[_Any]"

    out: list[ast.FunctionDef] = []
    exceptions: dict[str | None, list[str]] = {}
    numpy: dict[str | None, list[str]] = {}
    for name in _concrete():
        canonical = oracle.result("jax.Array.astype", "float32", name)
        result = requested(name)
        if canonical is not None and result != canonical:
            exceptions.setdefault(result, []).append(f"_ScalarType[{module.marker(canonical)}]")
        numpy_type = _numpy_type(name)
        if numpy_type is not None and result is not None:
            numpy.setdefault(result, []).append(f"type[{numpy_type}]")
    for result, forms in exceptions.items():
        annotation = " | ".join(dict.fromkeys(forms))
        out.append(_signature(fn, {"dtype": annotation}, returns(result), module, "dtype"))
    out.append(
        _signature(fn, {"dtype": "_ScalarType[_Requested]"}, f"{arr}[_Requested]", module, "dtype")
    )
    # ``np.dtype[...]`` objects are left to JAX's signature: ``x.dtype`` is an
    # ``np.dtype[Any]``, which would match the first of them.
    for result, forms in numpy.items():
        annotation = " | ".join(dict.fromkeys(forms))
        out.append(_signature(fn, {"dtype": annotation}, returns(result), module, "dtype"))
    for py_name, py_type in _PY_DTYPES:
        result = requested(py_type)
        if result is not None:
            out.append(
                _signature(
                    fn, {"dtype": f"type[_builtins.{py_name}]"}, returns(result), module, "dtype"
                )
            )
    return out


def _overloads(
    function: str,
    operands: Sequence[str],
    has_dtype: bool,
    fn: ast.FunctionDef,
    oracle: _Oracle,
    module: _Module,
) -> list[ast.FunctionDef]:
    """The overloads of one function, before JAX's own signature."""
    if len(operands) > 1:
        return _join_overloads(function, operands, fn, oracle, module)
    operand = operands[0] if operands else None
    out: list[ast.FunctionDef] = []
    arr = module.array

    def returns(result: str | None) -> str:
        return f"{arr}[{module.marker(result)}]" if result is not None else f"{arr}[_Any]"

    absent = {"dtype": "None"} if has_dtype else {}
    if operand is None:
        result = oracle.result(function, None)
        if result is not None:
            out.append(_signature(fn, absent, returns(result), module))
    else:
        out += _operand_overloads(function, operand, fn, oracle, module, absent)
    if has_dtype:
        out += _dtype_overloads(function, operand, fn, oracle, module)
    return out


def _operand_overloads(
    function: str,
    operand: str,
    fn: ast.FunctionDef,
    oracle: _Oracle,
    module: _Module,
    absent: Mapping[str, str],
) -> list[ast.FunctionDef]:
    """The overloads by the dtype of the array parameter ``operand`` (``dtype=`` absent).

    An array of unknown dtype (``Array[Any]``, a category, a type variable)
    matches the first, which answers ``Array[Any]``: pyright takes the first
    overload an ``Array[Any]`` matches.  Then one overload per result, the
    dtypes the function keeps sharing one through a constrained type
    variable, and one per Python scalar kind.
    """
    arr = module.array

    def returns(result: str | None) -> str:
        return f"{arr}[{module.marker(result)}]" if result is not None else f"{arr}[_Any]"

    types = [*oracle.rules.types, *dict(oracle.rules.canonical)]
    results = [(t, oracle.result(function, t)) for t in types]
    scalars = [(kind, oracle.result(function, kind)) for kind, _ in _SCALAR_TYPES]
    defined = {r for _, r in results if r is not None}
    if len(defined) == 1 and all(r is not None for _, r in results + scalars):
        only = defined.pop()
        if {r for _, r in scalars} == {only}:
            return [_signature(fn, dict(absent), returns(only), module)]
    out = [_signature(fn, {operand: f"{arr}[_tpd.Category]", **absent}, returns(None), module)]
    kept = tuple(t for t, r in results if r == t)
    unknown = [t for t, r in results if r is None]
    for result, group in _by_result(results).items():
        names = [t for t in group if len(kept) < 2 or t not in kept]
        if result is None or not names:
            continue
        out.append(
            _signature(fn, {operand: module.arrays(names), **absent}, returns(result), module)
        )
    if len(kept) > 1:
        if unknown:
            out.append(
                _signature(fn, {operand: module.arrays(unknown), **absent}, returns(None), module)
            )
        var = module.keep(kept)
        out.append(_signature(fn, {operand: f"{arr}[{var}]", **absent}, f"{arr}[{var}]", module))
    if operand != "self":
        last = max((i for i, (_, r) in enumerate(scalars) if r is not None), default=-1)
        for (_, py_type), (_, scalar) in list(zip(_SCALAR_TYPES, scalars, strict=True))[: last + 1]:
            out.append(_signature(fn, {operand: py_type, **absent}, returns(scalar), module))
    return out


def _probe(kind: object, values: Mapping[str, object]) -> tuple[object, ...]:
    """Positional arguments for the table: ``values`` by name, ``bool_`` where ignored."""
    from typing_pkg.api.kinds import Param

    args: list[object] = []
    for spec in getattr(kind, "param_specs", ()):
        param = Param.parse(spec)
        if param.name in values:
            args.append(values[param.name])
        elif param.optional:
            break
        else:
            args.append("bool_")
    return tuple(args)


@cache
def _encoding(rules_name: str) -> stubgen.Encoding:
    return stubgen.encode(rules_name)


def _family_methods(
    rules: RuleSet, name: str
) -> tuple[list[ast.FunctionDef], list[ast.FunctionDef]]:
    """The overloads of ``Array.__<name>__`` and ``__r<name>__`` in ``typing_pkg``'s stubs that
    read an array or a Python scalar (not a NumPy array, not an unknown dtype), qualified."""
    cls, qualify = _typing_names(rules)
    params = _Qualify({**qualify, "Array": "_tpt.Array"})
    others = _Qualify({k: v for k, v in qualify.items() if k != "Array"})
    found: dict[str, list[ast.FunctionDef]] = {f"__{name}__": [], f"__r{name}__": []}
    for stmt in cls.body:
        if not isinstance(stmt, ast.FunctionDef) or stmt.name not in found:
            continue
        args = _all_args(stmt)
        if len(args) != 2 or args[0].annotation is None or args[1].annotation is None:
            continue
        other = _name(args[1].annotation)
        if "SomeDType" in _name(args[0].annotation) or not (
            other.startswith("Array[") or other in {"bool", "int", "float", "complex"}
        ):
            continue
        fn = copy.deepcopy(stmt)
        for arg in _all_args(fn):
            arg.annotation = params.visit(arg.annotation) if arg.annotation else None
        fn.returns = others.visit(fn.returns) if fn.returns is not None else None
        found[stmt.name].append(fn)
    return found[f"__{name}__"], found[f"__r{name}__"]


def _family_cells(
    family: stubgen.Family, types: Sequence[str]
) -> dict[tuple[str, str], str | None]:
    """An operator family's table: ``(left, right)`` → result, None where undefined."""
    cells: dict[tuple[str, str], str | None] = {(a, b): None for a in types for b in types}
    for right in types:
        pairs = [(left, left) for left in (family.kept or {}).get(right, ())]
        pairs += [(left, g.result) for g in family.rules.get(right, []) for left in g.operands]
        for left, result in pairs:
            if (left, right) in cells:
                cells[(left, right)] = result
    return cells


def _join_overloads(
    function: str,
    operands: Sequence[str],
    fn: ast.FunctionDef,
    oracle: _Oracle,
    module: _Module,
) -> list[ast.FunctionDef]:
    """Two array parameters whose result is an operator's table (``maximum`` is ``+``'s join).

    The function's table is asked for every pair of dtypes; if it equals the
    table of an operator family of ``typing_pkg``'s stubs, the function gets
    that operator's overloads (its rule protocols), the scalar ones both ways
    round when the table is symmetric.
    """
    from typing_pkg.api import table

    if len(operands) != 2:
        return []
    kind = table()[function]
    first, second = operands
    types = oracle.rules.types
    cells = {
        (a, b): oracle.call(function, _probe(kind, {first: a, second: b}))
        for a in types
        for b in types
    }
    enc = _encoding(oracle.rules.name)
    family = next((f for f in enc.families if _family_cells(f, types) == cells), None)
    if family is None:
        return []
    symmetric = all(r == cells[(b, a)] for (a, b), r in cells.items())
    direct, reflected = _family_methods(oracle.rules, family.name)
    out: list[ast.FunctionDef] = []
    for method in direct:
        this, other = (arg.annotation for arg in _all_args(method))
        if this is None or other is None or method.returns is None:
            continue
        changes = {first: ast.unparse(this), second: ast.unparse(other)}
        out.append(_signature(fn, changes, ast.unparse(method.returns), module))
    if symmetric:
        for method in reflected:
            this, other = (arg.annotation for arg in _all_args(method))
            if this is None or other is None or method.returns is None:
                continue
            changes = {first: ast.unparse(other), second: ast.unparse(this)}
            out.append(_signature(fn, changes, ast.unparse(method.returns), module))
    return out


def _sequence_overloads(
    function: str, name: str, fn: ast.FunctionDef, oracle: _Oracle, module: _Module
) -> list[ast.FunctionDef]:
    """A sequence of arrays of one dtype, for a function that keeps it (``concatenate``).

    The weak dtypes are left out: pyright solves the constrained type variable
    for ``[Array[float32], Array[weak_float]]`` as ``weak_float`` (JAX gives
    ``float32``); without them such a list falls to JAX's signature.
    """
    from typing_pkg.api import table

    kind = table()[function]
    kept = tuple(
        t
        for t in oracle.rules.types
        if not BY_NAME[t].weak and oracle.call(function, _probe(kind, {name: [t, t]})) == t
    )
    if len(kept) < 2:
        return []
    var = module.keep(kept)
    absent = {"dtype": "None"} if _arg(fn, "dtype") is not None else {}
    arr = module.array
    return [
        _signature(fn, {name: f"_typing.Sequence[{arr}[{var}]]", **absent}, f"{arr}[{var}]", module)
    ]


def _operands(kind: object, fn: ast.FunctionDef) -> list[str] | None:
    """The array parameters of ``fn`` whose dtype matters, or None if the kind has none listed."""
    from typing_pkg.api.kinds import Param

    specs: tuple[str, ...] = getattr(kind, "param_specs", ())
    present = {arg.arg for arg in _all_args(fn)}
    if fn.args.vararg is not None:
        present.add(fn.args.vararg.arg)
    found: list[str] = []
    for spec in specs:
        param = Param.parse(spec)
        if param.ignored or not param.name:
            continue
        if param.name in present:
            if param.sequence:
                return None  # a sequence of arrays: not enumerated
            found.append(param.name)
        elif not param.optional:
            return None
    return found


def _sequence_param(kind: object, fn: ast.FunctionDef) -> str | None:
    """The one array parameter of ``fn`` whose dtype matters if it is a sequence (not ``*args``)."""
    from typing_pkg.api.kinds import Param

    params = [Param.parse(spec) for spec in getattr(kind, "param_specs", ())]
    params = [p for p in params if not p.ignored and p.name]
    names = {arg.arg for arg in _all_args(fn)}
    if len(params) == 1 and params[0].sequence and params[0].name in names:
        return params[0].name
    return None


def _rewrite_functions(
    body: list[ast.stmt], prefix: str, oracle: _Oracle, module: _Module
) -> list[ast.stmt]:
    from typing_pkg.api import table

    entries = table()
    out: list[ast.stmt] = []
    done: set[str] = set()
    for stmt in body:
        if not isinstance(stmt, ast.FunctionDef) or stmt.name in done:
            if isinstance(stmt, ast.FunctionDef) and stmt.name in done:
                out.append(_decorate(stmt))
                continue
            out.append(stmt)
            continue
        kind = entries.get(prefix + stmt.name)
        operands = _operands(kind, stmt) if kind is not None else None
        extra: list[ast.FunctionDef] = []
        if kind is not None and operands is not None:
            has_dtype = "dtype" in getattr(kind, "options", ()) and _arg(stmt, "dtype") is not None
            extra = _overloads(prefix + stmt.name, operands, has_dtype, stmt, oracle, module)
        elif kind is not None:
            sequence = _sequence_param(kind, stmt)
            if sequence is not None:
                extra = _sequence_overloads(prefix + stmt.name, sequence, stmt, oracle, module)
        if not extra:
            out.append(stmt)
            continue
        done.add(stmt.name)
        out.extend(extra)
        out.append(_decorate(stmt))
    return out


# ------------------------------------------------------------------ the modules


def _insert_after_imports(tree: ast.Module, text: str) -> None:
    last = 0
    for index, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            last = index + 1
    tree.body[last:last] = ast.parse(text).body


def _header(rules: RuleSet, version: str) -> str:
    return (
        f"# Generated by `python -m typing_pkg stubs --jax` from JAX {version}'s stubs and the "
        f"{rules.name!r} rule set: do not edit.\n"
    )


def _typing_names(rules: RuleSet) -> tuple[ast.ClassDef, dict[str, str]]:
    """``typing_pkg``'s generated ``Array`` class and how to qualify the names it uses."""
    tree = ast.parse(stubgen.generate(rules)[f"{stubgen.PACKAGE}/typing.pyi"])
    qualify: dict[str, str] = {}
    cls: ast.ClassDef | None = None
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "typing_pkg.dtypes":
            qualify.update({a.asname or a.name: f"_tpd.{a.name}" for a in stmt.names})
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "typing":
            qualify.update({a.asname or a.name: f"_typing.{a.name}" for a in stmt.names})
        elif isinstance(stmt, ast.ClassDef):
            qualify[stmt.name] = f"_tpt.{stmt.name}"
            if stmt.name == "Array":
                cls = stmt
        elif isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            qualify.update({t.id: f"_tpt.{t.id}" for t in targets if isinstance(t, ast.Name)})
    qualify["np"] = "_np"
    if cls is None:
        raise LookupError("typing_pkg's stubs have no Array class")
    return cls, qualify


class _Qualify(ast.NodeTransformer):
    def __init__(self, qualify: Mapping[str, str]) -> None:
        self.qualify = qualify

    def visit_Name(self, node: ast.Name) -> ast.expr:
        found = self.qualify.get(node.id)
        return _expr(found) if found is not None else node


def _operators(rules: RuleSet, jax_methods: Mapping[str, ast.FunctionDef]) -> list[ast.stmt]:
    """``typing_pkg``'s operator overloads for ``jax.Array``: results are JAX arrays."""
    cls, qualify = _typing_names(rules)
    plain: set[str] = set()
    for stmt in cls.body:
        if isinstance(stmt, ast.If) and _name(stmt.test) == "MYPY":
            plain |= {s.name for s in stmt.body if isinstance(s, ast.FunctionDef)}
    plain.discard("astype")
    params = _Qualify({**qualify, "Array": "_tpt.Array"})
    others = _Qualify({k: v for k, v in qualify.items() if k != "Array"})
    out: list[ast.stmt] = []
    names: list[str] = []
    for stmt in cls.body:
        if not isinstance(stmt, ast.FunctionDef) or stmt.name not in plain:
            continue
        fn = copy.deepcopy(stmt)
        fn.decorator_list = [ast.Name("_overload")]
        for index, arg in enumerate(_all_args(fn)):
            if arg.annotation is not None:
                visitor = others if index == 0 else params
                arg.annotation = visitor.visit(arg.annotation)
        if fn.returns is not None:
            fn.returns = others.visit(fn.returns)
        out.append(fn)
        if stmt.name not in names:
            names.append(stmt.name)
    result: list[ast.stmt] = []
    for name in names:
        result.extend(s for s in out if isinstance(s, ast.FunctionDef) and s.name == name)
        if name in jax_methods:
            result.append(_decorate(jax_methods[name]))
    return result


_SCALAR_TYPE: Final = '''
_ScalarDType = _TypeVar("_ScalarDType", bound=_tpd.DType, covariant=True)


class _ScalarType(_Generic[_ScalarDType]):
    """A JAX scalar type object (``jnp.float32``): a dtype argument, callable to make an array."""

    @property
    def dtype(self) -> _np.dtype[_Any]: ...
    def __call__(self, x: _Any = ..., /) -> Array[_ScalarDType]: ...
'''


_INDEX_UPDATE: Final = frozenset({"_IndexUpdateHelper", "_IndexUpdateRef"})


def _kept_members(rules: RuleSet) -> set[str]:
    """The members of ``typing_pkg``'s ``Array`` that return ``Array[_DT_co]`` (keep the dtype)."""
    cls, _ = _typing_names(rules)
    return {
        s.name
        for s in cls.body
        if isinstance(s, ast.FunctionDef) and _name(s.returns) == "Array[_DT_co]"
    }


def _keep_dtype(body: list[ast.stmt], kept: set[str]) -> None:
    """``jax.Array``'s own members that keep the dtype say so (``x[i]``, ``x.T``, ``.at``).

    ``__iter__`` yields what ``x[0]`` gives; ``at`` is generic in the dtype.
    """
    for stmt in body:
        if not isinstance(stmt, ast.FunctionDef) or _name(stmt.returns) not in {"Array", "Any"}:
            continue
        if stmt.name in kept:
            stmt.returns = _expr("Array[_DT_co]")
        elif stmt.name == "__iter__" and "__getitem__" in kept:
            stmt.returns = _expr("_typing.Iterator[Array[_DT_co]]")
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "at":
            stmt.returns = _expr("_IndexUpdateHelper[_DT_co]")


def _index_update(cls: ast.ClassDef, oracle: _Oracle) -> None:
    """``x.at[i]``: generic in ``x``'s dtype; the methods that keep it return ``Array[_DT_co]``."""
    from typing_pkg.api import table
    from typing_pkg.api.kinds import Param

    entries = table()
    cls.bases = [*cls.bases, _expr("_Generic[_DT_co]")]
    for stmt in cls.body:
        if not isinstance(stmt, ast.FunctionDef):
            continue
        if stmt.name == "__getitem__":
            stmt.returns = _expr("_IndexUpdateRef[_DT_co]")
            continue
        function = f"jax.Array.at.{stmt.name}"
        kind = entries.get(function)
        if kind is None or _name(stmt.returns) != "Array":
            continue
        first = Param.parse(getattr(kind, "param_specs", ("self",))[0]).name
        if all(oracle.call(function, _probe(kind, {first: t})) == t for t in oracle.rules.types):
            stmt.returns = _expr("Array[_DT_co]")


def _basearray(source: str, rules: RuleSet, oracle: _Oracle) -> str:
    tree = ast.parse(source)
    _insert_after_imports(
        tree,
        _IMPORTS
        + "from typing_extensions import TypeVar as _TypeVarDefault\n"
        + '_DT_co = _TypeVarDefault("_DT_co", bound=_tpd.DType, covariant=True, default=_Any)\n',
    )
    module = _Module("Array")
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == "Array":
            stmt.bases = [_expr("_tpt.Array[_DT_co]")]
            methods = {s.name: s for s in stmt.body if isinstance(s, ast.FunctionDef)}
            operators = _operators(rules, methods)
            replaced = {s.name for s in operators if isinstance(s, ast.FunctionDef)}
            body = [
                s for s in stmt.body if not (isinstance(s, ast.FunctionDef) and s.name in replaced)
            ]
            body = _rewrite_functions(body, "jax.Array.", oracle, module)
            _keep_dtype(body, _kept_members(rules))
            stmt.body = body + operators
        elif isinstance(stmt, ast.ClassDef) and stmt.name in _INDEX_UPDATE:
            _index_update(stmt, oracle)
    _insert_after_imports(tree, module.variables())
    return ast.unparse(tree) + "\n" + _SCALAR_TYPE


def _scalar_objects(tree: ast.Module, oracle: _Oracle) -> None:
    """``float32: Any`` → ``float32: _ScalarType[_tpd.float32]`` (the canonical dtype)."""
    import numpy as np

    for stmt in tree.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        if _name(stmt.annotation) != "Any":
            continue
        name = stmt.target.id
        try:
            import jax.numpy as jnp

            dtype = np.dtype(getattr(jnp, name)).name
        except (TypeError, AttributeError, ImportError):
            continue
        marker = "bool_" if dtype == "bool" else dtype
        if marker not in BY_NAME:
            continue
        canonical = oracle.result("jax.Array.astype", "float32", marker)
        if canonical is not None:
            stmt.annotation = _expr(f"_ScalarType[_tpd.{canonical}]")


def _rewrite_ufuncs(
    body: list[ast.stmt], prefix: str, oracle: _Oracle, module: _Module
) -> list[ast.stmt]:
    """``maximum: BinaryUfunc`` → a subclass of ``BinaryUfunc`` whose ``__call__`` has overloads.

    The ufunc object keeps its methods (``jnp.maximum.reduce``); calling it
    reads the dtypes as the function of the table does.
    """
    from typing_pkg.api import table

    entries = table()
    calls: dict[str, ast.FunctionDef] = {}
    for stmt in body:
        if isinstance(stmt, ast.ClassDef):
            for item in stmt.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__call__":
                    calls[stmt.name] = item
    out: list[ast.stmt] = []
    for stmt in body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            out.append(stmt)
            continue
        base, name = _name(stmt.annotation), stmt.target.id
        kind = entries.get(prefix + name)
        call = calls.get(base)
        operands = _operands(kind, call) if kind is not None and call is not None else None
        extra: list[ast.FunctionDef] = []
        if call is not None and operands:
            extra = _overloads(prefix + name, operands, False, call, oracle, module)
        if call is None or not extra:
            out.append(stmt)
            continue
        cls_name = f"_Ufunc_{name}"
        cls = ast.parse(f"class {cls_name}({base}): ...").body[0]
        assert isinstance(cls, ast.ClassDef)
        cls.body = [*extra, _decorate(call)]
        out += [cls, ast.AnnAssign(ast.Name(name), ast.Name(cls_name), None, simple=1)]
    return out


def _functions_module(source: str, prefix: str, oracle: _Oracle, scalars: bool = False) -> str:
    tree = ast.parse(source)
    module = _Module("Array")
    if scalars:
        _scalar_objects(tree, oracle)
    tree.body = _rewrite_functions(tree.body, prefix, oracle, module)
    tree.body = _rewrite_ufuncs(tree.body, prefix, oracle, module)
    _insert_after_imports(
        tree,
        _IMPORTS + "from jax._src.basearray import Array, _ScalarType\n" + module.variables(),
    )
    return ast.unparse(tree) + "\n"


class _Defaults(ast.NodeTransformer):
    def visit_arguments(self, node: ast.arguments) -> ast.arguments:
        node.defaults = [ast.Constant(...) for _ in node.defaults]
        node.kw_defaults = [None if d is None else ast.Constant(...) for d in node.kw_defaults]
        return node


def _source_module(root: Path, module: str) -> Path:
    base = root.parent.joinpath(*module.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def _module_names(tree: ast.Module) -> tuple[set[str], dict[str, ast.FunctionDef]]:
    """The names a module defines or imports at top level, and its functions."""
    defined: set[str] = set()
    functions: dict[str, ast.FunctionDef] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef):
            functions[stmt.name] = stmt
            defined.add(stmt.name)
        elif isinstance(stmt, ast.ClassDef):
            defined.add(stmt.name)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            defined |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            defined |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
    return defined - set(dir(builtins)), functions


def _random(root: Path, oracle: _Oracle) -> str:
    """``jax/random.pyi``: JAX's re-exports, then the samplers with overloads.

    ``jax/random.py`` re-exports functions of private modules; each sampler of
    the table is declared again (the last declaration wins) from its source's
    signature, its annotations qualified by the private module.
    """
    public = ast.parse((root / "random.py").read_text(encoding="utf-8"))
    keep: list[ast.stmt] = []
    body: list[ast.stmt] = []
    aliases: list[str] = []
    module = _Module("Array")
    for stmt in public.body:
        if not isinstance(stmt, ast.Import | ast.ImportFrom):
            continue
        keep.append(stmt)
        if not (isinstance(stmt, ast.ImportFrom) and (stmt.module or "").startswith("jax._src")):
            continue
        path = _source_module(root, stmt.module or "")
        if not path.is_file():
            continue
        alias = f"_src{len(aliases)}"
        aliases.append(f"import {stmt.module} as {alias}\n")
        defined, functions = _module_names(ast.parse(path.read_text(encoding="utf-8")))
        qualify = _Qualify({name: f"{alias}.{name}" for name in defined})
        for imported in stmt.names:
            fn = functions.get(imported.name)
            if fn is None or (imported.asname or imported.name) != imported.name:
                continue
            stub = _declaration(fn, qualify, [])
            rewritten = _rewrite_functions([stub], "jax.random.", oracle, module)
            if len(rewritten) > 1:
                body.extend(rewritten)
    tree = ast.Module(body=[*keep, *body], type_ignores=[])
    _insert_after_imports(
        tree,
        _IMPORTS + "".join(aliases) + "from jax._src.basearray import Array\n" + module.variables(),
    )
    return ast.unparse(tree) + "\n"


_TRANSFORMS: Final = '''
_P = _ParamSpec("_P")
_R = _TypeVar("_R")
_F = _TypeVar("_F", bound=_typing.Callable[..., _Any])


class _Jitted(_pjit.JitWrapped, _Generic[_F]):
    """``jax.jit(f)``: JAX's wrapper, called as ``f`` is (overloads included), bound as a method."""

    __call__: _F
    @_overload
    def __get__(self, instance: None, owner: type[_Any] | None = None, /) -> _Jitted[_F]: ...
    @_overload
    def __get__(
        self: _Jitted[_typing.Callable[_typing.Concatenate[_Any, _P], _R]],
        instance: object,
        owner: type[_Any] | None = None,
        /,
    ) -> _typing.Callable[_P, _R]: ...
    @_overload
    def __get__(
        self, instance: object, owner: type[_Any] | None = None, /
    ) -> _typing.Callable[..., _Any]: ...
'''


def _transform(fn: ast.FunctionDef, qualify: _Qualify) -> ast.FunctionDef:
    """JAX's declaration of a transformation, its annotations qualified by ``jax._src.api``."""
    return _declaration(fn, qualify, [ast.Name("_overload")])


def _declaration(
    fn: ast.FunctionDef, qualify: _Qualify, decorators: list[ast.expr]
) -> ast.FunctionDef:
    """A stub of JAX's function ``fn``: its body ``...``, its annotations qualified."""
    stub = copy.deepcopy(fn)
    stub.decorator_list = decorators
    stub.body = [ast.Expr(ast.Constant(...))]
    _Defaults().visit(stub)
    for arg in [*_all_args(stub), stub.args.vararg, stub.args.kwarg]:
        if arg is not None and arg.annotation is not None:
            arg.annotation = qualify.visit(arg.annotation)
    if stub.returns is not None:
        stub.returns = qualify.visit(stub.returns)
    return stub


def _transforms(api: ast.Module, qualify: _Qualify) -> dict[str, list[ast.FunctionDef]]:
    """``jit`` keeping the function's signature (``vmap`` already does, in JAX's annotations).

    ``jax.jit(f)`` is a ``JitWrapped`` whose ``__call__`` is ``f`` (its
    overloads too), bound as ``f`` is when it decorates a method; JAX's own
    declarations follow.  ``grad`` keeps JAX's: typing its result as the first
    argument's type (``Callable[Concatenate[T, P], R]``) makes pyright give a
    lambda's parameter the unsolved ``T`` (``jax.grad(lambda w: (w**2).sum())``
    is then an error).
    """
    found: dict[str, list[ast.FunctionDef]] = {}
    for stmt in api.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "jit":
            found.setdefault(stmt.name, []).append(stmt)
    out: dict[str, list[ast.FunctionDef]] = {}
    jit = [f for f in found.get("jit", []) if "overload" in {_name(d) for d in f.decorator_list}]
    if len(jit) == 2:
        call, bare = (_transform(f, qualify) for f in jit)
        call.args.posonlyargs[0].annotation = _expr("_F")
        call.returns = _expr("_Jitted[_F]")
        bare.returns = _expr("_typing.Callable[[_F], _Jitted[_F]]")
        out["jit"] = [call, bare, *(_transform(f, qualify) for f in jit)]
    return out


def _jax_init(root: Path) -> str:
    """``jax/__init__.pyi``: ``jax/__init__.py``'s imports, with typed transformations.

    A stub for the package's ``__init__`` hides the module, so it carries every
    import of it (the names it re-exports) and its assignments; what JAX
    deletes after use stays (a stub may say more than the module).
    """
    public = ast.parse((root / "__init__.py").read_text(encoding="utf-8"))
    api = ast.parse((root / "_src" / "api.py").read_text(encoding="utf-8"))
    defined, _ = _module_names(api)
    transforms = _transforms(api, _Qualify({name: f"_api.{name}" for name in defined}))
    body: list[ast.stmt] = []

    def keep(stmts: Iterable[ast.stmt]) -> None:
        for stmt in stmts:
            if isinstance(stmt, ast.If):
                keep(stmt.body)
            elif isinstance(stmt, ast.ImportFrom) and stmt.module == "jax._src.api":
                names = [a for a in stmt.names if (a.asname or a.name) not in transforms]
                if names:
                    body.append(ast.ImportFrom(stmt.module, names, stmt.level))
            elif isinstance(stmt, ast.Import | ast.ImportFrom | ast.Assign | ast.AnnAssign):
                body.append(stmt)

    keep(public.body)
    for overloads in transforms.values():
        body.extend(overloads)
    tree = ast.Module(body=body, type_ignores=[])
    _insert_after_imports(
        tree,
        "from typing import Any as _Any, Generic as _Generic, Literal as _Literal, "
        "ParamSpec as _ParamSpec, TypeVar as _TypeVar, overload as _overload\n"
        "import typing as _typing\nimport jax._src.api as _api\nimport jax._src.pjit as _pjit\n"
        + _TRANSFORMS,
    )
    return ast.unparse(tree) + "\n"


@cache
def _generate(rules_name: str, root: str) -> dict[str, str]:
    rules = get_rules(rules_name)
    base = Path(root)
    oracle = _Oracle(rules)
    header = _header(rules, _jax_version(base))

    def read(rel: str) -> str:
        return (base / rel).read_text(encoding="utf-8")

    files = {
        "_src/basearray.pyi": _basearray(read("_src/basearray.pyi"), rules, oracle),
        "numpy/__init__.pyi": _functions_module(
            read("numpy/__init__.pyi"), "jax.numpy.", oracle, scalars=True
        ),
        "nn/__init__.pyi": _functions_module(read("nn/__init__.pyi"), "jax.nn.", oracle),
        "random.pyi": _random(base, oracle),
        "__init__.pyi": _jax_init(base),
    }
    out = {rel: header + text for rel, text in files.items()}
    out["py.typed"] = "partial\n"
    return out


def generate(rules: str | RuleSet = DEFAULT, root: Path | None = None) -> dict[str, str]:
    """Return the files of ``jax-stubs`` (path relative to the package → text)."""
    name = rules if isinstance(rules, str) else rules.name
    if not name.startswith("jax"):
        raise ValueError(f"the JAX stubs need a JAX rule set (jax, jax-x64, …), not {name!r}")
    return dict(_generate(name, str(root or jax_dir())))


def write(out: Path, rules: str | RuleSet = DEFAULT) -> list[Path]:
    """Write ``out/jax-stubs`` and ``out/typing_pkg-stubs`` for ``rules``; return the paths."""
    written = stubgen.write(out, rules)
    package = out / PACKAGE
    for rel, text in generate(rules).items():
        path = package / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def check(out: Path, rules: str | RuleSet = DEFAULT) -> list[stubgen.StaleStub]:
    """Return the files under ``out`` (``typing_pkg-stubs`` and ``jax-stubs``) missing, stale
    or extra, against a fresh generation for ``rules`` and the installed JAX."""
    import difflib

    stale = stubgen.check(out, rules)
    files = {f"{PACKAGE}/{rel}": text for rel, text in generate(rules).items()}
    for rel, text in files.items():
        path = out / rel
        old = path.read_text(encoding="utf-8") if path.is_file() else ""
        if old != text:
            diff = "".join(
                difflib.unified_diff(
                    old.splitlines(keepends=True), text.splitlines(keepends=True), rel, rel, n=1
                )
            )
            stale.append(stubgen.StaleStub(rel, diff or f"{rel}: missing\n"))
    package = out / PACKAGE
    if package.is_dir():
        for extra in sorted(package.rglob("*")):
            rel = extra.relative_to(out).as_posix()
            if extra.is_file() and rel not in files and "__pycache__" not in rel:
                stale.append(stubgen.StaleStub(rel, f"{rel}: not generated, remove it\n"))
    return stale
