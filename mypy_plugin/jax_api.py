"""Results of the JAX API: every function and method of ``typing_pkg.api.table()`` typed.

A call of a function the table lists (``jnp.zeros``, ``jnp.mean``,
``jax.random.normal``, ``jax.nn.softmax``, ``lax.convert_element_type``), of
one of ``jax.Array``'s methods (``x.sum()``, ``x.astype(…)``), of an indexed
update (``x.at[i].set(y)``), of a ufunc (``jnp.add(x, y)``: ``add`` is a
``BinaryUfunc`` instance in JAX's stubs) or of one of JAX's scalar types
(``jnp.float32(2.0)``) gets the dtype the table's rule computes from its
arguments under the configured rule set:

* each array argument, by JAX's parameter name (the kind's ``params``):
  ``Array[float32]`` is ``float32``, a Python ``float`` is weakly typed
  (``py_float``), a NumPy array or scalar its dtype, a list or tuple of them a
  sequence;
* the options the rule reads (``options``): a dtype in every form real code
  writes it — ``jnp.float32``, ``jnp.bfloat16``, ``np.float32``,
  ``"float32"``, ``jnp.dtype("int8")``, ``x.dtype``, a typing_pkg marker, and
  ``float``/``int``/``bool`` (JAX's default dtype of that kind, strongly
  typed) — and ``promote_integers=`` as a literal.

The declared return type (``Array`` in JAX's stubs, hence ``Array[Any]``)
gets the dtype in place of ``Any``: ``list[Array]`` becomes
``list[Array[float32]]``, and a rule giving one dtype per output fills a
tuple item by item.  An argument whose dtype cannot be known (``Any``, an
array of unknown dtype, a dtype held in a variable of unknown type, a key
array) leaves the result an array of unknown dtype, never a wrong one.  A
call the rules refuse (``jnp.bincount`` of floats, ``lax.add`` of two
dtypes) is an error (``dtype-promotion``) with the rule's reason.

The hooks hold no table of their own: the kinds of ``typing_pkg.api`` decide.
The table is JAX's: the hooks are active only under a JAX rule set (``jax``,
``jax-x64``, ``jax-strict``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Final

from mypy.nodes import (
    ARG_POS,
    ARG_STAR,
    ArgKind,
    CallExpr,
    Context,
    Decorator,
    Expression,
    FuncDef,
    IndexExpr,
    ListExpr,
    MemberExpr,
    MypyFile,
    OverloadedFuncDef,
    PlaceholderNode,
    RefExpr,
    Statement,
    StrExpr,
    TupleExpr,
    TypeInfo,
    Var,
)
from mypy.plugin import AttributeContext, CheckerPluginInterface, FunctionContext, MethodContext
from mypy.typeops import make_simplified_union
from mypy.types import (
    AnyType,
    FunctionLike,
    Instance,
    NoneType,
    ProperType,
    TupleType,
    Type,
    TypeOfAny,
    UnionType,
    get_proper_type,
)

from mypy_plugin import mypy_internals as internals
from mypy_plugin import names
from mypy_plugin.errors import error_undefined_call, error_unexpected
from mypy_plugin.program_facts import looped_over
from mypy_plugin.types import (
    Lookup,
    array_class,
    base_of,
    classify,
    dtype_token,
    expand,
    is_inferred,
    is_wide,
    items,
    literal_option,
)

if TYPE_CHECKING:
    from mypy_plugin.dtype_names import DTypeNames
    from typing_pkg.api.kinds import Call, Env, Kind, Operand, Result
    from typing_pkg.rules import RuleSet

__all__ = ["JaxApi", "array_method_callback", "at_callback", "function_callback"]


class _Unknown:
    """An argument or option whose dtype cannot be known statically."""

    __slots__ = ()


class _Absent:
    """An argument not given (or ``None``): the rule's default applies."""

    __slots__ = ()


UNKNOWN: Final = _Unknown()
ABSENT: Final = _Absent()
_JAX_RULES: Final = frozenset({"jax", "jax-x64", "jax-strict"})
_PY_TYPES: Final = {
    "builtins.bool": "bool_",
    "builtins.int": "weak_int",
    "builtins.float": "weak_float",
    "builtins.complex": "weak_complex",
}
"""A Python type as a dtype: the weak marker of its kind, which the table's rules read as
JAX's default dtype of that kind, strongly typed (``bool`` is ``bool_`` itself)."""


