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
``jax/_src/basearray.pyi``), a stub for each module that re-exports
functions of JAX's private modules (``jax/random.pyi``,
``jax/lax/__init__.pyi``, ``jax/numpy/linalg.pyi``, ``jax/numpy/fft.pyi``:
every import of the module, then the functions of the table declared again
from their source), and ``jax/__init__.pyi`` (``jax/__init__.py``'s imports
and assignments, with a typed ``jit``).  A plain ``typings/jax/``
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
  ``_ScalarMeta[float32]`` objects: a ``dtype=`` / ``astype`` argument that
  names its dtype, a ``np.dtype`` (where programs annotate ``jnp.dtype``),
  and callable (``jnp.float32(2.0)`` is an ``InferredArray[float32]``);
  ``jnp.float64`` is ``_ScalarMeta[float32]`` with x64 off, as JAX
  canonicalises it.
* ``InferredArray`` (``jax/_src/inferred.pyi``, a module of the stubs only,
  its class named ``Array`` so that it reads as one) is an array of a known
  dtype where JAX's types say ``Any``: deriving from ``Any``, it is accepted
  wherever ``Any`` is (``EnvState(time=jnp.int32(0))`` with ``time: int``),
  as the mypy plugin's ``typing_pkg.typing.InferredArray`` is.
* Each function of the table (:func:`typing_pkg.api.table`) with at most one
  array parameter whose dtype matters gets overloads computed by asking the
  table (:func:`typing_pkg.result_dtype`) for every dtype: one per result
  for the array parameter (the dtypes a function keeps share one overload
  through a type variable), one per Python scalar kind, then
  those of its dtype option (``dtype=``, ``new_dtype=``, ``index_dtype=``)
  in each form JAX reads — a scalar type object, a ``typing_pkg`` marker, a
  dtype name (``"float32"``), a NumPy or a Python type — each for the
  dtypes of the array parameter it holds for, and JAX's own signature last,
  so that everything JAX accepts stays accepted (with an ``Array`` of
  unknown dtype).  The overloads without the dtype option say it is
  ``None``; ``promote_integers=False`` has its own; an optional array
  parameter absent has its own first; a parameter the table checks but
  does not read (``ldexp``'s integer ``y``) takes the dtypes that change no
  result.
* A function of two arrays whose table equals an operator family's
  (``maximum``, ``where``, ``dot``, ``matmul``, ``divide``… : the table is
  asked for every pair of dtypes and compared with ``typing_pkg``'s
  families) gets that operator's overloads (its rule protocols,
  ``y: Array[AddRule[Left, Result]]``) and its Python-scalar ones, both ways
  round when the table is symmetric; a ufunc object (``jnp.maximum``) gets
  them as its ``__call__`` and keeps its methods.  Another function of two
  arrays (``lax.add``, ``jnp.arctan2``) gets overloads for two arrays of one
  dtype (a constrained type variable), for a few pairs of dtypes and for
  Python scalars (beside an array, or two of them).  A
  function of one sequence of arrays that keeps the dtype (``concatenate``,
  ``stack``) gets a constrained type variable over the strong dtypes.
  Other functions of several arrays keep JAX's signature.
  :func:`coverage` says which of these each function of the table gets
  (:data:`COVERAGE`).
* The members of ``jax.Array`` that keep the dtype in ``typing_pkg``'s
  ``Array`` (``x[i]``, ``x.T``, ``x.mT``) say so, iterating gives what
  ``x[0]`` gives (JAX's ``Any`` where the dtype is unknown: what is unpacked
  from a value declared ``jax.Array`` may be no array), and ``x.at[i]`` is
  generic in the dtype: its methods that
  keep every dtype in the table (``set``, ``add``, ``min``…) return it.
  Its other properties of the table (``x.real``, ``x.imag``) are
  descriptors whose ``__get__`` has the overloads by ``x``'s dtype (a
  property has none).
* ``jax.jit(f)`` is a ``JitWrapped`` called with anything, as JAX declares
  it; its result is ``f``'s array with its dtype (an ``InferredArray``,
  accepted wherever JAX's ``Any`` is) or ``Any`` (``vmap`` keeps the
  signature in JAX's own annotations); ``grad`` keeps JAX's signature.  A
  function of the table that JAX's source jits (``jnp.linalg.norm``: JAX's
  types say ``JitWrapped``) takes anything where no overload depends on it
  (``ord=jnp.inf``), returns ``InferredArray`` arrays, and its last overload is
  JAX's: anything in, ``Any`` out.
* ``jax.Array``'s parameters JAX leaves unannotated (``__getitem__``'s key)
  are ``Any``: pyright would give them the annotations of ``typing_pkg``'s
  ``Array``, which refuse keys JAX takes (a float, a string).

