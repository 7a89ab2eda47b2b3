"""``jax.Array`` and its module in the stubs: the operators, the members, ``InferredArray``."""

from __future__ import annotations

import ast
import copy
from collections.abc import Mapping
from typing import Final

from typing_pkg.rules import RuleSet
from typing_pkg.stubgen.jax.functions import rewrite_functions
from typing_pkg.stubgen.jax.oracle import Oracle, operand_params, probe
from typing_pkg.stubgen.jax.overloads import operand_overloads
from typing_pkg.stubgen.jax.source_edit import (
    Qualify,
    SourceModule,
    all_args,
    decorate,
    insert_after_imports,
    name_of,
    parse_expr,
    typing_names,
)

IMPORTS: Final = (
    "from typing import Any as _Any, Generic as _Generic, Literal as _Literal, "
    "TypeVar as _TypeVar, overload as _overload\n"
    "import builtins as _builtins\n"
    "import typing as _typing\n"
    "import typing_pkg.typing as _tpt\n"
    "import numpy as _np\n"
    "import typing_pkg.dtypes as _tpd\n"
    '_Requested = _TypeVar("_Requested", bound=_tpd.DType)\n'
)


def _operators(rules: RuleSet, jax_methods: Mapping[str, ast.FunctionDef]) -> list[ast.stmt]:
    """``typing_pkg``'s operator overloads for ``jax.Array``: results are JAX arrays."""
    cls, qualify = typing_names(rules)
    plain: set[str] = set()
    for stmt in cls.body:
        if isinstance(stmt, ast.If) and name_of(stmt.test) == "MYPY":
            plain |= {s.name for s in stmt.body if isinstance(s, ast.FunctionDef)}
    plain.discard("astype")
    params = Qualify({**qualify, "Array": "_tpt.Array"})
    others = Qualify({k: v for k, v in qualify.items() if k != "Array"})
    out: list[ast.stmt] = []
    names: list[str] = []
    for stmt in cls.body:
        if not isinstance(stmt, ast.FunctionDef) or stmt.name not in plain:
            continue
        fn = copy.deepcopy(stmt)
        fn.decorator_list = [ast.Name("_overload")]
        for index, arg in enumerate(all_args(fn)):
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
            result.append(decorate(jax_methods[name]))
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


def inferred(basearray: str, rules: RuleSet) -> str:
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
    return _INFERRED[:end] + IMPORTS + _INFERRED[end:] + "\n" + body + "\n"


_INDEX_UPDATE: Final = frozenset({"_IndexUpdateHelper", "_IndexUpdateRef"})


def _kept_members(rules: RuleSet) -> set[str]:
    """The members of ``typing_pkg``'s ``Array`` that return ``Array[_DT_co]`` (keep the dtype)."""
    cls, _ = typing_names(rules)
    return {
        s.name
        for s in cls.body
        if isinstance(s, ast.FunctionDef) and name_of(s.returns) == "Array[_DT_co]"
    }


def _keep_dtype(body: list[ast.stmt], kept: set[str]) -> None:
    """``jax.Array``'s own members that keep the dtype say so (``x[i]``, ``x.T``, ``.at``).

    ``__iter__`` yields what ``x[0]`` gives where the dtype is known, and JAX's ``Any``
    where it is not (brax unpacks a tuple from a function declared ``-> jax.Array``:
    ``com, inertia, mass, x_i = self._com(state)``, then ``x_i.pos``); ``at`` is
    generic in the dtype.
    """
    for stmt in list(body):
        if not isinstance(stmt, ast.FunctionDef) or name_of(stmt.returns) not in {"Array", "Any"}:
            continue
        if stmt.name in kept:
            stmt.returns = parse_expr("Array[_DT_co]")
        elif stmt.name == "__iter__" and "__getitem__" in kept:
            unknown = copy.deepcopy(stmt)
            unknown.decorator_list = [ast.Name("_overload")]
            unknown.args.args[0].annotation = parse_expr("Array[_tpd.Category]")
            unknown.returns = parse_expr("_typing.Iterator[_Any]")
            stmt.decorator_list = [ast.Name("_overload")]
            stmt.returns = parse_expr("_typing.Iterator[Array[_DT_co]]")
            body.insert(body.index(stmt), unknown)
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "at":
            stmt.returns = parse_expr("_IndexUpdateHelper[_DT_co]")