class JaxApi:
    """The function table bound to the configured rule set, and the build's names for it.

    Everything is loaded on first use (a build without JAX never imports the
    table).  The table's full names (``jax.lax.add``) are not the names mypy
    gives the hooks, which are those of the definitions (``jax._src.lax.lax.add``):
    the correspondence is read from the build once its modules are loaded.
    """

    def __init__(self, rules: RuleSet, lookup: Lookup) -> None:
        self.rules = rules
        self.lookup = lookup
        self.enabled = rules.name in _JAX_RULES
        """Whether the configured rule set is one of JAX's (the table is JAX's)."""
        self._table: Mapping[str, Kind] | None = None
        self._env: Env | None = None
        self._by_definition: dict[str, str] = {}
        self._by_short: dict[str, list[str]] | None = None
        self._not_listed: set[str] = set()
        """Names every candidate of ``function`` was found for, none defined as they are."""
        self._scalar_types: dict[str, str] | None = None
        self._methods: frozenset[str] | None = None

    @property
    def table(self) -> Mapping[str, Kind]:
        """``typing_pkg.api.table()``."""
        if self._table is None:
            from typing_pkg.api import table

            self._table = table()
        return self._table

    @property
    def env(self) -> Env:
        """The rule set, as the table's kinds ask it."""
        if self._env is None:
            from typing_pkg.api.kinds import Env

            self._env = Env(self.rules)
        return self._env

    @property
    def scalar_types(self) -> Mapping[str, str]:
        """``jax.numpy``'s dtype names and their markers (``float32``, ``bfloat16``, ``int_``)."""
        if self._scalar_types is None:
            from mypy_plugin.jax_array import scalar_type_markers

            prefix = names.JAX_NUMPY + "."
            listed = {
                name[len(prefix) :]: not kind.returns_arrays
                for name, kind in self.table.items()
                if name.startswith(prefix) and "." not in name[len(prefix) :]
            }
            self._scalar_types = scalar_type_markers(listed)
        return self._scalar_types

    def array_method(self, method: str) -> str | None:
        """Return the table's name of ``jax.Array.<method>``, if it lists one."""
        if self._methods is None:
            prefix = names.TABLE_ARRAY_PREFIX
            self._methods = frozenset(n[len(prefix) :] for n in self.table if n.startswith(prefix))
        return names.TABLE_ARRAY_PREFIX + method if method in self._methods else None

    def function(self, fullname: str) -> str | None:
        """Return the table's name of the function defined as ``fullname``, if it lists one.

        The table's names with the same last component (``add`` for
        ``jax._src.lax.lax.add``) are looked up in the build, and the one whose
        definition is ``fullname`` wins.  The answer is remembered once it is
        ``settled``: a name looked up before its candidates' modules are
        analysed is looked up again later.
        """
        found = self._by_definition.get(fullname)
        if found is not None or fullname in self._not_listed:
            return found
        if self._by_short is None:
            by_short: dict[str, list[str]] = {}
            for name in self.table:
                if not name.startswith(names.TABLE_ARRAY_PREFIX):
                    by_short.setdefault(name.rpartition(".")[2], []).append(name)
            self._by_short = by_short
        settled = True
        for candidate in self._by_short.get(fullname.rpartition(".")[2], ()):
            node = self.lookup(candidate)
            target = None if node is None else node.node
            if not isinstance(target, FuncDef | Decorator | OverloadedFuncDef | Var):
                settled = settled and target is not None and not isinstance(target, PlaceholderNode)
            elif target.fullname == fullname:
                self._by_definition[fullname] = candidate
                return candidate
        if settled:
            self._not_listed.add(fullname)
        return None

    def new_build(self) -> None:
        """Forget the answers a build's analysis settled (a daemon's next build)."""
        self._not_listed.clear()

    def settled(self, fullname: str) -> bool:
        """Whether ``function(fullname)``'s answer is final for this build."""
        return fullname in self._by_definition or fullname in self._not_listed


# ---------------------------------------------------------------- reading arguments


Found = str | tuple[str, ...] | _Unknown | _Absent
"""An argument as the table's rules see it: a dtype (or Python scalar kind), a sequence of
them, unknown, or absent."""


def _single(proper: ProperType) -> str | _Unknown | _Absent:
    """One operand from a type that is not a sequence."""
    if isinstance(proper, NoneType):
        return ABSENT
    if isinstance(proper, UnionType):
        found = {_single(item) for item in items(proper) if not isinstance(item, NoneType)}
        if len(found) == 1:
            only = found.pop()
            return only
        return UNKNOWN
    operand = classify(proper)
    if operand is None or operand.name is None:
        return UNKNOWN
    return operand.name


def _flatten(api: CheckerPluginInterface, expr: Expression | None, typ: Type) -> list[str] | None:
    """The element operands of a (nested) list or tuple argument, ``None`` if unknown."""
    proper = expand(typ)
    if proper is None:
        return None
    if isinstance(expr, ListExpr | TupleExpr):
        found: list[str] = []
        for item in expr.items:
            item_type = internals.type_of(api, item)
            if item_type is None:
                return None
            inner = _flatten(api, item, item_type)
            if inner is None:
                return None
            found.extend(inner)
        return found
    if isinstance(proper, TupleType):
        found = []
        for item_type in proper.items:
            inner = _flatten(api, None, item_type)
            if inner is None:
                return None
            found.extend(inner)
        return found
    if isinstance(proper, Instance) and proper.type.fullname in _SEQUENCES and proper.args:
        inner = _flatten(api, None, proper.args[0])
        return None if inner is None or len(inner) != 1 else inner
    single = _single(proper)
    return [single] if isinstance(single, str) else None


def _unsized(api: CheckerPluginInterface, expr: Expression | None, typ: Type) -> bool:
    """Whether a (nested) list or tuple argument holds a sequence of unknown length
    (``list[int]``, a comprehension), which may be empty."""
    if isinstance(expr, ListExpr | TupleExpr):
        return any(_unsized(api, item, internals.type_of(api, item) or typ) for item in expr.items)
    proper = expand(typ)
    if isinstance(proper, TupleType):
        return any(_unsized(api, None, item) for item in proper.items)
    return isinstance(proper, Instance) and proper.type.fullname in _SEQUENCES


_SEQUENCES: Final = frozenset(
    {"builtins.list", "builtins.tuple", "typing.Sequence", "collections.abc.Sequence"}
)


def _is_sequence(api: CheckerPluginInterface, expr: Expression | None, typ: Type) -> bool:
    if isinstance(expr, ListExpr | TupleExpr):
        return True
    proper = get_proper_type(typ)
    return isinstance(proper, TupleType) or (
        isinstance(proper, Instance) and proper.type.fullname in _SEQUENCES
    )


