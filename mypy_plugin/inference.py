"""Dtypes through the user's own functions: call-site specialisation.

Call-site specialisation
------------------------

Real JAX code passes arrays to functions it did not annotate (or annotated
``jax.Array``, an array of unknown dtype).  mypy types such a parameter as
``Any`` and the function's result as ``Any``: every dtype is lost at the
first call.  At a call of a function defined in the module being checked,
the plugin checks the function's body again with its parameters narrowed to
the arguments' types (``check_func_item`` with a ``type_override``), and
types the call with what the body returns (the union of its ``return``
expressions): ``layer_norm(x_bf16, …)`` is ``Array[bfloat16]`` when the body
casts back to ``x.dtype``.  Pyright does the same for unannotated functions
("call-site return type inference").

* Only parameters whose declared type is ``Any`` or holds an array of
  unknown dtype are narrowed, and only to an argument type that is a subtype
  of it; a declared return type stays the result unless the inferred one is a
  subtype of it (``-> jax.Array`` becomes ``Array[float32]``).
* The specialised check reports only the plugin's own errors (``dtype-
  promotion``: a dtype bug that this call makes happen, reported on the line
  of the body where JAX raises); mypy's other diagnostics about the body are
  mypy's own business and are left to its ordinary check.  ``reveal_type`` in
  the body shows the union of what the specialised checks revealed, after
  mypy's own note (as mypy itself does for the iterations of a loop).
* It is memoised per function and argument types while one top-level
  function (or the module's top level) is checked, recursion is cut (a
  function being specialised gives mypy's own result), and the depth is
  bounded.  Generators, coroutines, overloads and generic functions are left
  alone.
* A module-level function, or a method of a module-level class, of another
  of the program's modules, which the module checked imports, is specialised
  too, from its body as mypy parsed it or, when mypy read that module from its
  cache, as the plugin parses it again (``mypy_plugin.module_bodies``, with the
  bounds that keep a warm run's answers a cold one's); what its check reports
  is left to its own module, and its result keeps its arrays only.
* A call returning one of the module's unannotated nested functions
  (``make_train(config)`` returning ``train``) gives that function where
  the program jits or maps it, calls it at once or binds it to a name bound
  once (``facts.called_results``); its calls are then specialised as the
  module's own.  Anywhere else it stays ``Any``, mypy's own answer.

Specialisations are memoised per pass over a module (``Inference._specialise``),
and a call whose value is discarded (``main()``) is not specialised when it
would be the function's ordinary check again (``Inference._discarded``).

Rebinding a variable to another dtype without noise is ``mypy_plugin.rebinding``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from mypy.nodes import (
    ARG_NAMED,
    ARG_NAMED_OPT,
    ARG_OPT,
    ARG_POS,
    ARG_STAR,
    ArgKind,
    Context,
    Decorator,
    Expression,
    FuncDef,
    FuncItem,
    LambdaExpr,
    MypyFile,
    NameExpr,
    ReturnStmt,
    TypeInfo,
    Var,
)
from mypy.plugin import CheckerPluginInterface
from mypy.subtypes import is_subtype
from mypy.typeops import make_simplified_union
from mypy.types import (
    AnyType,
    CallableType,
    Instance,
    LiteralType,
    NoneType,
    TupleType,
    Type,
    TypeOfAny,
    TypeType,
    UnpackType,
    get_proper_type,
)

from mypy_plugin import mypy_internals as internals
from mypy_plugin import pytrees
from mypy_plugin.call_arguments import argument_type, default_type, expand_arguments
from mypy_plugin.dtype_names import DTypeNames
from mypy_plugin.errors import DTYPE_PROMOTION, UNEXPECTED
from mypy_plugin.module_bodies import ModuleBodies
from mypy_plugin.program_facts import (
    Memo,
    ModuleFacts,
    RevealKey,
    ends,
)
from mypy_plugin.program_types import (
    arrays_only,
    dtype_conflict,
    erase_all,
    has_unknown_array,
    instance_call,
    is_program_class,
    is_program_module,
    known_dtypes,
    program_arrays,
    refine_dtypes,
)
from mypy_plugin.rebinding import Rebinding
from mypy_plugin.types import (
    classify,
    expand,
)

__all__ = [
    "Inference",
]

_NOT_A_CALL_OF_ITS_DEFINITION: Final = "typing_pkg.gradient."
"""The name ``mypy_plugin.transforms`` gives what ``jax.grad(f)`` returns (``f``'s definition)."""
MAX_DEPTH: Final = 6
"""How deep specialisations may nest (a call in a specialised body specialises too)."""
_OUR_CODES: Final = frozenset({DTYPE_PROMOTION.code, UNEXPECTED.code})
_RETURN_VALUE: Final = "return-value"
"""mypy's code of a ``return`` that breaks the declared return type (``_broken_promises``)."""
_NARROWABLE: Final = frozenset({ARG_POS, ARG_OPT, ARG_NAMED, ARG_NAMED_OPT})


class Inference:
    """Call-site specialisation, for one plugin (one build or daemon); rebinding through
    :class:`~mypy_plugin.rebinding.Rebinding`, which reads the same facts.

    State (the design's side effects, each documented where it is kept):
    the facts of each module's AST, read once per tree; the memo of
    specialisations while one top-level target is checked; the types each
    ``reveal_type`` showed in specialised checks, to show their union.
    """

    def __init__(
        self,
        make_array: Callable[[str | None, CheckerPluginInterface, Context], Instance | None],
        canonical: Callable[[str], str],
        dtype_names: DTypeNames,
        inferred_array: Callable[[], TypeInfo | None],
    ) -> None:
        self._make_array = make_array
        self._inferred_array = inferred_array
        """``InferredArray`` in the build (``None``: typing_pkg's stubs of an older version)."""
        self._canonical = canonical
        """The dtype a JAX array gets for a requested one (x64 off: ``float64`` → ``float32``)."""
        self._dtype_names = dtype_names
        """What a default mypy types ``Any`` stands for (``dtype=jnp.float32``)."""
        self._facts: dict[str, ModuleFacts] = {}
        self._bodies = ModuleBodies()
        self._foreign: list[ModuleFacts] = []
        """The other modules whose functions' bodies are being checked, innermost last: what
        the hooks read while one is checked is that module's facts."""
        self._libraries: dict[str, MypyFile] = {}
        """The modules (trees) seen that are not the program's: no facts to read."""
        self._memo_owner: tuple[object, object] | None = None
        self._memo: dict[tuple[int, tuple[Type, ...]], Memo] = {}
        self._active: list[FuncItem] = []
        self._cuts = 0
        """How many specialisations recursion or the depth bound cut (see ``_module_memo``)."""
        self._pending_errors: list[internals.Reported] = []
        self._pending_reveals: set[RevealKey] = set()
        """What the specialised checks found, reported when the outermost one is done."""
        self._closures: dict[int, tuple[FuncItem, FuncItem, list[tuple[Var, Type | None]]]] = {}
        """For a nested function: its enclosing function and that one's parameters, as its
        last specialised check had them (a closure returned and called later sees them)."""
        self._made: dict[int, tuple[Context, CallableType]] = {}
        """Calls of the module's functions that returned one of its nested functions
        (``make_train(config)`` returning ``train``), by id (``made_function``)."""
        self._narrowed: set[int] = set()
        """The parameters (``Var`` ids) the active specialised checks narrowed."""
        self._reveals: dict[RevealKey, list[Type]] = {}
        self._notes: dict[RevealKey, tuple[str, internals.Reported]] = {}
        """The note last reported for each ``reveal_type`` of a specialised body, and its file."""
        self.rebinding: Final = Rebinding(self.facts, self._narrowed, inferred_array).rebinding
        """Adjust a value the plugin typed where it rebinds a variable (``rebinding.py``)."""

    # ------------------------------------------------------------ module facts

    def facts(self, api: CheckerPluginInterface) -> ModuleFacts | None:
        """The facts of the module ``api`` checks (``None`` outside the checker), or of the
        other module whose function's body it checks."""
        if self._foreign:
            return self._foreign[-1]
        tree = internals.module_checked(api)
        if tree is None:
            return None
        found = self._facts.get(tree.fullname)
        if found is not None and found.tree is tree:
            return found
        if self._libraries.get(tree.fullname) is tree:
            return None
        if not is_program_module(tree):
            self._libraries[tree.fullname] = tree
            return None
        if found is None or found.tree is not tree:
            found = ModuleFacts(tree)
            self._facts[tree.fullname] = found
            prefix = f"{tree.path}\0"
            for key in [k for k in self._reveals if k[0].startswith(prefix)]:
                del self._reveals[key]
                self._notes.pop(key, None)
        return found

    def value_of(self, api: CheckerPluginInterface, var: Var) -> Expression | None:
        """The value a variable of the module being checked is bound to, if bound once.

        Only this module's: another module's tree is not there when mypy
        reads that module from its cache, and a warm run must answer as a
        cold one does.
        """
        facts = self.facts(api)
        if facts is None:
            return None
        found = facts.values.get(id(var))
        return found[1] if found is not None and found[0] is var else None

    def traced_type(self, api: CheckerPluginInterface, typ: Type) -> Type:
        """``typ`` as a traced function sees it: NumPy arrays and scalars become JAX arrays.

        ``jax.jit``, ``vmap``, … convert NumPy inputs to JAX arrays (of the
        canonical dtype: ``float64`` is ``float32`` with x64 off); containers
        are converted item by item; anything else arrives as it is.
        """
        proper = expand(typ)
        if proper is None:
            return typ
        if isinstance(proper, TupleType):
            items = [self.traced_type(api, item) for item in proper.items]
            return proper.copy_modified(items=items)
        if not isinstance(proper, Instance):
            return typ
        operand = classify(proper)
        if (
            operand is not None
            and operand.array is None
            and (operand.is_array or not proper.type.fullname.startswith("builtins."))
        ):  # a NumPy array or scalar
            name = None if operand.name is None else self._canonical(operand.name)
            made = self._make_array(name, api, Context())
            return typ if made is None else made
        if proper.args and proper.type.fullname in ("builtins.list", "builtins.dict"):
            return proper.copy_modified(args=[self.traced_type(api, a) for a in proper.args])
        return typ

    # --------------------------------------------------------- specialisation

    def callee_function(
        self, api: CheckerPluginInterface, callee: Type | None
    ) -> tuple[FuncItem, CallableType] | None:
        """The function of this module a callee type calls, with the callee type.

        An instance of the program's class called (``model(x)``) calls its
        class's ``__call__``, with ``self`` bound.
        """
        proper = get_proper_type(callee)
        if isinstance(proper, Instance):
            proper = instance_call(api, proper)
        if not isinstance(proper, CallableType) or proper.variables:
            return None
        if proper.is_type_obj() and not _constructs(proper):
            return None
        if proper.name is not None and proper.name.startswith(_NOT_A_CALL_OF_ITS_DEFINITION):
            return None  # jax.grad(f): its definition is f's, its result is not
        defn = proper.definition
        if isinstance(defn, Decorator):
            defn = defn.func  # @jax.jit def f(…): the decorated function
        if not isinstance(defn, FuncDef):
            return None
        facts = self.facts(api)
        if facts is None:
            return None
        if facts.functions.get(id(defn)) is not defn:
            body = self._bodies.function(api, defn, facts)
            if body is None:
                return None
            defn = body
        if defn.is_generator or defn.is_coroutine or defn.is_async_generator:
            return None
        return defn, proper

    def specialise_function(
        self,
        api: CheckerPluginInterface,
        function: Expression | None,
        callee: Type,
        args: list[Type],
    ) -> Type | None:
        """What a function of the module (or a lambda) returns for positional ``args``.

        ``function`` is the expression naming it (a lambda is its own); ``None``
        when it is not one of the module's functions or the result is unknown.
        """
        if internals.module_checked(api) is None:
            return None
        if isinstance(function, LambdaExpr):
            defn: FuncItem = function
            proper = get_proper_type(callee)
            callee_type = proper if isinstance(proper, CallableType) else None
            base = internals.signature_of(api, defn)
            if not isinstance(base, CallableType):
                return None
            if callee_type is None:
                callee_type = base
        else:
            found = self.callee_function(api, callee)
            if found is None:
                return None
            defn, callee_type = found
        if callee_type.arg_kinds == [ARG_STAR]:  # lambda *xs: jnp.stack(xs)
            by_formal, kinds = [list(args)], [[ARG_POS] * len(args)]
        elif len(callee_type.arg_types) == len(args) and all(
            k == ARG_POS for k in callee_type.arg_kinds
        ):
            by_formal, kinds = [[a] for a in args], [[ARG_POS] for _ in args]
        else:
            return None
        missing = AnyType(TypeOfAny.special_form)
        result = self.specialise_call(api, callee_type, defn, by_formal, kinds, defn, missing)
        return None if get_proper_type(result) is missing else result

    def specialise_call(
        self,
        api: CheckerPluginInterface,
        callee: CallableType,
        defn: FuncItem,
        arg_types: list[list[Type]],
        arg_kinds: list[list[ArgKind]] | None,
        context: Context,
        default: Type,
        arg_exprs: list[list[Expression]] | None = None,
    ) -> Type:
        """Type a call of ``defn`` (through ``callee``) with its arguments' types.

        ``arg_types``, ``arg_kinds`` and ``arg_exprs`` are by formal parameter of
        ``callee``, as mypy gives them to a hook; ``f(*t)`` with a tuple ``t``
        passes its items.
        """
        if internals.module_checked(api) is None or internals.in_ignored_file(api):
            return default
        base = internals.signature_of(api, defn)
        if not isinstance(base, CallableType) or base.variables:
            return default
        offset = len(base.arg_types) - len(callee.arg_types)
        if offset not in (0, 1) or len(arg_types) != len(callee.arg_types):
            return default
        new_args = list(base.arg_types)
        narrowed = False
        expanded = expand_arguments(arg_types, arg_kinds, arg_exprs, callee)
        self._constants(api, expanded, arg_exprs)
        for i, actuals in enumerate(expanded):
            formal = i + offset
            kind = base.arg_kinds[formal]
            declared = base.arg_types[formal]
            if actuals is None or not has_unknown_array(declared):
                continue
            if kind == ARG_STAR:
                items = [argument_type(a) for a in actuals]
                if not items or not all(is_subtype(a, declared) for a in items):
                    continue
                if any(isinstance(get_proper_type(a), AnyType) for a in items):
                    continue
                fallback = api.named_generic_type(
                    "builtins.tuple", [internals.named_type(api, "builtins.object")]
                )
                new_args[formal] = UnpackType(TupleType(items, fallback))
                narrowed = narrowed or any(known_dtypes(a) for a in items)
                continue
            if not actuals and kind in (ARG_OPT, ARG_NAMED_OPT):
                initializer = defn.arguments[formal].initializer
                left = default_type(api, initializer)
                if left is None and initializer is not None:
                    left = self._dtype_names.read_expression(api, initializer)
                if left is not None and isinstance(get_proper_type(declared), AnyType):
                    new_args[formal] = left  # the default a call leaves: its own type
                    # dtype=jnp.float32 left to its default: the body's arrays may be known
                    narrowed = narrowed or _is_dtype(left)
                continue
            if len(actuals) != 1 or kind not in _NARROWABLE:
                continue
            actual = argument_type(actuals[0])
            if arg_exprs is not None and i < len(arg_exprs) and len(arg_exprs[i]) == 1:
                actual = pytrees.refined(api, self.facts(api), arg_exprs[i][0], actual)
            if is_subtype(actual, declared) and not isinstance(get_proper_type(actual), AnyType):
                new_args[formal] = actual
                narrowed = narrowed or known_dtypes(actual) or _is_dtype(actual)
        declared_ret = base.ret_type
        unannotated = defn.type is None or (
            isinstance(defn, FuncDef) and defn.unanalyzed_type is None
        )
        returns = get_proper_type(declared_ret)
        written = not (
            isinstance(returns, AnyType) and returns.type_of_any == TypeOfAny.unannotated
        )
        if (
            not (narrowed or unannotated)
            and written
            and not has_unknown_array(returns, any_counts=False)
        ):
            # No argument known better than declared, and the function declares a result with
            # no array whose dtype its body may tell (`-> Any`, `-> dict[str, Any]`, written):
            # its body checked again would tell what mypy says (on flax, 269 checks, none did).
            return default
        # Reveal what the body shows when some parameter is known better than declared.
        shows = any(new is not old for new, old in zip(new_args, base.arg_types, strict=True))
        if not shows and self._discarded(api, defn, context, unannotated):
            return default
        result = self._specialise(api, defn, base, new_args, unannotated, shows)
        if result is None:
            return default
        foreign = self._bodies.owner(defn) is not None
        if unannotated or isinstance(get_proper_type(declared_ret), AnyType):
            made = self._nested_function(api, result)
            if made is not None:
                self._made[id(context)] = (context, made)
                facts = self.facts(api)
                if facts is not None and facts.called_results.get(id(context)) is context:
                    return made  # make_step(…)(state, key), or bound once: step = make_step(…)
            # Another module's function gives its arrays only: a class of the program it
            # returns (blackjax's HMC state, a NamedTuple) may be refused later where a
            # structural type is declared (``ArrayTree``), as no ``Any`` is.
            return arrays_only(result) if foreign else program_arrays(api, result)
        if not is_subtype(result, declared_ret) or not known_dtypes(result):
            return default  # the declaration stands unless the body tells a dtype
        if foreign:
            return refine_dtypes(declared_ret, result)
        return refine_dtypes(declared_ret, result, lambda info: is_program_class(api, info))

    def _nested_function(self, api: CheckerPluginInterface, result: Type) -> CallableType | None:
        """``result`` if it is one of the module's unannotated nested functions (``train``,
        which ``make_train`` returns): a call of it is specialised as a call of the module's
        own.  Its signature takes anything and returns ``Any`` to mypy: a call of it checks
        nothing mypy alone would not (an annotated one's would)."""
        proper = get_proper_type(result)
        if not isinstance(proper, CallableType) or proper.variables:
            return None
        defn = proper.definition
        facts = self.facts(api)
        if (
            not isinstance(defn, FuncDef)
            or facts is None
            or facts.functions.get(id(defn)) is not defn
            or id(defn) not in facts.parents
            or defn.unanalyzed_type is not None
            or defn.is_generator
            or defn.is_coroutine
            or defn.is_async_generator
        ):
            return None
        return proper

    def made_function(self, expr: Context) -> CallableType | None:
        """The nested function a call of the module's function returned (``make_train(config)``
        given to ``jax.jit``, whose value mypy alone types ``Any``), if it did."""
        found = self._made.get(id(expr))
        return found[1] if found is not None and found[0] is expr else None

    def _discarded(
        self, api: CheckerPluginInterface, defn: FuncItem, context: Context, unannotated: bool
    ) -> bool:
        """Whether a call with every parameter as declared needs no specialised check.

        When the call's value is discarded (``main()``), and mypy checks the
        body itself (it is annotated, or ``check_untyped_defs`` is on), that
        check would be the function's ordinary one again: the same diagnostics,
        nothing new to reveal, and a result nobody reads.  (A nested function
        may see its enclosing function's specialised parameters: not skipped.)
        """
        facts = self.facts(api)
        return (
            facts is not None
            and facts.discarded.get(id(context)) is context
            and id(defn) not in facts.parents
            and (not unannotated or api.options.check_untyped_defs)
        )

    def _constants(
        self,
        api: CheckerPluginInterface,
        expanded: list[list[Type] | None],
        arg_exprs: list[list[Expression]] | None,
    ) -> None:
        """Give an argument that names a variable assigned once a number its literal type."""
        facts = self.facts(api)
        if facts is None or arg_exprs is None:
            return
        for i, exprs in enumerate(arg_exprs):
            types = expanded[i] if i < len(expanded) else None
            if types is None or len(exprs) != 1 or len(types) != 1:
                continue
            expr = exprs[0]
            if not isinstance(expr, NameExpr) or not isinstance(expr.node, Var):
                continue
            found = facts.constants.get(id(expr.node))
            if found is None or found[0] is not expr.node:
                continue
            value = found[1]
            name = "builtins.int" if isinstance(value, int) else "builtins.float"
            if not isinstance(value, int):
                continue  # mypy has no float literal types
            instance = api.named_generic_type(name, [])
            literal = LiteralType(value, instance)
            types[0] = instance.copy_modified(last_known_value=literal)

    def _specialise(
        self,
        api: CheckerPluginInterface,
        defn: FuncItem,
        base: CallableType,
        arg_types: list[Type],
        unannotated: bool,
        narrowed: bool,
    ) -> Type | None:
        if defn in self._active or len(self._active) >= MAX_DEPTH:
            self._cuts += 1
            return None
        memo = self._current_memo(api)
        shared = self._module_memo(api, defn)
        try:
            key = (id(defn), tuple(arg_types))
            found = memo.get(key)
            if found is None and shared is not None:
                found = shared.get(key)
        except TypeError:  # an unhashable type: no memo, no specialisation
            return None
        if found is not None and found.defn is defn:
            self._pending_errors.extend(found.errors)
            if found.reveals is not None:
                self._reveal(api, found.reveals)
            self._flush(api)
            return found.result
        ret_type = internals.named_type(api, "builtins.object") if unannotated else base.ret_type
        override = base.copy_modified(arg_types=arg_types, ret_type=ret_type)
        params = {
            id(arg.variable)
            for arg, new, old in zip(defn.arguments, arg_types, base.arg_types, strict=False)
            if new is not old
        }
        added = params - self._narrowed
        self._narrowed |= added
        cuts, deferred = self._cuts, internals.deferrals(api)
        try:
            result, errors, reveals = self._check(api, defn, override, reveals=narrowed)
        finally:
            self._narrowed -= added
        memo[key] = entry = Memo(defn, result, errors, reveals)
        if shared is not None and cuts == self._cuts and deferred == internals.deferrals(api):
            shared[key] = entry
        self._pending_errors.extend(errors)
        self._flush(api)
        return result

    def _module_memo(
        self, api: CheckerPluginInterface, defn: FuncItem
    ) -> dict[tuple[int, tuple[Type, ...]], Memo] | None:
        """The memo shared by every check of this pass over the module, if ``defn`` may use it.

        A specialisation is a function of the body and the argument types, so
        it holds for every call in the module, not only those of the target
        being checked, with three exceptions, which keep the per-target memo:
        a nested function (its enclosing function's parameters may be
        specialised too), a check during which a recursive call or the depth
        bound cut a specialisation (the result depends on the calls being
        specialised), and one during which mypy deferred the function (a name
        it refers to was not inferred yet: the next pass knows better).  The
        memo is one pass's: a deferred function's next pass, and each check of
        a ``dmypy`` run (a new pass), start afresh.
        """
        facts = self.facts(api)
        if facts is None or id(defn) in facts.parents or isinstance(defn, LambdaExpr):
            return None
        owner = facts.memo_owner
        key = internals.pass_key(api)
        if owner is None or key is None or owner[0] is not key[0] or owner[1] != key[1]:
            facts.memo_owner = key
            facts.memo = {}
        return facts.memo

    def _current_memo(
        self, api: CheckerPluginInterface
    ) -> dict[tuple[int, tuple[Type, ...]], Memo]:
        """The memo of the top-level target being checked (a new one for each new check)."""
        if self._active:
            return self._memo
        owner = internals.target_key(api)
        if (
            owner is None
            or self._memo_owner is None
            or any(a is not b for a, b in zip(owner, self._memo_owner, strict=True))
        ):
            self._memo_owner = owner
            self._memo = {}
        return self._memo

    def _check(
        self, api: CheckerPluginInterface, defn: FuncItem, override: CallableType, reveals: bool
    ) -> tuple[Type | None, list[internals.Reported], internals.Reveals | None]:
        """Check ``defn``'s body under ``override``; return what it returns and our errors.

        Another module's function is checked with that module's facts, and what
        its check reports is left to that module's own check (``module_bodies``).
        """
        owner = self._bodies.owner(defn)
        if owner is None and not self._foreign:
            return self._check_here(api, defn, override, reveals)
        # another module's function, or one that a function being followed there calls
        self._foreign.append(owner or self._foreign[-1])
        try:
            result, _, _ = self._check_here(api, defn, override, reveals=False)
        finally:
            self._foreign.pop()
        return result, [], None

    def _check_here(
        self, api: CheckerPluginInterface, defn: FuncItem, override: CallableType, reveals: bool
    ) -> tuple[Type | None, list[internals.Reported], internals.Reveals | None]:
        saved = [(arg.variable, arg.variable.type) for arg in defn.arguments]
        # mypy sets the type of each variable the body infers: the function's own check,
        # before or after this one, must find them as it left them.
        facts = self.facts(api)
        local: list[Var] = []
        if facts is not None and facts.functions.get(id(defn)) is defn:
            local = facts.variables.get(id(defn), [])
            saved += [(var, var.type) for var in local]
        closure = self._closures.get(id(defn))
        if closure is not None and closure[0] is defn and closure[1] not in self._active:
            # A nested function called after its enclosing function returned it: the
            # enclosing function's parameters as its last specialised check had them.
            saved += [(var, var.type) for var, _ in closure[2]]
            for var, typ in closure[2]:
                var.type = typ
        expanded = len(defn.expanded)
        self._active.append(defn)
        try:
            errors, revealed = internals.check_body(
                api,
                defn,
                override,
                local,
                _OUR_CODES | {_RETURN_VALUE},
                lambda: self._remember_closures(api, defn) if reveals else None,
            )
        finally:
            self._active.pop()
            for var, typ in saved:
                var.type = typ
            del defn.expanded[expanded:]
        errors = self._broken_promises(api, defn, override, errors)
        if not reveals:  # a check that only infers the return type shows nothing new
            return self._returned(api, defn), errors, None
        self._reveal(api, revealed)
        return self._returned(api, defn), errors, revealed

    def _broken_promises(
        self,
        api: CheckerPluginInterface,
        defn: FuncItem,
        override: CallableType,
        errors: list[internals.Reported],
    ) -> list[internals.Reported]:
        """Keep of the check's ``return-value`` errors those of a broken promise: a ``return``
        of the function whose value, for this call's arguments, is an array of another dtype
        than the declared return type (``-> Array[bfloat16]`` returning float32).  Any other
        mismatch is mypy's own to report, in its check of the function."""
        if not any(_is_return_value(e) for e in errors):
            return errors
        facts = self.facts(api)
        returns = [] if facts is None else facts.returns.get(id(defn), [])
        broken: set[int] = set()
        for stmt in returns:
            typ = None if stmt.expr is None else internals.type_of(api, stmt.expr)
            if typ is not None and known_dtypes(typ) and dtype_conflict(override.ret_type, typ):
                broken.add(stmt.line)
        return [e for e in errors if not _is_return_value(e) or e.line in broken]

    def _remember_closures(self, api: CheckerPluginInterface, defn: FuncItem) -> None:
        """Record the parameters of ``defn``'s specialised check for its nested functions."""
        facts = self.facts(api)
        if facts is None:
            return
        environment = [(arg.variable, arg.variable.type) for arg in defn.arguments]
        for child_id, parent in facts.parents.items():
            child = facts.functions.get(child_id)
            if parent is defn and child is not None:
                self._closures[child_id] = (child, defn, environment)

    def _returned(self, api: CheckerPluginInterface, defn: FuncItem) -> Type | None:
        """The union of what the body's ``return`` statements returned in the last check."""
        if isinstance(defn, LambdaExpr):
            last = defn.body.body[-1] if defn.body.body else None
            if isinstance(last, ReturnStmt) and last.expr is not None:
                typ = internals.type_of(api, last.expr)
                facts = self.facts(api)
                return None if typ is None else pytrees.refined(api, facts, last.expr, typ)
            return None
        facts = self.facts(api)
        returns = None if facts is None else facts.returns.get(id(defn))
        if returns is None:
            return None
        found: list[Type] = []
        for stmt in returns:
            if stmt.expr is None:
                found.append(NoneType())
                continue
            typ = internals.type_of(api, stmt.expr)
            if typ is None:
                return None
            found.append(pytrees.refined(api, facts, stmt.expr, typ))
        if not ends(defn.body):
            found.append(NoneType())
        if not found:
            return NoneType()
        return make_simplified_union(found)

    def _reveal(self, api: CheckerPluginInterface, revealed: internals.Reveals) -> None:
        """Add what each ``reveal_type`` of a specialised body showed to what it shows."""
        tree = internals.module_checked(api)
        path = "" if tree is None else tree.path
        for (line, column, end_line, end_column), types in internals.revealed_types(revealed):
            key = (f"{path}\0", line, column, end_line, end_column)
            seen = self._reveals.setdefault(key, [])
            for typ in types:
                if not any(typ == other for other in seen):
                    seen.append(typ)
            self._pending_reveals.add(key)

    def _flush(self, api: CheckerPluginInterface) -> None:
        """Report what the specialised checks found, once the outermost one is done.

        A specialisation is a fact about the program (its argument types are
        those of a call mypy checks), so its reports go straight to mypy's
        error list (``mypy_internals.report``), and the memo spares the second
        check of a call mypy checks again.
        """
        if self._active or not (self._pending_errors or self._pending_reveals):
            return
        keys = sorted(self._pending_reveals, key=lambda k: k[1:3])
        notes: list[tuple[internals.Place, Type]] = []
        for key in keys:
            seen = self._reveals.get(key, [])
            known = [typ for typ in seen if not has_unknown_array(typ)]
            union = (
                make_simplified_union(known) if known else erase_all(make_simplified_union(seen))
            )
            notes.append((key[1:], union))
        try:
            made = internals.report(api, self._pending_errors, notes)
        finally:
            self._pending_errors = []
            self._pending_reveals = set()
        file = internals.error_file(api)
        for key, note in zip(keys, made, strict=True):
            self._replace_note(api, file, key, note)

    def _replace_note(
        self, api: CheckerPluginInterface, file: str, key: RevealKey, note: internals.Reported
    ) -> None:
        """Keep only the latest union note of a ``reveal_type`` (it holds the earlier ones).

        mypy drops a note that repeats one on the same line: were the earlier,
        narrower unions kept, the latest one, when it repeats mypy's own note,
        would leave an earlier one last, which a reader takes for the answer.
        """
        previous = self._notes.get(key)
        self._notes[key] = (file, note)
        if previous is not None:
            internals.withdraw_note(api, *previous)


def _is_dtype(typ: Type) -> bool:
    """Whether ``typ`` is a dtype name the plugin read (``jnp.float32``: ``type[float32]``)."""
    return isinstance(get_proper_type(typ), TypeType)


def _constructs(callee: CallableType) -> bool:
    """Whether a class object's callee calls the class's own ``__init__`` (``Cls(…)``)."""
    defn = callee.definition
    return isinstance(defn, FuncDef) and defn.name == "__init__" and defn.info is not None


def _is_return_value(error: internals.Reported) -> bool:
    return error.code is not None and error.code.code == _RETURN_VALUE
