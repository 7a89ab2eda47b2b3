"""``jax.jit`` and the other transformations: the decorators that keep a function's type."""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from typing_pkg.stubgen.jax.source_edit import (
    Defaults,
    Qualify,
    all_args,
    insert_after_imports,
    module_names,
    name_of,
    parse_expr,
)

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


def _transform(fn: ast.FunctionDef, qualify: Qualify) -> ast.FunctionDef:
    """JAX's declaration of a transformation, its annotations qualified by ``jax._src.api``."""
    return declaration(fn, qualify, [ast.Name("_overload")])


def declaration(
    fn: ast.FunctionDef, qualify: Qualify, decorators: list[ast.expr]
) -> ast.FunctionDef:
    """A stub of JAX's function ``fn``: its body ``...``, its annotations qualified."""
    stub = copy.deepcopy(fn)
    stub.decorator_list = decorators
    stub.body = [ast.Expr(ast.Constant(...))]
    Defaults().visit(stub)
    for arg in [*all_args(stub), stub.args.vararg, stub.args.kwarg]:
        if arg is not None and arg.annotation is not None:
            arg.annotation = qualify.visit(arg.annotation)
    if stub.returns is not None:
        stub.returns = qualify.visit(stub.returns)
    return stub


def _transforms(api: ast.Module, qualify: Qualify) -> dict[str, list[ast.FunctionDef]]:
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
    jit = [f for f in found.get("jit", []) if "overload" in {name_of(d) for d in f.decorator_list}]
    if len(jit) == 2:
        unknown, array, other, bare = (_transform(f, qualify) for f in (jit[0], jit[0], *jit))
        unknown.args.posonlyargs[0].annotation = parse_expr(
            "_typing.Callable[..., _tpt.Array[_tpd.Category]]"
        )
        unknown.returns = parse_expr("_pjit.JitWrapped")
        array.args.posonlyargs[0].annotation = parse_expr("_typing.Callable[..., _tpt.Array[_DT]]")
        array.returns = parse_expr("_Jitted[_InferredArray[_DT]]")
        other.args.posonlyargs[0].annotation = parse_expr("_typing.Callable[..., _Any]")
        other.returns = parse_expr("_pjit.JitWrapped")
        bare.returns = parse_expr("_JitDecorator")
        out["jit"] = [unknown, array, other, bare, *(_transform(f, qualify) for f in jit)]
    return out


def jax_init(root: Path) -> str:
    """``jax/__init__.pyi``: ``jax/__init__.py``'s imports, with typed transformations.

    A stub for the package's ``__init__`` hides the module, so it carries every
    import of it (the names it re-exports) and its assignments; what JAX
    deletes after use stays (a stub may say more than the module).
    """
    public = ast.parse((root / "__init__.py").read_text(encoding="utf-8"))
    api = ast.parse((root / "_src" / "api.py").read_text(encoding="utf-8"))
    defined, _ = module_names(api)
    transforms = _transforms(api, Qualify({name: f"_api.{name}" for name in defined}))
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
    insert_after_imports(
        tree,
        "from typing import Any as _Any, Generic as _Generic, Literal as _Literal, "
        "TypeVar as _TypeVar, overload as _overload\n"
        "import typing as _typing\nimport jax._src.api as _api\nimport jax._src.pjit as _pjit\n"
        "import typing_pkg.dtypes as _tpd\nimport typing_pkg.typing as _tpt\n"
        "from jax._src.inferred import Array as _InferredArray\n" + _TRANSFORMS,
    )
    return ast.unparse(tree) + "\n"