def read_dtype(api: CheckerPluginInterface, expr: Expression | None, typ: Type) -> Found:
    """Read a dtype argument: a marker name (a weak one for a Python type), absent or unknown."""
    from typing_pkg.dtypelike import to_marker
    from typing_pkg.dtypes import BY_NAME

    proper = get_proper_type(typ)
    if isinstance(proper, NoneType):
        return ABSENT
    token = dtype_token(proper)
    if token is None and isinstance(proper, AnyType) and expr is not None:
        token = _dtype_from_expression(expr)
    if isinstance(token, str):
        try:
            token = to_marker(token)
        except (TypeError, ValueError):
            return UNKNOWN  # a bad name: JAX raises, which is not a dtype error of ours
    if isinstance(token, type):
        if token in (bool, int, float, complex):
            return _PY_TYPES[f"builtins.{token.__name__}"]
        name = getattr(token, "name", None)
        marker = BY_NAME.get(name) if isinstance(name, str) else None
        if marker is not None and not marker.abstract:
            return marker.name
    return UNKNOWN


def _dtype_from_expression(expr: Expression) -> object | None:
    """A dtype typed ``Any``, read from its expression: ``jnp.dtype("i1")`` (a dtype name,
    ``jnp.bfloat16``, arrives read already: ``Hooks.actuals``)."""
    if (
        isinstance(expr, CallExpr)
        and isinstance(expr.callee, RefExpr)
        and expr.callee.fullname in ("numpy.dtype", "jax.numpy.dtype")
        and len(expr.args) == 1
        and isinstance(expr.args[0], StrExpr)
    ):
        return expr.args[0].value
    return None


class Actuals:
    """A call's arguments by formal parameter (``FunctionContext`` and ``MethodContext`` alike)."""

    __slots__ = ("api", "exprs", "kinds", "names", "types")

    def __init__(
        self,
        api: CheckerPluginInterface,
        names_: Sequence[str | None],
        types: Sequence[Sequence[Type]],
        kinds: Sequence[Sequence[ArgKind]],
        exprs: Sequence[Sequence[Expression]],
    ) -> None:
        self.api = api
        self.names = names_
        self.types = types
        self.kinds = kinds
        self.exprs = exprs

    def index(self, name: str, position: int | None = None) -> int | None:
        """The formal of JAX's parameter ``name``: by name, else by ``position``.

        mypy drops the names of positional-only parameters (``tanh(x, /)``): the
        table's parameters are in JAX's positional order, so the formal at the
        same position stands for them when it has no name.
        """
        try:
            return list(self.names).index(name)
        except ValueError:
            pass
        if position is not None and position < len(self.names) and self.names[position] is None:
            return position
        return None


def bind(kind: Kind, full: str, actuals: Actuals, receiver: Type | None) -> Call | None:
    """Return the table's ``Call`` for these arguments, ``None`` when an option is unknown.

    The array parameters whose dtype is unknown are left out of ``args`` and
    listed in ``unknown`` (``_evaluate_one`` decides).
    """
    from typing_pkg.api.kinds import DTYPE_OPTIONS, Call, UnknownOperand

    args: dict[str, Operand] = {}
    guessed: list[UnknownOperand] = []
    position = 0
    for param in kind.params:
        if param.constant:
            continue  # a constant the rule adds itself
        if param.name == "self":
            if receiver is None:
                return None
            found: Found = _single(get_proper_type(receiver))
        else:
            found = _argument(actuals, param.name, position, param.sequence, kind)
            position += 1
        if isinstance(found, _Absent):
            if not param.optional and not param.ignored:
                return None  # a required argument missing: mypy reports the call
            continue
        if isinstance(found, _Unknown):
            if param.ignored:
                continue  # its dtype does not matter (and a check on it is skipped)
            guessed.append(UnknownOperand(param.name, param.sequence))
            continue
        category = _category(found)
        if category is not None:  # Array[floating]: one of the category's dtypes
            if not param.ignored:
                guessed.append(UnknownOperand(param.name, param.sequence, category))
            continue
        args[param.name] = found
    options: dict[str, object] = {}
    for option in kind.options:
        index = actuals.index(option, position if option == kind.options[0] else None)
        if index is None or not actuals.types[index]:
            continue
        typ = actuals.types[index][0]
        expr = actuals.exprs[index][0]
        if option in DTYPE_OPTIONS:
            requested = read_dtype(actuals.api, expr, typ)
            if isinstance(requested, _Unknown):
                return None
            if isinstance(requested, str):
                options[option] = requested
        else:
            value = literal_option(typ)
            if value is None:
                if isinstance(get_proper_type(typ), NoneType):
                    continue
                return None
            options[option] = value
    return Call(full, args, options, tuple(guessed))


def _category(found: Found) -> str | None:
    """The category an operand names (``floating``), or ``None`` for dtypes and scalars."""
    from typing_pkg.dtypes import BY_NAME

    names_ = found if isinstance(found, tuple) else (found,)
    for name in names_:
        marker = BY_NAME.get(name) if isinstance(name, str) else None
        if marker is not None and marker.abstract:
            return marker.name
    return None


