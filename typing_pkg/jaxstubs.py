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
``jax/_src/basearray.pyi``) plus ``jax/random.pyi``.  A plain ``typings/jax/``
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
  accepted (with an ``Array`` of unknown dtype).  Functions with several
  array parameters whose dtypes matter keep JAX's signature, except where
  their result does not depend on them.
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

__all__ = ["PACKAGE", "generate", "jax_dir", "write"]

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
    return out


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
        return []
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


def _basearray(source: str, rules: RuleSet, oracle: _Oracle) -> str:
    tree = ast.parse(source)
    _insert_after_imports(
        tree,
        _IMPORTS
        + "import typing as _typing\nimport typing_pkg.typing as _tpt\n"
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
            stmt.body = body + operators
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


def _functions_module(source: str, prefix: str, oracle: _Oracle, scalars: bool = False) -> str:
    tree = ast.parse(source)
    module = _Module("Array")
    if scalars:
        _scalar_objects(tree, oracle)
    tree.body = _rewrite_functions(tree.body, prefix, oracle, module)
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
            stub = copy.deepcopy(fn)
            stub.decorator_list = []
            stub.body = [ast.Expr(ast.Constant(...))]
            _Defaults().visit(stub)
            for arg in [*_all_args(stub), stub.args.vararg, stub.args.kwarg]:
                if arg is not None and arg.annotation is not None:
                    arg.annotation = qualify.visit(arg.annotation)
            if stub.returns is not None:
                stub.returns = qualify.visit(stub.returns)
            rewritten = _rewrite_functions([stub], "jax.random.", oracle, module)
            if len(rewritten) > 1:
                body.extend(rewritten)
    tree = ast.Module(body=[*keep, *body], type_ignores=[])
    _insert_after_imports(
        tree,
        _IMPORTS + "".join(aliases) + "from jax._src.basearray import Array\n" + module.variables(),
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