``stubs --jax --out DIR --check`` (:func:`check`) fails when ``DIR``'s files
differ from a fresh generation for the installed JAX.
"""

from __future__ import annotations

import ast
import builtins
import copy
import importlib.util
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Final, TypeVar

from typing_pkg import stubgen
from typing_pkg.dtypes import BY_NAME
from typing_pkg.rules import DEFAULT, RuleSet, get_rules

__all__ = [
    "COVERAGE",
    "PACKAGE",
    "TESTED_JAX",
    "check",
    "coverage",
    "generate",
    "jax_dir",
    "jax_version",
    "write",
]

TESTED_JAX: Final = "0.10.2"
"""The JAX version the stubs are checked with: the one the project pins (``pyproject.toml``)
and CI installs, generates the stubs from and checks them against, cell by cell.  The stubs
are generated from the *installed* JAX's own stubs; another version gets them too, with a
note (:func:`write`'s caller, ``typing-pkg stubs --jax``), and ``--check`` finds them stale
when JAX changes (their header names the version)."""

PACKAGE: Final = "jax-stubs"
"""The name of the partial stub package written beside ``typing_pkg-stubs``."""

_SCALAR_TYPES: Final = (
    ("py_bool", "_builtins.bool"),
    ("py_int", "_builtins.int"),
    ("py_float", "_builtins.float"),
    ("py_complex", "_builtins.complex"),
)
"""Python scalar kinds and their types, narrowest first (a checker accepts a bool as an int)."""
_PY_DTYPES: Final = (("bool", bool), ("int", int), ("float", float), ("complex", complex))
_T = TypeVar("_T")

COVERAGE: Final[Mapping[str, str]] = {
    "one array": (
        "overloads by the dtype of its one array parameter whose dtype matters (or of none), "
        "and by its dtype option"
    ),
    "operator": "two arrays whose table is an operator's: that operator's overloads",
    "pairs": (
        "two arrays whose table is no operator's: overloads for two arrays of one dtype "
        "(and a few pairs)"
    ),
    "sequence": "a sequence of arrays: one overload for arrays of one strong dtype it keeps",
    "several arrays": "JAX's signature: three or more arrays whose dtype matters",
    "sequence untyped": (
        "JAX's signature: a sequence of arrays (or JAX's *args) whose dtype it does not keep, "
        "or beside other arrays"
    ),
    "no result": (
        "JAX's signature: the table gives no dtype the overloads can name (several outputs, an "
        "unknown dtype, a required option)"
    ),
    "index update": (
        "JAX's declaration: a method of x.at[i] whose result is not x's dtype for every "
        "dtype (divide, power, get): x.at[i] is generic in x's dtype, its methods are not "
        "overloaded"
    ),
    "property": (
        "JAX's declaration: a property of jax.Array whose dtype is not the array's "
        "(x.real, x.imag of a complex array): a property has no overloads"
    ),
    "not declared": (
        "JAX's declaration: not a function of the files the stubs rewrite (an attribute, an "
        "object, a name JAX declares otherwise)"
    ),
}
"""How the stubs type a function of the table (:func:`coverage`), and what each means."""
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


def jax_version(root: Path | None = None) -> str:
    """Return the version of the JAX installed at ``root`` (default: the installed one)."""
    text = ((root or jax_dir()) / "version.py").read_text(encoding="utf-8")
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


def _operand_args(function: str, operand: str | None) -> tuple[object, ...]:
    """The table's positional arguments for ``operand`` as the function's array whose dtype
    matters (the first one not ignored), absent for None, ``bool_`` for those ignored."""
    from typing_pkg.api import table
    from typing_pkg.api.kinds import Param

    kind = table().get(function)
    if kind is None:
        return () if operand is None else (operand,)
    params = [Param.parse(spec) for spec in getattr(kind, "param_specs", ())]
    relevant = _relevant(kind)
    name = next((p.name for p in params if p.name in relevant), None)
    return _probe(kind, {} if operand is None or name is None else {name: operand})


def _optional(function: str, name: str | None, fn: ast.FunctionDef) -> bool:
    """Whether parameter ``name`` of ``function`` may be absent: optional in the table
    (``weights?``) and in JAX's declaration ``fn`` (``where(c, x)`` is no call)."""
    from typing_pkg.api import table
    from typing_pkg.api.kinds import Param

    if name is None or _arg(fn, name) is None or _required(fn, name):
        return False
    specs = getattr(table().get(function), "param_specs", ())
    return any(Param.parse(s).name == name and Param.parse(s).optional for s in specs)


def _kind_of(function: str) -> object:
    """What the table's answers for ``function`` depend on: its kind (functions share kinds)."""
    from typing_pkg.api import table

    return table().get(function, function)


@dataclass
class _Oracle:
    """The table's results under one rule set, cached."""

    rules: RuleSet
    cache: dict[tuple[object, ...], str | None] = field(default_factory=dict)
    typed: dict[str, str] = field(default_factory=dict)
    """How each function of the table is typed (a key of :data:`COVERAGE`)."""

    def result(
        self,
        function: str,
        operand: str | None,
        dtype: object = None,
        option: str = "dtype",
        others: tuple[tuple[str, object], ...] = (),
    ) -> str | None:
        """The result marker of ``function(operand, <option>=dtype, **others)``, None when not one
        marker (``option`` names the dtype option: ``dtype``, ``new_dtype``…)."""
        key = (_kind_of(function), operand, dtype, option, others)
        if key not in self.cache:
            from typing_pkg.api import result_dtype

            args = _operand_args(function, operand)
            options: dict[str, object] = dict(others)
            if dtype is not None:
                options[option] = dtype
            try:
                found: object = result_dtype(function, *args, rules=self.rules.name, **options)
            except (TypeError, ValueError, LookupError):
                found = None
            self.cache[key] = _marker_name(found)
        return self.cache[key]

    def call(self, function: str, args: tuple[object, ...]) -> str | None:
        """The result marker of ``function(*args)``, None when not one marker."""
        key = (_kind_of(function), "call", repr(args))
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
    """What one rewritten module needs: its type variables, its array type."""

    array: str
    marker: Callable[[str], str] = lambda name: f"_tpd.{name}"
    keeps: dict[tuple[tuple[str, ...], bool], str] = field(default_factory=dict)
    same_unknown: bool = False
    type_variables: set[str] = field(default_factory=set)
    """JAX's type variables, as the stub qualifies them (``_src0.T``)."""

    def keep(self, markers: tuple[str, ...], one: bool = False) -> str:
        """The type variable for the dtypes a function keeps: bounded by their union, or with
        ``one``, constrained to them (for several arguments that must share one dtype).

        A bounded one where one argument decides: pyright solves it from that
        argument alone, where it tries a constrained one's dtypes in turn.
        Several arguments (``lax.add(x, y)``, ``[x, y]``) would solve a bounded
        one to their union (``Array[float32 | bfloat16]``), a constrained one
        to none: arrays of two dtypes match no overload of it.
        """
        key = (markers, one)
        if key not in self.keeps:
            self.keeps[key] = f"_Keep{len(self.keeps)}"
        return self.keeps[key]

    def unknown_kept(self) -> str:
        """The type variable of an array of unknown dtype (or anything ``Any``) that a
        function returning its argument's type returns as it came
        (``stop_gradient(x: T) -> T``: ``Any`` in, ``Any`` out, as JAX declares)."""
        self.same_unknown = True
        return "_SameUnknown"

    def variables(self) -> str:
        """The type variables' declarations."""
        out: list[str] = []
        if self.same_unknown:
            bound = f"{self.array}[_tpd.Category]"
            out.append(f"_SameUnknown = _TypeVar('_SameUnknown', bound={bound})\n")
        for (markers, one), var in self.keeps.items():
            names = [self.marker(m) for m in markers]
            values = ", ".join(names) if one else f"bound={' | '.join(names)}"
            out.append(f"{var} = _TypeVar({var!r}, {values})\n")
        return "".join(out)

    def arrays(self, markers: Iterable[str]) -> str:
        """``Array[a | b]``: ``Array`` is covariant in its dtype, so it takes an ``Array[a]``
        and an ``Array[b]`` as ``Array[a] | Array[b]`` does, and pyright evaluates it faster
        (one class specialised, not one per dtype: the corpus checks about 10% faster)."""
        return f"{self.array}[{' | '.join(self.marker(m) for m in markers)}]"


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
    if index < first_default:
        return  # already required
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


def _by_result(pairs: Iterable[tuple[_T, str | None]]) -> dict[str | None, list[_T]]:
    groups: dict[str | None, list[_T]] = {}
    for operand, result in pairs:
        groups.setdefault(result, []).append(operand)
    return groups


def _operand_types(oracle: _Oracle, operand: str | None, optional: bool) -> list[str | None]:
    """What the array parameter ``operand`` may be: every dtype, a Python scalar (not ``self``),
    absent (None) when ``optional``."""
    if operand is None:
        return [None]
    found: list[str | None] = [*oracle.rules.types, *dict(oracle.rules.canonical)]
    if operand != "self":
        found += [kind for kind, _ in _SCALAR_TYPES]
    return [*found, None] if optional else found


def _operand_annotation(
    group: Iterable[str | None], every: Sequence[str | None], module: _Module
) -> str | None:
    """The array parameter's annotation for the operands ``group``: None for all of them (JAX's
    own), "" for none that can be said.

    A Python scalar kind is said only with the narrower ones (a checker
    takes a ``bool`` for an ``int``, an ``int`` for a ``float``).
    """
    chosen = set(group)
    if chosen >= set(every):
        return None
    arrays = [t for t in every if t in chosen and t is not None and not t.startswith("py_")]
    scalars: list[str] = []
    for kind, py_type in _SCALAR_TYPES:
        if kind not in chosen:
            break
        scalars.append(py_type)
    absent = ["None"] if None in chosen and every != [None] else []
    return " | ".join([module.arrays(arrays)] * bool(arrays) + scalars + absent)


@dataclass
class _Overloads:
    """Overloads by ``(annotation of the array parameter, result)``, their dtype forms merged."""

    fn: ast.FunctionDef
    option: str
    operand: str | None
    every: Sequence[str | None]
    module: _Module
    fixed: dict[str, str] = field(default_factory=dict)
    """Other parameters' annotations, in every overload."""
    entries: dict[tuple[str | None, str], list[str]] = field(default_factory=dict)

    def add(
        self, form: str, group: Iterable[str | None], result: str | None, block: bool = False
    ) -> None:
        """``option=<form>`` with an operand of ``group`` gives ``result``; None: say nothing, or
        with ``block``, ``Array[Any]`` (so that a later overload does not match)."""
        annotation = _operand_annotation(group, self.every, self.module)
        if result is None and block:
            result = "_Any"
        if result is not None and annotation != "":
            forms = self.entries.setdefault((annotation, result), [])
            if form not in forms:
                forms.append(form)

    def signature(self, form: str, annotation: str | None, returns: str) -> ast.FunctionDef:
        changes = {**self.fixed, self.option: form}
        if annotation is not None and self.operand is not None:
            changes[self.operand] = annotation
        return _signature(self.fn, changes, returns, self.module, self.option)

    def returns(self, result: str) -> str:
        """``Array[<result>]`` (``_Any`` stays)."""
        marker = result if result == "_Any" else self.module.marker(result)
        return f"{self.module.array}[{marker}]"

    def emit(self) -> list[ast.FunctionDef]:
        return [
            self.signature(" | ".join(forms), annotation, self.returns(result))
            for (annotation, result), forms in self.entries.items()
        ]


def _is_python(marker: str) -> bool:
    """Whether NumPy's scalar type of ``marker`` is a Python scalar type (``np.float64``)."""
    import numpy as np

    found: object = getattr(np, marker, None)
    return isinstance(found, type) and issubclass(found, bool | int | float | complex)


def _dtype_name(marker: str) -> str | None:
    """The name JAX reads in ``dtype="..."`` for ``marker`` (``"bool"`` for ``bool_``)."""
    import numpy as np

    try:
        return np.dtype(BY_NAME[marker].dtype).name
    except (TypeError, AttributeError, ImportError):
        return None


def _dtype_overloads(
    function: str,
    operand: str | None,
    option: str,
    fn: ast.FunctionDef,
    oracle: _Oracle,
    module: _Module,
    fixed: Mapping[str, str] | None = None,
) -> list[ast.FunctionDef]:
    """The overloads for a dtype option (``dtype=``, ``new_dtype=``…): every form JAX reads.

    The forms: JAX's scalar type objects (``jnp.float32``, an
    ``_ScalarMeta[float32]`` carrying the dtype JAX canonicalises it to),
    ``typing_pkg``'s markers (``dtype=float32``), dtype names
    (``dtype="float32"``), NumPy's scalar types (``np.float32``) and Python's
    (``bool``, ``int``, ``float``, ``complex``).  The table is asked for each
    form with each dtype of the array parameter (``operand``) and each Python
    scalar.  The requested dtypes that every operand but a few keep share one
    overload through a type variable bounded by their union, for those
    operands; every other (form, operands, result) is one overload, the forms giving the same
    result for the same operands merged, the operands (a union of
    ``Array[...]``) left as JAX declares them when they are all of them.
    NumPy's types come before Python's (``np.float64`` is a ``float``), and
    Python's narrowest first.  ``np.dtype`` objects are left to JAX's
    signature: ``x.dtype`` is an ``np.dtype[Any]``, which would match the
    first of them.
    """
    every = _operand_types(oracle, operand, _optional(function, operand, fn))
    arr = module.array

    def parts(*values: object) -> list[tuple[str | None, list[str | None]]]:
        """The operands by result when the option is any of ``values`` (None where they differ)."""

        def one(o: str | None) -> str | None:
            found = {oracle.result(function, o, value, option) for value in values}
            return found.pop() if len(found) == 1 else None

        groups = _by_result((o, one(o)) for o in every)
        return sorted(groups.items(), key=lambda item: len(item[1]), reverse=True)

    concrete = _concrete()
    canonical = {d: oracle.result("jax.Array.astype", "float32", d) for d in concrete}
    # ``jnp.int64`` is ``_ScalarMeta[int32]`` with x64 off: it says what both say
    classes = {c: [d for d in concrete if canonical[d] == c] for c in canonical.values() if c}
    kept = {
        c: frozenset(o for result, group in parts(*ds) if result == c for o in group)
        for c, ds in classes.items()
    }
    counts = Counter(k for k in kept.values() if k)
    nothing: frozenset[str | None] = frozenset()
    common = max(counts, key=lambda k: (counts[k], len(k))) if counts else nothing
    generic = [c for c in classes if common and kept[c] >= common]
    out: list[ast.FunctionDef] = []
    entries = _Overloads(fn, option, operand, every, module, dict(fixed or {}))
    var = module.keep(tuple(generic)) if len(generic) > 1 else ""
    if var:
        entries.entries[(_operand_annotation(common, every, module), "")] = []  # its place
    else:
        generic = []
    for c, ds in classes.items():
        for result, group in parts(*ds):
            rest = [o for o in group if c not in generic or o not in common]
            entries.add(f"_ScalarMeta[{module.marker(c)}]", rest, result)
    for d in concrete:
        if canonical[d] is None:
            continue
        for result, group in parts(d):
            rest = [o for o in group if d not in generic or o not in common]
            entries.add(f"type[{module.marker(d)}]", rest, result)
    for d in concrete:
        numpy_type, name = _numpy_type(d), _dtype_name(d)
        if canonical[d] is None:
            continue
        for result, group in parts(d):
            if numpy_type is not None:  # np.float64 is a float: it must not reach float's
                entries.add(f"type[{numpy_type}]", group, result, block=_is_python(d))
            if name is not None:
                entries.add(f"_Literal[{name!r}]", group, result)
    for (annotation, result), forms in entries.entries.items():
        if result == "":
            form = f"_ScalarMeta[{var}] | type[{var}]"
            out.append(entries.signature(form, annotation, f"{arr}[{var}]"))
        else:
            form = " | ".join(forms)
            out.append(entries.signature(form, annotation, entries.returns(result)))
    python = [(py_name, parts(py_type)) for py_name, py_type in _PY_DTYPES]
    for index, (py_name, found) in enumerate(python):
        # ``bool`` is an ``int``: where ``bool`` has no result, it must not reach ``int``'s
        wider = any(r is not None for _, later in python[index + 1 :] for r, _ in later)
        overloads = _Overloads(fn, option, operand, every, module, dict(fixed or {}))
        for result, group in found:
            overloads.add(f"type[_builtins.{py_name}]", group, result, block=wider)
        out += overloads.emit()
    return out


def _overloads(
    function: str,
    operands: Sequence[str],
    fn: ast.FunctionDef,
    oracle: _Oracle,
    module: _Module,
) -> list[ast.FunctionDef]:
    """The overloads of one function, before JAX's own signature.

    The options of the table that ``fn`` has: a dtype option (``dtype``,
    ``new_dtype``…) gets its own overloads, and is ``None`` in the others (none
    when JAX requires it); ``promote_integers`` gets the overloads of
    ``promote_integers=False`` first, and is ``Literal[True]`` in the others.
    """
    from typing_pkg.api import table
    from typing_pkg.api.kinds import DTYPE_OPTIONS

    kind = table()[function]
    options = [o for o in kind.options if _arg(fn, o) is not None]
    dtype_option = next((o for o in options if o in DTYPE_OPTIONS), None)
    required = {o for o in options if _required(fn, o)}
    absent = {o: "None" for o in options if o in DTYPE_OPTIONS}
    if len(operands) > 1:
        if required & absent.keys():
            return []
        joined = _join_overloads(function, operands, fn, oracle, module, absent)
        if joined and dtype_option is not None:  # the option's None must not take an Any
            joined[:0] = _unknown_dtype_overload(function, None, dtype_option, fn, module, {})
        first, second = operands
        if not _optional(function, second, fn):
            return joined
        alone = {**absent, second: "None"}  # the first alone
        head = _operand_overloads(function, first, fn, oracle, module, alone)
        if dtype_option is not None:
            head += _dtype_overloads(
                function, first, dtype_option, fn, oracle, module, {second: "None"}
            )
            head[:0] = _unknown_dtype_overload(
                function, first, dtype_option, fn, module, {second: "None"}
            )
        if head:
            oracle.typed.setdefault(function, "pairs")
        return head + joined
    operand = operands[0] if operands else None
    checked = _checked_annotations(function, operand, fn, oracle, module)
    if checked is None:
        return []
    absent.update(checked)
    out: list[ast.FunctionDef] = []
    oracle.typed[function] = "one array"
    if "promote_integers" in options:
        changes = {**absent, "promote_integers": "_Literal[False]"}
        others = (("promote_integers", False),)
        out += _operand_overloads(
            function, operand, fn, oracle, module, changes, others, "promote_integers"
        )
        absent["promote_integers"] = "_Literal[True]"
    if dtype_option is None or dtype_option not in required:
        out += _operand_overloads(function, operand, fn, oracle, module, absent)
    if dtype_option is not None:
        out += _dtype_overloads(function, operand, dtype_option, fn, oracle, module, checked)
        out[:0] = _unknown_dtype_overload(function, operand, dtype_option, fn, module, checked)
    return out


def _unknown_dtype_overload(
    function: str,
    operand: str | None,
    option: str,
    fn: ast.FunctionDef,
    module: _Module,
    fixed: Mapping[str, str],
) -> list[ast.FunctionDef]:
    """The first overload: a dtype option of unknown value (``dtype=self.dtype`` typed
    ``Any``) gives an array of unknown dtype.

    Without it, pyright answers such a call ``Unknown`` (the overloads' results
    differ), and a variable declared ``Optional[Array]`` that it is assigned to
    keeps its ``None``: ``h = jnp.zeros(s, dtype=dt)`` after ``if h is None``
    (distrax, jax-md).  The option's annotation, ``_ScalarMeta[Category]``,
    takes no dtype of ``jnp``'s (``_ScalarMeta`` is invariant), only what is
    ``Any``; and it must come first (pyright picks the first of the overloads an
    ``Any`` argument matches where it is the only one whose result covers all).
    ``jax.random``'s functions go without: a wrapper reading a function's
    parameters (a ``ParamSpec``, Flax nnx's ``rngs.params.uniform(shape)``)
    reads its first overload, where the dtype is required.
    """
    if function.startswith("jax.random."):
        return []
    entries = _Overloads(fn, option, operand, [], module, dict(fixed))
    return [
        entries.signature(
            f"_ScalarMeta[{module.marker('Category')}]", None, f"{module.array}[_Any]"
        )
    ]


def _checked_annotations(
    function: str, operand: str | None, fn: ast.FunctionDef, oracle: _Oracle, module: _Module
) -> dict[str, str] | None:
    """The annotations of the parameters the table checks but does not read for the result
    (``ldexp``'s ``y``): the operands that change no result; None when there are none."""
    from typing_pkg.api import table

    kind = table()[function]
    every = _operand_types(oracle, "", optional=False)
    types = [t for t in every if t is not None and not t.startswith("py_")]
    found: dict[str, str] = {}
    for name in sorted(_checked(kind)):
        if _arg(fn, name) is None:
            continue

        def answer(t: str, value: str | None, name: str = name) -> str | None:
            values = {name: value} if value is not None else {}
            if operand is not None:
                values[operand] = t
            return oracle.call(function, _probe(kind, values))

        good = [c for c in every if all(answer(t, c) == answer(t, None) for t in types)]
        annotation = _operand_annotation(good, every, module)
        if annotation == "":
            return None
        if annotation is not None:
            found[name] = annotation
    return found


def _required(fn: ast.FunctionDef, name: str) -> bool:
    """Whether parameter ``name`` of ``fn`` has no default."""
    a = fn.args
    for arg, default in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        if arg.arg == name:
            return default is None
    positional = [*a.posonlyargs, *a.args]
    names = [arg.arg for arg in positional]
    return name in names and names.index(name) < len(positional) - len(a.defaults)


def _operand_overloads(
    function: str,
    operand: str | None,
    fn: ast.FunctionDef,
    oracle: _Oracle,
    module: _Module,
    absent: Mapping[str, str],
    others: tuple[tuple[str, object], ...] = (),
    required: str | None = None,
) -> list[ast.FunctionDef]:
    """The overloads by the dtype of the array parameter ``operand`` (the dtype option absent,
    the options ``others`` given, ``required`` made a required parameter).

    An array of unknown dtype (``Array[Any]``, a category, a type variable)
    matches the first, which answers ``Array[Any]``: pyright takes the first
    overload an ``Array[Any]`` matches.  Then one overload per result, the
    dtypes the function keeps sharing one through a bounded type
    variable, and one per Python scalar kind.
    """
    arr = module.array

    def returns(result: str | None) -> str:
        return f"{arr}[{module.marker(result)}]" if result is not None else f"{arr}[_Any]"

    def signature(changes: Mapping[str, str], result: str) -> ast.FunctionDef:
        return _signature(fn, {**changes, **absent}, result, module, required)

    if operand is None:
        result = oracle.result(function, None, others=others)
        return [signature({}, returns(result))] if result is not None else []
    head: list[ast.FunctionDef] = []
    if _optional(function, operand, fn):  # absent: before the overloads an absent one matches
        result = oracle.result(function, None, others=others)
        if result is not None:
            head.append(signature({operand: "None"}, returns(result)))
    scalars = not _returns_its_argument(fn, operand, module.type_variables)
    return head + _given_overloads(function, operand, oracle, module, signature, others, scalars)


def _returns_its_argument(fn: ast.FunctionDef, name: str, type_variables: set[str]) -> bool:
    """Whether ``fn`` returns the type variable of its parameter ``name``
    (``stop_gradient(x: T) -> T``).

    JAX returns a Python scalar given to such a function as it came
    (``stop_gradient(1.0)`` is a ``float``), not an array: no overload for
    Python scalars, JAX's declaration answers.
    """
    found = [a for a in _all_args(fn) if a.arg == name]
    annotation = found[0].annotation if found else None
    return (
        fn.returns is not None
        and annotation is not None
        and ast.unparse(fn.returns) == ast.unparse(annotation) in type_variables
    )


def _given_overloads(
    function: str,
    operand: str,
    oracle: _Oracle,
    module: _Module,
    signature: Callable[[Mapping[str, str], str], ast.FunctionDef],
    others: tuple[tuple[str, object], ...],
    python_scalars: bool = True,
) -> list[ast.FunctionDef]:
    """The overloads of :func:`_operand_overloads` for an array ``operand`` given (and for
    Python scalars unless ``python_scalars`` is false)."""
    arr = module.array

    def returns(result: str | None) -> str:
        return f"{arr}[{module.marker(result)}]" if result is not None else f"{arr}[_Any]"

    types = [*oracle.rules.types, *dict(oracle.rules.canonical)]
    results = [(t, oracle.result(function, t, others=others)) for t in types]
    scalars = [(kind, oracle.result(function, kind, others=others)) for kind, _ in _SCALAR_TYPES]
    defined = {r for _, r in results if r is not None}
    if len(defined) == 1 and all(r is not None for _, r in results + scalars):
        only = defined.pop()
        if {r for _, r in scalars} == {only}:
            return [signature({}, returns(only))]
    if python_scalars:
        out = [signature({operand: f"{arr}[_tpd.Category]"}, returns(None))]
    else:
        same = module.unknown_kept()
        out = [signature({operand: same}, same)]
    kept = tuple(t for t, r in results if r == t)
    unknown = [t for t, r in results if r is None]
    for result, group in _by_result(results).items():
        names = [t for t in group if len(kept) < 2 or t not in kept]
        if result is None or not names:
            continue
        out.append(signature({operand: module.arrays(names)}, returns(result)))
    if len(kept) > 1:
        if unknown:
            out.append(signature({operand: module.arrays(unknown)}, returns(None)))
        var = module.keep(kept)
        out.append(signature({operand: f"{arr}[{var}]"}, f"{arr}[{var}]"))
    if operand != "self" and python_scalars:
        last = max((i for i, (_, r) in enumerate(scalars) if r is not None), default=-1)
        for (_, py_type), (_, scalar) in list(zip(_SCALAR_TYPES, scalars, strict=True))[: last + 1]:
            out.append(signature({operand: py_type}, returns(scalar)))
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
    read an array or a Python scalar (``int``, or ``_IntNotBool`` for an ``int`` that is not a
    ``bool``; not a NumPy array, not an unknown dtype), qualified."""
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
        if "SomeDType" in _name(args[0].annotation) or "np." in other or "Numpy" in other:
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
    absent: Mapping[str, str],
) -> list[ast.FunctionDef]:
    """Two array parameters whose result is an operator's table (``maximum`` is ``+``'s join).

    The function's table is asked for every pair of dtypes; if it equals the
    table of an operator family of ``typing_pkg``'s stubs, the function gets
    that operator's overloads (its rule protocols), the scalar ones both ways
    round when the table is symmetric, each way where the function gives
    what the operator gives with every Python scalar; elsewhere it gets its
    own overloads for Python scalars, as a function of two arrays does
    (:func:`_scalar_overloads`).
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
        found = _pair_overloads(
            first,
            second,
            cells,
            lambda a, b: oracle.call(function, _probe(kind, {first: a, second: b})),
            fn,
            module,
            absent,
        )
        if found:
            oracle.typed[function] = "pairs"
        return found
    oracle.typed[function] = "operator"
    symmetric = all(r == cells[(b, a)] for (a, b), r in cells.items())
    direct, reflected = _family_methods(oracle.rules, family.name)

    def scalars_agree(reflect: bool) -> bool:
        """Whether the function gives what the operator gives with a Python scalar."""
        for t in types:
            for scalar, _ in _SCALAR_TYPES:
                a, b = (scalar, t) if reflect else (t, scalar)
                theirs = oracle.rules.result(family.name, a, b)
                mine = oracle.call(function, _probe(kind, {first: a, second: b}))
                if mine != (theirs if isinstance(theirs, str) else None):
                    return False
        return True

    def answer(a: str, b: str) -> str | None:
        return oracle.call(function, _probe(kind, {first: a, second: b}))

    out: list[ast.FunctionDef] = []
    for methods, reflect in ((direct, False), (reflected, True)):
        agree = scalars_agree(reflect)
        for method in methods if symmetric or not reflect else []:
            this, other = (arg.annotation for arg in _all_args(method))
            if this is None or other is None or method.returns is None:
                continue
            if not (agree or _name(other).startswith("_tpt.Array[")):
                continue
            a, b = (other, this) if reflect else (this, other)
            changes = {first: ast.unparse(a), second: ast.unparse(b), **absent}
            out.append(_signature(fn, changes, ast.unparse(method.returns), module))
        if not agree or (reflect and not (symmetric and methods)):
            # the function's own, as for two arrays (a comparison has no reflected operator)
            out += _scalar_overloads(first, second, types, answer, reflect, fn, module, absent)
    return out


