"""Keyed dicts: a ``dict`` type that knows the type of each key the program wrote.

The representation only (``mypy_plugin.pytrees`` says where keyed dicts are
made and read): the keys' types ride on the dict's ``Instance`` as mypy's
``extra_attrs``, under names no attribute can have (``['embed']``).  mypy
keeps them through copies, its cache and type translations, compares them in
type equality (so that a memo of specialisations tells two keyed dicts
apart), and drops them where it joins two types.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from mypy.subtypes import is_same_type
from mypy.types import AnyType, ExtraAttrs, Instance, Type, TypeOfAny, get_proper_type

__all__ = ["DICT", "items_of", "uniform", "with_items", "without_items"]

DICT: Final = "builtins.dict"


def _attribute(key: str) -> str:
    return f"[{key}]"


def items_of(typ: Type) -> dict[str, Type] | None:
    """The keys a keyed dict's type knows, with their types (``None``: not a keyed dict)."""
    proper = get_proper_type(typ)
    if (
        not isinstance(proper, Instance)
        or proper.extra_attrs is None
        or proper.type.fullname != DICT
    ):
        return None
    found = {
        name[1:-1]: typ
        for name, typ in proper.extra_attrs.attrs.items()
        if name.startswith("[") and name.endswith("]")
    }
    return found or None


def with_items(typ: Instance, items: Mapping[str, Type]) -> Instance:
    """``typ`` (a ``dict``) with these keys' types."""
    made = typ.copy_modified()
    made.extra_attrs = ExtraAttrs({_attribute(k): t for k, t in items.items()}, set(), None)
    return made


def without_items(typ: Type) -> Type:
    """``typ`` without the keys' types of a keyed dict (others unchanged)."""
    proper = get_proper_type(typ)
    if items_of(proper) is None or not isinstance(proper, Instance):
        return typ
    made = proper.copy_modified()
    made.extra_attrs = None
    return made


def uniform(types: list[Type]) -> Type:
    """The value type of a dict holding values of these types: theirs when they are one
    type, else ``Any`` (mypy's join would be ``object``, refusing what any value allows)."""
    if types and all(is_same_type(t, types[0]) for t in types[1:]):
        return types[0]
    return AnyType(TypeOfAny.special_form)