def _argument(actuals: Actuals, name: str, position: int, sequence: bool, kind: Kind) -> Found:
    """The operand(s) given for the JAX parameter ``name``.

    A sequence parameter is a list or tuple argument (``concatenate``'s
    ``arrays``) or JAX's ``*args``: several arguments, one array each.
    """
    index = actuals.index(name, position)
    if index is None:
        return ABSENT
    types, kinds, exprs = actuals.types[index], actuals.kinds[index], actuals.exprs[index]
    if sequence and index > position:
        # JAX's overloads spell ``atleast_1d(*arys)`` as ``(x, y, /, *arys)``: the nameless
        # formals before the variadic one hold its first arrays (``einsum``'s nameless
        # subscripts, a string, is no array)
        before = range(position, index)
        if all(
            actuals.names[i] is None
            and len(actuals.types[i]) == 1
            and isinstance(_single(get_proper_type(actuals.types[i][0])), str)
            for i in before
        ):
            types = [t for i in (*before, index) for t in actuals.types[i]]
            kinds = [k for i in (*before, index) for k in actuals.kinds[i]]
            exprs = [e for i in (*before, index) for e in actuals.exprs[i]]
    if not types:
        return ABSENT
    api = actuals.api
    if ARG_STAR in kinds:
        if len(kinds) != 1 or not sequence:
            return UNKNOWN
        flat = _flatten(api, None, types[0])  # f(*xs): the tuple's items
        return UNKNOWN if flat is None else tuple(flat)
    if any(k != ARG_POS for k in kinds) and len(kinds) > 1:
        return UNKNOWN
    if sequence:
        if len(types) == 1 and _is_sequence(api, exprs[0], types[0]):
            flat = _flatten(api, exprs[0], types[0])
            return UNKNOWN if flat is None else tuple(flat)
        elements: list[str] = []
        for typ in types:  # *args: one array per argument
            single = _single(get_proper_type(typ))
            if not isinstance(single, str):
                return UNKNOWN
            elements.append(single)
        return tuple(elements)
    if len(types) != 1:
        return UNKNOWN
    if _is_sequence(api, exprs[0], types[0]):
        if not _takes_values(kind):
            return UNKNOWN  # JAX refuses a list here; mypy or JAX says so, not the rules
        flat = _flatten(api, exprs[0], types[0])
        if flat is None or (_unsized(api, exprs[0], types[0]) and set(flat) != {"py_float"}):
            # jnp.array(ints) of a list[int]: int32, or float32 when the list is empty (as
            # for one of bools, complexes, arrays): the value decides; of Python floats,
            # the default float either way
            return UNKNOWN
        return tuple(flat)
    return _single(get_proper_type(types[0]))


def _takes_values(kind: Kind) -> bool:
    """Whether the kind makes arrays from values (``jnp.array([1, 2])``), lists included."""
    return kind.takes_values


# ------------------------------------------------------------------ building results


def with_dtype(
    env_array: Callable[[TypeInfo, str | None], Instance], declared: Type, dtype: str | None
) -> Type:
    """Replace every array in ``declared`` with an array of ``dtype`` (``None``: unknown)."""
    proper = expand(declared)
    if proper is None:
        return declared
    if isinstance(proper, Instance):
        array = array_class(proper.type)
        if array is not None:
            return env_array(array, dtype)
        if proper.args:
            new_args = [with_dtype(env_array, arg, dtype) for arg in proper.args]
            if any(a is not b for a, b in zip(new_args, proper.args, strict=True)):
                return proper.copy_modified(args=new_args)
        return declared
    if isinstance(proper, TupleType):
        new_items = [with_dtype(env_array, item, dtype) for item in proper.items]
        return proper.copy_modified(items=new_items)
    if isinstance(proper, UnionType):
        return UnionType.make_union(
            [with_dtype(env_array, item, dtype) for item in proper.items], proper.line
        )
    return declared


def _has_array(typ: Type) -> bool:
    proper = expand(typ)
    if proper is None:
        return False
    if isinstance(proper, Instance):
        return array_class(proper.type) is not None or any(_has_array(a) for a in proper.args)
    if isinstance(proper, TupleType | UnionType):
        return any(_has_array(item) for item in proper.items)
    return False


class Outcome:
    """What to make of a rule's result: a type, and an error to report (or none)."""

    __slots__ = ("error", "type")

    def __init__(self, typ: Type | None, error: str | None = None) -> None:
        self.type = typ
        self.error = error


def result_type(
    env_array: Callable[[TypeInfo, str | None], Instance], declared: Type, result: Result
) -> Outcome:
    """The declared return type with the rule's result in place of its unknown dtypes."""
    from typing_pkg.api.kinds import NotArray, Unknown
    from typing_pkg.rules import Undefined

    if isinstance(result, Undefined):
        return Outcome(None, str(result))
    if isinstance(result, NotArray):
        return Outcome(None)
    if not _has_array(declared):
        return Outcome(None)
    if isinstance(result, Unknown):
        return Outcome(with_dtype(env_array, declared, None))
    if isinstance(result, str):
        return Outcome(with_dtype(env_array, declared, result))
    outcomes = [r if isinstance(r, str) else None for r in result]
    proper = get_proper_type(declared)
    if (
        isinstance(proper, Instance)
        and proper.type.fullname == "builtins.tuple"
        and len(proper.args) == 1
        and _has_array(proper.args[0])
    ):  # tuple[Array, ...] (``jnp.ix_``): one array per output
        items = [with_dtype(env_array, proper.args[0], dtype) for dtype in outcomes]
        return Outcome(TupleType(items, proper))
    if isinstance(proper, TupleType) and len(proper.items) == len(outcomes):
        new_items = [
            with_dtype(env_array, item, dtype)
            for item, dtype in zip(proper.items, outcomes, strict=True)
        ]
        return Outcome(proper.copy_modified(items=new_items))
    distinct = set(outcomes)
    only = distinct.pop() if len(distinct) == 1 else None
    if isinstance(proper, UnionType):
        fits = [
            item
            for item in proper.items
            if isinstance(p := get_proper_type(item), TupleType) and len(p.items) == len(result)
        ]
        if len(fits) == 1:  # ``scipy.linalg.qr(a)``: the member of the outputs the table gives
            return result_type(env_array, fits[0], result)
        # ``svd`` without a literal ``compute_uv``: ``Array | SVDResult``; the tuple member
        # gets one dtype per output
        members = [
            result_type(env_array, item, result).type
            if isinstance(get_proper_type(item), TupleType)
            else with_dtype(env_array, item, only)
            for item in proper.items
        ]
        if all(m is not None for m in members):
            return Outcome(UnionType.make_union([m for m in members if m is not None]))
    return Outcome(with_dtype(env_array, declared, only))