_FEW_PAIRS: Final = 12
"""At most this many pairs of two dtypes get an overload each."""


def _pair_overloads(
    first: str,
    second: str,
    cells: Mapping[tuple[str, str], str | None],
    result: Callable[[str, str], str | None],
    fn: ast.FunctionDef,
    module: _Module,
    absent: Mapping[str, str],
) -> list[ast.FunctionDef]:
    """Two array parameters whose table (``cells``) is no operator's: arrays of one dtype, and
    Python scalars.

    An array of unknown dtype on either side matches one of the first two
    overloads (``Array[Any]``).  Then two arrays of one dtype: the dtypes
    that the function keeps share one overload through a constrained type
    variable (``lax.add(x, y)``: ``Array[K]`` and ``Array[K]`` give
    ``Array[K]``), and so do those giving one result (``lax.eq``); no marker
    is a subclass of another, so arrays of two dtypes match none of them.  A
    few pairs of two dtypes (a weakly typed array beside one of its dtype)
    get one each; the other pairs are left to JAX's signature.  An array
    and a Python scalar (``result`` answers for any two operands), either way
    round, get one overload per scalar kind and result, the dtypes kept
    sharing one, and two Python scalars one per pair, narrowest first: where
    a narrower scalar has no result, an overload answering ``Array[Any]``
    keeps it from a wider one's (``bool`` is an ``int``).
    """
    arr = module.array

    def signature(a: str, b: str, returns: str) -> ast.FunctionDef:
        return _signature(fn, {first: a, second: b, **absent}, returns, module)

    def returns(found: str | None) -> str:
        return f"{arr}[{module.marker(found)}]" if found is not None else f"{arr}[_Any]"

    out = [
        _signature(fn, {first: f"{arr}[_tpd.Category]", **absent}, f"{arr}[_Any]", module),
        _signature(fn, {second: f"{arr}[_tpd.Category]", **absent}, f"{arr}[_Any]", module),
    ]
    types = list(dict.fromkeys(a for a, _ in cells))
    kept = tuple(t for t in types if cells[(t, t)] == t)
    if len(kept) > 1:
        var = module.keep(kept, one=True)
        out.append(signature(f"{arr}[{var}]", f"{arr}[{var}]", f"{arr}[{var}]"))
    rest = [(t, cells[(t, t)]) for t in types if len(kept) < 2 or t not in kept]
    for found, group in _by_result(rest).items():
        if found is None:
            continue
        one = (
            f"{arr}[{module.keep(tuple(group), one=True)}]"
            if len(group) > 1
            else module.arrays(group)
        )
        out.append(signature(one, one, returns(found)))
    pairs = [(a, b, r) for (a, b), r in cells.items() if a != b and r is not None]
    if len(pairs) <= _FEW_PAIRS:
        for a, b, found in pairs:
            out.append(signature(module.arrays([a]), module.arrays([b]), returns(found)))
    for reflect in (False, True):
        out += _scalar_overloads(first, second, types, result, reflect, fn, module, absent)
    scalars = list(_SCALAR_TYPES)
    both = [(a, b, result(ka, kb)) for ka, a in scalars for kb, b in scalars]
    for index, (a, b, found) in enumerate(both):
        if found is not None or any(r is not None for _, _, r in both[index + 1 :]):
            out.append(signature(a, b, returns(found)))
    return out if len(out) > 2 else []


