"""How a call's arguments reach a function's parameters, for a specialised check.

``expand_arguments`` gives each formal the types it receives (``f(*t)`` with a
tuple ``t`` passes its items), ``argument_type`` what a parameter is narrowed
to for one of them, ``default_type`` the type of a literal default a call
leaves to itself (``eps=1e-5``).
"""

from __future__ import annotations

from mypy.erasetype import remove_instance_last_known_values
from mypy.nodes import ARG_POS, ARG_STAR, ARG_STAR2, ArgKind, Expression, NameExpr
from mypy.plugin import CheckerPluginInterface
from mypy.types import CallableType, Instance, TupleType, Type, UnpackType, get_proper_type

from mypy_plugin import mypy_internals as internals
from mypy_plugin.program_facts import literal_value

__all__ = ["argument_type", "default_type", "expand_arguments"]


def default_type(api: CheckerPluginInterface, default: Expression | None) -> Type | None:
    """The type of a literal default value (``eps=1e-5`` is a ``float``), else ``None``."""
    value = None if default is None else literal_value(default)
    if isinstance(value, bool) or value is None:
        if isinstance(default, NameExpr) and default.fullname in (
            "builtins.True",
            "builtins.False",
        ):
            return internals.named_type(api, "builtins.bool")
        return None
    return internals.named_type(api, "builtins.int" if isinstance(value, int) else "builtins.float")


def argument_type(typ: Type) -> Type:
    """A parameter's type for an argument: literal Python numbers stay literal (``8 ** 0.5`` is a
    ``float`` only for a base mypy knows is positive), other literal values are forgotten."""
    proper = get_proper_type(typ)
    if (
        isinstance(proper, Instance)
        and proper.last_known_value is not None
        and proper.type.fullname in ("builtins.int", "builtins.float")
    ):
        return typ
    return remove_instance_last_known_values(typ)


def expand_arguments(
    arg_types: list[list[Type]],
    arg_kinds: list[list[ArgKind]] | None,
    arg_exprs: list[list[Expression]] | None,
    callee: CallableType,
) -> list[list[Type] | None]:
    """The types each formal receives: ``*t`` gives its tuple's items (``None``: unknown)."""
    taken: dict[int, int] = {}
    found: list[list[Type] | None] = []
    for i, actuals in enumerate(arg_types):
        kinds = arg_kinds[i] if arg_kinds is not None else [ARG_POS] * len(actuals)
        exprs: list[Expression | None] = (
            list(arg_exprs[i]) if arg_exprs is not None else [None] * len(actuals)
        )
        star_formal = callee.arg_kinds[i] == ARG_STAR
        types: list[Type] | None = []
        for typ, kind, expr in zip(actuals, kinds, exprs, strict=False):
            assert types is not None
            if kind == ARG_STAR2:
                types = None
                break
            if kind != ARG_STAR:
                types.append(typ)
                continue
            proper = get_proper_type(typ)
            if not isinstance(proper, TupleType) or expr is None:
                types = None
                break
            start = taken.get(id(expr), 0)
            items = proper.items[start:] if star_formal else proper.items[start : start + 1]
            if not items or any(isinstance(get_proper_type(t), UnpackType) for t in items):
                types = None
                break
            taken[id(expr)] = start + len(items)
            types.extend(items)
        found.append(types)
    return found
