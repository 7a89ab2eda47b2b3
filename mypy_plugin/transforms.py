"""JAX's transformations keep the function's type; ``lax``'s loops keep the carry's.

* ``jax.jit``, ``jax.pmap`` (call and decorator forms, ``functools.partial(jax.jit,
  static_argnums=…)`` too) give back the function's own callable type —
  its parameters and result, so that calls through it are checked and keep
  their dtypes, and the call-site specialisation of ``mypy_plugin.inference``
  still reaches its body — whose attributes are those of JAX's wrapper
  (``jax._src.pjit.JitWrapped``: ``.lower(...)``, ``.trace(...)``,
  ``.eval_shape(...)``): the callable's *fallback* class, where mypy looks
  attributes of a callable up.  No class of ours is needed.
* ``jax.checkpoint``/``jax.remat`` give back the function's callable type;
  ``jax.vmap`` is typed so by JAX (``F -> F``).
* ``jax.grad`` and ``jax.value_and_grad``: the gradient has the type of the
  argument it is taken with respect to (each of ``argnums``' when it is a
  tuple), through a type variable per differentiated parameter; ``has_aux``
  adds the auxiliary value (the second item of the function's declared
  result) and ``value_and_grad`` the value.
* ``lax.scan``, ``lax.fori_loop``, ``lax.while_loop``: the result's carry has
  the initial carry's type (JAX requires the body to keep it); when the body
  is a function of the module, it is specialised with the carry's type (and
  the scanned slices'), and a carry whose dtype the body changes is an error
  (``dtype-promotion``), as JAX raises one.  ``lax.cond``'s branches are
  specialised with the operands and must agree on dtypes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from mypy import errorcodes as codes
from mypy.nodes import (
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    CallExpr,
    Context,
    Decorator,
    Expression,
    FuncDef,
    IntExpr,
    LambdaExpr,
    RefExpr,
    SymbolTableNode,
    TupleExpr,
    Var,
)
from mypy.plugin import AttributeContext, CheckerPluginInterface, FunctionContext, MethodContext
from mypy.subtypes import is_same_type, is_subtype
from mypy.typeops import make_simplified_union
from mypy.types import (
    AnyType,
    CallableType,
    Instance,
    LiteralType,
    NoneType,
    Overloaded,
    ProperType,
    TupleType,
    Type,
    TypeOfAny,
    TypeVarId,
    TypeVarType,
    UnionType,
    get_proper_type,
)

from mypy_plugin import keyed_dicts, names, pytrees
from mypy_plugin import mypy_internals as internals
from mypy_plugin.errors import error_carry, withdraw
from mypy_plugin.inference import Inference
from mypy_plugin.program_types import (
    arrays_only,
    as_mypy_any,
    dtype_view,
    erase_dtypes,
    program_arrays,
)
from mypy_plugin.types import Lookup, class_named, classify, expand, inferred, literal_bool

__all__ = [
    "GRADIENT",
    "JIT_DECORATOR",
    "TRACED",
    "Transforms",
    "declared_callee",
    "gradient_mark",
    "replace_jitted_method",
    "traced",
    "transformed_lambda",
]

_AUX_INDEX: Final = 1
TRACED: Final = "typing_pkg.transform."
"""The name of what ``jax.vmap(f)``, ``jax.jit(f)``, … return (a decorated function gets its
own back): the plugin hooks it, and its calls pass JAX arrays to ``f`` (``traced``)."""
JIT_DECORATOR: Final = "typing_pkg.decorator.jit"
"""The name of the decorator ``jax.jit(static_argnums=…)`` returns (the plugin hooks it)."""
GRADIENT: Final = "typing_pkg.gradient."
_GRADIENT_MARK: Final = GRADIENT
"""The full name of a gradient's type variables: ``typing_pkg.gradient.value_and_grad+aux``
marks the callable ``jax.value_and_grad(f, has_aux=True)`` returns (its definition is ``f``'s,
which a type variable's full name survives every copy of)."""


def _argument(ctx: FunctionContext, name: str) -> tuple[Type, Expression] | None:
    """The one argument given for the parameter ``name`` (``None`` if absent or several)."""
    if name not in ctx.callee_arg_names:
        return None
    index = ctx.callee_arg_names.index(name)
    if len(ctx.arg_types[index]) != 1:
        return None
    return ctx.arg_types[index][0], ctx.args[index][0]


def _first(ctx: FunctionContext) -> tuple[Type, Expression] | None:
    if not ctx.arg_types or len(ctx.arg_types[0]) != 1:
        return None
    return ctx.arg_types[0][0], ctx.args[0][0]


def _literal_int(typ: Type, expr: Expression) -> int | None:
    if isinstance(expr, IntExpr):
        return expr.value
    proper = get_proper_type(typ)
    if isinstance(proper, LiteralType) and isinstance(proper.value, int):
        return proper.value
    if isinstance(proper, Instance) and proper.last_known_value is not None:
        value = proper.last_known_value.value
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    return None


_ERASING: Final = frozenset({"jit", "pmap", "checkpoint"})
"""The transformations JAX's own types erase (``JitWrapped``, ``Callable``); ``vmap`` keeps
its function's type (``F -> F``)."""


def _in_jax(api: CheckerPluginInterface) -> bool:
    """Whether the module being checked is JAX's own (whose jitted functions the table types)."""
    tree = internals.module_checked(api)
    return tree is not None and tree.fullname.partition(".")[0] in _JAX_PACKAGES


_JAX_PACKAGES: Final = frozenset({"jax", "jaxlib"})


def _callable(typ: Type) -> CallableType | None:
    proper = get_proper_type(typ)
    return proper if isinstance(proper, CallableType) else None


class Transforms:
    """The transformation and control-flow callbacks, bound to the build."""

    def __init__(self, lookup: Lookup, inference: Inference) -> None:
        self.lookup = lookup
        self.inference = inference
        self._jitted_methods: dict[str, bool] = {}

    # ------------------------------------------------------------- wrappers

    def jitted_method(self, fullname: str) -> bool | None:
        """Whether ``fullname`` is a method ``jax.jit`` decorates (memoised once typed;
        ``None``: its decorator is not typed yet)."""
        known = self._jitted_methods.get(fullname)
        if known is None:
            known = _jitted_method(self.lookup(fullname))
            if known is not None:
                self._jitted_methods[fullname] = known
        return known

    def _wrapper(self) -> Instance | None:
        info = class_named(self.lookup, names.JIT_WRAPPED)
        return None if info is None else Instance(info, [])

    def wrapped(
        self, kind: str, fun: Type, api: CheckerPluginInterface, context: Context
    ) -> Type | None:
        """The type of ``jit(fun)`` and the like, or ``None`` to keep mypy's.

        JAX's own types erase what ``jit``, ``pmap`` and ``checkpoint``
        return (``JitWrapped.__call__(*args, **kwargs) -> Any``): the plugin
        shows only what dtypes depend on (``program_types.dtype_view``), so that
        no error JAX's types hide appears (a ``State`` returned where another
        is declared, a library's ``step`` declared ``-> float`` returning an
        array).  In JAX's own modules (``@partial(jit, …) def norm(x, ord:
        int | str | None = None)``) every parameter takes anything and the
        result is kept: the JAX API table's rules read it.
        """
        function = _callable(fun)
        if function is None or function.is_type_obj():
            return None
        if isinstance(context, Decorator) and self._name_rebound(api, context):
            return None
        if kind in _ERASING:
            if _in_jax(api):
                function = function.copy_modified(
                    arg_types=[AnyType(TypeOfAny.special_form)] * len(function.arg_types)
                )
            else:
                function = dtype_view(function)
            inferred_array = class_named(self.lookup, names.INFERRED_ARRAY)
            if inferred_array is not None:  # Any to mypy alone
                function = function.copy_modified(
                    ret_type=inferred(function.ret_type, inferred_array, unknown_as_any=False)
                )
        if kind in ("jit", "pmap"):
            wrapper = self._wrapper()
            if wrapper is None:
                return None
            return function.copy_modified(fallback=wrapper, name=TRACED + kind)
        if kind in ("checkpoint", "vmap"):
            return function.copy_modified(name=TRACED + kind)
        return None

    def _name_rebound(self, api: CheckerPluginInterface, decorator: Decorator) -> bool:
        """Whether the decorated function's name is bound again (``f = jit(partial(f, …))``).

        The name then keeps JAX's own type (an object taking any arguments), as
        mypy keeps a name's first type for every later value.
        """
        facts = self.inference.facts(api)
        return facts is not None and id(decorator.func) in facts.rebound_functions

    def transform_callback(self, kind: str, ctx: FunctionContext) -> Type:
        """``jax.jit(f, …)``, ``jax.checkpoint(f)``, ``jax.pmap(f)``, ``jax.grad(f, …)``.

        ``jax.jit(static_argnums=…)`` without the function is a decorator: its
        callable type gets a name the plugin hooks (``decorator_callback``).
        """
        fun = _argument(ctx, "fun") or _first(ctx)
        made = None
        if fun is not None and isinstance(get_proper_type(fun[0]), AnyType):
            made = self.inference.made_function(fun[1])  # jax.jit(make_train(config))
            if made is not None:
                fun = (made, fun[1])
        if fun is None:
            default = get_proper_type(ctx.default_return_type)
            if kind == "jit" and isinstance(default, CallableType):
                return default.copy_modified(name=JIT_DECORATOR)
            return ctx.default_return_type
        if kind in ("grad", "value_and_grad", "hessian"):
            found = self._gradient(kind, ctx, fun[0])
        elif kind == "vmap" and made is None and not is_same_type(ctx.default_return_type, fun[0]):
            # JAX types vmap F -> F: mypy solved F from the context (``g = partial(…)``
            # then ``g = vmap(h)``: the variable's type), and reports what does not fit.
            found = None
        else:
            found = self.wrapped(kind, fun[0], ctx.api, ctx.context)
        return ctx.default_return_type if found is None else found

    def decorator_callback(self, ctx: FunctionContext) -> Type:
        """Apply what ``jax.jit(static_argnums=…)`` returns to a function."""
        fun = _first(ctx)
        found = None if fun is None else self.wrapped("jit", fun[0], ctx.api, ctx.context)
        return ctx.default_return_type if found is None else found

    def partial_callback(
        self, default: Callable[[MethodContext], Type] | None, ctx: MethodContext
    ) -> Type:
        """``functools.partial(jax.jit, static_argnums=…)(f)``: mypy's own result, then jit's."""
        result = default(ctx) if default is not None else ctx.default_return_type
        kind = self._partial_transform(ctx)
        if kind is None or kind in ("grad", "value_and_grad"):
            return result
        if len(ctx.arg_types) < 1 or len(ctx.arg_types[0]) != 1:
            return result
        found = self.wrapped(kind, ctx.arg_types[0][0], ctx.api, ctx.context)
        return result if found is None else found

    @staticmethod
    def _partial_transform(ctx: MethodContext) -> str | None:
        """The transformation a ``functools.partial`` object wraps, read from its expression."""
        context = ctx.context
        made: Expression | None = None
        if isinstance(context, CallExpr):
            made = context.callee
        elif isinstance(context, Decorator):
            partials = [
                d
                for d in context.decorators
                if isinstance(d, CallExpr)
                and isinstance(d.callee, RefExpr)
                and d.callee.fullname == names.FUNCTOOLS_PARTIAL
            ]
            made = partials[0] if len(partials) == 1 else None
        if not (
            isinstance(made, CallExpr)
            and isinstance(made.callee, RefExpr)
            and made.callee.fullname == names.FUNCTOOLS_PARTIAL
            and made.args
            and isinstance(made.args[0], RefExpr)
        ):
            return None
        return names.TRANSFORMS.get(made.args[0].fullname)

    # ------------------------------------------------------------- gradients

    def _gradient(self, kind: str, ctx: FunctionContext, fun: Type) -> Type | None:
        function = _callable(fun)
        if function is None or function.variables or function.is_type_obj():
            return None
        argnums: list[int] = []
        given = _argument(ctx, "argnums")
        if given is None:
            argnums = [0]
            many = False
        else:
            typ, expr = given
            many = isinstance(expr, TupleExpr)
            if many:
                assert isinstance(expr, TupleExpr)
                for item in expr.items:
                    value = _literal_int(AnyType(TypeOfAny.special_form), item)
                    if value is None:
                        return None
                    argnums.append(value)
            else:
                value = _literal_int(typ, expr)
                if value is None:
                    return None
                argnums = [value]
        has_aux = False
        aux_given = _argument(ctx, "has_aux")
        if aux_given is not None:
            aux = literal_bool(aux_given[0])
            if aux is None:
                return None
            has_aux = aux
        positional = [i for i, k in enumerate(function.arg_kinds) if k.is_positional()]
        if any(n >= len(positional) or n < 0 for n in argnums):
            return None
        api = ctx.api
        object_type = api.named_generic_type("builtins.object", [])
        variables: list[TypeVarType] = []
        # JAX declares what grad returns a bare Callable: the parameters not differentiated
        # take anything, as do extra ones (ott declares the derivative it passes on
        # Callable[[Array, float], Array]); the gradients are the type variables below,
        # of any argument (JAX's Callable takes any).
        anything = AnyType(TypeOfAny.special_form)
        arg_types: list[Type] = [anything] * len(function.arg_types)
        for number, argnum in enumerate(argnums):
            index = positional[argnum]
            variable = TypeVarType(
                f"_Grad{number}",
                f"{_GRADIENT_MARK}{kind}{'+aux' if has_aux else ''}",
                TypeVarId(-(number + 1)),
                [],
                object_type,
                AnyType(TypeOfAny.from_omitted_generics),
            )
            variables.append(variable)
            arg_types[index] = variable
        gradient: Type = (
            TupleType(list(variables), api.named_generic_type("builtins.tuple", [object_type]))
            if many
            else variables[0]
        )
        # The value and auxiliary data as JAX's Any would take them (a declared Callable's
        # return: jax-cfd's), with their arrays' dtypes (InferredArray).
        returned = self._declared_any(function.ret_type)
        tuple_fallback = api.named_generic_type("builtins.tuple", [AnyType(TypeOfAny.special_form)])
        if has_aux:
            declared_ret = get_proper_type(returned)
            aux_type: Type = AnyType(TypeOfAny.special_form)
            value_type: Type = AnyType(TypeOfAny.special_form)
            if isinstance(declared_ret, TupleType) and len(declared_ret.items) == 2:
                value_type, aux_type = declared_ret.items
            if kind == "grad":
                result: Type = TupleType([gradient, aux_type], tuple_fallback)
            else:
                result = TupleType(
                    [TupleType([value_type, aux_type], tuple_fallback), gradient], tuple_fallback
                )
        elif kind in ("grad", "hessian"):
            result = gradient
        else:
            result = TupleType([returned, gradient], tuple_fallback)
        mark = f"{_GRADIENT_MARK}{kind}{'+aux' if has_aux else ''}"
        arg_kinds, arg_names = list(function.arg_kinds), list(function.arg_names)
        if ARG_STAR not in arg_kinds:  # before the keyword-only ones, as Python has it
            at = next((i for i, k in enumerate(arg_kinds) if k.is_named() or k == ARG_STAR2), None)
            at = len(arg_kinds) if at is None else at
            arg_types.insert(at, anything)
            arg_kinds.insert(at, ARG_STAR)
            arg_names.insert(at, None)
        if ARG_STAR2 not in arg_kinds:
            arg_types.append(anything)
            arg_kinds.append(ARG_STAR2)
            arg_names.append(None)
        return function.copy_modified(
            arg_types=arg_types,
            arg_kinds=arg_kinds,
            arg_names=arg_names,
            ret_type=result,
            variables=variables,
            name=mark,
        )

    def gradient_call(self, ctx: FunctionContext | MethodContext) -> Type | None:
        """Type a call of ``grad(f)``/``value_and_grad(f)``: the value and auxiliary data are
        what ``f`` returns for these arguments (specialised), the gradients mypy's."""
        context = ctx.context
        api = ctx.api
        if not isinstance(context, CallExpr) or not internals.checking(api):
            return None
        callee = get_proper_type(declared_callee(api, context.callee))
        mark = gradient_mark(callee)
        if mark is None or not isinstance(callee, CallableType):
            return None
        kind, _, aux = mark[len(_GRADIENT_MARK) :].partition("+")
        has_aux = aux == "aux"
        fallback = ctx.default_return_type
        if kind == "hessian":
            # The Hessian for an array is an array of its dtype; for a pytree, a nested pytree.
            proper_result = get_proper_type(fallback)
            if not (isinstance(proper_result, Instance) and classify(proper_result) is not None):
                fallback = AnyType(TypeOfAny.special_form)
        value = self._function_value(ctx, callee)  # f is checked for these arguments too
        # JAX declares what grad(f) returns Any: every part keeps only its arrays, and the
        # value and auxiliary data are Any to mypy alone (InferredArray), as a jitted call's
        # result is.  The gradients stay the arrays mypy solved them to (as the arguments,
        # by the type variable of the parameter: a loop's next call is solved in their
        # context).
        if value is None or (kind != "value_and_grad" and not has_aux):
            return program_arrays(api, fallback)
        default = get_proper_type(fallback)
        if not isinstance(default, TupleType) or len(default.items) != 2:
            return program_arrays(api, fallback)
        if kind == "value_and_grad":
            gradients = program_arrays(api, default.items[1])
            return default.copy_modified(items=[self._as_mypy(api, value), gradients])
        proper = get_proper_type(value)
        if isinstance(proper, TupleType) and len(proper.items) == 2:
            aux_type = self._as_mypy(api, proper.items[_AUX_INDEX])
            return default.copy_modified(items=[program_arrays(api, default.items[0]), aux_type])
        return program_arrays(api, fallback)

    def _declared_any(self, typ: Type) -> Type:
        """A declared type where JAX declares ``Any``: its arrays only, ``InferredArray``."""
        inferred_array = class_named(self.lookup, names.INFERRED_ARRAY)
        if inferred_array is None:
            return AnyType(TypeOfAny.special_form)
        return inferred(arrays_only(typ), inferred_array)

    def _as_mypy(self, api: CheckerPluginInterface, typ: Type) -> Type:
        """What mypy alone types ``Any``, as the plugin gives it (``program_types.as_mypy_any``)."""
        return as_mypy_any(api, typ, class_named(self.lookup, names.INFERRED_ARRAY))

    def _function_value(
        self, ctx: FunctionContext | MethodContext, callee: CallableType
    ) -> Type | None:
        """What the differentiated function returns for the call's arguments (specialised)."""
        api = ctx.api
        defn = callee.definition
        if not isinstance(defn, FuncDef):
            return None
        base = internals.signature_of(api, defn)
        if not isinstance(base, CallableType):
            return None
        added = [  # the *args and **kwargs what grad returns takes beyond the function's
            i
            for i, kind in enumerate(callee.arg_kinds)
            if kind in (ARG_STAR, ARG_STAR2) and kind not in base.arg_kinds
        ]
        if any(ctx.arg_types[i] for i in added if i < len(ctx.arg_types)):
            return None  # more arguments than the function takes
        arg_types = [t for i, t in enumerate(ctx.arg_types) if i not in added]
        if len(arg_types) != len(base.arg_types):
            return None
        found = self.inference.callee_function(api, base.copy_modified(definition=defn))
        if found is None:
            return None
        missing = AnyType(TypeOfAny.special_form)
        value = self.inference.specialise_call(
            api, found[1], defn, arg_types, None, ctx.context, missing
        )
        return None if get_proper_type(value) is missing else value

    # -------------------------------------------------------------- pytrees

    def tree_map_callback(self, ctx: FunctionContext) -> Type:
        """``jax.tree.map(f, tree, *rest)``: ``tree`` with each leaf replaced by ``f``'s result.

        Dicts, lists, tuples and NamedTuples are the pytree nodes mypy can see;
        ``None`` is an empty subtree; arrays (ours and NumPy's) and scalars are
        leaves.  ``f`` is applied to each leaf type (with the matching leaves of
        ``rest``): a function of the module or a lambda by specialisation,
        another callable through mypy's own call checking (so a JAX function's
        hook types it).  Any other structure keeps JAX's ``Any``.
        """
        if len(ctx.arg_types) < 2 or len(ctx.arg_types[0]) != 1 or len(ctx.arg_types[1]) != 1:
            return ctx.default_return_type
        api = ctx.api
        if not internals.checking(api):
            return ctx.default_return_type
        trees = self._trees(ctx)
        if trees is None:
            return ctx.default_return_type
        function_type, function = ctx.arg_types[0][0], ctx.args[0][0]
        tree, rests = trees

        def apply(leaves: list[Type]) -> Type:
            found = self.inference.specialise_function(api, function, function_type, leaves)
            if found is not None:
                return found
            return _call_through_mypy(api, function, function_type, leaves, ctx.context)

        mapped = _map_tree(tree, rests, apply)
        return ctx.default_return_type if mapped is None else mapped

    def _trees(self, ctx: FunctionContext) -> tuple[Type, list[Type]] | None:
        """``tree_map``'s tree and the other trees, with the keys of the dicts the program
        wrote (``pytrees``); ``tree_map(f, *trees)`` of a list or tuple of trees too."""
        facts = self.inference.facts(ctx.api)
        kinds = [kind for group in ctx.arg_kinds[1:] for kind in group]
        if not any(kind.is_star() for kind in kinds):
            found = [
                pytrees.refined(ctx.api, facts, expr, typ)
                for types_, exprs in zip(ctx.arg_types[1:], ctx.args[1:], strict=True)
                for typ, expr in zip(types_, exprs, strict=True)
            ]
            return found[0], found[1:]
        if ctx.arg_kinds[1] != [ARG_STAR] or any(len(group) > 1 for group in ctx.arg_types[2:]):
            return None
        if any(kind.is_star() for group in ctx.arg_kinds[3:] for kind in group):
            return None
        star = expand(pytrees.refined(ctx.api, facts, ctx.args[1][0], ctx.arg_types[1][0]))
        if isinstance(star, TupleType) and star.items:
            return star.items[0], list(star.items[1:])
        if isinstance(star, Instance) and star.type.fullname in _SEQUENCES and star.args:
            return star.args[0], [star.args[0]]  # as many trees as the list holds: one or more
        return None

    def tree_leaves_callback(self, ctx: FunctionContext) -> Type:
        """``jax.tree.leaves(tree)``: a list of its leaves (their union)."""
        if not ctx.arg_types or len(ctx.arg_types[0]) != 1:
            return ctx.default_return_type
        leaves: list[Type] = []

        def collect(found: list[Type]) -> Type:
            leaves.append(found[0])
            return found[0]

        if _map_tree(ctx.arg_types[0][0], [], collect) is None or not leaves:
            return ctx.default_return_type
        return ctx.api.named_generic_type("builtins.list", [make_simplified_union(leaves)])

    # ----------------------------------------------------------- control flow

    def control_callback(self, kind: str, ctx: FunctionContext) -> Type:
        """``lax.scan``, ``lax.fori_loop``, ``lax.while_loop``, ``lax.cond``."""
        if not internals.checking(ctx.api) or any(
            internals.has_uninhabited_component(t) for types in ctx.arg_types for t in types
        ):
            return ctx.default_return_type  # a carry of ``Never`` or ``{}``: mypy's own answer
        if kind == "scan":
            return self._scan(ctx)
        if kind == "fori_loop":
            return self._loop(ctx, "body_fun", "init_val", index=True)
        if kind == "while_loop":
            return self._loop(ctx, "body_fun", "init_val", index=False)
        if kind == "cond":
            return self._cond(ctx)
        return ctx.default_return_type

    def _keys(
        self, ctx: FunctionContext, argument: tuple[Type, Expression]
    ) -> tuple[Type, Expression]:
        """An argument's type with the keys of the dicts the program wrote (``pytrees``)."""
        typ, expr = argument
        return pytrees.refined(ctx.api, self.inference.facts(ctx.api), expr, typ), expr

    def _call_body(
        self, api: CheckerPluginInterface, body: tuple[Type, Expression], args: list[Type]
    ) -> Type | None:
        """What the body function (or lambda) returns for these arguments, ``None`` if unknown."""
        return self.inference.specialise_function(api, body[1], body[0], args)

    def _check_carry(self, ctx: FunctionContext, function: str, init: Type, out: Type) -> Type:
        """Report a carry whose dtypes the body changes; return the loop's carry type."""
        mismatch = _first_mismatch(init, out)
        if mismatch is not None:
            before, after = mismatch
            error_carry(ctx.api, ctx.context, function, before, after)
            return init
        return _prefer_strong(init, out)

    def _scan(self, ctx: FunctionContext) -> Type:
        body = _argument(ctx, "f") or _first(ctx)
        init = _argument(ctx, "init")
        if body is None or init is None:
            return ctx.default_return_type
        init = self._keys(ctx, init)
        xs = _argument(ctx, "xs")
        element: Type = NoneType() if xs is None else self._keys(ctx, xs)[0]
        out = self._call_body(ctx.api, body, [init[0], element])
        if out is None:
            return ctx.default_return_type
        proper = get_proper_type(out)
        default = get_proper_type(ctx.default_return_type)
        if not isinstance(proper, TupleType) or len(proper.items) != 2:
            return ctx.default_return_type
        carry = self._check_carry(ctx, "lax.scan", init[0], proper.items[0])
        if isinstance(default, TupleType) and len(default.items) == 2:
            return default.copy_modified(items=[carry, proper.items[1]])
        return ctx.default_return_type

    def _loop(self, ctx: FunctionContext, body_name: str, init_name: str, index: bool) -> Type:
        body = _argument(ctx, body_name)
        init = _argument(ctx, init_name)
        if body is None or init is None:
            return ctx.default_return_type
        init = self._keys(ctx, init)
        args = [init[0]]
        if index:
            lower = _argument(ctx, "lower")
            args.insert(0, lower[0] if lower is not None else AnyType(TypeOfAny.special_form))
        if not index:
            condition = _argument(ctx, "cond_fun")
            if condition is not None:  # for its dtype errors and what its body reveals
                self._call_body(ctx.api, condition, [init[0]])
        out = self._call_body(ctx.api, body, args)
        function = "lax.fori_loop" if index else "lax.while_loop"
        if out is None:
            return ctx.default_return_type if not _is_any(ctx.default_return_type) else init[0]
        return self._check_carry(ctx, function, init[0], out)

    def _cond(self, ctx: FunctionContext) -> Type:
        if len(ctx.arg_types) < 4 or any(len(ctx.arg_types[i]) != 1 for i in (1, 2)):
            return ctx.default_return_type
        operands = list(ctx.arg_types[3])
        branches = [(ctx.arg_types[i][0], ctx.args[i][0]) for i in (1, 2)]
        first, second = (self._call_body(ctx.api, branch, operands) for branch in branches)
        if first is None or second is None:
            return ctx.default_return_type
        plain_first, plain_second = erase_dtypes(first), erase_dtypes(second)
        if not (is_subtype(plain_first, plain_second) and is_subtype(plain_second, plain_first)):
            # Branches of other types but dtypes (jumanji's split_horizontally declared to
            # return a tuple, returning the NamedTuple its twin returns): JAX's answer.
            return ctx.default_return_type
        mismatch = _first_mismatch(first, second)
        if mismatch is not None:
            error_carry(ctx.api, ctx.context, "lax.cond", mismatch[0], mismatch[1])
            return erase_dtypes(first)
        return _prefer_strong(first, second)


def _call_through_mypy(
    api: CheckerPluginInterface,
    function: Expression,
    callee: Type,
    args: list[Type],
    context: Context,
) -> Type:
    """The result of calling ``callee`` with arguments of these types, as mypy types it."""
    proper = get_proper_type(callee)
    if not isinstance(proper, CallableType | Overloaded):
        return AnyType(TypeOfAny.special_form)
    name = function.fullname if isinstance(function, RefExpr) and function.fullname else None
    return internals.call_quietly(api, proper, args, context, name)


_NODES: Final = frozenset({"builtins.list", "builtins.dict", "builtins.tuple"})
_SEQUENCES: Final = frozenset({"builtins.list", "builtins.tuple"})


def _map_tree(tree: Type, rests: list[Type], apply: Callable[[list[Type]], Type]) -> Type | None:
    """``tree`` with each leaf ``l`` replaced by ``apply([l, *matching leaves of rests])``."""
    proper = expand(tree)
    if proper is None:
        return None
    others = [get_proper_type(r) for r in rests]
    if isinstance(proper, NoneType):
        return tree
    if isinstance(proper, AnyType):
        return None
    if isinstance(proper, TupleType):
        items: list[Type] = []
        for index, item in enumerate(proper.items):
            matching: list[Type] = []
            for other in others:
                if isinstance(other, TupleType) and len(other.items) == len(proper.items):
                    matching.append(other.items[index])
                elif isinstance(other, Instance) and other.type.fullname == "builtins.tuple":
                    matching.append(other.args[0])
                else:
                    return None
            mapped = _map_tree(item, matching, apply)
            if mapped is None:
                return None
            items.append(mapped)
        return proper.copy_modified(items=items)
    if isinstance(proper, Instance):
        if classify(proper) is not None:
            leaves: list[Type] = [proper]
            for other in others:
                if isinstance(other, TupleType | UnionType) or (
                    isinstance(other, Instance) and other.type.fullname in _NODES
                ):
                    return None
                leaves.append(other)
            return apply(leaves)
        keyed = keyed_dicts.items_of(proper)
        if keyed is not None:
            return _map_keys(proper, keyed, others, apply)
        if proper.type.fullname in _NODES and proper.args:
            matching = []
            for other in others:
                if isinstance(other, Instance) and other.type.fullname == proper.type.fullname:
                    matching.append(other.args[-1])
                else:
                    return None
            mapped = _map_tree(proper.args[-1], matching, apply)
            if mapped is None:
                return None
            return proper.copy_modified(args=[*proper.args[:-1], mapped])
    return None


def _map_keys(
    tree: Instance,
    keyed: dict[str, Type],
    others: list[ProperType],
    apply: Callable[[list[Type]], Type],
) -> Type | None:
    """``_map_tree`` of a keyed dict: each key's type mapped (``pytrees``)."""
    mapped: dict[str, Type] = {}
    for key, item in keyed.items():
        matching: list[Type] = []
        for other in others:
            their = keyed_dicts.items_of(other)
            if their is not None and key in their:
                matching.append(their[key])
            elif isinstance(other, Instance) and other.type.fullname == keyed_dicts.DICT:
                matching.append(other.args[-1])
            else:
                return None
        found = _map_tree(item, matching, apply)
        if found is None:
            return None
        mapped[key] = found
    value = keyed_dicts.uniform(list(mapped.values()))
    return keyed_dicts.with_items(tree.copy_modified(args=[*tree.args[:-1], value]), mapped)


def gradient_mark(callee: Type | None) -> str | None:
    """``typing_pkg.gradient.<kind>[+aux]`` for what ``jax.grad``/``value_and_grad`` return.

    The mark is the callable's name, which mypy keeps when it applies type
    arguments (a call's callee is recorded so), and the full name of its
    type variables, which it keeps when it stores a variable's type (and drops
    the name).
    """
    proper = get_proper_type(callee)
    if not isinstance(proper, CallableType):
        return None
    if proper.name is not None and proper.name.startswith(_GRADIENT_MARK):
        return proper.name
    if proper.variables and proper.variables[0].fullname.startswith(_GRADIENT_MARK):
        return proper.variables[0].fullname
    return None


def is_jitted(typ: Type | None) -> bool:
    """Whether ``typ`` is what ``jax.jit`` returns: a callable with ``JitWrapped``'s attributes."""
    proper = get_proper_type(typ)
    return isinstance(proper, CallableType) and proper.fallback.type.fullname == names.JIT_WRAPPED


def traced(callee: Type | None) -> bool:
    """Whether calling ``callee`` traces its function: NumPy arguments arrive as JAX arrays.

    What ``jax.jit`` returns is known by its attributes' class (kept by every
    copy), what ``vmap``/``checkpoint`` return by their name (a call's callee).
    """
    proper = get_proper_type(callee)
    if not isinstance(proper, CallableType):
        return False
    if is_jitted(proper):
        return True
    return proper.name is not None and proper.name.startswith(TRACED)


def _jitted_method(node: SymbolTableNode | None) -> bool | None:
    """Whether a class's attribute is a method ``jax.jit`` decorates (``None``: not yet typed)."""
    if node is None or not isinstance(node.node, Decorator):
        return False
    typ = node.node.var.type
    if typ is None:
        return None
    return is_jitted(typ)


def replace_jitted_method(ctx: AttributeContext) -> Type:
    """``env.step = jax.jit(jax.vmap(env.step))``: an instance may replace a jitted method.

    JAX's ``jit`` makes an object (``JitWrapped``), which mypy lets an
    instance's attribute replace; the plugin's callable type made it a method,
    to which mypy refuses assignment (``method-assign``): that error is not the
    program's and is withdrawn.
    """
    if ctx.is_lvalue:
        withdraw(ctx.api, ctx.context, codes.METHOD_ASSIGN)
    return ctx.default_attr_type


def transformed_lambda(callee: Expression) -> LambdaExpr | None:
    """The lambda a transformation's call was given first (``jax.vmap(lambda a: …)``)."""
    if (
        isinstance(callee, CallExpr)
        and callee.args
        and callee.arg_kinds[0] == ARG_POS
        and isinstance(callee.args[0], LambdaExpr)
    ):
        return callee.args[0]
    return None


def declared_callee(api: CheckerPluginInterface, callee: Expression) -> Type | None:
    """The type of a call's callee as declared (a variable's own type), else as mypy typed it.

    mypy records the callee of a generic call with its type arguments applied
    (and without its name): a variable's declared type is the callable itself.
    """
    if isinstance(callee, RefExpr) and isinstance(callee.node, Var) and callee.node.type:
        return callee.node.type
    return internals.type_of(api, callee)


def _is_any(typ: Type) -> bool:
    return isinstance(get_proper_type(typ), AnyType)


def _realised(proper: ProperType) -> str | None:
    """The dtype an array of ours has at run time (a weak one realised), ``None`` if unknown."""
    from typing_pkg.dtypes import BY_NAME

    operand = classify(proper)
    if operand is None or operand.array is None or operand.name is None:
        return None
    marker = BY_NAME.get(operand.name)
    if marker is None or marker.abstract:
        return None
    return operand.name


def _leaves(typ: Type) -> list[ProperType] | None:
    proper = expand(typ)
    if proper is None:
        return None
    if isinstance(proper, TupleType):
        found: list[ProperType] = []
        for item in proper.items:
            inner = _leaves(item)
            if inner is None:
                return None
            found.extend(inner)
        return found
    if isinstance(proper, UnionType):
        return None
    return [proper]


def _first_mismatch(before: Type, after: Type) -> tuple[Type, Type] | None:
    """The first pair of arrays whose known dtypes differ once weak types are realised."""
    from typing_pkg.dtypes import BY_NAME

    left, right = _leaves(before), _leaves(after)
    if left is None or right is None or len(left) != len(right):
        return None
    for a, b in zip(left, right, strict=True):
        da, db = _realised(a), _realised(b)
        if da is None or db is None or da == db:
            continue
        if BY_NAME[da].weak or BY_NAME[db].weak:
            continue  # JAX adjusts a weakly typed carry; a weak output is not compared
        return a, b
    return None


def _prefer_strong(init: Type, out: Type) -> Type:
    """The loop's carry: the initial carry's type (the body keeps its dtypes)."""
    return init