def _scalar_overloads(
    first: str,
    second: str,
    types: Sequence[str],
    result: Callable[[str, str], str | None],
    reflect: bool,
    fn: ast.FunctionDef,
    module: _Module,
    absent: Mapping[str, str],
) -> list[ast.FunctionDef]:
    """An array and a Python scalar (the scalar first when ``reflect``): one overload per scalar
    kind and result, the dtypes kept sharing one, narrowest kind first; where a narrower kind
    has no result, an overload answering ``Array[Any]`` keeps it from a wider one's."""
    arr = module.array
    scalars = list(_SCALAR_TYPES)
    answers = [
        {t: result(*((kind, t) if reflect else (t, kind))) for t in types} for kind, _ in scalars
    ]
    out: list[ast.FunctionDef] = []
    for index, (_, py_type) in enumerate(scalars):
        wider = any(r is not None for later in answers[index + 1 :] for r in later.values())
        mine = answers[index]
        same = tuple(t for t in types if mine[t] == t)
        overloads: list[tuple[str, str]] = []
        if len(same) > 1:
            var = module.keep(same)
            overloads.append((f"{arr}[{var}]", f"{arr}[{var}]"))
        others = [(t, mine[t]) for t in types if len(same) < 2 or t not in same]
        for found, group in _by_result(others).items():
            if found is not None or wider:
                marker = module.marker(found) if found is not None else "_Any"
                overloads.append((module.arrays(group), f"{arr}[{marker}]"))
        for array, returns in overloads:
            a, b = (py_type, array) if reflect else (array, py_type)
            out.append(_signature(fn, {first: a, second: b, **absent}, returns, module))
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
    from typing_pkg.api.kinds import DTYPE_OPTIONS

    kind = table()[function]
    kept = tuple(
        t
        for t in oracle.rules.types
        if not BY_NAME[t].weak and oracle.call(function, _probe(kind, {name: [t, t]})) == t
    )
    if len(kept) < 2:
        return []
    oracle.typed[function] = "sequence"
    var = module.keep(kept, one=True)
    absent = {o: "None" for o in kind.options if o in DTYPE_OPTIONS and _arg(fn, o) is not None}
    arr = module.array
    unknown = [  # a dtype of unknown value (typed Any) must not take the option's None
        overload
        for option in absent
        for overload in _unknown_dtype_overload(function, None, option, fn, module, {})
    ]
    sequence = f"_typing.Sequence[{arr}[{var}]]"
    return [*unknown, _signature(fn, {name: sequence, **absent}, f"{arr}[{var}]", module)]