def _concrete_members(rules: RuleSet, defined: set[str]) -> list[ast.stmt]:
    """What ``jax.Array`` must declare beyond JAX's stub for a subclass to be what JAX's is.

    ``typing_pkg``'s ``Array`` is abstract in members JAX's stub does not
    declare (``__format__``, ``__dlpack_device__``): a class deriving from
    ``jax.Array`` (Flax's ``EArray``, Haiku's ``DotTracer``) would be abstract.
    And JAX's stub leaves ``jax.Array`` hashable (``object``'s ``__hash__``),
    where ``typing_pkg``'s defines ``__eq__`` alone (arrays are unhashable at
    run time): a set of ``str | jax.Array`` checks with JAX's types, and so here.
    """
    cls, qualify = typing_names(rules)
    others = Qualify({k: v for k, v in qualify.items() if k != "Array"})
    out: list[ast.stmt] = []
    for stmt in cls.body:
        if (
            isinstance(stmt, ast.FunctionDef)
            and stmt.name not in defined
            and "abstractmethod" in {name_of(d) for d in stmt.decorator_list}
        ):
            fn = copy.deepcopy(stmt)
            fn.decorator_list = [d for d in fn.decorator_list if name_of(d) != "abstractmethod"]
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
            for arg in all_args(stmt)[1:]:
                if arg.annotation is None:
                    arg.annotation = parse_expr("_Any")


def _index_update(cls: ast.ClassDef, oracle: Oracle) -> None:
    """``x.at[i]``: generic in ``x``'s dtype; the methods that keep it return ``Array[_DT_co]``."""
    from typing_pkg.api import table

    entries = table()
    cls.bases = [*cls.bases, parse_expr("_Generic[_DT_co]")]
    for stmt in cls.body:
        if not isinstance(stmt, ast.FunctionDef):
            continue
        if stmt.name == "__getitem__":
            stmt.returns = parse_expr("_IndexUpdateRef[_DT_co]")
            continue
        function = f"jax.Array.at.{stmt.name}"
        kind = entries.get(function)
        if kind is None or name_of(stmt.returns) != "Array":
            continue
        first = kind.params[0].name
        if all(oracle.call(function, probe(kind, {first: t})) == t for t in oracle.rules.types):
            stmt.returns = parse_expr("Array[_DT_co]")
            oracle.typed[function] = "one array"
        else:
            oracle.typed[function] = "index update"


def basearray_module(source: str, rules: RuleSet, oracle: Oracle) -> str:
    tree = ast.parse(source)
    insert_after_imports(
        tree,
        IMPORTS
        + "from typing_extensions import TypeVar as _TypeVarDefault\n"
        + '_DT_co = _TypeVarDefault("_DT_co", bound=_tpd.DType, covariant=True, default=_Any)\n',
    )
    module = SourceModule("Array")
    members: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == "Array":
            stmt.bases = [parse_expr("_tpt.Array[_DT_co]")]
            methods = {s.name: s for s in stmt.body if isinstance(s, ast.FunctionDef)}
            operators = _operators(rules, methods)
            _unannotated_any(operators)
            replaced = {s.name for s in operators if isinstance(s, ast.FunctionDef)}
            body = [
                s for s in stmt.body if not (isinstance(s, ast.FunctionDef) and s.name in replaced)
            ]
            body = rewrite_functions(body, "jax.Array.", oracle, module)
            _keep_dtype(body, _kept_members(rules))
            _unannotated_any(body)
            declared = {s.name for s in stmt.body if isinstance(s, ast.FunctionDef)}
            body += _concrete_members(rules, declared)
            for member in body:
                if isinstance(member, ast.FunctionDef) and name_of(member.returns).endswith(
                    "[_DT_co]"
                ):
                    oracle.typed[f"jax.Array.{member.name}"] = "one array"
            body, members = _members(body, oracle, module)
            stmt.body = body + operators
        elif isinstance(stmt, ast.ClassDef) and stmt.name in _INDEX_UPDATE:
            _index_update(stmt, oracle)
    insert_after_imports(tree, module.variables())
    return ast.unparse(tree) + "\n" + _SCALAR_TYPE + "".join(members)


def _members(
    body: list[ast.stmt], oracle: Oracle, module: SourceModule
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
            and "property" in {name_of(d) for d in stmt.decorator_list}
            and name_of(stmt.returns) == "Array"
            and operand_params(kind, stmt) == ["self"]
        ):
            out.append(stmt)
            continue
        found = operand_overloads(function, "self", stmt, oracle, module, {})
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
            this = all_args(overload)[0].annotation
            instance = name_of(this) if this is not None else "Array"
            lines += [
                "    @_overload",
                f"    def __get__(self, instance: {instance}, {owner}) -> "
                f"{name_of(overload.returns)}: ...",
            ]
        classes.append("\n\n" + "\n".join(lines) + "\n")
        out.append(ast.AnnAssign(ast.Name(stmt.name), ast.Name(name), None, simple=1))
    return out, classes
