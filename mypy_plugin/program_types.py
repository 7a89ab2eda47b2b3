"""The program's arrays as mypy types: unknown dtypes, erased dtypes, mypy's own ``Any``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from mypy.nodes import (
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    COVARIANT,
    FUNC_NO_INFO,
    Decorator,
    FuncDef,
    FuncItem,
    MypyFile,
    TypeInfo,
    Var,
)
from mypy.options import Options
from mypy.plugin import CheckerPluginInterface
from mypy.subtypes import is_subtype
from mypy.typeops import bind_self, make_simplified_union
from mypy.types import (
    AnyType,
    CallableType,
    Instance,
    TupleType,
    Type,
    TypeOfAny,
    TypeVarType,
    UnionType,
    get_proper_type,
    has_type_vars,
)

from mypy_plugin import mypy_internals as internals
from mypy_plugin.keyed_dicts import items_of, uniform, with_items
from mypy_plugin.names import BUILTIN_SCALARS, NUMPY_NDARRAY
from mypy_plugin.types import (
    any_array,
    array_class,
    classify,
    expand,
    inferred,
)
from typing_pkg.dtypes import BY_NAME

# -------------------------------------------------------------------- the types


__all__ = [
    "arrays_only",
    "as_mypy_any",
    "dtype_conflict",
    "dtype_view",
    "erase_all",
    "erase_dtypes",
    "fits_context",
    "has_unknown_array",
    "instance_call",
    "is_installed",
    "is_program_class",
    "is_program_module",
    "known_dtypes",
    "program_arrays",
    "redefinition_allowed",
    "refine_dtypes",
]

_INSTALLED: Final = ("site-packages", "dist-packages")


def is_installed(path: str) -> bool:
    """Whether ``path`` is a file of an installed package (under ``site-packages``)."""
    return any(part in _INSTALLED for part in path.replace("\\", "/").split("/"))


def is_program_module(tree: MypyFile) -> bool:
    """Whether a module is the program's own: checked from source, not an installed package's."""
    return not tree.is_stub and not is_installed(tree.path)


def has_unknown_array(typ: Type, *, any_counts: bool = True) -> bool:
    """Whether ``typ`` is ``Any`` (unless not ``any_counts``) or holds an array of unknown dtype
    (something to narrow)."""
    proper = expand(typ)
    if proper is None:
        return False
    if isinstance(proper, AnyType):
        return any_counts
    if isinstance(proper, Instance):
        operand = classify(proper)
        if operand is not None and operand.is_array:
            return _open(operand.name)  # ours, or NumPy's
        keyed = items_of(proper)
        if keyed is not None:
            return any(has_unknown_array(item, any_counts=any_counts) for item in keyed.values())
        return any(has_unknown_array(arg, any_counts=any_counts) for arg in proper.args)
    if isinstance(proper, TupleType | UnionType):
        return any(has_unknown_array(item, any_counts=any_counts) for item in proper.items)
    return False


def _open(name: str | None) -> bool:
    """Whether an array of this marker's dtype may be told better: unknown, or a category
    (``Array[floating]``, jaxtyping's ``Float[Array, "..."]``)."""
    return name is None or BY_NAME[name].abstract


def known_dtypes(typ: Type) -> bool:
    """Whether ``typ`` holds an array (or NumPy array or scalar, or dtype) of known dtype."""
    proper = expand(typ)
    if proper is None:
        return False
    if isinstance(proper, Instance):
        operand = classify(proper)
        if (
            operand is not None
            and operand.name is not None
            and (operand.is_array or not proper.type.fullname.startswith("builtins."))
        ):
            return True
        keyed = items_of(proper)
        if keyed is not None and any(known_dtypes(item) for item in keyed.values()):
            return True
        return any(known_dtypes(arg) for arg in proper.args)
    if isinstance(proper, TupleType | UnionType):
        return any(known_dtypes(item) for item in proper.items)
    return False


def erase_dtypes(typ: Type) -> Type:
    """Return ``typ`` with every array of ours made one of unknown dtype (``Array[Any]``).

    ``typ`` itself when it holds no array of a known dtype.
    """
    proper = expand(typ)
    if proper is None:
        return typ
    if isinstance(proper, Instance):
        array = array_class(proper.type)
        if array is not None:
            operand = classify(proper)
            return typ if operand is None or operand.name is None else any_array(array)
        if proper.type.fullname == NUMPY_NDARRAY:
            return _erase_ndarray(proper) or typ
        if proper.args:
            args = [erase_dtypes(a) for a in proper.args]
            if any(a is not b for a, b in zip(args, proper.args, strict=True)):
                return proper.copy_modified(args=args)
        return typ
    if isinstance(proper, TupleType):
        items = [erase_dtypes(i) for i in proper.items]
        if any(a is not b for a, b in zip(items, proper.items, strict=True)):
            return proper.copy_modified(items=items)
        return typ
    if isinstance(proper, UnionType):
        items = [erase_dtypes(i) for i in proper.items]
        if any(a is not b for a, b in zip(items, proper.items, strict=True)):
            return make_simplified_union(items)
        return typ
    return typ


def _erase_ndarray(array: Instance) -> Instance | None:
    """``ndarray[tuple[Any, ...], dtype[Any]]`` for a NumPy array whose shape or dtype is known.

    A rebound NumPy variable (``x = load()`` then ``x = x.astype(np.float32) / 255``)
    changes dtype and shape, both of which NumPy's stubs spell out; ``None``
    when neither is known (nothing to erase).
    """
    if len(array.args) != 2:
        return None
    shape, dtype = (get_proper_type(a) for a in array.args)
    known_shape = not (
        isinstance(shape, AnyType)
        or (
            isinstance(shape, Instance)
            and shape.type.fullname == "builtins.tuple"
            and all(isinstance(get_proper_type(a), AnyType) for a in shape.args)
        )
    )
    any_type = AnyType(TypeOfAny.special_form)
    known_dtype = (
        isinstance(dtype, Instance)
        and len(dtype.args) == 1
        and not isinstance(get_proper_type(dtype.args[0]), AnyType)
    )
    if not (known_shape or known_dtype):
        return None
    new_dtype = (
        dtype.copy_modified(args=[any_type])
        if isinstance(dtype, Instance) and len(dtype.args) == 1
        else any_type
    )
    return array.copy_modified(args=[any_type, new_dtype])


def arrays_only(typ: Type, program_class: Callable[[TypeInfo], bool] | None = None) -> Type:
    """``typ`` where it holds arrays, ``Any`` elsewhere: what may replace mypy's ``Any``.

    An unannotated function's call is ``Any`` to mypy, and so is a call of a
    function JAX's ``jit`` wraps: the plugin gives the arrays they return, in
    tuples, lists and dicts (``dict[str, Array[float32]]``; ``(loss, 0)`` is
    ``tuple[Array[float32], Any]``), NumPy's scalars and, where ``program_class`` says so,
    instances of the program's own classes (its NamedTuples, dataclasses).
    Everything else — a library's class (``jraph.GraphsTuple``, whose field
    annotations are narrower than what its users store), a callable, a
    number, ``None``, a container without arrays — stays ``Any``, mypy's own
    answer: it would add errors that are no dtype bugs.
    """
    kept, _ = _arrays_only(typ, program_class)
    return kept


def _arrays_only(typ: Type, program_class: Callable[[TypeInfo], bool] | None) -> tuple[Type, bool]:
    """``arrays_only``'s answer, and whether it holds an array (else it is ``Any``)."""
    any_type = AnyType(TypeOfAny.special_form)
    proper = expand(typ)
    if proper is None:
        return any_type, False
    if isinstance(proper, Instance):
        operand = classify(proper)
        if operand is not None and (
            operand.is_array or not proper.type.fullname.startswith("builtins.")
        ):  # an array, or a NumPy scalar (an ndarray's x.sum() where NumPy says Any)
            return typ, True
        written = items_of(proper)
        if written is not None:
            kept = {key: _arrays_only(item, program_class) for key, item in written.items()}
            if not any(has for _, has in kept.values()):
                return any_type, False
            types_ = {key: t for key, (t, _) in kept.items()}
            value = uniform(list(types_.values()))
            return with_items(proper.copy_modified(args=[proper.args[0], value]), types_), True
        if proper.type.fullname in _CONTAINERS and proper.args:
            keyed = proper.type.fullname == "builtins.dict"
            values = proper.args[1:] if keyed else proper.args
            mapped = [_arrays_only(arg, program_class) for arg in values]
            if not any(has for _, has in mapped):
                return any_type, False
            args = [*proper.args[:1], *(t for t, _ in mapped)] if keyed else [t for t, _ in mapped]
            if all(a is b for a, b in zip(args, proper.args, strict=True)):
                return typ, True
            return proper.copy_modified(args=args), True
        if program_class is not None and program_class(proper.type):
            return typ, True
    if isinstance(proper, TupleType):
        fallback = proper.partial_fallback.type
        if fallback.fullname != "builtins.tuple":
            if program_class is None:
                return any_type, False
            if program_class(fallback):
                return typ, True
            if proper.items and all(_is_array_type(i) for i in proper.items):
                return typ, True  # a library's NamedTuple of arrays (jnp.linalg.eigh's)
            return any_type, False
        pairs = [_arrays_only(item, program_class) for item in proper.items]
        if not any(has for _, has in pairs):
            return any_type, False
        items = [t for t, _ in pairs]
        if all(a is b for a, b in zip(items, proper.items, strict=True)):
            return typ, True
        return proper.copy_modified(items=items), True
    if isinstance(proper, UnionType):
        pairs = [_arrays_only(item, program_class) for item in proper.items]
        if all(has and t is item for (t, has), item in zip(pairs, proper.items, strict=True)):
            return typ, True
    return any_type, False


def program_arrays(api: CheckerPluginInterface, typ: Type) -> Type:
    """``arrays_only(typ)``, keeping the program's own concrete classes that hold arrays (its
    NamedTuples of arrays; an identifier class, flax's ``FlaxId``, stays ``Any``)."""
    if not internals.checking(api):
        return arrays_only(typ)
    return arrays_only(typ, lambda info: is_program_class(api, info) and holds_arrays(api, info))


def holds_arrays(api: CheckerPluginInterface, info: TypeInfo) -> bool:
    """Whether an attribute of the program's class ``info`` (or of a base class of the
    program's) is declared or inferred to hold an array."""
    for base in info.mro:
        if base is not info and not is_program_class(api, base):
            continue
        for node in base.names.values():
            var = node.node
            if isinstance(var, Var) and var.type is not None and _holds_array(var.type):
                return True
    return False


def _holds_array(typ: Type) -> bool:
    """Whether ``typ`` is an array, or a container, tuple or union holding one."""
    proper = expand(typ)
    if isinstance(proper, Instance):
        operand = classify(proper)
        if operand is not None and operand.is_array:
            return True
        return any(_holds_array(arg) for arg in proper.args)
    if isinstance(proper, TupleType | UnionType):
        return any(_holds_array(item) for item in proper.items)
    return False


def as_mypy_any(api: CheckerPluginInterface, typ: Type, inferred_array: TypeInfo | None) -> Type:
    """What the plugin gives a value that mypy alone types ``Any``.

    A Python scalar it computed stays (``2**32`` is ``int``; typeshed says
    ``Any``); anything else keeps its arrays, NumPy scalars and the program's
    concrete classes (``program_arrays``), its arrays ``InferredArray``
    (accepted wherever ``Any`` is; ``inferred_array`` is ``None`` without one).
    """
    proper = get_proper_type(typ)
    if isinstance(proper, Instance) and proper.type.fullname in BUILTIN_SCALARS:
        return typ
    kept = program_arrays(api, typ)
    return kept if inferred_array is None else inferred(kept, inferred_array)


def fits_context(api: CheckerPluginInterface, typ: Type) -> Type:
    """``typ``, or ``Any`` where the type mypy expects of the expression refuses it.

    For a value that is ``Any`` to mypy alone: what mypy alone accepts stays
    accepted (jaxopt binds what an unannotated helper returns, a
    ``KKTSolution``, to a parameter declared ``Optional[Array]``; it may be
    returned or passed on as well).  The expected type is the declared
    variable's, the function's return type or the parameter's; a generic one
    (type variables) is left to mypy, as is the one mypy builds for an unpacking.
    A value refused for its dtypes alone stays: a rebound variable takes it
    (``layer = jax.tree.map(cast, layer)``), a declared one reports a dtype bug.
    """
    if not internals.checking(api):
        return typ
    contexts = api.type_context
    expected = contexts[-1] if contexts else None
    if (
        expected is None
        or has_type_vars(expected)
        or internals.has_uninhabited_component(
            expected
        )  # mypy's own guess: ``(x, *rest), aux = f()``
        or is_subtype(typ, expected)
        or is_subtype(erase_dtypes(typ), erase_dtypes(expected))
    ):
        # Refused for its dtypes alone: a rebinding (``mypy_plugin.rebinding`` widens the
        # variable, or narrows a specialised parameter), or a dtype bug against a declaration.
        return typ
    return AnyType(TypeOfAny.special_form)


def _is_array_type(typ: Type) -> bool:
    """Whether ``typ`` is an array (ours, JAX's or NumPy's), not a union."""
    proper = expand(typ)
    if not isinstance(proper, Instance):
        return False
    operand = classify(proper)
    return operand is not None and operand.is_array


def refine_dtypes(
    declared: Type, found: Type, program_class: Callable[[TypeInfo], bool] | None = None
) -> Type:
    """``declared`` with the dtypes ``found`` (a subtype of it) knows: nothing else of it.

    A specialised body's result refines its declared return type only where
    the declaration leaves a dtype open (``jax.Array``) or says ``Any`` (there,
    ``arrays_only``): ``-> tuple[Any, list[Any], jax.Array]`` stays so but for
    the array's dtype; the body's ``list[Scope]`` would add errors that are no
    dtype bug (Flax's ``module_scopes = module_scopes[0]``).
    """
    wanted = expand(declared)
    proper = expand(found)
    if wanted is None or proper is None:
        return declared
    if isinstance(wanted, AnyType):
        return arrays_only(found, program_class)
    if isinstance(wanted, Instance):
        operand = classify(wanted)
        if operand is not None and operand.is_array:
            if not _open(operand.name) or not isinstance(proper, Instance):
                return declared
            told = classify(proper)
            if operand.name is not None and (told is None or told.name is None):
                return declared  # `-> Array[floating]` returning an array of unknown dtype
            return found
        if isinstance(proper, Instance) and proper.type is wanted.type and wanted.args:
            args = _refine_each(wanted.args, proper.args, program_class)
            if args is None:
                return declared
            # an invariant argument stays as declared: ``dict[str, Any]`` refined to arrays
            # would refuse the next dict the program binds to the same variable
            variables = wanted.type.defn.type_vars
            if len(variables) != len(args):
                return declared
            args = [
                new if isinstance(tv, TypeVarType) and tv.variance == COVARIANT else old
                for new, old, tv in zip(args, wanted.args, variables, strict=True)
            ]
            return wanted.copy_modified(args=args)
        return declared
    if isinstance(wanted, TupleType) and isinstance(proper, TupleType):
        items = _refine_each(wanted.items, proper.items, program_class)
        return declared if items is None else wanted.copy_modified(items=items)
    return declared


def _refine_each(
    wanted: Sequence[Type],
    found: Sequence[Type],
    program_class: Callable[[TypeInfo], bool] | None,
) -> list[Type] | None:
    """``refine_dtypes`` item by item; ``None`` when nothing changes (or the lengths differ)."""
    if len(wanted) != len(found):
        return None
    refined = [refine_dtypes(a, b, program_class) for a, b in zip(wanted, found, strict=True)]
    return None if all(a is b for a, b in zip(refined, wanted, strict=True)) else refined


def dtype_view(function: CallableType) -> CallableType:
    """``function`` as JAX's ``jit`` shows it, but for its dtypes.

    JAX types a jitted function's call ``(*args, **kwargs) -> Any``.  The
    plugin keeps what a dtype depends on: parameters that hold an array of a
    known dtype (``x: Array[bfloat16]``: passing float32 data is a dtype
    bug) and the arrays of the result (``arrays_only``); every other
    parameter takes anything and every other result is ``Any``, as JAX's
    wrapper has them.  A method's parameters all take anything.
    """
    any_type = AnyType(TypeOfAny.special_form)
    ret = arrays_only(function.ret_type)
    definition = function.definition
    if isinstance(definition, FuncItem) and definition.info is not FUNC_NO_INFO:
        # A method: JAX's wrapper has no arity either, and a subclass's jitted method
        # may take other parameters than its base's (mypy would call it an override error).
        return function.copy_modified(
            arg_types=[any_type, any_type],
            arg_kinds=[ARG_STAR, ARG_STAR2],
            arg_names=[None, None],
            ret_type=ret,
        )
    args = [t if known_dtypes(t) else any_type for t in function.arg_types]
    return function.copy_modified(arg_types=args, ret_type=ret)


_CONTAINERS: Final = frozenset({"builtins.list", "builtins.dict", "builtins.tuple"})


def is_program_class(api: CheckerPluginInterface, info: TypeInfo) -> bool:
    """Whether ``info`` is a concrete class the program defines (not a library's, not a builtin).

    An abstract class is not one: its instances are its subclasses', whose own
    methods the program calls (kfac-jax's ``LossFunction``).
    """
    tree = internals.module_named(api, info.module_name)
    return tree is not None and is_program_module(tree) and not info.is_abstract


def erase_all(typ: Type) -> Type:
    """``typ`` with every array of ours of unknown dtype, and ``Any`` where it has ``Any``."""
    proper = get_proper_type(typ)
    if isinstance(proper, UnionType) and any(
        isinstance(get_proper_type(i), AnyType) for i in proper.items
    ):
        return AnyType(TypeOfAny.special_form)
    return erase_dtypes(typ)


def dtype_conflict(declared: Type, value: Type) -> bool:
    """Whether assigning ``value`` to a variable declared ``declared`` fails only by dtype."""
    if is_subtype(value, declared):
        return False
    return is_subtype(erase_dtypes(value), erase_dtypes(declared))


def redefinition_allowed(options: Options) -> bool:
    """Whether mypy lets a variable be redefined with another type (``allow_redefinition_new``).

    mypy 1.x calls the mode ``allow_redefinition_new``; mypy 2 made it
    ``allow_redefinition`` (the old mode being ``allow_redefinition_old``).
    """
    if hasattr(options, "allow_redefinition_old"):
        return bool(options.allow_redefinition)
    return bool(getattr(options, "allow_redefinition_new", False))


def instance_call(api: CheckerPluginInterface, instance: Instance) -> CallableType | None:
    """The bound ``__call__`` an instance of the program's class is called through
    (``block(x)``), ``None`` for a static or class method or another class's instance."""
    if not is_program_class(api, instance.type):
        return None
    method = instance.type.get_method("__call__")
    defn = method.func if isinstance(method, Decorator) else method
    if not isinstance(defn, FuncDef) or defn.is_static or defn.is_class:
        return None
    signature = internals.signature_of(api, defn)
    if not isinstance(signature, CallableType) or not signature.arg_types:
        return None
    if signature.arg_kinds[0] != ARG_POS:
        return None
    bound = bind_self(signature, instance)
    return bound if isinstance(bound, CallableType) else None