def _relevant(kind: object) -> set[str]:
    """The parameters whose dtype the result reads: those not ignored, of either kind of a
    ``Choose`` (``bincount(x)`` reads ``x``, ``bincount(x, weights)`` only ``weights``)."""
    from typing_pkg.api.kinds import Param

    found = {
        param.name
        for param in map(Param.parse, getattr(kind, "param_specs", ()))
        if param.name and not param.ignored
    }
    for sub in (getattr(kind, "given", None), getattr(kind, "absent", None)):
        if sub is not None:
            found |= _relevant(sub)
    return found


def _checked(kind: object) -> set[str]:
    """The parameters marked ignored that the kind still checks (``ldexp``'s integer ``y``)."""
    found = set(getattr(kind, "check", ())) | {name for name, _ in getattr(kind, "requires", ())}
    for sub in (getattr(kind, "given", None), getattr(kind, "absent", None)):
        if sub is not None:
            found |= _checked(sub)
    return found - _relevant(kind)


def _operands(kind: object, fn: ast.FunctionDef) -> list[str] | None:
    """The array parameters of ``fn`` whose dtype matters, or None if the kind has none listed."""
    from typing_pkg.api.kinds import Param

    specs: tuple[str, ...] = getattr(kind, "param_specs", ())
    present = {arg.arg for arg in _all_args(fn)}
    if fn.args.vararg is not None:
        present.add(fn.args.vararg.arg)
    relevant = _relevant(kind)
    found: list[str] = []
    for spec in specs:
        param = Param.parse(spec)
        if param.name not in relevant:
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
    """Each function of the table in ``body``: before each of its declarations (JAX's overloads,
    ``where(c)`` and ``where(c, x, y)``) whose array parameters no earlier one has, the overloads
    for that declaration's parameters, every one decorated ``@overload``; the others unchanged.
    How each is typed goes to ``oracle.typed``."""
    from typing_pkg.api import table

    entries = table()
    out: list[ast.stmt] = []
    seen: set[str] = set()
    for stmt in body:
        if not isinstance(stmt, ast.FunctionDef):
            out.append(stmt)
            continue
        if stmt.name in seen:  # a further declaration, rewritten with the first
            continue
        seen.add(stmt.name)
        function = prefix + stmt.name
        kind = entries.get(function)
        defs = [s for s in body if isinstance(s, ast.FunctionDef) and s.name == stmt.name]
        if kind is None:
            out.extend(defs)
            continue
        if "property" in {_name(d) for d in stmt.decorator_list}:
            oracle.typed[function] = "property"  # a property has no overloads
            out.extend(defs)
            continue
        # a declaration with the array parameters of an earlier one keeps its own (logsumexp's
        # return_sign=True): only one with others (where(c, x, y) after where(c)) gets overloads
        found: list[tuple[list[ast.FunctionDef], str]] = []
        params: list[list[str] | None] = []
        for fn in defs:
            operands = _operands(kind, fn)
            fresh = not found or operands not in params
            params.append(operands)
            found.append(_typed(function, kind, fn, oracle, module) if fresh else ([], ""))
        labels = [label for extra, label in found if extra] or [found[0][1] or "no result"]
        oracle.typed[function] = labels[-1]  # where(c, x, y) over where(c)
        if not any(extra for extra, _ in found):
            out.extend(defs)
            continue
        for fn, (extra, _) in zip(defs, found, strict=True):
            out.extend([*extra, _literal_defaults(_decorate(fn), fn is defs[0], defs[0])])
    return out


def _literal_defaults(
    fn: ast.FunctionDef, first: bool, declared: ast.FunctionDef
) -> ast.FunctionDef:
    """A further declaration of a function requires the parameters its first declares with a
    ``Literal`` and a default (``logsumexp(..., return_sign: bool = ...)`` after ``return_sign:
    Literal[False] = ...``): a call without them is the first's, and pyright, given an argument
    of unknown type, would otherwise join the declarations' results (``Array | tuple``)."""
    if first:
        return fn
    literal = {
        arg.arg
        for arg in _all_args(declared)
        if "Literal[" in _name(arg.annotation) and not _required(declared, arg.arg)
    }
    for name in sorted(literal):
        if _arg(fn, name) is not None and not _required(fn, name):
            _require(fn, name)
    return fn