# ------------------------------------------------------------------------ callbacks


class Hooks:
    """What the callbacks need: the table, the rules' names, arrays of ours, error reports."""

    def __init__(
        self,
        api: JaxApi,
        make_array: Callable[[str | None, CheckerPluginInterface, Context], Instance | None],
        inferred: Callable[[Type], Type],
        dtype_names: DTypeNames,
    ) -> None:
        self.api = api
        self.make_array = make_array
        """``Array[dtype]`` (``None``: unknown), a marker missing from the build reported."""
        self.inferred = inferred
        """A type with its arrays ``InferredArray`` (``Any`` to mypy alone)."""
        self.dtype_names = dtype_names
        """What an argument mypy types ``Any`` stands for (``jnp.float32``)."""
        self.without_unknowns: dict[Hashable, Result] = {}
        """``_without_unknowns``'s answers, by the call as the rules see it."""

    def actuals(
        self, ctx: FunctionContext | MethodContext, names_: Sequence[str | None]
    ) -> Actuals:
        """A hook's arguments, those mypy types ``Any`` read from their expressions."""
        types = self.dtype_names.read_all(ctx.api, ctx.arg_types, ctx.args)
        return Actuals(ctx.api, names_, types, ctx.arg_kinds, ctx.args)


def _evaluate(
    hooks: Hooks,
    full: str,
    actuals: Actuals,
    receiver: Type | None,
    declared: Type,
    context: Context,
) -> Type | None:
    """Type one call of the table's ``full``; ``None`` to keep mypy's own type.

    An argument of a union type (``Array[float32] | int``: ``sum()`` of arrays)
    is each of its members in turn: the result is the union of the defined
    results, an error only when every member's call is undefined.
    """
    kind = hooks.api.table.get(full)
    if kind is None:
        return None
    variants = _variants(actuals)
    if variants is None:
        found, error = _evaluate_one(hooks, full, kind, actuals, receiver, declared, context)
        if error is not None:
            with _past_overload_matching(actuals.api, context):
                error_undefined_call(actuals.api, context, hooks.api.rules, full, error)
        return found
    results: list[Type] = []
    errors: list[str] = []
    for variant in variants:
        found, error = _evaluate_one(hooks, full, kind, variant, receiver, declared, context)
        if error is not None:
            errors.append(error)
        elif found is not None:
            results.append(found)
        else:
            return None  # mypy's own type for a member: keep it for the whole call
    if not results:
        with _past_overload_matching(actuals.api, context):
            error_undefined_call(actuals.api, context, hooks.api.rules, full, errors[0])
        return _unknown(hooks, declared, actuals.api, context)
    return make_simplified_union(results)


def _past_overload_matching(
    api: CheckerPluginInterface, context: Context
) -> AbstractContextManager[None]:
    """Report past the filter mypy matches an overload under (``jsl.hessenberg``'s
    ``calc_q`` overloads): a dtype error there would make the item not match, and mypy
    would say "No overload variant" instead of the dtype error."""
    callee = context.callee if isinstance(context, CallExpr) else None
    if isinstance(callee, RefExpr) and isinstance(callee.node, OverloadedFuncDef):
        return internals.past_innermost_filter(api, saving=False)
    return nullcontext()


_MAX_VARIANTS: Final = 16


def _variants(actuals: Actuals) -> list[Actuals] | None:
    """The calls a union argument stands for, one per member (``None``: no union argument)."""
    choices: list[tuple[int, list[ProperType]]] = []
    for index, types in enumerate(actuals.types):
        if len(types) != 1:
            continue
        proper = get_proper_type(types[0])
        if isinstance(proper, UnionType) and not is_wide(proper):  # wide: one unknown dtype
            parts = [p for p in items(proper) if not isinstance(p, NoneType)]
            if len(parts) > 1:
                choices.append((index, parts))
    if not choices:
        return None
    count = 1
    for _, parts in choices:
        count *= len(parts)
    if count > _MAX_VARIANTS:
        return None
    variants = []
    for combination in itertools.product(*(parts for _, parts in choices)):
        by_formal: list[list[Type]] = [list(t) for t in actuals.types]
        for (index, _), part in zip(choices, combination, strict=True):
            by_formal[index] = [part]
        variants.append(
            Actuals(actuals.api, actuals.names, by_formal, actuals.kinds, actuals.exprs)
        )
    return variants


def _without_unknowns(hooks: Hooks, kind: Kind, call: Call) -> Result:
    """The result of a call some of whose array arguments have an unknown dtype.

    A call that asks for its result's dtype (``jnp.asarray(x, dtype=jnp.float32)``,
    ``x.astype(…)``) gets it whatever the argument: the argument stands as
    that dtype.  Otherwise one unknown argument stands as each dtype of the
    rules in turn, and the result is known when every outcome is defined and
    the same dtype (``jnp.argmax`` of anything is the default int).  An
    undefined outcome is never reported: the argument may not have that dtype.
    """
    # The same call (as the rules see it) comes back often: each answer asks every dtype.
    try:
        key: Hashable = (id(kind), call.function, *sorted(call.args.items()), call.unknown)
        key = (key, *sorted(call.options.items()))
        return hooks.without_unknowns[key]
    except TypeError:  # an option the rules read from an unhashable value: not remembered
        return _each_dtype(hooks, kind, call)
    except KeyError:
        found = hooks.without_unknowns[key] = _each_dtype(hooks, kind, call)
        return found


