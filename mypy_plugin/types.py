"""From mypy types to the operands the rule sets know, and back.

An operand is one item of an operand's (possibly union) type, named as
``typing_pkg.rules`` names operands:

==========================================  =====================================
mypy type                                   operand name
==========================================  =====================================
``Array[float32]`` (or a subclass of it)    ``"float32"``; a category such as
                                            ``"floating"`` for ``Array[floating]``
``Array[Any]``, ``Array[DType]``,           an array of unknown dtype (``None``)
``Array[T]`` (a type variable)
``bool``, ``int``, ``float``, ``complex``   ``"py_bool"``, ``"py_int"``, …
(``Literal[1]`` through its fallback)
``numpy.ndarray[..., dtype[np.float32]]``   ``"float32"`` (unknown dtype if not
and NumPy scalars (``np.float32``)          spelled out)
anything else                               not an operand (``classify`` gives
                                            ``None``: mypy's own checks apply)
==========================================  =====================================

Dtype-likes (the arguments of ``astype``, ``promote_types`` and
``result_type``) are read by ``dtype_token``: a marker class, a string
literal, a Python scalar type or a NumPy scalar type or dtype.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from mypy.maptype import map_instance_to_supertype
from mypy.nodes import SymbolTableNode, TypeInfo
from mypy.types import (
    AnyType,
    CallableType,
    Instance,
    LiteralType,
    Overloaded,
    ProperType,
    TupleType,
    Type,
    TypeAliasType,
    TypeOfAny,
    TypeType,
    UnionType,
    flatten_nested_unions,
    get_proper_type,
)

from mypy_plugin import names
from mypy_plugin.keyed_dicts import items_of
from typing_pkg.dtypes import BY_NAME

__all__ = [
    "Lookup",
    "Operand",
    "any_array",
    "array_class",
    "base_of",
    "class_named",
    "classify",
    "dtype_token",
    "expand",
    "inferred",
    "is_array",
    "is_inferred",
    "is_wide",
    "items",
    "literal_bool",
    "literal_option",
    "marker_of",
    "marker_type",
    "mentions",
    "ours",
    "replace_instances",
    "where_any",
]

Lookup = Callable[[str], SymbolTableNode | None]
"""Look a fully qualified name up in the build (``Plugin.lookup_fully_qualified``)."""


def class_named(lookup: Lookup, fullname: str) -> TypeInfo | None:
    """The class ``fullname`` names in the build, ``None`` when its module is not in it."""
    node = lookup(fullname)
    return node.node if node is not None and isinstance(node.node, TypeInfo) else None


class Operand:
    """One operand (a union item) as the rule sets see it (immutable)."""

    # A plain class: a NamedTuple or a dataclass would compile code when the
    # plugin is imported, a cost paid by every mypy run.
    __slots__ = ("array", "is_array", "name", "type")

    def __init__(
        self, type: ProperType, name: str | None, array: TypeInfo | None, is_array: bool
    ) -> None:
        self.type = type
        """The mypy type, as error messages show it."""
        self.name = name
        """The marker or Python scalar kind (``"float32"``, ``"floating"``, ``"py_int"``);
        ``None`` for an array of unknown dtype."""
        self.array = array
        """The ``Array`` class when the operand is one of our arrays (results are built from
        it)."""
        self.is_array = is_array
        """Whether the operand is an array (ours or NumPy's) rather than a scalar."""


def literal_bool(typ: Type) -> bool | None:
    """The value of a ``bool`` literal type (``Literal[True]``, a known ``True``), else None."""
    value = literal_option(typ)
    return value if isinstance(value, bool) else None


def literal_option(typ: Type) -> bool | str | None:
    """The value of a ``bool`` or ``str`` literal type (``compute_uv=False``, ``mode="r"``,
    a known ``True``), else None."""
    proper = get_proper_type(typ)
    if isinstance(proper, LiteralType) and isinstance(proper.value, bool | str):
        return proper.value
    if isinstance(proper, Instance) and proper.last_known_value is not None:
        value = proper.last_known_value.value
        return value if isinstance(value, bool | str) else None
    return None


def expand(typ: Type) -> ProperType | None:
    """Return ``typ``'s proper type, ``None`` for a recursive alias (a pytree: opaque).

    Every function that walks into a type's arguments or items expands them
    with this instead of ``get_proper_type``: a recursive alias such as
    ``Tree = Union[jax.Array, Iterable["Tree"], Mapping[Any, "Tree"]]``
    expands to a union that holds the alias again, so a walk that followed
    it would never end.  The walk gives up there (an unknown dtype).
    """
    if isinstance(typ, TypeAliasType) and (typ.alias is None or typ.is_recursive):
        return None
    return get_proper_type(typ)


def items(typ: Type) -> list[ProperType]:
    """Return the items of a (possibly nested) union, or the type itself."""
    proper = get_proper_type(typ)
    if isinstance(proper, UnionType):
        return [get_proper_type(t) for t in flatten_nested_unions(proper.items)]
    return [proper]


def is_wide(typ: Type) -> bool:
    """Whether ``typ`` is a union with ``Any`` or an array of unknown dtype among its items.

    Such a value (``i: ArrayLike``: arrays, NumPy scalars, ``bool``, ``int``,
    ``float``, ``complex``) has an unknown dtype as a whole: the plugin does
    not answer for each item in turn (``complex`` alone would make
    ``(i + x) % 2`` an error).
    """
    parts = items(typ)
    if len(parts) < 2:
        return False
    for part in parts:
        if isinstance(part, AnyType):
            return True
        operand = classify(part)
        if operand is not None and operand.is_array and operand.name is None:
            return True
    return False


def base_of(info: TypeInfo, fullname: str) -> TypeInfo | None:
    """Return the class ``fullname`` if it is ``info`` or one of its bases (``info.has_base``)."""
    for base in info.mro:
        if base.fullname == fullname:
            return base
    return None


def array_class(info: TypeInfo) -> TypeInfo | None:
    """Return ``Array`` if ``info`` is ``Array`` or a subclass of it, else ``None``.

    The one test of "is this one of our arrays?" (by ancestry): ``classify``,
    ``is_array`` and the plugin's choice of hooks all ask it.
    """
    if info.fullname in _ARRAY_CLASSES:  # the common case, before any search of the bases
        return info
    return base_of(info, names.ARRAY)


_ARRAY_CLASSES: Final = frozenset({names.ARRAY, names.INFERRED_ARRAY})
"""``Array``, and ``InferredArray``: an array class of its own, kept in results built from it."""


def is_inferred(typ: Type) -> bool:
    """Whether ``typ`` is (or a union holds) an ``InferredArray``: ``Any`` to mypy alone."""
    return any(
        isinstance(item, Instance) and item.type.fullname == names.INFERRED_ARRAY
        for item in items(typ)
    )


def where_any(theirs: Type, ours: Type, replace: Callable[[Type], Type]) -> Type:
    """``ours`` with ``replace`` applied where ``theirs`` (mypy's own answer) is ``Any``.

    The two are walked together through tuples of the same length and the
    type arguments of one class; elsewhere ``ours`` stands.  Where both are
    ``Any``, mypy's own stands: the kind of an ``Any`` matters to mypy (an
    explicit one in ``list[Any]`` makes NumPy's overloaded ``np.prod`` answer
    ``Any``; the plugin's special form picked the first overload, haiku's
    ``fan_in = np.prod([shape[i] for i in axes])``).
    """
    mine = expand(theirs)
    if isinstance(mine, AnyType):
        if isinstance(get_proper_type(ours), AnyType):
            return theirs
        return replace(ours)
    found = expand(ours)  # None (a recursive alias): ours stands
    if (
        isinstance(mine, TupleType)
        and isinstance(found, TupleType)
        and len(mine.items) == len(found.items)
    ):
        items = [where_any(a, b, replace) for a, b in zip(mine.items, found.items, strict=True)]
        if all(a is b for a, b in zip(items, found.items, strict=True)):
            return ours
        return found.copy_modified(items=items)
    if (
        isinstance(mine, Instance)
        and isinstance(found, Instance)
        and mine.type is found.type
        and len(mine.args) == len(found.args)
        and found.args
        and classify(found) is None  # a container, not an array (whose argument is a dtype)
    ):  # list[Any] (jax.tree.leaves): list[what replace makes of ours]
        args = [where_any(a, b, replace) for a, b in zip(mine.args, found.args, strict=True)]
        if all(a is b for a, b in zip(args, found.args, strict=True)):
            return ours
        return found.copy_modified(args=args)
    return ours


def replace_instances(typ: Type, replace: Callable[[Instance], Type | None]) -> Type:
    """``typ`` with the instances ``replace`` answers replaced, in tuples, unions and type
    arguments (of the instances it leaves); ``typ`` itself when nothing changes."""
    proper = expand(typ)
    if proper is None:
        return typ
    if isinstance(proper, Instance):
        found = replace(proper)
        if found is not None:
            return found
        if proper.args:
            args = [replace_instances(a, replace) for a in proper.args]
            if any(a is not b for a, b in zip(args, proper.args, strict=True)):
                return proper.copy_modified(args=args)
        return typ
    if isinstance(proper, TupleType):
        new = [replace_instances(i, replace) for i in proper.items]
        if any(a is not b for a, b in zip(new, proper.items, strict=True)):
            return proper.copy_modified(items=new)
        return typ
    if isinstance(proper, UnionType):
        new = [replace_instances(i, replace) for i in proper.items]
        if any(a is not b for a, b in zip(new, proper.items, strict=True)):
            return UnionType.make_union(new, proper.line, proper.column)
        return typ
    return typ


def mentions(typ: Type, fullname: str) -> bool:
    """Whether ``typ`` holds an instance of the class ``fullname`` (in tuples, unions, type
    arguments; a recursive alias is opaque)."""
    proper = expand(typ)
    if isinstance(proper, Instance):
        return proper.type.fullname == fullname or any(mentions(a, fullname) for a in proper.args)
    if isinstance(proper, TupleType | UnionType):
        return any(mentions(i, fullname) for i in proper.items)
    return False


def ours(typ: Type, array: TypeInfo) -> Type:
    """``typ`` with each ``jax.Array`` in it an ``Array[Any]`` (``replace_instances``).

    What JAX's own modules declare (``jax.device_put(x) -> Array``) is JAX's
    class: JAX is analysed before ``typing_pkg``, whose ``Array`` subclasses
    it.  The plugin gives such a result our ``Array[Any]``, accepted wherever
    JAX's class is and wherever the user's ``jax.Array`` (ours) is.
    """
    unknown = Instance(array, [AnyType(TypeOfAny.special_form)])
    return replace_instances(
        typ, lambda inst: unknown if inst.type.fullname == names.JAX_ARRAY else None
    )


def inferred(typ: Type, inferred_array: TypeInfo, *, unknown_as_any: bool = True) -> Type:
    """``typ`` with each ``Array`` in it an ``InferredArray`` (``Any`` for an unknown dtype),
    in tuples and unions.

    The type the plugin gives a value that mypy alone types ``Any``: its dtypes,
    accepted wherever ``Any`` is (``InferredArray`` falls back to ``Any``).  Type
    arguments are left alone: ``list[InferredArray[float32]]`` would refuse the
    ``Array[float32]`` that ``list[Array[float32]]`` takes (lists are invariant);
    a container with no known dtype in it is ``Any``, mypy's own answer.
    ``unknown_as_any=False`` keeps ``InferredArray[Any]`` (a declared type the
    plugin's hooks then fill in: a jitted function's result).
    """
    proper = expand(typ)
    if isinstance(proper, Instance) and proper.type.fullname == names.ARRAY:
        if unknown_as_any and (
            not proper.args or isinstance(get_proper_type(proper.args[0]), AnyType)
        ):
            return AnyType(TypeOfAny.special_form)  # no dtype to keep: mypy's own Any
        dtype = proper.args[0] if proper.args else AnyType(TypeOfAny.special_form)
        return array_of(inferred_array, dtype, line=proper.line, column=proper.column)
    if isinstance(proper, TupleType):
        items = [inferred(i, inferred_array, unknown_as_any=unknown_as_any) for i in proper.items]
        if any(a is not b for a, b in zip(items, proper.items, strict=True)):
            return proper.copy_modified(items=items)
    elif isinstance(proper, UnionType):
        items = [inferred(i, inferred_array, unknown_as_any=unknown_as_any) for i in proper.items]
        if any(a is not b for a, b in zip(items, proper.items, strict=True)):
            return UnionType.make_union(items, proper.line, proper.column)
    elif (
        unknown_as_any
        and isinstance(proper, Instance)
        and proper.args
        and classify(proper) is None
        and not _knows_dtype(proper)
    ):  # a container of arrays of unknown dtypes (tuple[Array[Any], ...]): mypy's own Any
        return AnyType(TypeOfAny.special_form)
    return typ


def _knows_dtype(typ: Type) -> bool:
    """Whether an array of one known dtype is somewhere in ``typ`` (items, arguments)."""
    proper = expand(typ)
    if isinstance(proper, Instance):
        if array_class(proper.type) is not None:
            return bool(proper.args) and not isinstance(get_proper_type(proper.args[0]), AnyType)
        keyed = items_of(proper)
        if keyed is not None and any(_knows_dtype(t) for t in keyed.values()):
            return True
        return any(_knows_dtype(a) for a in proper.args)
    if isinstance(proper, TupleType | UnionType):
        return any(_knows_dtype(i) for i in proper.items)
    return False


def is_array(typ: ProperType) -> bool:
    """Return whether ``typ`` (not a union) is an instance of ``Array`` or a subclass of it."""
    return isinstance(typ, Instance) and array_class(typ.type) is not None


_MARKER_PREFIX: Final = names.DTYPES_MODULE + "."


def marker_of(info: TypeInfo) -> str | None:
    """Return the marker a dtype class stands for (its nearest marker base), ``None`` for DType."""
    for base in info.mro:
        fullname = base.fullname
        if fullname.startswith(_MARKER_PREFIX) and base.name in BY_NAME:
            return None if fullname == names.DTYPE_ROOT else base.name
    return None


def _dtype_argument(arg: Type) -> str | None:
    """Return the marker named by the type argument of ``Array[...]`` (None: unknown)."""
    proper = get_proper_type(arg)
    if isinstance(proper, Instance):
        return marker_of(proper.type)
    return None  # Any, a type variable, anything else: unknown


# NumPy's scalar types: classes of their own, or generic classes whose type
# arguments give the number of bits (``floating[_32Bit]`` is ``np.float32``).
_NUMPY_CLASSES: Final = {
    "numpy.bool": "bool_",
    "numpy.float64": "float64",
    "numpy.complex128": "complex128",
}
_NUMPY_SIZED: Final = {
    "numpy.signedinteger": "int",
    "numpy.unsignedinteger": "uint",
    "numpy.floating": "float",
    "numpy.complexfloating": "complex",
}
_NBIT_PREFIX: Final = "numpy._typing._nbit_base._"


def _bits(arg: Type) -> int | None:
    proper = get_proper_type(arg)
    if isinstance(proper, Instance) and proper.type.fullname.startswith(_NBIT_PREFIX):
        digits = proper.type.fullname[len(_NBIT_PREFIX) :].removesuffix("Bit")
        return int(digits) if digits.isdigit() else None
    return None


def numpy_scalar(inst: Instance) -> str | None:
    """Return the marker of a NumPy scalar type (``np.float32``), ``None`` if not known."""
    for base in inst.type.mro:
        found = _NUMPY_CLASSES.get(base.fullname)
        if found is not None:
            return found
        kind = _NUMPY_SIZED.get(base.fullname)
        if kind is not None:
            sized = map_instance_to_supertype(inst, base)
            bits = [_bits(a) for a in sized.args]
            if not bits or None in bits:
                return None
            total = sum(b for b in bits if b is not None) if kind == "complex" else bits[0]
            name = f"{kind}{total}"
            return name if name in BY_NAME else None
        if base.fullname == names.NUMPY_GENERIC:
            return None
    return None


def _numpy_dtype_scalar(arg: Type) -> str | None:
    """Return the marker of ``np.dtype[X]``'s ``X``."""
    proper = get_proper_type(arg)
    if isinstance(proper, Instance):
        return numpy_scalar(proper)
    return None


def classify(typ: ProperType) -> Operand | None:
    """Return the operand ``typ`` (not a union) stands for, or ``None`` if it is not one."""
    if isinstance(typ, LiteralType):
        return _classify_instance(typ, typ.fallback)
    if isinstance(typ, Instance):
        return _classify_instance(typ, typ)
    return None


def _classify_instance(original: ProperType, inst: Instance) -> Operand | None:
    info = inst.type
    array = array_class(info)
    if array is info:  # Array itself: its own type argument
        name = _dtype_argument(inst.args[0]) if inst.args else None
        return Operand(original, name, info, True)
    if array is not None:
        base = map_instance_to_supertype(inst, array)
        name = _dtype_argument(base.args[0]) if base.args else None
        return Operand(original, name, array, True)
    if info.fullname.startswith("builtins."):
        kind = names.BUILTIN_SCALARS.get(info.fullname)
        return None if kind is None else Operand(original, kind, None, False)
    ndarray = base_of(info, names.NUMPY_NDARRAY)
    if ndarray is not None:
        mapped = map_instance_to_supertype(inst, ndarray)
        name = None
        if len(mapped.args) == 2:
            dtype = get_proper_type(mapped.args[1])
            if isinstance(dtype, Instance) and dtype.type.fullname == names.NUMPY_DTYPE:
                name = _numpy_dtype_scalar(dtype.args[0]) if dtype.args else None
        return Operand(original, name, None, True)
    if base_of(info, names.NUMPY_GENERIC) is not None:
        return Operand(original, numpy_scalar(inst), None, False)
    for fullname, kind in names.BUILTIN_SCALARS.items():  # subclasses (IntEnum, …)
        if base_of(info, fullname) is not None:
            return Operand(original, kind, None, False)
    return None


def dtype_token(typ: Type) -> object | None:
    """Return the run-time dtype-like a static dtype-like stands for, or ``None``.

    The result is what ``typing_pkg.dtypelike.to_marker`` accepts at run time:
    a marker class, a string, or a Python scalar type.
    """
    proper = get_proper_type(typ)
    if isinstance(proper, Overloaded) and proper.is_type_obj():
        proper = proper.items[0]  # a class whose constructor is overloaded (int, np.float32)
    if isinstance(proper, CallableType) and proper.is_type_obj():
        made = get_proper_type(proper.ret_type)
        if isinstance(made, Instance) and made.type.fullname.startswith("numpy."):
            found = numpy_scalar(made)  # np.float32 is floating[_32Bit]
            return None if found is None else BY_NAME[found]
        return _class_token(proper.type_object())
    if isinstance(proper, TypeType):
        item = proper.item
        if isinstance(item, Instance):
            if item.type.fullname.startswith("numpy."):
                found = numpy_scalar(item)
                return None if found is None else BY_NAME[found]
            return _class_token(item.type)
        return None
    if isinstance(proper, LiteralType) and isinstance(proper.value, str):
        return proper.value
    if isinstance(proper, Instance):
        if proper.last_known_value is not None and isinstance(proper.last_known_value.value, str):
            return proper.last_known_value.value
        if proper.type.fullname == names.NUMPY_DTYPE and proper.args:
            found = _numpy_dtype_scalar(proper.args[0])
            return None if found is None else BY_NAME[found]
        operand = classify(proper)
        if operand is not None and operand.is_array and operand.name is not None:
            return BY_NAME[operand.name]  # anything with a .dtype: an array
    return None


_PY_TYPES: Final = {
    "builtins.bool": bool,
    "builtins.int": int,
    "builtins.float": float,
    "builtins.complex": complex,
}


def _class_token(info: TypeInfo) -> object | None:
    python = _PY_TYPES.get(info.fullname)
    if python is not None:
        return python
    if info.fullname.startswith("numpy."):
        return None  # a NumPy class used without its bit width (np.floating)
    if base_of(info, names.DTYPE_ROOT) is not None:
        marker = marker_of(info)
        return None if marker is None else BY_NAME[marker]
    return None


def marker_type(lookup: Lookup, name: str) -> Instance | None:
    """Return the marker class ``name`` as a type, ``None`` if the build does not define it."""
    node = lookup(f"{names.DTYPES_MODULE}.{name}")
    if node is not None and isinstance(node.node, TypeInfo):
        return Instance(node.node, [])
    return None


def any_array(array: TypeInfo) -> Instance:
    """Return ``Array[Any]`` (of the class ``array``)."""
    return array_of(array, AnyType(TypeOfAny.special_form))


def array_of(array: TypeInfo, dtype: Type, *, line: int = -1, column: int = -1) -> Instance:
    """Return ``array[dtype]``: ``Array[float32]``, ``InferredArray[float32, Any]``.

    ``InferredArray``'s second argument is an ``Any`` that is no special form:
    mypy's overload resolution then sees an ``Any`` in the value, as it sees
    the ``Any`` mypy alone gives it (``typing_pkg.typing.InferredArray``).
    """
    extra = [AnyType(TypeOfAny.implementation_artifact)] * (len(array.type_vars) - 1)
    return Instance(array, [dtype, *extra], line=line, column=column)
