"""One array type, two faces: ``jax.Array`` is typing_pkg's ``Array`` of unknown dtype.

Semantic-analysis hooks make the identification, so that a JAX user
needs no annotation change:

* **Type analysis** (``analyze_jax_array``): every reference to
  ``jax.Array`` (``jax._src.basearray.Array``) in a type — the user's
  annotations and JAX's own stubs alike (parameters, returns, ``ArrayLike``) —
  is analysed as ``typing_pkg.typing.Array[Any]``.  An array of unknown dtype
  is accepted where an ``Array[float32]`` is expected (gradual typing), and an
  ``Array[float32]`` is accepted by every JAX function.
* **Members** (none here): ``typing_pkg.typing.Array`` declares JAX's
  members itself for type checkers (``.at[...]``, ``.block_until_ready()``,
  ``.sharding``, ``.sum()``, ``.reshape()``: "JAX's members" in
  ``typing_pkg/typing.py``, checked against JAX's stub by
  ``tests/stubs/test_array_members.py``), rather than deriving from JAX's
  class, and the plugin types their results from the API table.
* **Narrowing** (``isinstance_callback``): ``isinstance(x, jax.Array)`` (and
  ``jnp.ndarray``) narrows ``x`` to ``Array[Any]``, as an annotation
  ``jax.Array`` reads, not to JAX's own class.
* **Dependencies** (``additional_deps``): JAX's modules depend on
  ``typing_pkg.typing``, analysed before them so that their references to
  ``jax.Array`` find our class; ``typing_pkg.typing`` depends on nothing of
  JAX's, so a program that does not import JAX never has mypy load JAX's
  ~450 modules (``benchmarks/bench_cold_no_jax.py``), and ``Array`` is the
  same class, cached once, whether the program uses JAX or not.

One more hook follows the configured rule set (part of each module's cache
key through ``report_config_data``):

* **Weak types realise** (``customize_weak_mro``): under JAX's rules a weakly
  typed result is an array of the default dtype of its kind (``float32`` with
  x64 off, ``float64`` with it on): ``weak_float`` gets that dtype as its
  base, so ``Array[weak_float]`` is accepted where ``Array[float32]`` is
  expected.  A rule set without weak dtypes leaves the markers alone.

Each hook defers (``api.defer()``) while a class it needs is not analysed
yet, and on mypy's final iteration keeps mypy's own answer (JAX's class,
``Any``) rather than guessing.  Without JAX nothing changes.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from functools import cache
from typing import Final

from mypy.nodes import (
    AssignmentStmt,
    MemberExpr,
    MypyFile,
    NameExpr,
    OpExpr,
    Statement,
    SymbolTableNode,
    TypeInfo,
)
from mypy.plugin import (
    AnalyzeTypeContext,
    CheckerPluginInterface,
    ClassDefContext,
    FunctionContext,
)
from mypy.types import (
    AnyType,
    FunctionLike,
    Instance,
    TupleType,
    Type,
    TypeOfAny,
    get_proper_type,
)

from mypy_plugin import mypy_internals as internals
from mypy_plugin import names

__all__ = [
    "additional_deps",
    "analyze_jax_array",
    "customize_dtype_meta",
    "customize_weak_mro",
    "isinstance_callback",
    "jax_installed",
    "promote_foreign_arrays",
    "scalar_type_markers",
]

_PRIORITY: Final = 10
"""mypy's ``PRI_MED``: an ordinary import."""


@cache
def jax_installed() -> bool:
    """Whether JAX can be imported (found, not imported) by the Python running mypy."""
    return importlib.util.find_spec("jax") is not None


def is_jax_module(module: str) -> bool:
    """Whether ``module`` is ``jax`` or one of its submodules."""
    return module == "jax" or module.startswith("jax.")


def additional_deps(file: MypyFile) -> list[tuple[int, str, int]]:
    """JAX's modules depend on ``typing_pkg.typing`` (see the module docs)."""
    if is_jax_module(file.fullname) and jax_installed():
        return [(_PRIORITY, names.TYPING_MODULE, -1)]
    return []


def _ready(node: SymbolTableNode | None) -> TypeInfo | None:
    """Return the class a lookup found, if it is analysed (not a placeholder)."""
    if node is not None and isinstance(node.node, TypeInfo) and node.node.mro:
        return node.node
    return None