def _each_dtype(hooks: Hooks, kind: Kind, call: Call) -> Result:
    """``_without_unknowns``, worked out."""
    from typing_pkg.api.kinds import DTYPE_OPTIONS, Call, Unknown
    from typing_pkg.dtypes import BY_NAME

    missing = Unknown("an argument of unknown dtype")
    unknown = call.unknown
    options = call.options
    asked = next((options[o] for o in kind.options if o in DTYPE_OPTIONS and o in options), None)
    env = hooks.api.env
    if isinstance(asked, str):
        candidates: Sequence[str] = [asked]
    elif len(unknown) == 1:
        category = unknown[0].category
        candidates = sorted(
            t for t in env.types if category is None or issubclass(BY_NAME[t], BY_NAME[category])
        )
    else:
        return missing
    outcomes: set[str] = set()
    for candidate in candidates:
        args = dict(call.args)
        for operand in unknown:
            args[operand.name] = (candidate,) if operand.sequence else candidate
        try:
            result = kind.result(Call(call.function, args, options), env)
        except Exception:  # a rule asked about a dtype it does not expect: unknown
            return missing
        if not isinstance(result, str):
            # Undefined for one dtype: the argument may have a dtype no marker names (a key
            # array's), which this function may accept with another result.
            return result if isinstance(asked, str) and not isinstance(result, tuple) else missing
        outcomes.add(result)
    return outcomes.pop() if len(outcomes) == 1 else missing


def _unknown(
    hooks: Hooks, declared: Type, api: CheckerPluginInterface, context: Context
) -> Type | None:
    def env_array(array: TypeInfo, dtype: str | None) -> Instance:
        made = hooks.make_array(dtype, api, context)
        return made if made is not None else Instance(array, [AnyType(TypeOfAny.special_form)])

    return with_dtype(env_array, declared, None) if _has_array(declared) else None


def _evaluate_one(
    hooks: Hooks,
    full: str,
    kind: Kind,
    actuals: Actuals,
    receiver: Type | None,
    declared: Type,
    context: Context,
) -> tuple[Type | None, str | None]:
    """The type of one call, and the reason it is undefined (to report) if it is."""
    call = bind(kind, full, actuals, receiver)
    api = actuals.api

    def env_array(array: TypeInfo, dtype: str | None) -> Instance:
        made = hooks.make_array(dtype, api, context)
        return made if made is not None else Instance(array, [AnyType(TypeOfAny.special_form)])

    refused = _refused_key(full, actuals)
    if refused is not None:
        return _unknown(hooks, declared, api, context), refused
    if call is None:
        return _unknown(hooks, declared, api, context), None
    if call.unknown:
        result = _without_unknowns(hooks, kind, call)
        guessed = True
    else:
        guessed = False
        try:
            result = kind.result(call, hooks.api.env)
        except Exception as error:  # the table is code: a bug in it must not crash mypy
            error_unexpected(
                api, context, f"the function table's rule for {full} raised "
                f"{type(error).__name__}: {error} for {call}"
            )  # fmt: skip
            return None, None
    from typing_pkg.api.kinds import Unknown

    if is_inferred(declared) and isinstance(result, Unknown):
        return declared, None  # unknown: a jitted function's declared result, as if not listed
    declared = _declared(hooks, declared, result, actuals, context)
    outcome = result_type(env_array, declared, result)
    if outcome.error is not None:
        unknown = _unknown(hooks, declared, api, context)
        return unknown, (None if guessed else outcome.error)
    return outcome.type, None


def _refused_key(full: str, actuals: Actuals) -> str | None:
    """Why JAX refuses the key a ``jax.random`` function is given, if it does."""
    from typing_pkg.api.jax_random import KEY_PARAMETER, NAMESPACES, key_refusal
    from typing_pkg.dtypes import BY_NAME

    if not full.startswith(NAMESPACES[0].prefix):
        return None
    index = actuals.index(KEY_PARAMETER, 0)
    if index is None or actuals.names[index] != KEY_PARAMETER or len(actuals.types[index]) != 1:
        return None  # key(seed), PRNGKey(seed): no key taken
    given = _single(get_proper_type(actuals.types[index][0]))
    marker = BY_NAME.get(given) if isinstance(given, str) else None
    if marker is None or marker.abstract:
        return None  # unknown, a category (Array[unsignedinteger]), a Python scalar
    refused = key_refusal(full, given) if isinstance(given, str) else None
    return None if refused is None else refused.reason


