"""The plugin's callbacks: one per kind of hook, each a function of its context.

Every callback gets an ``Env`` (the active rule set, its memoised answers and
a name lookup) bound by the plugin, and gives up (``ctx.default_return_type``,
``ctx.default_signature``) on anything it does not understand.  Callbacks have
no side effects besides reporting errors: mypy may run one several times for
one expression (once per operand variant or overload item it tries).

Nothing is caught to hide it.  What the rules may legitimately leave open is
checked for (an operand that is not a type of the rule set, a category with
no dtype in it); a rule set is code, possibly a user's, so an exception it
raises or an answer that is not a marker is reported with the
``typing-pkg-unexpected`` code (``errors.error_unexpected``), as is a marker
the build does not define; mypy never crashes on them and never gets a
silent ``Array[Any]``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Final

from mypy.nodes import (
    ARG_POS,
    Context,
    Expression,
    NameExpr,
    OperatorAssignmentStmt,
    OpExpr,
    TempNode,
    TypeInfo,
    Var,
)
from mypy.plugin import (
    AttributeContext,
    CheckerPluginInterface,
    FunctionContext,
    FunctionSigContext,
    MethodContext,
    MethodSigContext,
)
from mypy.typeops import make_simplified_union
from mypy.types import (
    AnyType,
    CallableType,
    FunctionLike,
    Instance,
    LiteralType,
    ProperType,
    TupleType,
    Type,
    TypeOfAny,
    TypeType,
    UnionType,
    get_proper_type,
)
from mypy.typevars import fill_typevars_with_any

from mypy_plugin import mypy_internals as internals
from mypy_plugin import names
from mypy_plugin.dtype_names import DTypeNames
from mypy_plugin.errors import (
    error_bad_index,
    error_undefined_binary,
    error_undefined_promotion,
    error_undefined_unary,
    error_unexpected,
)
from mypy_plugin.types import (
    Lookup,
    Operand,
    any_array,
    array_class,
    array_of,
    classify,
    dtype_token,
    is_array,
    is_wide,
    items,
    marker_type,
)
from typing_pkg.dtypes import ABSTRACT, BY_NAME, EXTENDED_NAMES, DType
from typing_pkg.ops import COMPARISON, INPLACE_OF, SYMBOL
from typing_pkg.rules import DEFAULT, RuleSet, Undefined, UnknownRulesError, get_rules
from typing_pkg.rules import names as rule_set_names

__all__ = [
    "Answers",
    "Env",
    "abs_callback",
    "abs_signature_callback",
    "array_signature_callback",
    "astype_callback",
    "binary_callback",
    "dtype_attribute_callback",
    "float_rpow_callback",
    "index_callback",
    "index_signature_callback",
    "numpy_callback",
    "promote_types_callback",
    "reflected_callback",
    "result_type_callback",
    "scalar_callback",
    "scalar_signature_callback",
    "unary_callback",
]


class Failure:
    """A rule set that misbehaved on one query: the detail of the bug report."""

    __slots__ = ("detail",)

    def __init__(self, detail: str) -> None:
        self.detail = detail


Answer = str | Undefined | Failure | None
"""A result marker (possibly a category), an undefined operation, a misbehaving rule set,
or ``None``: not known statically (a category with no dtype, or no category in common)."""


def _query(op: str, left: str, right: str | None) -> str:
    return f"{op}({left})" if right is None else f"{op}({left}, {right})"


def _describe(rules: RuleSet) -> str:
    return f'the "{rules.name}" rules ({type(rules).__module__}.{type(rules).__qualname__})'


class Answers:
    """The rule set's answers for any operands, categories included (memoised).

    A category operand (``Array[floating]``) stands for every dtype of the
    rule set below it.  The answer is the result all of them agree on; where
    they differ, the narrowest category holding every defined result
    (``floating``); an error only when no member has a defined result.
    """

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self._known = frozenset((*rules.types, *rules.canonical, *rules.scalars))
        """The operands the rules answer for (``RuleSet.is_dtype``): their dtypes, those they
        canonicalise (``float64`` under JAX's default, x64 off) and Python scalar kinds."""
        self._cache: dict[tuple[str, str, str | None], Answer] = {}

    def get(self, op: str, left: str, right: str | None = None) -> Answer:
        """Return what ``left OP right`` (or ``OP left``) gives."""
        key = (op, left, right)
        try:
            return self._cache[key]
        except KeyError:
            pass
        answer = self._compute(op, left, right)
        self._cache[key] = answer
        return answer

    def _members(self, name: str) -> tuple[str, ...] | None:
        marker = BY_NAME.get(name)
        if marker is None or not marker.abstract:
            return None
        return tuple(m for m in self.rules.array_types if issubclass(BY_NAME[m], marker))

    def _compute(self, op: str, left: str, right: str | None) -> Answer:
        left_members = self._members(left)
        right_members = None if right is None else self._members(right)
        if left_members is None and right_members is None:
            return self._direct(op, left, right)
        lefts = left_members if left_members is not None else (left,)
        rights: Sequence[str | None] = right_members if right_members is not None else (right,)
        if not lefts or not rights:
            return None  # a category with no dtype under these rules
        answers = [self._direct(op, a, b) for a in lefts for b in rights]
        failure = next((a for a in answers if isinstance(a, Failure)), None)
        if failure is not None:
            return failure
        defined = {a for a in answers if isinstance(a, str)}
        if not defined:
            first = next(a for a in answers if isinstance(a, Undefined))
            category = left if left_members is not None else right
            return Undefined(f"it is undefined for every {category} dtype ({first.reason})")
        if len(defined) == 1:
            return defined.pop()
        return _narrowest_category(defined)

    def _direct(self, op: str, left: str, right: str | None) -> Answer:
        if left in EXTENDED_NAMES or right in EXTENDED_NAMES:
            from typing_pkg.api.jax_random import key_operator

            return key_operator(op, left, right)  # a key array: JAX's, whatever the rules
        for operand in (left, right):
            if operand is not None and operand not in self._known:
                return Undefined(f"{operand} is not a dtype of these rules")
        try:
            outcome: object = self.rules.result(op, left, right)
        except Exception as error:  # a rule set is code (maybe a user's): never crash mypy
            return Failure(
                f"{_describe(self.rules)} raised {type(error).__name__}: {error} for "
                f"{_query(op, left, right)}"
            )
        if isinstance(outcome, Undefined) or (isinstance(outcome, str) and outcome in BY_NAME):
            return outcome
        return Failure(
            f"{_describe(self.rules)} answered {outcome!r} for {_query(op, left, right)}, "
            "not a marker"
        )


def _narrowest_category(results: set[str]) -> str | None:
    markers = [BY_NAME[r] for r in results]
    best = None
    for category in ABSTRACT:
        if all(issubclass(m, category) for m in markers) and (
            best is None or issubclass(category, best)
        ):
            best = category
    return None if best is None or best.name == "DType" else best.name


class Env:
    """What every callback needs: the rule set, its answers, and the types it builds.

    Built once per plugin (per build); it memoises pure functions of the
    build's classes only (keyed by the ``TypeInfo`` objects themselves).
    """

    def __init__(self, rules: RuleSet, lookup: Lookup, dtype_names: DTypeNames) -> None:
        self.rules = rules
        self.dtype_names = dtype_names
        """What an operand mypy types ``Any`` stands for (``jnp.float32(2)``)."""
        self.answers = Answers(rules)
        self.lookup = lookup
        self._arrays: dict[tuple[TypeInfo, str | None], Instance] = {}
        self.widened: dict[tuple[TypeInfo, TypeInfo, bool], Type] = {}
        """Extra operand types of array operators, per array class and ``builtins.int``."""
        # Per type object (kept alive here, so that an id is never reused): the
        # same declared or inferred type object comes back at every use of a
        # variable, and our results are shared objects.
        self._operands: dict[int, tuple[ProperType, Operand | None]] = {}
        self.accepted: dict[int, tuple[Type, frozenset[str]]] = {}
        """The classes an operator's own parameter names, per unbound signature object."""

    def read(self, ctx: _Context, index: int = 0) -> Type:
        """The type of the first actual of formal ``index``, read by ``dtype_names`` if ``Any``."""
        return self.dtype_names.read(ctx.api, ctx.args[index][0], ctx.arg_types[index][0])

    def classify(self, typ: ProperType) -> Operand | None:
        """Return ``classify(typ)``, memoised per type object."""
        found = self._operands.get(id(typ))
        if found is not None and found[0] is typ:
            return found[1]
        operand = classify(typ)
        if len(self._operands) >= _MEMO_LIMIT:
            self._operands.clear()  # transient types (literals) would pile up
        self._operands[id(typ)] = (typ, operand)
        return operand

    def array(self, array: TypeInfo, name: str | None, ctx: _Context) -> Instance:
        """Return ``Array[name]`` (``Array[Any]`` for ``None``); types are shared, never mutated.

        A marker the build does not define (``typing_pkg`` stubs of another
        version) is reported at ``ctx`` and gives ``Array[Any]``.
        """
        return self.array_at(array, name, ctx.api, ctx.context)

    def array_at(
        self, array: TypeInfo, name: str | None, api: CheckerPluginInterface, context: Context
    ) -> Instance:
        """``array`` for a report at ``context`` through ``api``."""
        key = (array, name)
        found = self._arrays.get(key)
        if found is not None:
            return found
        if name is None:
            found = any_array(array)
        else:
            marker = self.marker_at(name, api, context)
            if marker is None:
                return any_array(array)
            found = array_of(array, marker)
        self._arrays[key] = found
        return found

    def marker(self, name: str, ctx: _Context) -> Instance | None:
        """Return the marker class ``name`` as a type, reporting one the build does not define."""
        return self.marker_at(name, ctx.api, ctx.context)

    def marker_at(
        self, name: str, api: CheckerPluginInterface, context: Context
    ) -> Instance | None:
        """``marker`` for a report at ``context`` through ``api``."""
        found = marker_type(self.lookup, name)
        if found is None:
            error_unexpected(
                api,
                context,
                f"the typing_pkg that mypy reads defines no {names.DTYPES_MODULE}.{name} "
                "(are its stubs or sources another version than the plugin's?)",
            )
        return found


_MEMO_LIMIT: Final = 1 << 16
_Context = MethodContext | FunctionContext


def _union(results: list[Type]) -> Type:
    return results[0] if len(results) == 1 else make_simplified_union(results)


def _unknown(env: Env, op: str, array: TypeInfo, ctx: MethodContext) -> Type:
    """The result when an operand's dtype is unknown: ``Array[Any]``-like, never an error."""
    if op in COMPARISON:
        return env.array(array, "bool_", ctx)
    if op in INPLACE_OF:
        return ctx.default_return_type
    return env.array(array, None, ctx)


def _pair(
    env: Env,
    ctx: MethodContext,
    op: str,
    left: ProperType,
    right: ProperType,
) -> Type:
    """Return the type of ``left OP right``, reporting an undefined one."""
    if isinstance(left, AnyType) or isinstance(right, AnyType):
        return AnyType(TypeOfAny.special_form)  # an item of a union: mypy's answer for Any
    lhs, rhs = env.classify(left), env.classify(right)
    if lhs is None or rhs is None:
        return ctx.default_return_type  # not ours: mypy checks it
    array = (
        rhs.array if rhs.array is not None and _is_inferred(rhs.array) else lhs.array or rhs.array
    )
    if array is None:
        return ctx.default_return_type  # no array of ours (NumPy's own operators)
    if lhs.name is None or rhs.name is None or _wide_operand(ctx):
        return _unknown(env, op, array, ctx)
    answer = env.answers.get(op, lhs.name, rhs.name)
    if isinstance(answer, str):
        return env.array(array, answer, ctx)
    if answer is None:
        return _unknown(env, op, array, ctx)
    with _past_fallback_to_any(ctx, _is_inferred(array)):
        if isinstance(answer, Undefined):
            error_undefined_binary(
                ctx.api, ctx.context, env.rules, SYMBOL[op], left, right, answer.reason
            )
        else:
            error_unexpected(ctx.api, ctx.context, answer.detail)
    return env.array(array, None, ctx)


def _wide_operand(ctx: MethodContext) -> bool:
    """Whether an operand of the operation is wide: a union holding an unknown array.

    ``i: ArrayLike`` (JAX's or ours: arrays, NumPy scalars, ``bool``, ``int``,
    ``float``, ``complex``) is a value of unknown dtype, not each of its
    members in turn: ``i + x`` is an array of unknown dtype and never an
    error, though ``complex`` alone would make ``(i + x) % 2`` one.  mypy
    splits a union on the left before the hook runs, so the whole operand is
    read from the expression (``OpExpr``, or the target of ``x += …``).
    """
    context = ctx.context
    if isinstance(context, OpExpr):
        operands = (context.left, context.right)
    elif isinstance(context, OperatorAssignmentStmt):
        operands = (context.lvalue, context.rvalue)
    else:
        return False
    for expr in operands:
        whole = _expression_type(ctx.api, expr)
        if whole is None:
            continue
        if is_wide(whole):
            return True
    return False


def _argument(env: Env | None, ctx: MethodContext) -> ProperType | None:
    """Return the type of the one argument of an operator method (``None`` if not so called).

    With ``env``, an argument mypy types ``Any`` is read from its expression (``Env.read``).
    """
    if not ctx.arg_types or len(ctx.arg_types[0]) != 1 or any(ctx.arg_types[1:]):
        return None  # also float.__pow__(x, mod): not an operator
    return get_proper_type(ctx.arg_types[0][0] if env is None else env.read(ctx))


def binary_callback(env: Env, op: str, ctx: MethodContext) -> Type:
    """Type ``array OP other`` (``Array.__add__``, …, ``Array.__lt__``, …) and ``array OP= other``.

    For an in-place operator the result is the rule set's in-place result:
    the binary result where the name is rebound (JAX), the left operand's
    dtype where the library casts back, or an error where it refuses.
    """
    argument = _argument(env, ctx)
    if argument is None:
        return ctx.default_return_type
    if not isinstance(argument, UnionType):
        return _pair(env, ctx, op, ctx.type, argument)
    return _union([_pair(env, ctx, op, ctx.type, item) for item in items(argument)])


def reflected_callback(env: Env, op: str, ctx: MethodContext) -> Type:
    """Type ``scalar OP array`` reaching ``Array.__radd__``, …: Python and NumPy scalars only."""
    argument = _argument(env, ctx)
    if argument is None:
        return ctx.default_return_type
    results = []
    for item in items(argument):
        operand = classify(item)
        if operand is not None and operand.array is not None:
            results.append(ctx.default_return_type)  # an array of ours: not a reflected call
        else:
            results.append(_pair(env, ctx, op, item, ctx.type))
    return _union(results)


def scalar_callback(env: Env, op: str, ctx: MethodContext) -> Type:
    """Type ``scalar OP array`` through the scalar's own operator (``int.__add__``, …)."""
    argument = _argument(env, ctx)
    if argument is None:
        return ctx.default_return_type
    if not isinstance(argument, UnionType):
        if not is_array(argument):
            if op == "pow":
                return _int_power(ctx, argument)
            return ctx.default_return_type  # scalar arithmetic: nothing of ours
        return _pair(env, ctx, op, ctx.type, argument)
    parts = items(argument)
    if not any(is_array(p) for p in parts):
        return ctx.default_return_type
    return _union(
        [
            _pair(env, ctx, op, ctx.type, item) if is_array(item) else _alone(ctx, op, item)
            for item in parts
        ]
    )


def _alone(ctx: MethodContext, op: str, item: ProperType) -> Type:
    """``scalar OP item`` for an item of a union that is not an array of ours, as mypy has it.

    The scalar's operator takes the union only because the plugin widened it
    (``scalar_signature_callback``): a NumPy array in it (which promotes to
    ``Array[Any]``) gets NumPy's answer, through its reflected operator
    (``w * (ndarray | jax.Array)``, jax-cfd: ``ndarray | Array``, not ``float | Array``).
    """
    found = internals.operator(ctx.api, f"__{op}__", ctx.type, item, ctx.context)
    return ctx.default_return_type if found is None else found


def numpy_callback(env: Env, op: str, reflected: bool, ctx: MethodContext) -> Type:
    """Type ``ndarray OP array`` with an array of ours on the right: JAX's result.

    ``jax.Array`` (a base of ``Array`` when JAX is installed) converts to a
    NumPy array, so NumPy's own operator accepts it statically; at run time
    NumPy defers to the JAX array (its ``__array_priority__``), whose reflected
    operator computes the result.  ``reflected``: the hook of ``ndarray.__radd__``
    and its kind, which mypy 1.x tries before ``Array.__add__`` in ``array + ndarray``
    (``ndarray`` promotes to ``Array[Any]``, so it counts as a subclass there).
    """
    argument = _argument(env, ctx)
    if argument is None:
        return ctx.default_return_type
    parts = items(argument)
    if not any(is_array(p) for p in parts):
        if op not in COMPARISON and (
            _numpy_of_any(ctx.type) or any(_numpy_of_any(p) for p in parts)
        ):
            return _numpy_unknown(ctx.default_return_type)
        return ctx.default_return_type
    if reflected:
        return _union([_pair(env, ctx, op, item, ctx.type) for item in parts])
    return _union([_pair(env, ctx, op, ctx.type, item) for item in parts])


def _numpy_of_any(typ: ProperType) -> bool:
    """Whether ``typ`` is a NumPy array of dtype ``Any`` (``NDArray[Any]``, ``np.ndarray``)."""
    if not isinstance(typ, Instance) or typ.type.fullname != names.NUMPY_NDARRAY:
        return False
    if len(typ.args) != 2:
        return True
    dtype = get_proper_type(typ.args[1])
    if isinstance(dtype, AnyType):
        return True
    return (
        isinstance(dtype, Instance)
        and len(dtype.args) == 1
        and isinstance(get_proper_type(dtype.args[0]), AnyType)
    )


def _numpy_unknown(default: Type) -> Type:
    """NumPy's result with its dtype made unknown (``NDArray[Any] @ NDArray[float16]``).

    NumPy's stubs answer an operand of dtype ``Any`` with their first
    matching overload (``float16`` there, where NumPy gives ``float32`` for
    a ``float32`` left operand): a guess the plugin never lets stand.
    """
    proper = get_proper_type(default)
    if (
        isinstance(proper, Instance)
        and proper.type.fullname == names.NUMPY_NDARRAY
        and len(proper.args) == 2
    ):
        dtype = get_proper_type(proper.args[1])
        if isinstance(dtype, Instance) and len(dtype.args) == 1:
            unknown = dtype.copy_modified(args=[AnyType(TypeOfAny.special_form)])
            return proper.copy_modified(args=[proper.args[0], unknown])
    return default


def _literal_int(typ: ProperType) -> int | None:
    value: object = None
    if isinstance(typ, LiteralType):
        value = typ.value
    elif isinstance(typ, Instance) and typ.last_known_value is not None:
        value = typ.last_known_value.value
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _int_power(ctx: MethodContext, exponent: ProperType) -> Type:
    """``n ** 32`` is an ``int``: typeshed types a power of ints ``Any`` unless the exponent is a
    literal up to 25 (a negative exponent gives a float), which hides a dtype further on."""
    base = ctx.type
    power = _literal_int(exponent)
    if (
        power is not None
        and power >= 0
        and isinstance(base, Instance | LiteralType)
        and (base.fallback if isinstance(base, LiteralType) else base).type.fullname
        == "builtins.int"
        and isinstance(get_proper_type(ctx.default_return_type), AnyType)
    ):
        return ctx.api.named_generic_type("builtins.int", [])
    return ctx.default_return_type


def index_callback(env: Env, ctx: MethodContext) -> Type:
    """Check ``array[key]``: an array in the key must have an integer or boolean dtype.

    JAX refuses a float index array (``TypeError: Indexer must have integer or
    boolean type``): that is a ``dtype-promotion`` error (a true division
    where a floor division was meant, typically).
    """
    from typing_pkg.dtypes import BY_NAME

    if len(ctx.arg_types) != 1 or len(ctx.arg_types[0]) != 1:
        return ctx.default_return_type
    key = get_proper_type(ctx.arg_types[0][0])
    parts = key.items if isinstance(key, TupleType) else [key]
    for part in parts:
        operand = classify(get_proper_type(part))
        if operand is None or not operand.is_array or operand.name is None:
            continue
        marker = BY_NAME.get(operand.name)
        if marker is not None and not marker.abstract and marker.kind not in "biu":
            error_bad_index(ctx.api, ctx.context, part)
    return ctx.default_return_type


def float_rpow_callback(ctx: MethodContext) -> Type:
    """``n ** 0.5`` is a ``float`` for a positive int ``n`` mypy knows (a negative one gives a
    complex number: typeshed says ``Any``, which hides a dtype further on)."""
    argument = _argument(None, ctx)
    if argument is None:
        return ctx.default_return_type
    base = _literal_int(argument)
    if (
        base is not None
        and base > 0
        and isinstance(get_proper_type(ctx.default_return_type), AnyType)
    ):
        return ctx.api.named_generic_type("builtins.float", [])
    return ctx.default_return_type


def _unary(env: Env, ctx: _Context, op: str, item: ProperType) -> Type | None:
    """Return the type of ``OP item`` for an array of ours, ``None`` for anything else."""
    operand = classify(item)
    if operand is None or operand.array is None:
        return None
    answer = None if operand.name is None else env.answers.get(op, operand.name)
    if isinstance(answer, str):
        return env.array(operand.array, answer, ctx)
    if answer is None:
        # abs() changes a complex dtype: only another unknown is safe.
        return env.array(operand.array, None, ctx) if op == "abs" else ctx.default_return_type
    if isinstance(answer, Undefined):
        error_undefined_unary(ctx.api, ctx.context, env.rules, SYMBOL[op], item, answer.reason)
    else:
        error_unexpected(ctx.api, ctx.context, answer.detail)
    return env.array(operand.array, None, ctx)


def unary_callback(env: Env, op: str, ctx: MethodContext) -> Type:
    """Type ``-array``, ``+array``, ``~array`` and ``array.__abs__()``."""
    found = _unary(env, ctx, op, ctx.type)
    return ctx.default_return_type if found is None else found


def abs_callback(env: Env, ctx: FunctionContext) -> Type:
    """Type ``abs(array)`` (``builtins.abs``: ``__abs__`` is not called through a method hook)."""
    if len(ctx.arg_types) != 1 or len(ctx.arg_types[0]) != 1:
        return ctx.default_return_type
    results = []
    for item in items(ctx.arg_types[0][0]):
        found = _unary(env, ctx, "abs", item)
        if found is None:
            return ctx.default_return_type  # not only arrays of ours
        results.append(found)
    return _union(results)


def abs_signature_callback(ctx: FunctionSigContext) -> FunctionLike:
    """Spare mypy the generic ``SupportsAbs`` inference for ``abs(name)`` of an array variable.

    Resolving ``__abs__``'s self-typed overloads against a precise dtype costs
    more than all the rest of a typical expression, and ``abs_callback`` types
    ``abs()`` of an array from the rules anyway: for a variable declared (or
    inferred) as an array, the signature becomes ``(Array[Any]) -> Array[Any]``.
    """
    signature = ctx.default_signature
    if len(ctx.args) != 1 or len(ctx.args[0]) != 1:
        return signature
    expr = ctx.args[0][0]
    if not isinstance(expr, NameExpr) or not isinstance(expr.node, Var):
        return signature
    declared = get_proper_type(expr.node.type)
    if not isinstance(declared, Instance):
        return signature
    array = array_class(declared.type)
    if array is None:
        return signature
    anything = any_array(array)
    return signature.copy_modified(arg_types=[anything], ret_type=anything, variables=[])


def astype_callback(env: Env, ctx: MethodContext) -> Type:
    """Type ``array.astype(dtype)`` as ``Array[dtype]`` for a marker, a name or a NumPy type."""
    receiver = classify(ctx.type)
    if receiver is None or receiver.array is None or not ctx.arg_types or not ctx.arg_types[0]:
        return ctx.default_return_type
    token = dtype_token(env.read(ctx))
    name = token if isinstance(token, str) else getattr(token, "name", None)
    marker = BY_NAME.get(name) if isinstance(name, str) else None
    if marker is None or marker.abstract:
        return ctx.default_return_type
    return env.array(receiver.array, marker.name, ctx)


# ------------------------------------------------------------ promote_types


def _rules_argument(ctx: FunctionContext) -> str | None:
    """Return the ``rules=`` of a call if the plugin knows it statically, else ``None``.

    Absent, it is the run-time default.  A literal counts if it names a
    built-in rule set, the configured one or one registered by it; a
    reference to a module (``"pkg.mod:RULES"``) is not imported on the
    program's say-so, and another name may be registered at run time: both
    are unknown statically, as a ``rules=`` that is not a literal is.
    """
    if names.RULES_ARGUMENT not in ctx.callee_arg_names:
        return DEFAULT
    index = ctx.callee_arg_names.index(names.RULES_ARGUMENT)
    if not ctx.arg_types[index]:
        return DEFAULT
    proper = get_proper_type(ctx.arg_types[index][0])
    value: object = None
    if isinstance(proper, LiteralType):
        value = proper.value
    elif isinstance(proper, Instance) and proper.last_known_value is not None:
        value = proper.last_known_value.value
    if not isinstance(value, str) or (":" in value and value not in rule_set_names()):
        return None
    try:
        get_rules(value)  # built-in (imported on first use) or already registered
    except UnknownRulesError:
        return None
    except Exception as error:  # building a rule set of typing_pkg: a bug
        error_unexpected(
            ctx.api, ctx.context, f"building the {value!r} rules raised {type(error).__name__}: "
            f"{error}"
        )  # fmt: skip
        return None
    return value


def _static_marker(ctx: FunctionContext, function: str, token: object) -> type[DType] | None:
    """Return the marker a dtype-like token stands for; ``None`` if unknown or reported.

    A string that is not a dtype makes the call fail at run time: that is
    reported (``dtype-promotion``), as an undefined promotion is.
    """
    from typing_pkg.dtypelike import to_marker

    if isinstance(token, str):
        try:
            marker = to_marker(token)
        except Exception as error:  # TypeError, or NumPy's parser: the call raises it too
            error_undefined_promotion(ctx.api, ctx.context, function, str(error))
            return None
    elif token is None:
        return None
    else:
        marker = to_marker(token)  # a marker class or a Python scalar type: always one
    return None if marker.abstract else marker  # a category: not known statically


def _marker_class(env: Env, marker: type[DType], ctx: FunctionContext) -> Type:
    found = env.marker(marker.name, ctx)
    return ctx.default_return_type if found is None else TypeType.make_normalized(found)


_SCALAR_VALUES: Final = {"py_bool": False, "py_int": 0, "py_float": 0.0, "py_complex": 0j}


def promote_types_callback(env: Env, ctx: FunctionContext) -> Type:
    """Type ``promote_types(a, b)`` as ``type[<promoted marker>]`` under its ``rules=``."""
    from typing_pkg.promotion import PromotionError, promote_types

    rules = _rules_argument(ctx)
    if rules is None or len(ctx.arg_types) < 2:
        return ctx.default_return_type
    markers: list[type[DType]] = []
    for index, formal in enumerate(ctx.arg_types[:2]):
        if len(formal) != 1:
            return ctx.default_return_type
        marker = _static_marker(ctx, "promote_types", dtype_token(env.read(ctx, index)))
        if marker is None:
            return ctx.default_return_type
        markers.append(marker)
    try:
        promoted = promote_types(markers[0], markers[1], rules=rules)
    except PromotionError as error:
        error_undefined_promotion(ctx.api, ctx.context, "promote_types", str(error))
        return ctx.default_return_type
    except Exception as error:  # a rule set is code (maybe a user's): never crash mypy
        error_unexpected(
            ctx.api, ctx.context, f"promote_types({markers[0].name}, {markers[1].name}, "
            f"rules={rules!r}) raised {type(error).__name__}: {error}",
        )  # fmt: skip
        return ctx.default_return_type
    return _marker_class(env, promoted, ctx)


def _result_type_operand(ctx: FunctionContext, item: Type) -> object | None:
    """Return the run-time stand-in of one ``result_type`` argument (``None``: unknown)."""
    proper = get_proper_type(item)
    operand = classify(proper)
    if operand is not None and operand.name is not None:
        if operand.name in _SCALAR_VALUES:
            return _SCALAR_VALUES[operand.name]
        dtype = BY_NAME[operand.name]
        return None if dtype.abstract else dtype
    return _static_marker(ctx, "result_type", dtype_token(proper))


def result_type_callback(env: Env, ctx: FunctionContext) -> Type:
    """Type ``result_type(*arrays_scalars_and_dtypes)`` under its ``rules=``."""
    from typing_pkg.promotion import PromotionError, result_type

    rules = _rules_argument(ctx)
    if rules is None or not ctx.arg_types or not ctx.arg_types[0]:
        return ctx.default_return_type
    if any(kind != ARG_POS for kind in ctx.arg_kinds[0]):
        return ctx.default_return_type  # result_type(*xs): not known statically
    operands = []
    for item in env.dtype_names.read_all(ctx.api, [ctx.arg_types[0]], [ctx.args[0]])[0]:
        operand = _result_type_operand(ctx, item)
        if operand is None:
            return ctx.default_return_type
        operands.append(operand)
    try:
        promoted = result_type(*operands, rules=rules)
    except PromotionError as error:
        error_undefined_promotion(ctx.api, ctx.context, "result_type", str(error))
        return ctx.default_return_type
    except Exception as error:  # a rule set is code (maybe a user's): never crash mypy
        error_unexpected(
            ctx.api, ctx.context, f"result_type{tuple(operands)!r} under {rules!r} raised "
            f"{type(error).__name__}: {error}",
        )  # fmt: skip
        return ctx.default_return_type
    if promoted.abstract:
        return ctx.default_return_type
    return _marker_class(env, promoted, ctx)


# --------------------------------------------------------- signature hooks


def _widening(env: Env, api: CheckerPluginInterface, array: TypeInfo, reflected: bool) -> Type:
    """Return what an array operator's parameter must also accept (built once per class)."""
    builtins_int = api.named_generic_type("builtins.int", []).type
    key = (array, builtins_int, reflected)
    found = env.widened.get(key)
    if found is not None:
        return found
    accepted: list[Type] = [api.named_generic_type(n, []) for n in names.BUILTIN_SCALARS]
    for fullname in (names.NUMPY_NDARRAY, names.NUMPY_GENERIC):
        node = env.lookup(fullname)
        if node is not None and isinstance(node.node, TypeInfo):
            accepted.append(fill_typevars_with_any(node.node))
    if not reflected:
        accepted.append(any_array(array))
    widened = UnionType.make_union(accepted)
    env.widened[key] = widened
    return widened


def _accepts(
    env: Env, signature: CallableType, args: list[list[Expression]], api: CheckerPluginInterface
) -> bool:
    """Whether the operator's own parameter already accepts the (known) argument.

    Only arrays of ours and the Python scalar classes the parameter names
    count; anything else (a NumPy type, a complex for ``//``, an unknown
    argument) needs the widened parameter.
    """
    if len(args) != 1 or len(args[0]) != 1:
        return False
    argument = _expression_type(api, args[0][0])
    if argument is None:
        return False
    proper = get_proper_type(argument)
    if isinstance(proper, Instance) and proper.type.fullname == names.ARRAY:
        return True  # the common case: every forward operator takes an Array[Any]
    accepted = _accepted(env, signature)
    for item in items(argument):
        operand = env.classify(item)
        if operand is None:
            return False
        if operand.array is not None:
            if names.ARRAY not in accepted:
                return False
        elif operand.is_array or operand.name not in _SCALAR_CLASSES:
            return False  # NumPy
        elif _SCALAR_CLASSES[operand.name] not in accepted:
            return False
    return True


_SCALAR_CLASSES: Final = {kind: fullname for fullname, kind in names.BUILTIN_SCALARS.items()}


def _accepted(env: Env, signature: CallableType) -> frozenset[str]:
    """Return the classes the operator's parameter names (memoised per method definition)."""
    original = getattr(signature.definition, "type", None)
    found = env.accepted.get(id(original))
    if found is not None and found[0] is original:
        return found[1]
    accepted = frozenset(
        t.type.fullname for t in items(signature.arg_types[0]) if isinstance(t, Instance)
    )
    if original is not None:
        env.accepted[id(original)] = (original, accepted)
    return accepted


def index_signature_callback(ctx: MethodSigContext) -> FunctionLike:
    """Let ``Array.__getitem__`` take any key, as ``jax.Array``'s does.

    JAX declares ``jax.Array.__getitem__(self, key, …)`` without a type for
    the key; a pytree typed ``Array[Any] | Mapping[str, …]`` indexed with
    ``"position"`` is JAX's business, not a dtype error.  The dtype of an
    index array is still checked (``index_callback``).
    """
    signature = ctx.default_signature
    if not isinstance(ctx.type, Instance) or not signature.arg_types:
        return signature
    return signature.copy_modified(
        arg_types=[AnyType(TypeOfAny.special_form), *signature.arg_types[1:]]
    )


def array_signature_callback(env: Env, reflected: bool, ctx: MethodSigContext) -> FunctionLike:
    """Let an array operator accept every operand the rules decide on.

    Python scalars of every kind, arrays (not for the reflected forms: an array
    on the left is typed by its own forward method) and NumPy arrays and
    scalars: the rules, not the fallback signature, decide what is undefined,
    so that the error is ``dtype-promotion`` with its explanation.
    """
    signature = ctx.default_signature
    receiver = ctx.type
    if not isinstance(receiver, Instance) or len(signature.arg_types) != 1:
        return signature
    if _accepts(env, signature, ctx.args, ctx.api):
        return signature  # the common case: arrays, and the scalars the operator takes
    array = array_class(receiver.type)
    if array is None:
        return signature
    widened = _widening(env, ctx.api, array, reflected)
    return signature.copy_modified(
        arg_types=[UnionType.make_union([signature.arg_types[0], widened])]
    )


def _expression_type(api: CheckerPluginInterface, expr: Expression) -> Type | None:
    """Return the type mypy already inferred for an operand expression, if it did."""
    if isinstance(expr, TempNode):
        return expr.type
    return internals.type_of(api, expr)


def scalar_signature_callback(ctx: MethodSigContext) -> FunctionLike:
    """Let ``int.__add__`` & co accept our arrays, so the method hook types ``1 + (a | b)``.

    Without it mypy types ``1 + (a | b)`` through the union's ``__radd__``,
    where no hook runs; with it, the scalar's own operator (hooked) does.
    Only the first parameter widens (``float.__pow__`` also takes ``mod``).
    """
    signature = ctx.default_signature
    if not signature.arg_types or not ctx.args or len(ctx.args[0]) != 1:
        return signature
    argument = _expression_type(ctx.api, ctx.args[0][0])
    if argument is None:
        return signature
    arrays: list[Type] = [p for p in items(argument) if is_array(p)]
    if not arrays:
        return signature
    first = UnionType.make_union([signature.arg_types[0], *arrays])
    return signature.copy_modified(arg_types=[first, *signature.arg_types[1:]])


def _is_inferred(array: TypeInfo) -> bool:
    """Whether an operand's array class is ``InferredArray`` (``Any`` to mypy alone): so is
    the result of an operator that has one (``Any + x`` is ``Any`` to mypy alone)."""
    return array.fullname == names.INFERRED_ARRAY


def dtype_attribute_callback(env: Env, ctx: AttributeContext) -> Type:
    """``x.dtype`` of an array of unknown dtype: JAX's ``numpy.dtype[Any]``, not ``type[Any]``.

    ``Array[DT].dtype`` is ``type[DT]``.  JAX declares ``jax.Array.dtype`` a
    NumPy ``dtype``, and its users return it or pass it where they annotated
    ``jnp.dtype`` or to ``jnp.dtype(...)``: a marker's class object goes there
    (its metaclass falls back to ``Any``: ``jax_array.customize_dtype_meta``);
    for an unknown dtype there is no marker to keep, and JAX's type is the one
    that goes everywhere JAX's users put it.
    """
    proper = get_proper_type(ctx.default_attr_type)
    if isinstance(proper, TypeType) and (
        isinstance(proper.item, AnyType) or _is_category(proper.item)
    ):  # a category (Array[floating], jaxtyping's Float[Array, ...]) names no one dtype either
        return ctx.api.named_generic_type(names.NUMPY_DTYPE, [AnyType(TypeOfAny.special_form)])
    return ctx.default_attr_type


def _is_category(typ: Type) -> bool:
    """Whether ``typ`` is an abstract marker (``floating``), a category of dtypes."""
    proper = get_proper_type(typ)
    if not isinstance(proper, Instance):
        return False
    module, _, name = proper.type.fullname.rpartition(".")
    marker = BY_NAME.get(name) if module == names.DTYPES_MODULE else None
    return marker is not None and marker.abstract


@contextmanager
def _past_fallback_to_any(ctx: _Context, inferred: bool) -> Iterator[None]:
    """Report an operator's dtype error where mypy would drop it: an ``InferredArray`` operand.

    mypy tries ``a.__add__(b)`` and then ``b.__radd__(a)`` each under a filter of
    their errors, and when both fail and an operand's class falls back to ``Any``
    (``InferredArray`` does) it answers ``Any`` and drops the errors.  The dtype
    error is real (an ``InferredArray``'s dtype is as sure as an ``Array``'s):
    it is reported past that filter, the innermost one, which saves what it
    filters (mypy's ``check_op_reversible``); the operator call then succeeds.
    """
    if not inferred:
        yield
        return
    with internals.past_innermost_filter(ctx.api):
        yield