def analyze_jax_array(ctx: AnalyzeTypeContext) -> Type:
    """Analyse a reference to ``jax.Array`` as ``typing_pkg.typing.Array[Any]``.

    The whole target of an alias (``Array = jax.Array``) is the class without
    arguments, as ``A = list`` is: mypy gives it ``Any`` and marks the alias
    usable in ``isinstance`` (mypy 1.x tells that by the target's arguments:
    ``Array[Any]`` there was "Parameterized generics cannot be used with class
    or instance checks", on kfac-jax).
    """
    analysis = internals.analysis_of(ctx.api)
    if analysis is None:
        return AnyType(TypeOfAny.special_form)  # pragma: no cover - mypy always passes these
    api, defining_alias, statement = analysis
    node = api.lookup_fully_qualified_or_none(names.ARRAY)
    if node is not None and isinstance(node.node, TypeInfo):
        if defining_alias and _is_alias_of_a_name(statement):
            return Instance(node.node, [], line=ctx.type.line)
        return Instance(node.node, [AnyType(TypeOfAny.special_form)], line=ctx.type.line)
    if not api.final_iteration:
        api.defer()  # typing_pkg.typing is in the same import cycle: not analysed yet
        return AnyType(TypeOfAny.special_form)
    # typing_pkg is not in the build (not installed where mypy looks): JAX's own class.
    jax_array = api.lookup_fully_qualified_or_none(names.JAX_ARRAY)
    if jax_array is not None and isinstance(jax_array.node, TypeInfo):
        return Instance(jax_array.node, [], line=ctx.type.line)
    return AnyType(TypeOfAny.from_error)  # pragma: no cover - the class being referred to


def _is_alias_of_a_name(statement: Statement | None) -> bool:
    """Whether ``statement`` is ``A = name`` or ``A = module.name`` (no subscript, no union)."""
    return isinstance(statement, AssignmentStmt) and isinstance(
        statement.rvalue, (NameExpr, MemberExpr)
    )


def jax_array_subclass(ctx: ClassDefContext) -> None:
    """A class deriving from ``jax.Array`` derives from JAX's class, as it says.

    ``jax.Array`` in an annotation is our ``Array[Any]``, and so is it read as
    a base class (``class EArray(jax.Array)``, Flax's fp8 arrays; JAX's own
    ``core.Tracer``, whose base is an alias of it, and Haiku's ``DotTracer``
    deriving from that).  Such a class gets JAX's class back, whose methods are
    not abstract: instantiating it checks as it did without the plugin.
    ``Array`` written as a base in ``typing_pkg`` itself is left alone.
    """
    info = ctx.cls.info
    for base in info.bases:  # asked for every class of the build: a plain loop
        if base.type.fullname == names.ARRAY:
            break
    else:
        return
    if info.fullname.startswith("typing_pkg."):
        return
    jax_array = _ready(ctx.api.lookup_fully_qualified_or_none(names.JAX_ARRAY))
    if jax_array is None:
        return
    ours = next(base.type for base in info.bases if base.type.fullname == names.ARRAY)
    bases = [
        Instance(jax_array, []) if base.type.fullname == names.ARRAY else base
        for base in info.bases
    ]
    internals.rebase(info, bases)
    # Accepted where ``jax.Array`` (ours) is annotated, as without the plugin: the class
    # promotes to ``Array[Any]`` (JAX's class itself cannot: see promote_foreign_arrays).
    _promote_to_array(info, ours)


def customize_inferred_array(ctx: ClassDefContext) -> None:
    """``InferredArray``: ``Any`` as fallback (see ``customize_dtype_meta``)."""
    ctx.cls.info.fallback_to_any = True


def customize_weak_mro(weak_dtypes: Mapping[str, str], ctx: ClassDefContext) -> None:
    """Make a weak marker a subclass of the dtype it realises as (``weak_float``: ``float32``).

    The realised dtype subclasses the weak marker's category (``floating``),
    so it replaces that base: the categories stay ancestors.
    """
    realised = weak_dtypes.get(ctx.cls.name)
    if realised is None:
        return
    api = ctx.api
    node = api.lookup_fully_qualified_or_none(f"{names.DTYPES_MODULE}.{realised}")
    target = _ready(node)
    if target is None:
        if node is not None and not api.final_iteration:
            api.defer()
        return
    info = ctx.cls.info
    if any(base.type is target for base in info.bases):
        return
    internals.rebase(info, [Instance(target, [])])