def _typed(
    function: str, kind: object, fn: ast.FunctionDef, oracle: _Oracle, module: _Module
) -> tuple[list[ast.FunctionDef], str]:
    """The overloads for one declaration of ``function``, and how they type it (a key of
    :data:`COVERAGE`)."""
    oracle.typed.pop(function, None)
    operands = _operands(kind, fn)
    extra: list[ast.FunctionDef] = []
    label = "no result"
    if operands is not None and len(operands) > 2:
        label = "several arrays"
    elif operands is not None:
        extra = _overloads(function, operands, fn, oracle, module)
    else:
        sequence = _sequence_param(kind, fn)
        if sequence is not None:
            extra = _sequence_overloads(function, sequence, fn, oracle, module)
        label = "sequence untyped"
    return extra, oracle.typed.get(function, label) if extra else label


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
    """``typing_pkg``'s generated ``Array`` class and how to qualify the names it uses (not to
    be changed: callers copy what they edit)."""
    return _typing_names_of(rules.name)


@cache
def _typing_names_of(rules_name: str) -> tuple[ast.ClassDef, dict[str, str]]:
    tree = ast.parse(stubgen.generate(rules_name)[f"{stubgen.PACKAGE}/typing.pyi"])
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
    # A module may shadow them (``jax.numpy``'s ``bool`` is a scalar type object).
    qualify.update({name: f"_builtins.{name}" for name in ("bool", "int", "float", "complex")})
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
from jax._src.inferred import Array as InferredArray

_ScalarDType = _TypeVar("_ScalarDType", bound=_tpd.DType, covariant=True)


class _ScalarMeta(_np.dtype[_Any], _Generic[_ScalarDType]):
    """A JAX scalar type object (``jnp.float32``): a dtype argument, callable to make an array.

    Named as JAX's class of them (its private ``_ScalarMeta``), a name of the
    stubs only: do not import it.  JAX declares them ``Any``; programs pass
    them where a ``jnp.dtype`` is annotated (``dtype: jnp.dtype =
    jnp.float32``), so the stubs declare them a ``np.dtype`` too.  Private,
    as JAX's is: pyright takes a parameter defaulting to an instance of a
    private class (``def one_hot(x, dtype=jnp.float32)``) to accept anything
    beside it, where a public class would refuse a ``np.dtype`` argument.
    """

    @property
    def dtype(self) -> _np.dtype[_Any]: ...
    def __call__(self, x: _Any = ..., /) -> InferredArray[_ScalarDType]: ...

'''


_INFERRED: Final = '''"""An array of a known dtype where JAX's own types say ``Any``.

A module of the stubs only: JAX has no ``jax._src.inferred``.
"""

from typing_extensions import TypeVar as _TypeVarDefault

from jax._src import basearray as _basearray
from jax._src.basearray import ArrayLike

_DT_co = _TypeVarDefault("_DT_co", bound=_tpd.DType, covariant=True, default=_Any)


class Array(_basearray.Array[_DT_co], _Any):
    """``jnp.float32(x)``, ``jax.jit(f)(x)``: an array of a known dtype where JAX says ``Any``.

    It keeps its dtype for JAX's functions and operators and, deriving from
    ``Any``, is accepted wherever ``Any`` is (``EnvState(time=jnp.int32(0))``
    with ``time: int``), as the ``Any`` JAX gives it is; its operators give
    an ``InferredArray`` too (``x_norm * y_norm`` returned as a ``float``).
    Named ``Array`` so that it reads as one (``Array[float32]``); the mypy
    plugin's ``typing_pkg.typing.InferredArray`` does the same for mypy.
    """