def _declared(
    hooks: Hooks, declared: Type, result: Result, actuals: Actuals, context: Context
) -> Type:
    """The declared return type, or the arrays the table says the call returns.

    A JAX function without a return annotation (``lax.empty``, ``jnp.diagonal``
    in JAX's stub, ``jnp.linalg.cross``) returns an array, or a tuple of one
    array per output.  A call passing a ``return_*`` flag keeps the
    declaration: the table types the default outputs.  One declared to return
    ``ArrayLike`` (``stats.multivariate_normal.logpdf``) returns an array too:
    the table's entries are recorded from the arrays JAX returns.
    """
    from typing_pkg.api.kinds import NotArray

    api = actuals.api
    proper = get_proper_type(declared)
    if isinstance(result, NotArray):
        return declared
    if isinstance(proper, UnionType) and is_wide(proper) and isinstance(result, str):
        made = hooks.make_array(None, api, context)
        return declared if made is None else made
    if not isinstance(proper, AnyType) or proper.type_of_any != TypeOfAny.unannotated:
        return declared
    if any(
        name is not None and name.startswith("return_") and types
        for name, types in zip(actuals.names, actuals.types, strict=True)
    ):
        return declared  # unique(…, return_index=…): the table types the default outputs
    if not isinstance(result, tuple):
        made = hooks.make_array(None, api, context)
        return declared if made is None else made
    arrays = [hooks.make_array(None, api, context) for _ in result]
    if any(a is None for a in arrays):
        return declared
    items: list[Type] = [a for a in arrays if a is not None]
    fallback = api.named_generic_type("builtins.tuple", [make_simplified_union(items)])
    return TupleType(items, fallback)


def function_callback(hooks: Hooks, full: str, ctx: FunctionContext) -> Type:
    """Type a call of a function of the table (``jnp.mean``, ``jax.random.normal``)."""
    actuals = hooks.actuals(ctx, ctx.callee_arg_names)
    found = _evaluate(hooks, full, actuals, None, ctx.default_return_type, ctx.context)
    return ctx.default_return_type if found is None else found


def ufunc_callback(hooks: Hooks, ctx: MethodContext) -> Type:
    """Type ``jnp.add(x, y)`` (a ``BinaryUfunc`` instance's ``__call__``) by the ufunc's name."""
    context = ctx.context
    called = _called_function(context)
    if called is None:
        return ctx.default_return_type
    full = hooks.api.function(called) or called
    method_names = _method_names(ctx)
    actuals = hooks.actuals(ctx, method_names)
    found = _evaluate(hooks, full, actuals, None, ctx.default_return_type, ctx.context)
    return ctx.default_return_type if found is None else found


def custom_derivative_callback(hooks: Hooks, ctx: MethodContext) -> Type:
    """Type ``jax.scipy.special.xlogy(x, y)``: a function JAX wraps in ``custom_jvp`` (or
    ``custom_vjp``) and declares nowhere else, called through the wrapper's ``__call__(*args,
    **kwargs)``, by the function's name; its positional arguments are the table's parameters
    in order (a call with keywords keeps JAX's answer)."""
    default = ctx.default_return_type
    context = ctx.context
    defined = _called_function(context)
    if defined is None:
        return default
    full = hooks.api.function(defined) or defined.replace("jax._src.", "jax.", 1)
    if full not in hooks.api.table or not ctx.arg_types:
        return default  # (a decorated definition the lookup misses: jax._src.scipy.special.X)
    if any(ctx.arg_types[1:]) or any(kind != ARG_POS for kind in ctx.arg_kinds[0]):
        return default
    types = [[t] for t in ctx.arg_types[0]]
    exprs = [[e] for e in ctx.args[0]]
    read = hooks.dtype_names.read_all(ctx.api, types, exprs)
    actuals = Actuals(ctx.api, [None] * len(types), read, [[ARG_POS] for _ in types], exprs)
    declared: Type | None = default
    if isinstance(get_proper_type(default), AnyType):  # custom_jvp[Any]: JAX's Array, unknown
        declared = hooks.make_array(None, ctx.api, context)
    if declared is None:
        return default
    found = _evaluate(hooks, full, actuals, None, declared, context)
    return default if found is None else found


_KEEPING: Final = frozenset({"vmap", "pmap", "checkpoint"})
"""The transformations JAX types ``F -> F``: a call through one is a call of the function."""


def _called_function(context: Context) -> str | None:
    """The full name of the function a call calls: ``jnp.add(x, y)``'s, or through a
    transformation that keeps its type, ``jax.vmap(jnp.add)(x, y)``'s."""
    if not isinstance(context, CallExpr):
        return None
    callee = context.callee
    if (
        isinstance(callee, CallExpr)
        and isinstance(callee.callee, RefExpr)
        and names.TRANSFORMS.get(callee.callee.fullname) in _KEEPING
        and callee.args
        and callee.arg_kinds[0] == ARG_POS
    ):
        callee = callee.args[0]
    return callee.fullname if isinstance(callee, RefExpr) else None


def _method_names(ctx: MethodContext) -> list[str | None]:
    """The formal names of a method call (mypy passes them on ``callee_arg_names``)."""
    return list(ctx.callee_arg_names)


def array_method_callback(hooks: Hooks, full: str, ctx: MethodContext) -> Type:
    """Type a method of ``jax.Array`` the table lists (``x.sum()``, ``x.astype(jnp.int8)``)."""
    actuals = hooks.actuals(ctx, _method_names(ctx))
    return _on_array(hooks, full, actuals, ctx.type, ctx.default_return_type, ctx.context)


def _on_array(
    hooks: Hooks, full: str, actuals: Actuals, receiver: Type, declared: Type, context: Context
) -> Type:
    """Type the table's ``full`` on a JAX array ``receiver``; anything else keeps ``declared``."""
    proper = get_proper_type(receiver)
    if not isinstance(proper, Instance) or (
        array_class(proper.type) is None and base_of(proper.type, names.JAX_ARRAY) is None
    ):
        return declared
    found = _evaluate(hooks, full, actuals, receiver, declared, context)
    if found is None:
        return declared
    return hooks.inferred(found) if is_inferred(proper) else found