def promote_foreign_arrays(array: TypeInfo, foreign: list[TypeInfo]) -> None:
    """Let NumPy's ``ndarray`` stand where an ``Array[DT]`` is expected (an unknown dtype).

    A NumPy array (a data loader's result passed to a parameter annotated
    ``jnp.ndarray``, which JAX converts) is accepted as an ``Array[Any]`` is.
    mypy's promotions (``int`` to ``float``) are the mechanism: the class
    promotes to ``Array[Any]``.  Set on the classes of the build being
    checked (a daemon's next build has new ones), after NumPy's modules are
    written to the cache: a cached module reads the same either way.
    ``jax.Array`` cannot promote so: ``Array`` is its subclass, and mypy
    would follow the promotion from ``Array``'s own bases for ever.
    """
    for info in foreign:
        _promote_to_array(info, array)


def _promote_to_array(info: TypeInfo, array: TypeInfo) -> None:
    """Let ``info``'s instances stand where ``Array[Any]`` is expected (once)."""
    internals.promote(info, Instance(array, [AnyType(TypeOfAny.special_form)]))


def customize_dtype_meta(ctx: ClassDefContext) -> None:
    """Let a marker's class object go wherever JAX's ``jnp.float32`` goes (``Any`` to JAX).

    JAX types ``jnp.float32`` as ``Any``, and its users pass it where they
    annotated ``jnp.dtype``, ``DTypeLike`` or ``type``.  The plugin types it
    ``type[float32]`` to know the dtype it names, and a class object of a
    marker is, like ``Any``, accepted by any parameter (mypy asks the
    metaclass, ``DTypeMeta``, for a class object's other supertypes).
    ``type[float32]`` against ``type[int8]`` still compares the markers.

    ``InferredArray`` falls back to ``Any`` the same way: the type of values
    that mypy alone types ``Any`` (``customize_inferred_array``).
    """
    ctx.cls.info.fallback_to_any = True


# ------------------------------------------------------- jax.numpy's dtype names


def scalar_type_markers(table_names: Mapping[str, bool]) -> dict[str, str]:
    """Return ``{name: marker}`` for the dtype names ``jax.numpy`` declares.

    ``table_names`` maps each public ``jax.numpy`` name to whether the
    function table lists it as "not an array" (dtypes, categories, constants,
    utilities); those that name a dtype (``float32``, ``bfloat16``, ``int_``,
    ``floating``: ``typing_pkg.dtypelike.marker_named``) are dtype names.  NumPy
    is not asked (importing it cost every cold run some 0.2 s): the constant
    ``e`` is no dtype, whatever NumPy's code for float16.
    """
    from typing_pkg.dtypelike import marker_named

    found: dict[str, str] = {}
    for name, not_array in table_names.items():
        if not not_array or not name.isidentifier():
            continue
        marker = marker_named(name)
        if marker is not None:
            found[name] = marker.name
    return found


def isinstance_callback(array: Callable[[], TypeInfo | None], ctx: FunctionContext) -> Type:
    """``isinstance(x, jax.Array)``: ``x`` narrows to ``Array[Any]``, JAX's array in our name.

    mypy narrows ``x`` to the class the second argument's type object makes,
    read from the type map after the call is typed: there, ``jax.Array``'s
    type object (alone or in a tuple) becomes ``Array``'s, so that the value
    goes where ``jax.Array`` is declared (neural-tangents returns it, Flax
    passes it on) — mypy alone would narrow to JAX's class, which every
    ``jax.Array`` annotation accepts.
    """
    api = ctx.api
    info = array()
    if info is None or not internals.checking(api) or len(ctx.args) < 2:
        return ctx.default_return_type
    classes = list(ctx.args[1])
    while classes:
        expr = classes.pop()
        if isinstance(expr, OpExpr) and expr.op == "|":  # isinstance(x, jax.Array | np.ndarray)
            classes += [expr.left, expr.right]
            continue
        found = internals.type_of(api, expr)
        replaced = None if found is None else _ours(found, info, api)
        if replaced is not None:
            internals.record_type(api, expr, replaced)
    return ctx.default_return_type


def _ours(typ: Type, array: TypeInfo, api: CheckerPluginInterface) -> Type | None:
    """``typ`` (a class's type object, or a tuple of them) with ``jax.Array``'s made ``Array``'s."""
    proper = get_proper_type(typ)
    if isinstance(proper, FunctionLike) and proper.is_type_obj():
        if proper.type_object().fullname == names.JAX_ARRAY:
            return internals.class_object(api, array)
        return None
    if isinstance(proper, TupleType):
        items = [_ours(item, array, api) for item in proper.items]
        if all(item is None for item in items):
            return None
        kept = [
            item if item is not None else old for item, old in zip(items, proper.items, strict=True)
        ]
        return proper.copy_modified(items=kept)
    return None