'''


def _inferred(basearray: str, rules: RuleSet) -> str:
    """``jax/_src/inferred.pyi``: ``InferredArray``, whose operators are ``jax.Array``'s
    overloads returning an ``InferredArray`` (in this module, ``Array`` is that class)."""
    tree = ast.parse(basearray)
    methods: dict[str, ast.FunctionDef] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == "Array":
            methods = {s.name: s for s in stmt.body if isinstance(s, ast.FunctionDef)}
    operators = _operators(rules, methods)
    _unannotated_any(operators)
    body = "\n".join("    " + line for s in operators for line in ast.unparse(s).splitlines())
    end = _INFERRED.index('"""\n', 3) + 4  # the module's docstring first, then the imports
    return _INFERRED[:end] + _IMPORTS + _INFERRED[end:] + "\n" + body + "\n"


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

    ``__iter__`` yields what ``x[0]`` gives where the dtype is known, and JAX's ``Any``
    where it is not (brax unpacks a tuple from a function declared ``-> jax.Array``:
    ``com, inertia, mass, x_i = self._com(state)``, then ``x_i.pos``); ``at`` is
    generic in the dtype.
    """
    for stmt in list(body):
        if not isinstance(stmt, ast.FunctionDef) or _name(stmt.returns) not in {"Array", "Any"}:
            continue
        if stmt.name in kept:
            stmt.returns = _expr("Array[_DT_co]")
        elif stmt.name == "__iter__" and "__getitem__" in kept:
            unknown = copy.deepcopy(stmt)
            unknown.decorator_list = [ast.Name("_overload")]
            unknown.args.args[0].annotation = _expr("Array[_tpd.Category]")
            unknown.returns = _expr("_typing.Iterator[_Any]")
            stmt.decorator_list = [ast.Name("_overload")]
            stmt.returns = _expr("_typing.Iterator[Array[_DT_co]]")
            body.insert(body.index(stmt), unknown)
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "at":
            stmt.returns = _expr("_IndexUpdateHelper[_DT_co]")


def _concrete_members(rules: RuleSet, defined: set[str]) -> list[ast.stmt]:
    """What ``jax.Array`` must declare beyond JAX's stub for a subclass to be what JAX's is.

    ``typing_pkg``'s ``Array`` is abstract in members JAX's stub does not
    declare (``__format__``, ``__dlpack_device__``): a class deriving from
    ``jax.Array`` (Flax's ``EArray``, Haiku's ``DotTracer``) would be abstract.
    And JAX's stub leaves ``jax.Array`` hashable (``object``'s ``__hash__``),
    where ``typing_pkg``'s defines ``__eq__`` alone (arrays are unhashable at
    run time): a set of ``str | jax.Array`` checks with JAX's types, and so here.
    """
    cls, qualify = _typing_names(rules)
    others = _Qualify({k: v for k, v in qualify.items() if k != "Array"})
    out: list[ast.stmt] = []
    for stmt in cls.body:
        if (
            isinstance(stmt, ast.FunctionDef)
            and stmt.name not in defined
            and "abstractmethod" in {_name(d) for d in stmt.decorator_list}
        ):
            fn = copy.deepcopy(stmt)
            fn.decorator_list = [d for d in fn.decorator_list if _name(d) != "abstractmethod"]
            out.append(others.visit(fn))
    if "__hash__" not in defined:
        out.append(ast.parse("def __hash__(self) -> int: ...").body[0])
    return out


def _unannotated_any(body: list[ast.stmt]) -> None:
    """``jax.Array``'s parameters JAX leaves unannotated (``__getitem__``'s key) are ``Any``.

    pyright gives an unannotated parameter of an override the annotation of
    the method it overrides: ``typing_pkg``'s ``Array.__getitem__(key: _Key)``
    would refuse the keys JAX's takes (a float, a string).
    """
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef):
            for arg in _all_args(stmt)[1:]:
                if arg.annotation is None:
                    arg.annotation = _expr("_Any")


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
            oracle.typed[function] = "one array"
        else:
            oracle.typed[function] = "index update"


def _basearray(source: str, rules: RuleSet, oracle: _Oracle) -> str:
    tree = ast.parse(source)
    _insert_after_imports(
        tree,
        _IMPORTS
        + "from typing_extensions import TypeVar as _TypeVarDefault\n"
        + '_DT_co = _TypeVarDefault("_DT_co", bound=_tpd.DType, covariant=True, default=_Any)\n',
    )
    module = _Module("Array")
    members: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == "Array":
            stmt.bases = [_expr("_tpt.Array[_DT_co]")]
            methods = {s.name: s for s in stmt.body if isinstance(s, ast.FunctionDef)}
            operators = _operators(rules, methods)
            _unannotated_any(operators)
            replaced = {s.name for s in operators if isinstance(s, ast.FunctionDef)}
            body = [
                s for s in stmt.body if not (isinstance(s, ast.FunctionDef) and s.name in replaced)
            ]
            body = _rewrite_functions(body, "jax.Array.", oracle, module)
            _keep_dtype(body, _kept_members(rules))
            _unannotated_any(body)
            declared = {s.name for s in stmt.body if isinstance(s, ast.FunctionDef)}
            body += _concrete_members(rules, declared)
            for member in body:
                if isinstance(member, ast.FunctionDef) and _name(member.returns).endswith(
                    "[_DT_co]"
                ):
                    oracle.typed[f"jax.Array.{member.name}"] = "one array"
            body, members = _members(body, oracle, module)
            stmt.body = body + operators
        elif isinstance(stmt, ast.ClassDef) and stmt.name in _INDEX_UPDATE:
            _index_update(stmt, oracle)
    _insert_after_imports(tree, module.variables())
    return ast.unparse(tree) + "\n" + _SCALAR_TYPE + "".join(members)


def _members(
    body: list[ast.stmt], oracle: _Oracle, module: _Module
) -> tuple[list[ast.stmt], list[str]]:
    """``jax.Array``'s properties of the table whose dtype is not the array's (``x.real``): a
    descriptor each, whose ``__get__`` has the overloads by the array's dtype.

    A property has no overloads; ``real: _Member_real`` is read through the
    descriptor's ``__get__``, which pyright (and pyrefly) overload by
    ``instance``.  Its last overload is JAX's declaration.
    """
    from typing_pkg.api import table

    entries = table()
    out: list[ast.stmt] = []
    classes: list[str] = []
    for stmt in body:
        function = f"jax.Array.{getattr(stmt, 'name', '')}"
        kind = entries.get(function)
        if not (
            isinstance(stmt, ast.FunctionDef)
            and kind is not None
            and "property" in {_name(d) for d in stmt.decorator_list}
            and _name(stmt.returns) == "Array"
            and _operands(kind, stmt) == ["self"]
        ):
            out.append(stmt)
            continue
        found = _operand_overloads(function, "self", stmt, oracle, module, {})
        if not found:
            out.append(stmt)
            continue
        oracle.typed[function] = "one array"
        name = f"_Member_{stmt.name}"
        owner = "owner: type[_Any] | None = None, /"
        lines = [
            f"class {name}:",
            f'    """``x.{stmt.name}``: by ``x``\'s dtype."""',
            "    @_overload",
            f"    def __get__(self, instance: None, {owner}) -> {name}: ...",
        ]
        for overload in [*found, stmt]:
            this = _all_args(overload)[0].annotation
            instance = _name(this) if this is not None else "Array"
            lines += [
                "    @_overload",
                f"    def __get__(self, instance: {instance}, {owner}) -> "
                f"{_name(overload.returns)}: ...",
            ]
        classes.append("\n\n" + "\n".join(lines) + "\n")
        out.append(ast.AnnAssign(ast.Name(stmt.name), ast.Name(name), None, simple=1))
    return out, classes


def _scalar_objects(tree: ast.Module, oracle: _Oracle) -> None:
    """``float32: Any`` → ``float32: _ScalarMeta[_tpd.float32]`` (the canonical dtype)."""
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
            stmt.annotation = _expr(f"_ScalarMeta[_tpd.{canonical}]")


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
            extra = _overloads(prefix + name, operands, call, oracle, module)
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
        _IMPORTS + "from jax._src.basearray import Array, _ScalarMeta\n" + module.variables(),
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


_REEXPORTS: Final = (
    ("random.py", "jax.random."),
    ("lax/__init__.py", "jax.lax."),
    ("numpy/linalg.py", "jax.numpy.linalg."),
    ("numpy/fft.py", "jax.numpy.fft."),
)
"""JAX's modules that re-export functions of private modules (``.py``, no stub), and the
table's prefix of their functions."""


def _source_functions(tree: ast.Module) -> dict[str, list[ast.FunctionDef]]:
    """A module's declarations of each function: its overloads, else its one definition."""
    found: dict[str, list[ast.FunctionDef]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef):
            found.setdefault(stmt.name, []).append(stmt)
    return {name: [f for f in defs if _overloaded(f)] or defs[-1:] for name, defs in found.items()}


def _overloaded(fn: ast.FunctionDef) -> bool:
    return any(_name(d) in {"overload", "typing.overload", "_overload"} for d in fn.decorator_list)


def _returning_array(fn: ast.FunctionDef) -> ast.FunctionDef:
    """``fn`` declared to return an ``Array`` where JAX's source does not say (``lax.empty``): a
    stub's unannotated result is unknown, where pyright infers one from the source."""
    if fn.returns is None:
        fn.returns = ast.Name("Array")
    return fn


def _jitted_in_source(fn: ast.FunctionDef) -> bool:
    """Whether JAX's source decorates ``fn`` with ``jit`` (``@api.jit(static_argnames=...)``,
    ``@partial(jit, ...)``): JAX's types then say ``JitWrapped``, called with anything."""
    return any(_JIT_WORD.search(ast.unparse(d)) for d in fn.decorator_list)


_JIT_WORD: Final = re.compile(r"\bjit\b")


def _as_jitted(overloads: list[ast.stmt]) -> None:
    """The overloads of a function JAX jits, accepting what JAX's ``JitWrapped`` accepts.

    JAX's own types hide the source's signature (``norm(x, ord: int | str |
    None)`` is called with ``ord=jnp.inf``) and answer what ``JitWrapped``'s
    unannotated ``__call__`` does, pyright's ``Unknown``: a parameter that
    chooses no overload (declared alike in every overload: ``ord``,
    ``axis``) takes anything; the arrays of a known dtype returned are
    ``InferredArray`` arrays (accepted wherever ``Any`` is: ``return
    jnp.linalg.norm(x)`` from a function declared ``-> float``); an array of
    unknown dtype is ``Unknown`` as in JAX's types (``vdot(x, y) / norm(x)``
    is then unknown, not an ``Array`` refused as a ``float``; an explicit
    ``Any`` would differ: pyright narrows a declared ``Optional`` variable
    assigned ``Any | Array`` to the declaration, ``None`` included).  The
    parameters that choose an overload (the arrays, the dtype, the Python
    scalars) keep their types; JAX's own declaration, last, takes anything
    and answers ``Unknown`` (``norm(pair)`` of a union JAX's ``ArrayLike``
    does not hold).
    """
    functions = [s for s in overloads if isinstance(s, ast.FunctionDef)]
    declared: dict[str, set[str]] = {}
    for fn in functions:
        for arg in [*_all_args(fn), fn.args.vararg, fn.args.kwarg]:
            if arg is not None:
                text = "" if arg.annotation is None else ast.unparse(arg.annotation)
                declared.setdefault(arg.arg, set()).add(text)
    alike = {name for name, texts in declared.items() if len(texts) == 1}
    for index, fn in enumerate(functions):
        last = index == len(functions) - 1  # JAX's declaration: JitWrapped takes anything
        for arg in [*_all_args(fn), fn.args.vararg, fn.args.kwarg]:
            if arg is not None and (last or arg.arg in alike):
                arg.annotation = _expr("_Any")
        if last or (fn.returns is not None and ast.unparse(fn.returns) == "Array[_Any]"):
            fn.returns = None  # JitWrapped.__call__ is unannotated: pyright's Unknown
        elif fn.returns is not None:
            fn.returns = _InferredResult().visit(fn.returns)


class _InferredResult(ast.NodeTransformer):
    """``Array[X]`` in a result → ``InferredArray[X]`` (``jax._src.inferred.Array``)."""

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return ast.Name("InferredArray") if node.id == "Array" else node


def _reexports(root: Path, rel: str, prefix: str, oracle: _Oracle) -> str:
    """``jax/<rel>.pyi`` (``jax/random.pyi``…): JAX's re-exports, then the functions of the
    table with overloads.

    The module re-exports functions of private modules; each function of the
    table is declared again (the last declaration wins) from its source's
    declarations (its overloads if it has some), its annotations qualified by
    the private module (an ``Array`` result where the source has no
    annotation), when the table gives it overloads.  A stub replaces
    the module, so it keeps every import of it (nothing else in these modules
    is public).
    """
    public = ast.parse((root / rel).read_text(encoding="utf-8"))
    keep: list[ast.stmt] = []
    body: list[ast.stmt] = []
    aliases: dict[str, str] = {}  # private module → its alias in the stub
    sources = _Sources(root)
    module = _Module("Array")
    for stmt in public.body:
        if not isinstance(stmt, ast.Import | ast.ImportFrom):
            continue
        keep.append(stmt)
        if not (isinstance(stmt, ast.ImportFrom) and (stmt.module or "").startswith("jax._src")):
            continue
        for imported in stmt.names:
            if (imported.asname or imported.name) != imported.name:
                continue
            found = sources.declarations(stmt.module or "", imported.name)
            if found is None:
                continue
            where, fns = found
            alias = aliases.get(where, f"_src{len(aliases)}")
            qualify = _Qualify({name: f"{alias}.{name}" for name in sources.names(where)})
            module.type_variables |= {f"{alias}.{t}" for t in sources.type_variables(where)}
            stubs: list[ast.stmt] = [_returning_array(_declaration(fn, qualify, [])) for fn in fns]
            rewritten = _rewrite_functions(stubs, prefix, oracle, module)
            if len(rewritten) > len(stubs):
                aliases[where] = alias
                if any(_jitted_in_source(fn) for fn in fns):
                    _as_jitted(rewritten)
                body.extend(rewritten)
    tree = ast.Module(body=[*keep, *body], type_ignores=[])
    _insert_after_imports(
        tree,
        _IMPORTS
        + "".join(f"import {where} as {alias}\n" for where, alias in aliases.items())
        + "from jax._src.basearray import Array, _ScalarMeta\n"
        + "from jax._src.inferred import Array as InferredArray\n"
        + module.variables(),
    )
    return ast.unparse(tree) + "\n"


@dataclass
class _Sources:
    """JAX's private modules, read once: where a function is declared, following re-exports
    (``jax._src.lax.control_flow`` re-exports ``cumsum`` from its ``loops``)."""

    root: Path
    trees: dict[str, ast.Module | None] = field(default_factory=dict)

    def tree(self, module: str) -> ast.Module | None:
        if module not in self.trees:
            path = _source_module(self.root, module)
            self.trees[module] = (
                ast.parse(path.read_text(encoding="utf-8")) if path.is_file() else None
            )
        return self.trees[module]

    def names(self, module: str) -> set[str]:
        tree = self.tree(module)
        return _module_names(tree)[0] if tree is not None else set()

    def type_variables(self, module: str) -> set[str]:
        """The names ``module`` binds to a ``TypeVar(...)`` (``T = TypeVar("T")``)."""
        tree = self.tree(module)
        return {
            target.id
            for stmt in (tree.body if tree is not None else [])
            if isinstance(stmt, ast.Assign)
            and isinstance(stmt.value, ast.Call)
            and _name(stmt.value.func) in {"TypeVar", "typing.TypeVar"}
            for target in stmt.targets
            if isinstance(target, ast.Name)
        }

    def declarations(
        self, module: str, name: str, depth: int = 3
    ) -> tuple[str, list[ast.FunctionDef]] | None:
        """The module declaring function ``name`` imported from ``module``, and its declarations."""
        tree = self.tree(module)
        if tree is None or depth == 0:
            return None
        functions = _source_functions(tree)
        if name in functions:
            return module, functions[name]
        package = module if _source_module(self.root, module).name == "__init__.py" else ""
        package = package or module.rpartition(".")[0]
        for stmt in tree.body:
            if not isinstance(stmt, ast.ImportFrom):
                continue
            if not any((a.asname or a.name) == name == a.name for a in stmt.names):
                continue
            base = package.split(".")[: len(package.split(".")) - max(stmt.level - 1, 0)]
            source = ".".join([*base, stmt.module or ""]) if stmt.level else stmt.module or ""
            return self.declarations(source.strip("."), name, depth - 1)
        return None


_TRANSFORMS: Final = '''
_R_co = _TypeVar("_R_co", covariant=True)
_DT = _TypeVar("_DT", bound=_tpd.DType)