def attribute_callback(hooks: Hooks, full: str, ctx: AttributeContext) -> Type:
    """Type an attribute of ``jax.Array`` the table lists (``x.real``, ``x.imag``, ``x.T``).

    A method looked up as an attribute (``x.sum`` before its call) keeps its type: the
    call is ``array_method_callback``'s.
    """
    if isinstance(get_proper_type(ctx.default_attr_type), FunctionLike):
        return ctx.default_attr_type
    actuals = Actuals(ctx.api, [], [], [], [])
    return _on_array(hooks, full, actuals, ctx.type, ctx.default_attr_type, ctx.context)


def at_callback(hooks: Hooks, method: str, ctx: MethodContext) -> Type:
    """Type ``x.at[i].set(y)`` and the other indexed updates from ``x``'s dtype."""
    context = ctx.context
    if not (
        isinstance(context, CallExpr)
        and isinstance(context.callee, MemberExpr)
        and isinstance(context.callee.expr, IndexExpr)
        and isinstance(context.callee.expr.base, MemberExpr)
        and context.callee.expr.base.name == "at"
    ):
        return ctx.default_return_type
    receiver = internals.type_of(ctx.api, context.callee.expr.base.expr)
    if receiver is None:
        return ctx.default_return_type
    full = f"{names.TABLE_ARRAY_PREFIX}at.{method}"
    actuals = hooks.actuals(ctx, _method_names(ctx))
    found = _evaluate(hooks, full, actuals, receiver, ctx.default_return_type, ctx.context)
    if found is None:
        return ctx.default_return_type
    return hooks.inferred(found) if is_inferred(receiver) else found


def scalar_value(
    hooks: Hooks,
    marker: str,
    value: Type,
    value_expr: Expression,
    api: CheckerPluginInterface,
    context: Context,
) -> Type | None:
    """``jnp.float32(value)``: JAX's scalar types make arrays (``jnp.asarray(value, dtype)``).

    ``Any`` to mypy alone (JAX declares ``jnp.float32`` ``Any``): an ``InferredArray``.
    """
    array = hooks.make_array(None, api, context)
    if array is None:
        return None
    actuals = Actuals(api, ["a", "dtype"], [[value], []], [[ARG_POS], []], [[value_expr], []])
    call = bind(hooks.api.table[_ASARRAY], _ASARRAY, actuals, None)
    if call is None:
        return hooks.inferred(array)
    from typing_pkg.api.kinds import Call

    call = Call(_ASARRAY, call.args, {"dtype": marker})
    found = _evaluate_call(hooks, _ASARRAY, call, array, context, api)
    return hooks.inferred(array if found is None else found)


_ASARRAY: Final = "jax.numpy.asarray"


def _evaluate_call(
    hooks: Hooks,
    full: str,
    call: Call,
    declared: Type,
    context: Context,
    api: CheckerPluginInterface,
) -> Type | None:
    kind = hooks.api.table[full]

    def env_array(array: TypeInfo, dtype: str | None) -> Instance:
        made = hooks.make_array(dtype, api, context)
        return made if made is not None else Instance(array, [AnyType(TypeOfAny.special_form)])

    try:
        result = kind.result(call, hooks.api.env)
    except Exception as error:  # the table is code: a bug in it must not crash mypy
        error_unexpected(
            api, context, f"the rule for {full} raised {type(error).__name__}: {error}"
        )
        return None
    outcome = result_type(env_array, declared, result)
    if outcome.error is not None:
        error_undefined_call(api, context, hooks.api.rules, full, outcome.error)
        return None
    return outcome.type


def iter_callback(hooks: Hooks, inferred: Callable[[Type], Type], ctx: MethodContext) -> Type:
    """Type ``iter(x)`` (``for row in x``, ``a, b = x``): the rows keep ``x``'s dtype.

    A ``for`` loop's rows are ``InferredArray``: JAX's
    ``__iter__`` gives ``Any``, which any parameter accepts (a row given to
    matplotlib's ``Colormap.__call__`` must match its ``float`` overload as
    ``Any`` does, not its ``ArrayLike`` one, whose result is a union: jumanji's
    viewers).  Unpacked rows (``a, b = x``) are ``Array``: a dict of them must
    be taken where a ``Dict[str, jax.Array]`` is declared (brax's metrics;
    dict is invariant, and ``InferredArray`` is not ``Array`` there, while
    mypy alone's ``dict[str, Any]`` is) — unless ``x`` is one (``Any`` to mypy
    alone, and so are its rows).
    """
    receiver = classify(ctx.type)
    if receiver is None or receiver.array is None or receiver.name is None:
        # An unknown dtype: JAX's own answer (its __iter__ gives Any), since what is
        # unpacked from a value declared jax.Array may be no array at all (brax's
        # ``com, inertia, mass, x_i = self._com(state)``, declared ``-> jax.Array``).
        return ctx.default_return_type
    row = hooks.make_array(receiver.name, ctx.api, ctx.context)
    if row is None:
        return ctx.default_return_type
    looped = _looped_over(ctx.api, ctx.context)
    item = inferred(row) if looped or is_inferred(ctx.type) else row
    return ctx.api.named_generic_type("typing.Iterator", [item])


_looped: list[tuple[MypyFile, list[Statement], set[int]]] = []
"""The last module's looped-over expressions (a module is checked in one go), with its
statements' list (a daemon's update of the module gives it new ones)."""


def _looped_over(api: CheckerPluginInterface, expr: Context) -> bool:
    """Whether ``expr`` is what a ``for`` statement of the module iterates over."""
    tree = internals.module_checked(api)
    if tree is None:
        return False
    if not _looped or _looped[0][0] is not tree or _looped[0][1] is not tree.defs:
        _looped[:] = [(tree, tree.defs, looped_over(tree.defs))]
    return id(expr) in _looped[0][2]
