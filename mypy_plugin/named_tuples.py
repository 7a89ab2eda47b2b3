"""The program's NamedTuples keep the dtypes they are built with (``State(w=x_bf16).w``).

JAX programs keep parameters and states in NamedTuples whose fields are
declared ``jax.Array``, a category (``Float[Array, "n"]``) or ``Any``: mypy
types ``State(w, b).w`` as the declaration says, and the dtype the program
gave the field is lost.  mypy types a NamedTuple value as a tuple of its
fields' types with the class as fallback (``tuple[Array[Any], int,
fallback=State]``), and those items are the value's own: the plugin narrows
them.

* ``State(…)``, built with an argument of known dtype for a field whose
  declaration leaves the dtype open: the field's item is the argument's type,
  where it differs from the declaration by dtypes only (a field declared
  ``ArrayTree | None`` keeps its declaration: the name a value is bound to
  must take a later value of the declared type, ``graph =
  pad_with_graphs(graph)``).
* ``s.w`` reads the item (``s[0]`` already does); ``jax.tree.map`` maps the
  items (``mypy_plugin.transforms``); a value passed to an unannotated
  parameter keeps them (``mypy_plugin.inference``).
* ``s._replace(w=…)``: the replaced fields take their new values' types, the
  others keep theirs.

Dataclasses (``flax.struct``, ``equinox.Module``) are not narrowed so: a
value of a class that is not generic has no item of its own, and mypy joins
two values of one class (after an ``if``, in a list) to one of them whatever
their fields' dtypes, where two tuples of other items join to a wider tuple.
"""

from __future__ import annotations

from collections.abc import Sequence

from mypy.nodes import ARG_NAMED, ARG_POS, MemberExpr, TypeInfo
from mypy.plugin import AttributeContext, FunctionContext, MethodContext
from mypy.subtypes import is_subtype
from mypy.types import AnyType, Instance, TupleType, Type, get_proper_type

from mypy_plugin.program_types import has_unknown_array
from mypy_plugin.types import classify

__all__ = ["constructed", "field_item", "fields_of", "replaced"]


def fields_of(info: TypeInfo) -> list[str] | None:
    """The fields of a NamedTuple class, in order (``None``: not a NamedTuple)."""
    found = info.metadata.get("namedtuple")
    if not isinstance(found, dict):
        return None
    fields = found.get("fields")
    return list(fields) if isinstance(fields, list) else None


def _value(typ: Type) -> tuple[TupleType, list[str]] | None:
    """A NamedTuple value's tuple type and its fields."""
    proper = get_proper_type(typ)
    if not isinstance(proper, TupleType):
        return None
    fields = fields_of(proper.partial_fallback.type)
    if fields is None or len(fields) != len(proper.items):
        return None
    return proper, fields


def _narrowed(declared: Type, given: Type | None) -> Type:
    """A field declared ``declared`` given ``given``: ``given`` where the declaration is an
    array whose dtype it leaves open (``jax.Array``, ``Float[Array, "n"]``) or ``Any``, and
    ``given`` an array of known dtype it accepts; else the declaration (a wider one,
    ``ArrayTree | None``, stays: the name a value is bound to must take a later value of
    the declared type)."""
    if given is None or not is_subtype(given, declared):
        return declared
    told = _array_dtype(given)
    if told is None:
        return declared
    wanted = get_proper_type(declared)
    if isinstance(wanted, AnyType):
        return given
    operand = classify(wanted)
    if operand is not None and operand.is_array and has_unknown_array(wanted):
        return given
    return declared


def _array_dtype(typ: Type) -> str | None:
    """The dtype of an array of ours (or NumPy's) of one known dtype, else ``None``."""
    proper = get_proper_type(typ)
    if not isinstance(proper, Instance):
        return None
    operand = classify(proper)
    return operand.name if operand is not None and operand.is_array else None


def _given(
    names: Sequence[str | None],
    types: Sequence[Sequence[Type]],
    kinds: Sequence[Sequence[object]],
    fields: Sequence[str],
) -> dict[str, Type | None]:
    """Each field a call gives a value, with its type (``None``: one that cannot be read)."""
    found: dict[str, Type | None] = {}
    for name, actuals, actual_kinds in zip(names, types, kinds, strict=False):
        if name is None or name not in fields or not actuals:
            continue
        one = len(actuals) == 1 and actual_kinds[0] in (ARG_POS, ARG_NAMED)
        found[name] = actuals[0] if one else None
    return found


def _declared(made: TupleType) -> list[Type]:
    """The items as the class declares them."""
    declared = made.partial_fallback.type.tuple_type
    if isinstance(declared, TupleType) and len(declared.items) == len(made.items):
        return list(declared.items)
    return list(made.items)


def constructed(ctx: FunctionContext) -> Type | None:
    """``State(…)`` of a NamedTuple of the program: its items narrowed to the arguments
    (``None``: not such a call, or nothing to narrow)."""
    found = _value(ctx.default_return_type)
    if found is None:
        return None
    made, fields = found
    items = list(made.items)
    given = _given(ctx.callee_arg_names, ctx.arg_types, ctx.arg_kinds, fields)
    for name, typ in given.items():
        index = fields.index(name)
        items[index] = _narrowed(items[index], typ)
    if all(a is b for a, b in zip(items, made.items, strict=True)):
        return None
    return made.copy_modified(items=items)


def field_item(ctx: AttributeContext) -> Type:
    """``s.w`` of a NamedTuple value: its item (the type it was built with)."""
    default = ctx.default_attr_type
    context = ctx.context
    found = _value(ctx.type)
    if ctx.is_lvalue or found is None or not isinstance(context, MemberExpr):
        return default
    made, fields = found
    if context.name not in fields:
        return default
    item = made.items[fields.index(context.name)]
    return item if is_subtype(item, default) else default


def replaced(ctx: MethodContext) -> Type:
    """``s._replace(w=…)``: the replaced fields' items from the new values, the others kept."""
    default = ctx.default_return_type
    found = _value(ctx.type)
    if found is None or _value(default) is None:
        return default
    made, fields = found
    declared = _declared(made)
    items = list(made.items)
    given = _given(ctx.callee_arg_names, ctx.arg_types, ctx.arg_kinds, fields)
    for name, typ in given.items():
        index = fields.index(name)
        items[index] = _narrowed(declared[index], typ)
    return made.copy_modified(items=items)