class _Jitted(_pjit.JitWrapped, _Generic[_R_co]):
    """``jax.jit(f)``: JAX's wrapper, called with anything (as JAX declares it).

    Its result is ``f``'s array with its dtype, an ``InferredArray`` accepted
    wherever JAX's ``Any`` is (for anything else, ``jit`` gives JAX's own
    ``JitWrapped``): JAX hides ``f``'s signature,
    and showing it refuses what JAX accepts (a method jitted in a base class
    and overridden with other parameters, a result declared as one class and
    used as another).
    """

    def __call__(self, *args: _Any, **kwargs: _Any) -> _R_co: ...
    def __get__(self, instance: object, owner: type[_Any] | None = None, /) -> _Jitted[_R_co]: ...


class _JitDecorator:
    """``jax.jit(static_argnums=...)``: the decorator, as ``jax.jit(f, ...)`` types ``f``."""

    @_overload
    def __call__(
        self, fun: _typing.Callable[..., _tpt.Array[_tpd.Category]], /
    ) -> _pjit.JitWrapped: ...
    @_overload
    def __call__(
        self, fun: _typing.Callable[..., _tpt.Array[_DT]], /
    ) -> _Jitted[_InferredArray[_DT]]: ...
    @_overload
    def __call__(self, fun: _typing.Callable[..., _Any], /) -> _pjit.JitWrapped: ...
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
    """``jit`` keeping the dtype of the function's array result (``vmap`` keeps more, in JAX's
    annotations).

    ``jax.jit(f)`` is a ``JitWrapped`` called with anything, as JAX declares
    it, whose result is ``f``'s array as an ``InferredArray`` (accepted
    wherever JAX's ``Any`` is; ``_Jitted``) when its dtype is known, else
    JAX's own ``JitWrapped`` (called, pyright's ``Unknown``); JAX's own
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
        unknown, array, other, bare = (_transform(f, qualify) for f in (jit[0], jit[0], *jit))
        unknown.args.posonlyargs[0].annotation = _expr(
            "_typing.Callable[..., _tpt.Array[_tpd.Category]]"
        )
        unknown.returns = _expr("_pjit.JitWrapped")
        array.args.posonlyargs[0].annotation = _expr("_typing.Callable[..., _tpt.Array[_DT]]")
        array.returns = _expr("_Jitted[_InferredArray[_DT]]")
        other.args.posonlyargs[0].annotation = _expr("_typing.Callable[..., _Any]")
        other.returns = _expr("_pjit.JitWrapped")
        bare.returns = _expr("_JitDecorator")
        out["jit"] = [unknown, array, other, bare, *(_transform(f, qualify) for f in jit)]
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
        "TypeVar as _TypeVar, overload as _overload\n"
        "import typing as _typing\nimport jax._src.api as _api\nimport jax._src.pjit as _pjit\n"
        "import typing_pkg.dtypes as _tpd\nimport typing_pkg.typing as _tpt\n"
        "from jax._src.inferred import Array as _InferredArray\n" + _TRANSFORMS,
    )
    return ast.unparse(tree) + "\n"


@cache
def _generate(rules_name: str, root: str) -> tuple[dict[str, str], dict[str, str]]:
    """The files, and how each function of the table is typed."""
    from typing_pkg.api import table

    rules = get_rules(rules_name)
    base = Path(root)
    oracle = _Oracle(rules)
    header = _header(rules, jax_version(base))

    def read(rel: str) -> str:
        path = base / rel
        if not path.is_file():
            raise ValueError(
                f"JAX {jax_version(base)} has no {rel}: the JAX stubs are made from JAX's own "
                f"stubs, as JAX {TESTED_JAX} lays them out"
            )
        return path.read_text(encoding="utf-8")

    files = {
        "_src/basearray.pyi": _basearray(read("_src/basearray.pyi"), rules, oracle),
        "_src/inferred.pyi": _inferred(read("_src/basearray.pyi"), rules),
        "numpy/__init__.pyi": _functions_module(
            read("numpy/__init__.pyi"), "jax.numpy.", oracle, scalars=True
        ),
        "nn/__init__.pyi": _functions_module(read("nn/__init__.pyi"), "jax.nn.", oracle),
        **{
            rel.removesuffix(".py") + ".pyi": _reexports(base, rel, prefix, oracle)
            for rel, prefix in _REEXPORTS
        },
        "__init__.pyi": _jax_init(base),
    }
    out = {rel: header + text for rel, text in files.items()}
    out["py.typed"] = "partial\n"
    typed = {name: oracle.typed.get(name, "not declared") for name in table()}
    return out, typed


def _rules_name(rules: str | RuleSet) -> str:
    name = rules if isinstance(rules, str) else rules.name
    if not name.startswith("jax"):
        raise ValueError(f"the JAX stubs need a JAX rule set (jax, jax-x64, …), not {name!r}")
    return name


def generate(rules: str | RuleSet = DEFAULT, root: Path | None = None) -> dict[str, str]:
    """Return the files of ``jax-stubs`` (path relative to the package → text)."""
    return dict(_generate(_rules_name(rules), str(root or jax_dir()))[0])


def coverage(rules: str | RuleSet = DEFAULT, root: Path | None = None) -> dict[str, str]:
    """Return how the stubs type each function of the table: a key of :data:`COVERAGE`."""
    return dict(_generate(_rules_name(rules), str(root or jax_dir()))[1])


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
